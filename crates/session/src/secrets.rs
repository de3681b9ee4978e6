//! Which values are secrets: the ones agentctl loads to authenticate — provider keys, header
//! values, the `${VAR}` values MCP configurations expand — and every environment variable whose
//! name looks secret (`*KEY*`, `*SECRET*`, `*TOKEN*`, `*PASSWORD*`, `*CREDENTIAL*`). The
//! [`Redactor`] built from them masks these values in tool results, cassettes, session rows and
//! error messages.

use agentctl_core::{AgentDefinition, McpServerConfig, Redactor, Settings};
use agentctl_sandbox::EnvPolicy;
use std::collections::BTreeSet;
use std::ffi::OsString;

/// The secrets of `settings` and `agents` (their inline MCP servers), with values from `env`.
///
/// ```
/// use agentctl_core::Settings;
/// use agentctl_session::secrets_of;
///
/// let env = [("OPENAI_API_KEY".into(), "sk-test-123456".into()), ("HOME".into(), "/home/ann".into())];
/// let redactor = secrets_of(&Settings::default(), &[], env);
/// assert_eq!(redactor.redact("key sk-test-123456 in /home/ann"), "key [REDACTED] in /home/ann");
/// ```
pub fn secrets_of(
    settings: &Settings,
    agents: &[AgentDefinition],
    env: impl IntoIterator<Item = (OsString, OsString)>,
) -> Redactor {
    let env: Vec<(String, String)> = env
        .into_iter()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    let mut names: BTreeSet<String> = env
        .iter()
        .filter(|(name, _)| EnvPolicy::looks_secret(name.as_ref()))
        .map(|(name, _)| name.clone())
        .collect();
    let mut literal = Vec::new();
    for provider in settings.providers.values() {
        names.extend(provider.api_key_env.iter().cloned());
        literal.extend(provider.headers.values().cloned());
    }
    let servers = settings.mcp_servers.values().chain(
        agents
            .iter()
            .flat_map(|agent| agent.spec.mcp.inline.values()),
    );
    for server in servers {
        names.extend(referenced_variables(server));
        literal.extend(server.headers.values().cloned());
        literal.extend(
            server
                .env
                .iter()
                .filter(|(name, _)| EnvPolicy::looks_secret(name.as_ref()))
                .map(|(_, value)| value.clone()),
        );
    }
    let values = env
        .into_iter()
        .filter(|(name, _)| names.contains(name))
        .map(|(_, value)| value);
    // Literal values that are `${VAR}` references were resolved above.
    Redactor::new(values.chain(literal.into_iter().filter(|value| !value.contains("${"))))
}

/// The `VAR`s of every `${VAR}` in a server's configuration.
fn referenced_variables(server: &McpServerConfig) -> Vec<String> {
    let texts = server
        .args
        .iter()
        .chain(server.env.values())
        .chain(server.headers.values())
        .chain(server.command.iter())
        .chain(server.url.iter())
        .chain(server.http_url.iter())
        .chain(server.cwd.iter());
    let mut names = Vec::new();
    for text in texts {
        let mut rest = text.as_str();
        while let Some(start) = rest.find("${") {
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else { break };
            // `${VAR:-default}` names VAR.
            let name = after[..end].split(":-").next().unwrap_or_default();
            if !name.is_empty() {
                names.push(name.to_owned());
            }
            rest = &after[end + 1..];
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_references_provider_key_names_and_headers_are_secrets() {
        let mut settings = Settings::default();
        let server = McpServerConfig {
            command: Some("npx".into()),
            env: [("GH".to_owned(), "${GH_PAT}".to_owned())].into(),
            headers: [("X-Api".to_owned(), "literal-header-secret".to_owned())].into(),
            ..McpServerConfig::default()
        };
        settings.mcp_servers.insert("github".into(), server);
        let env = [
            ("GH_PAT".into(), "ghp_0123456789".into()),
            ("PLAIN".into(), "not-a-secret-value".into()),
        ];
        let redactor = secrets_of(&settings, &[], env);
        assert_eq!(
            redactor.redact("ghp_0123456789 literal-header-secret not-a-secret-value"),
            "[REDACTED] [REDACTED] not-a-secret-value"
        );
    }
}

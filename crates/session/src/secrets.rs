//! Which names and values are secrets — one source for both uses:
//!
//! - **Names** ([`consumed_secret_names`], [`env_policy_of`]): the variables agentctl reads as
//!   credentials under the settings and agents — providers' `apiKeyEnv`, `web.search.apiKeyEnv`,
//!   the `${VAR}`s of MCP configurations — on top of the ones it always reads
//!   ([`EnvPolicy::is_agentctl_secret`]: the database URL with `PGUSER` / `PGPASSWORD`, the
//!   exporter headers, the built-in providers' keys). No command, server or validator agentctl
//!   starts gets them, whatever `env.passthrough` says (the other `PG*` variables and
//!   `DATABASE_URL` are withheld unless passed through).
//! - **Values** ([`secrets_of`]): what those variables hold, the passwords of database URLs,
//!   the exporter's header values, header literals of the settings, and every environment
//!   variable whose name looks secret (`*KEY*`, `*SECRET*`, `*TOKEN*`, `*PASSWORD*`,
//!   `*CREDENTIAL*`). The [`Redactor`] built from them masks these values in tool results,
//!   cassettes, session rows, traces and error messages.

use agentctl_core::{AgentDefinition, McpServerConfig, Redactor, Settings};
use agentctl_mcp::{LaunchPolicy, McpManager};
use agentctl_sandbox::EnvPolicy;
use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The variables whose values are database URLs agentctl may connect with.
const DATABASE_URL_VARS: [&str; 2] = ["AGENTCTL_DATABASE_URL", "DATABASE_URL"];

/// The names of the variables `settings` and `agents` (their inline MCP servers) make agentctl
/// read as credentials: providers' `apiKeyEnv`, `web.search.apiKeyEnv` and every `${VAR}` an
/// MCP configuration references (minus [ordinary](EnvPolicy::is_ordinary) ones such as
/// `${HOME}`). The names agentctl reads whatever the settings say are
/// [`EnvPolicy::is_agentctl_secret`]'s.
///
/// ```
/// use agentctl_core::{ProviderConfig, Settings};
/// use agentctl_session::consumed_secret_names;
///
/// let mut settings = Settings::default();
/// let brave = ProviderConfig { api_key_env: Some("BRAVE".into()), ..ProviderConfig::default() };
/// settings.providers.insert("brave".into(), brave);
/// assert!(consumed_secret_names(&settings, &[]).contains("BRAVE"));
/// ```
pub fn consumed_secret_names(settings: &Settings, agents: &[AgentDefinition]) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = settings
        .providers
        .values()
        .filter_map(|provider| provider.api_key_env.clone())
        .collect();
    names.extend(settings.web.search.api_key_env.iter().cloned());
    for server in servers_of(settings, agents) {
        names.extend(referenced_variables(server));
    }
    names.retain(|name| !EnvPolicy::is_ordinary(OsStr::new(name)));
    names
}

/// The environment policy of every process agentctl starts for `settings` and `agents` —
/// `bash` commands, MCP stdio servers, `command:` validators: `env.passthrough`, withholding
/// the [consumed secrets](consumed_secret_names) whatever it says.
///
/// ```
/// use agentctl_core::{McpServerConfig, Settings};
/// use agentctl_session::env_policy_of;
///
/// let mut settings = Settings::default();
/// settings.env.passthrough = vec!["GITHUB_PAT".into(), "AWS_PROFILE".into()];
/// let github = McpServerConfig {
///     url: Some("https://api.example/mcp".into()),
///     headers: [("Authorization".into(), "Bearer ${GITHUB_PAT}".into())].into(),
///     ..McpServerConfig::default()
/// };
/// settings.mcp_servers.insert("github".into(), github);
/// let base = [("PATH", "/bin"), ("GITHUB_PAT", "ghp-1"), ("AWS_PROFILE", "dev")];
/// let names: Vec<_> = env_policy_of(&settings, &[]).for_command(base).into_iter().map(|(n, _)| n).collect();
/// assert_eq!(names, ["PATH", "AWS_PROFILE"]);
/// ```
pub fn env_policy_of(settings: &Settings, agents: &[AgentDefinition]) -> EnvPolicy {
    EnvPolicy::from_settings(&settings.env).withholding(consumed_secret_names(settings, agents))
}

/// The MCP servers of `settings`, their stdio servers started with
/// [`env_policy_of`]`(settings, agents)` and, when `sandbox.mcpServers` is on, in the sandbox.
/// Every front end that starts servers builds its manager here, so that no server inherits a
/// secret agentctl consumes.
pub fn mcp_manager_of(settings: &Settings, agents: &[AgentDefinition], root: &Path) -> McpManager {
    let launch = LaunchPolicy {
        env: env_policy_of(settings, agents),
        ..LaunchPolicy::from_settings(settings)
    };
    McpManager::with_launch(settings.mcp_servers.clone(), root, launch)
}

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
    let consumed = consumed_secret_names(settings, agents);
    let mut values = Vec::new();
    for (name, value) in &env {
        if DATABASE_URL_VARS.contains(&name.as_str()) {
            // The URL itself names the store in messages: only its password is secret.
            values.extend(url_passwords(value));
        } else if is_exporter_headers(name) {
            values.push(value.clone());
            values.extend(header_values(value));
        } else if consumed.contains(name) || EnvPolicy::looks_secret(name.as_ref()) {
            values.push(value.clone());
        }
    }
    values.extend(settings.store.url.iter().flat_map(|url| url_passwords(url)));
    let mut literal = Vec::new();
    for provider in settings.providers.values() {
        literal.extend(provider.headers.values().cloned());
    }
    for server in servers_of(settings, agents) {
        literal.extend(server.headers.values().cloned());
        literal.extend(
            server
                .env
                .iter()
                .filter(|(name, _)| EnvPolicy::looks_secret(name.as_ref()))
                .map(|(_, value)| value.clone()),
        );
    }
    // Literal values that are `${VAR}` references were resolved above.
    Redactor::new(
        values
            .into_iter()
            .chain(literal.into_iter().filter(|value| !value.contains("${"))),
    )
}

/// The MCP servers of the settings and the agents' inline ones.
fn servers_of<'a>(
    settings: &'a Settings,
    agents: &'a [AgentDefinition],
) -> impl Iterator<Item = &'a McpServerConfig> {
    settings.mcp_servers.values().chain(
        agents
            .iter()
            .flat_map(|agent| agent.spec.mcp.inline.values()),
    )
}

/// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TRACES_HEADERS` and the like.
fn is_exporter_headers(name: &str) -> bool {
    name.starts_with("OTEL_EXPORTER_OTLP_") && name.ends_with("HEADERS")
}

/// The values of an OTLP headers variable (`key1=value1,key2=value2`, values URL-encoded), as
/// written and decoded.
fn header_values(text: &str) -> Vec<String> {
    let mut values = Vec::new();
    for pair in text.split(',') {
        if let Some((_, value)) = pair.split_once('=') {
            let value = value.trim();
            values.push(value.to_owned());
            values.push(percent_decoded(value));
        }
    }
    values
}

/// The passwords a database URL holds — its user info's and a `password=` parameter's — as
/// written and decoded, so a store can mask them wherever they might be echoed.
pub(crate) fn url_passwords(url: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Some(scheme_end) = url.find("://") else {
        return found;
    };
    let rest = &url[scheme_end + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if let Some(at) = authority.rfind('@')
        && let Some((_, password)) = authority[..at].split_once(':')
    {
        found.push(password.to_owned());
    }
    if let Some((_, query)) = rest.split_once('?') {
        let query = query.split('#').next().unwrap_or_default();
        found.extend(
            query
                .split('&')
                .filter_map(|pair| pair.split_once('='))
                .filter(|(key, _)| key.eq_ignore_ascii_case("password"))
                .map(|(_, value)| value.to_owned()),
        );
    }
    let decoded: Vec<String> = found.iter().map(|value| percent_decoded(value)).collect();
    found.extend(decoded);
    found.retain(|password| !password.is_empty());
    found.dedup();
    found
}

/// `text` with `%XX` escapes decoded (invalid ones and non-UTF-8 results left as written).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| bytes.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                index += 3;
            }
            None => {
                out.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
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
    use agentctl_core::ProviderConfig;

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

    #[test]
    fn names_and_values_come_from_one_list() {
        let mut settings = Settings::default();
        settings.providers.insert(
            "custom".into(),
            ProviderConfig {
                api_key_env: Some("BRAVE".into()),
                ..ProviderConfig::default()
            },
        );
        settings.web.search.api_key_env = Some("SEARCH_ME".into());
        settings.mcp_servers.insert(
            "files".into(),
            McpServerConfig {
                command: Some("server".into()),
                args: vec!["--root".into(), "${HOME}/work".into(), "${LC_ALL}".into()],
                env: [("AUTH".to_owned(), "${FILES_AUTH:-none}".to_owned())].into(),
                ..McpServerConfig::default()
            },
        );
        let names = consumed_secret_names(&settings, &[]);
        assert_eq!(
            names.iter().map(String::as_str).collect::<Vec<_>>(),
            ["BRAVE", "FILES_AUTH", "SEARCH_ME"]
        );
        let env = [
            ("BRAVE", "bsa-value-1"),
            ("SEARCH_ME", "search-value-2"),
            ("FILES_AUTH", "files-value-3"),
            ("HOME", "/home/someone"),
            ("PGHOST", "db.internal"),
            ("PGPASSWORD", "pg-password-4"),
            (
                "AGENTCTL_DATABASE_URL",
                "postgres://me:url%40pass@db/agents",
            ),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "authorization=Bearer%20otel-token-5,x-team=ops",
            ),
        ]
        .map(|(name, value)| (OsString::from(name), OsString::from(value)));
        let redactor = secrets_of(&settings, &[], env);
        let text = "bsa-value-1 search-value-2 files-value-3 /home/someone db.internal \
                    pg-password-4 url@pass url%40pass Bearer otel-token-5 postgres://me:***@db/agents";
        assert_eq!(
            redactor.redact(text),
            "[REDACTED] [REDACTED] [REDACTED] /home/someone db.internal [REDACTED] [REDACTED] \
             [REDACTED] [REDACTED] postgres://me:***@db/agents"
        );
        let policy = env_policy_of(&settings, &[]);
        for name in ["BRAVE", "SEARCH_ME", "FILES_AUTH", "PGPASSWORD"] {
            assert!(policy.withholds(OsStr::new(name)), "{name}");
        }
        assert!(!policy.withholds(OsStr::new("HOME")));
        // A connection variable agentctl does not read is only withheld by default.
        assert!(!policy.withholds(OsStr::new("PGHOST")));
    }

    #[test]
    fn url_passwords_of_user_info_and_parameters() {
        assert_eq!(url_passwords("postgres://u:hunter22@h/d"), ["hunter22"]);
        assert_eq!(url_passwords("postgres://u@h/d"), Vec::<String>::new());
        assert_eq!(
            url_passwords("postgres://h/d?sslmode=require&password=p%2Fw#x"),
            ["p%2Fw", "p/w"]
        );
        assert_eq!(url_passwords("/plain/path.db"), Vec::<String>::new());
        assert_eq!(percent_decoded("%zz%4"), "%zz%4");
        assert_eq!(percent_decoded("%ff"), "%ff");
    }
}

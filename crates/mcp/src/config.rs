//! Resolving a server's settings entry into something that can be started: `${VAR}` expansion
//! and the choice of transport.

use crate::error::{McpError, Result};
use agentctl_core::McpServerConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Timeout of the startup (spawn, `initialize`, `tools/list`) and of every request when the
/// configuration sets none. Claude Code's default tool timeout is far longer; a minute keeps a
/// stuck server from stalling a run for long, and leaves `npx` time to fetch a package.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportSpec {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        /// Program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment.
        env: BTreeMap<String, String>,
        /// Working directory (default: the manager's working directory).
        cwd: Option<PathBuf>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
}

impl TransportSpec {
    /// `stdio` or `http`.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportSpec::Stdio { .. } => "stdio",
            TransportSpec::Http { .. } => "http",
        }
    }
}

/// A server entry with every `${VAR}` expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// Name the server is configured under.
    pub name: String,
    /// How to reach it.
    pub transport: TransportSpec,
    /// Timeout of the startup and of every request: the entry's `timeout` (milliseconds), else
    /// [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// Trusted servers' tools get a risk one level lower.
    pub trust: bool,
    /// Only these tools are exposed (`None`: all).
    pub include_tools: Option<Vec<String>>,
    /// These tools are never exposed.
    pub exclude_tools: Vec<String>,
}

impl ServerSpec {
    /// Time allowed for starting the server, the handshake and its tool list: the configured
    /// `timeout` as written (as Gemini CLI does), so a server that never answers fails after
    /// the limit its user chose. A server that needs longer to start than to answer a call
    /// (`npx` fetching a package) needs a `timeout` that covers its start.
    pub fn startup_timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether `includeTools` / `excludeTools` let a tool through.
    pub fn exposes(&self, tool: &str) -> bool {
        let included = self
            .include_tools
            .as_ref()
            .is_none_or(|list| list.iter().any(|name| name == tool));
        included && !self.exclude_tools.iter().any(|name| name == tool)
    }
}

/// Resolves a configuration entry, expanding `${VAR}` and `${VAR:-default}` from the process
/// environment in `command`, `args`, `env`, `cwd`, `url`/`httpUrl` and `headers`.
///
/// A relative `cwd` is resolved against `base_dir`.
///
/// ```
/// use agentctl_core::McpServerConfig;
/// let config = McpServerConfig {
///     command: Some("npx".into()),
///     args: vec!["-y".into(), "${AGENTCTL_DOC_UNSET_VAR:-server}".into()],
///     ..Default::default()
/// };
/// let spec = agentctl_mcp::resolve_server("files", &config, std::path::Path::new(".")).unwrap();
/// assert_eq!(spec.transport.kind(), "stdio");
/// ```
pub fn resolve_server(name: &str, config: &McpServerConfig, base_dir: &Path) -> Result<ServerSpec> {
    resolve_with(name, config, base_dir, &|var| std::env::var(var).ok())
}

/// [`resolve_server`] with an explicit variable lookup (tests).
pub(crate) fn resolve_with(
    name: &str,
    config: &McpServerConfig,
    base_dir: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerSpec> {
    let expand = |field: &str, value: &str| expand_vars(name, field, value, lookup);
    let kind = config.transport.as_deref().map(str::to_ascii_lowercase);
    let url = config.http_url.as_ref().or(config.url.as_ref());
    let transport = match (&config.command, url) {
        (Some(command), _) if kind.as_deref().is_none_or(|kind| kind == "stdio") => {
            let args = config
                .args
                .iter()
                .enumerate()
                .map(|(index, arg)| expand(&format!("args[{index}]"), arg))
                .collect::<Result<Vec<_>>>()?;
            let env = config
                .env
                .iter()
                .map(|(key, value)| Ok((key.clone(), expand(&format!("env.{key}"), value)?)))
                .collect::<Result<BTreeMap<_, _>>>()?;
            let cwd = config
                .cwd
                .as_deref()
                .map(|cwd| expand("cwd", cwd).map(|cwd| base_dir.join(cwd)))
                .transpose()?;
            TransportSpec::Stdio {
                command: expand("command", command)?,
                args,
                env,
                cwd,
            }
        }
        (_, Some(url)) => {
            let headers = config
                .headers
                .iter()
                .map(|(key, value)| Ok((key.clone(), expand(&format!("headers.{key}"), value)?)))
                .collect::<Result<BTreeMap<_, _>>>()?;
            TransportSpec::Http {
                url: expand("url", url)?,
                headers,
            }
        }
        _ => {
            return Err(McpError::InvalidConfig {
                server: name.to_owned(),
                message: "set `command` (stdio) or `url` / `httpUrl` (HTTP)".into(),
            });
        }
    };
    Ok(ServerSpec {
        name: name.to_owned(),
        transport,
        timeout: config
            .timeout
            .filter(|millis| *millis > 0)
            .map_or(DEFAULT_TIMEOUT, Duration::from_millis),
        trust: config.trust,
        include_tools: config.include_tools.clone(),
        exclude_tools: config.exclude_tools.clone(),
    })
}

/// Expands `${VAR}` and `${VAR:-default}`; `$$` is not special and a `$` not followed by `{`
/// is kept as written.
fn expand_vars(
    server: &str,
    field: &str,
    value: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(McpError::InvalidConfig {
                server: server.to_owned(),
                message: format!("unclosed `${{` in `{field}`"),
            });
        };
        let body = &after[..end];
        let (variable, default) = match body.split_once(":-") {
            Some((variable, default)) => (variable, Some(default)),
            None => (body, None),
        };
        match (lookup(variable), default) {
            (Some(found), _) if !(found.is_empty() && default.is_some()) => out.push_str(&found),
            (_, Some(default)) => out.push_str(default),
            (Some(found), None) => out.push_str(&found),
            (None, None) => {
                return Err(McpError::MissingVariable {
                    server: server.to_owned(),
                    file: None,
                    field: field.to_owned(),
                    variable: variable.to_owned(),
                });
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(var: &str) -> Option<String> {
        match var {
            "TOKEN" => Some("s3cret".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    fn expand(value: &str) -> Result<String> {
        expand_vars("srv", "args[0]", value, &lookup)
    }

    #[test]
    fn expands_variables_and_defaults() {
        assert_eq!(expand("Bearer ${TOKEN}").unwrap(), "Bearer s3cret");
        assert_eq!(expand("${NOPE:-fallback}/x").unwrap(), "fallback/x");
        assert_eq!(expand("${EMPTY:-d}").unwrap(), "d");
        assert_eq!(expand("${EMPTY}").unwrap(), "");
        assert_eq!(
            expand("cost $5 ${TOKEN}${TOKEN}").unwrap(),
            "cost $5 s3crets3cret"
        );
    }

    #[test]
    fn missing_variable_names_server_field_and_variable() {
        let error = expand("${GITHUB_TOKEN}").unwrap_err();
        assert_eq!(
            error,
            McpError::MissingVariable {
                server: "srv".into(),
                file: None,
                field: "args[0]".into(),
                variable: "GITHUB_TOKEN".into()
            }
        );
        let message = error.to_string();
        assert!(
            message.contains("`srv`") && message.contains("GITHUB_TOKEN"),
            "{message}"
        );
    }

    #[test]
    fn chooses_transport_and_timeout() {
        let stdio = McpServerConfig {
            command: Some("node".into()),
            env: [("KEY".to_owned(), "${TOKEN}".to_owned())].into(),
            cwd: Some("sub".into()),
            timeout: Some(1500),
            ..Default::default()
        };
        let spec = resolve_with("a", &stdio, Path::new("/base"), &lookup).unwrap();
        assert_eq!(spec.timeout, Duration::from_millis(1500));
        let TransportSpec::Stdio { env, cwd, .. } = spec.transport else {
            panic!("expected stdio");
        };
        assert_eq!(env["KEY"], "s3cret");
        assert_eq!(cwd.unwrap(), Path::new("/base/sub"));

        let http = McpServerConfig {
            http_url: Some("https://example.test/mcp".into()),
            headers: [("Authorization".to_owned(), "Bearer ${TOKEN}".to_owned())].into(),
            ..Default::default()
        };
        let spec = resolve_with("b", &http, Path::new("."), &lookup).unwrap();
        assert_eq!(spec.timeout, DEFAULT_TIMEOUT);
        assert_eq!(
            spec.transport,
            TransportSpec::Http {
                url: "https://example.test/mcp".into(),
                headers: [("Authorization".to_owned(), "Bearer s3cret".to_owned())].into()
            }
        );
        let error = resolve_with("c", &McpServerConfig::default(), Path::new("."), &lookup);
        assert!(matches!(error, Err(McpError::InvalidConfig { .. })));
    }

    #[test]
    fn include_and_exclude_lists() {
        let mut spec = resolve_with(
            "a",
            &McpServerConfig {
                command: Some("x".into()),
                include_tools: Some(vec!["echo".into(), "add".into()]),
                exclude_tools: vec!["add".into()],
                ..Default::default()
            },
            Path::new("."),
            &lookup,
        )
        .unwrap();
        assert!(spec.exposes("echo") && !spec.exposes("add") && !spec.exposes("other"));
        spec.include_tools = None;
        assert!(spec.exposes("other"));
    }
}

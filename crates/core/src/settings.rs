//! Resolved settings: the result of layering `settings.json` files.

use crate::agent::{Scope, TracingBackend};
use crate::context_mode::ContextMode;
use crate::mcp::McpServerConfig;
use crate::serde_util::one_or_many;
use crate::trace::SpanKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::num::NonZeroU64;
use std::time::Duration;

mod sandbox;

pub use sandbox::{NetworkAccess, NetworkHost, PROTECTED_DIRS, SandboxMode, SandboxSettings};

/// Settings after every layer has been applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Agent behaviour defaults.
    pub agents: AgentsSettings,
    /// MCP servers by name, in Claude Code / Gemini CLI shape.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Model providers by name (`openai`, `anthropic`, or any compatible endpoint).
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Model aliases: `sonnet` → `anthropic:claude-sonnet-4-5`; overrides the built-in ones.
    pub aliases: BTreeMap<String, String>,
    /// Tool settings.
    pub tools: ToolsSettings,
    /// Approval policy.
    pub approvals: ApprovalSettings,
    /// OS confinement of what tools run.
    pub sandbox: SandboxSettings,
    /// Environment of the processes tools and MCP servers start.
    pub env: EnvSettings,
    /// Permission rules in Claude Code's shape (`Bash(npm test:*)`, `Read(./secrets/**)`):
    /// every layer's rules count, `deny` winning over `ask` over `allow`.
    pub permissions: PermissionSettings,
    /// Project instructions (`AGENTS.md` and the like).
    pub context: ContextSettings,
    /// The `web_fetch` and `web_search` tools.
    pub web: WebSettings,
    /// Where sessions are stored (left out of listings while unset).
    #[serde(skip_serializing_if = "StoreSettings::is_unset")]
    pub store: StoreSettings,
    /// Hooks in Claude Code's shape, by event (`PreToolUse`, `Stop`, … or Gemini CLI's
    /// `BeforeTool`, …): `[{matcher, hooks: [{type: "command", command, timeout}]}]`. The
    /// lists of every layer are concatenated, lowest layer first (a project's only once the
    /// project is trusted).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub hooks: serde_json::Map<String, serde_json::Value>,
    /// Where each group of [`hooks`](Self::hooks) was declared, by event, in order (the
    /// settings file, as the loader names its layer); not part of the file format.
    #[serde(skip)]
    #[schemars(skip)]
    pub hook_origins: BTreeMap<String, Vec<String>>,
}

/// `store.*` keys: where sessions, runs, state, checkpoints and traces are stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct StoreSettings {
    /// The session store: `postgres://USER@HOST:PORT/DATABASE` for a PostgreSQL database
    /// shared by several machines, `sqlite://PATH` or a plain path for a SQLite file (relative
    /// to the project root). Unset: the embedded `.agentctl/sessions.db`. The
    /// `AGENTCTL_DATABASE_URL` environment variable overrides it. Keep the password out of
    /// settings files: `PGPASSWORD` supplies it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl StoreSettings {
    /// True when nothing is set: the embedded store.
    pub fn is_unset(&self) -> bool {
        self.url.is_none()
    }
}

/// `agents.*` keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentsSettings {
    /// Context mode of agents whose file sets none.
    pub default_context_mode: ContextMode,
    /// Whether any agent may use the shared context.
    pub allow_shared_context: bool,
    /// How many of the main session's messages a shared agent is shown.
    pub shared_context_max_messages: u32,
    /// Whether requests are routed to agents by their triggers.
    pub auto_route: bool,
    /// Scope `agents create` writes to.
    pub default_scope: Scope,
    /// Whether sessions are persisted.
    pub context_persistence: bool,
    /// Whether a conversation without `--session`/`--new` continues the project's current
    /// session (the most recently active), so the main conversation and every isolated agent
    /// remember earlier invocations (seed 002 §3.3.2). `false`: each run starts a session.
    pub continue_session: bool,
    /// Tracing of runs: `true`/`false`, or `{enabled, backend, events, sampleRate,
    /// captureContent}`. An agent's `tracing:` overrides it field by field.
    pub tracing: TracingSettings,
    /// Model used when an agent names none (or says `inherit` at top level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    /// Agent that takes a prompt no trigger matched, when routing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_agent: Option<String>,
    /// Handoffs one run may make before it is stopped (default 8).
    pub max_handoffs: u32,
    /// Graph branches (fan-out branches, map instances) that run at once (default 4).
    pub max_parallel: u32,
    /// The "Orchestrator note" of the capability context: an instruction shown to agents that
    /// delegate with `task` and to every executor with its task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orchestrator_note: Option<String>,
}

impl Default for AgentsSettings {
    fn default() -> Self {
        Self {
            default_context_mode: ContextMode::Isolated,
            allow_shared_context: true,
            shared_context_max_messages: 100,
            auto_route: false,
            default_scope: Scope::Project,
            context_persistence: true,
            continue_session: true,
            tracing: TracingSettings::default(),
            default_model: None,
            default_agent: None,
            max_handoffs: 8,
            max_parallel: 4,
            orchestrator_note: None,
        }
    }
}

/// `agents.tracing`: whether and how runs are traced. Written as a boolean (`true` traces
/// every run into the session store and the default backend) or as an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", from = "TracingSettingsInput")]
#[schemars(with = "TracingSettingsInput")]
pub struct TracingSettings {
    /// Whether runs are traced.
    pub enabled: bool,
    /// Where traces go besides the session store; empty means `jsonl`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub backend: Vec<TracingBackend>,
    /// Span kinds recorded; empty means all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SpanKind>,
    /// Fraction of runs traced, from 0 to 1.
    pub sample_rate: f64,
    /// Whether OpenTelemetry spans carry message contents.
    pub capture_content: bool,
}

impl Default for TracingSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            backend: Vec::new(),
            events: Vec::new(),
            sample_rate: 1.0,
            capture_content: false,
        }
    }
}

/// `agents.tracing` as written: a boolean or an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
enum TracingSettingsInput {
    /// `true` or `false`.
    Flag(bool),
    /// `{enabled, backend, events, sampleRate, captureContent}`.
    Object(TracingSettingsObject),
}

/// `agents.tracing` written as an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TracingSettingsObject {
    /// Whether runs are traced (default true).
    #[serde(default = "enabled_by_default")]
    enabled: bool,
    /// One backend or a list.
    #[serde(default, deserialize_with = "one_or_many")]
    backend: Vec<TracingBackend>,
    /// Span kinds recorded; empty means all.
    #[serde(default, deserialize_with = "one_or_many")]
    events: Vec<SpanKind>,
    /// Fraction of runs traced, from 0 to 1.
    #[serde(default, alias = "sample_rate")]
    sample_rate: Option<f64>,
    /// Whether OpenTelemetry spans carry message contents.
    #[serde(default, alias = "capture_content")]
    capture_content: bool,
}

fn enabled_by_default() -> bool {
    true
}

impl From<TracingSettingsInput> for TracingSettings {
    fn from(input: TracingSettingsInput) -> Self {
        match input {
            TracingSettingsInput::Flag(enabled) => Self {
                enabled,
                ..Self::default()
            },
            TracingSettingsInput::Object(object) => Self {
                enabled: object.enabled,
                backend: object.backend,
                events: object.events,
                sample_rate: object.sample_rate.unwrap_or(1.0),
                capture_content: object.capture_content,
            },
        }
    }
}

/// A model provider endpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderConfig {
    /// Wire format of the endpoint.
    pub kind: ProviderKind,
    /// Base URL, e.g. `http://localhost:11434/v1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Environment variable holding the API key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Extra HTTP headers.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// Wire format of a provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, …).
    #[default]
    Openai,
    /// Anthropic Messages API.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
}

/// `tools.*` keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolsSettings {
    /// Risk level overrides by tool name (`safe`, `low`, `medium`, `high`, `critical`).
    pub risk: BTreeMap<String, String>,
    /// Longest a call of any tool may run, in seconds, unless `timeouts` names the tool.
    pub timeout_seconds: NonZeroU64,
    /// Longest a call may run, in seconds, by tool name (e.g. `{"bash": 1800}`); overrides
    /// `timeoutSeconds` for those tools.
    pub timeouts: BTreeMap<String, NonZeroU64>,
}

/// Default of `tools.timeoutSeconds`: ten minutes, the longest a `bash` call could ask for
/// before the setting existed.
pub const DEFAULT_TOOL_TIMEOUT_SECS: u64 = 600;

impl Default for ToolsSettings {
    fn default() -> Self {
        Self {
            risk: BTreeMap::new(),
            timeout_seconds: NonZeroU64::new(DEFAULT_TOOL_TIMEOUT_SECS).unwrap_or(NonZeroU64::MIN),
            timeouts: BTreeMap::new(),
        }
    }
}

impl ToolsSettings {
    /// The longest a call of `tool` may run: `timeouts.<tool>`, else `timeoutSeconds`.
    ///
    /// ```
    /// let mut tools = agentctl_core::ToolsSettings::default();
    /// tools.timeouts.insert("bash".into(), std::num::NonZeroU64::new(1800).unwrap());
    /// assert_eq!(tools.timeout_for("bash").as_secs(), 1800);
    /// assert_eq!(tools.timeout_for("grep").as_secs(), 600);
    /// ```
    pub fn timeout_for(&self, tool: &str) -> Duration {
        let secs = self.timeouts.get(tool).unwrap_or(&self.timeout_seconds);
        Duration::from_secs(secs.get())
    }
}

/// `approvals.*` keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalSettings {
    /// Risk levels approved without asking.
    pub auto_approve: Vec<String>,
    /// Whether an agent whose file says `permissionMode: bypassPermissions` may run so. Read
    /// from the user's own settings only: a project's value is ignored, with a warning.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_bypass_permissions: bool,
}

/// `env.*` keys: what the processes tools and MCP servers start see of agentctl's environment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct EnvSettings {
    /// Variable names passed on although they look like secrets (`bash` commands) or are not
    /// in the default set (MCP stdio servers), e.g. `["GITHUB_TOKEN"]`.
    pub passthrough: Vec<String>,
    /// Variables set in the environment of `bash` commands (Claude Code's `env`), by name.
    /// They are values written in a settings file, not read from agentctl's environment.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub set: BTreeMap<String, String>,
}

/// `context.*` keys: the project instruction files read into system prompts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextSettings {
    /// File names read in every folder from the project root down to the working folder, in
    /// this order within a folder (default `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`); `[]`
    /// reads none.
    pub instruction_files: Vec<String>,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            instruction_files: ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]
                .map(str::to_owned)
                .to_vec(),
        }
    }
}

/// `permissions.*` keys: rules in Claude Code's syntax, `Tool` or `Tool(specifier)`. The
/// lists of every layer are joined, not replaced: a project cannot drop the user's `deny`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PermissionSettings {
    /// Calls these rules match run without asking (unless a `deny` or `ask` rule matches,
    /// or the call changes a protected path).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Calls these rules match are asked, whatever levels are auto-approved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ask: Vec<String>,
    /// Calls these rules match are refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

impl PermissionSettings {
    /// True when no rule is set.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }
}

/// `web.*` keys: what the `web_fetch` and `web_search` tools may reach and which search
/// service answers `web_search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct WebSettings {
    /// Whether `web_fetch` may reach private, loopback, link-local, unique-local, CGNAT and
    /// other non-public addresses (default: no, so a page cannot make the model probe the
    /// local network or a cloud metadata service).
    pub allow_private_addresses: bool,
    /// Hosts `web_fetch` may reach even at a non-public address, as `name` (any port) or
    /// `name:port`, e.g. `["wiki.internal", "localhost:8080", "[::1]:3000"]`. Matched against
    /// the host of each URL as written, redirects included.
    pub allowed_hosts: Vec<HostPattern>,
    /// Most bytes of a response body `web_fetch` reads; the rest is cut and the answer says so
    /// (default 2 MiB).
    pub max_bytes: NonZeroU64,
    /// The search service of `web_search`.
    pub search: WebSearchSettings,
}

/// Default of `web.maxBytes`: 2 MiB, more than any article and little enough to hold.
pub const DEFAULT_WEB_MAX_BYTES: u64 = 2 * 1024 * 1024;

impl Default for WebSettings {
    fn default() -> Self {
        Self {
            allow_private_addresses: false,
            allowed_hosts: Vec::new(),
            max_bytes: NonZeroU64::new(DEFAULT_WEB_MAX_BYTES).unwrap_or(NonZeroU64::MIN),
            search: WebSearchSettings::default(),
        }
    }
}

/// `web.search.*` keys. The API key of a keyed service is read from the environment variable
/// `apiKeyEnv` names, never written in settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct WebSearchSettings {
    /// The service; `web_search` fails with a message naming this key while it is unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<SearchBackend>,
    /// The service's URL: required for `searxng` (the instance, e.g. `http://localhost:8888`),
    /// optional for `brave` and `tavily` (their public endpoints by default). A URL written
    /// here is trusted: it may be a private address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Environment variable holding the API key (`brave`: default `BRAVE_API_KEY`, `tavily`:
    /// default `TAVILY_API_KEY`; `searxng` needs none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
}

/// A web search service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchBackend {
    /// A SearXNG instance's JSON API (`/search?q=…&format=json`; the instance must list `json`
    /// under `search.formats`).
    Searxng,
    /// The Brave Search API (`X-Subscription-Token` header).
    Brave,
    /// The Tavily search API (`POST /search`, bearer token).
    Tavily,
}

impl SearchBackend {
    /// `searxng`, `brave` or `tavily`, as written in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchBackend::Searxng => "searxng",
            SearchBackend::Brave => "brave",
            SearchBackend::Tavily => "tavily",
        }
    }
}

/// An entry of `web.allowedHosts`: a host name or IP address, and maybe a port. Written
/// `name`, `name:port`, `1.2.3.4:80`, `::1` or `[::1]:3000`; names are compared without case.
///
/// ```
/// use agentctl_core::HostPattern;
///
/// let pattern: HostPattern = "LocalHost:8080".parse().unwrap();
/// assert!(pattern.matches("localhost", 8080));
/// assert!(!pattern.matches("localhost", 8081));
/// assert!("[::1]".parse::<HostPattern>().unwrap().matches("[0:0::1]", 443));
/// assert!("https://example.com".parse::<HostPattern>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "String", into = "String")]
#[schemars(with = "String")]
pub struct HostPattern {
    host: String,
    port: Option<u16>,
}

impl HostPattern {
    /// The host, lowercased, an IPv6 address without brackets.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port, when the pattern names one.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// Whether a URL's host (as the URL writes it, IPv6 in brackets or not) and port match.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        if self.port.is_some_and(|own| own != port) {
            return false;
        }
        let host = unbracket(host);
        match (
            self.host.parse::<std::net::IpAddr>(),
            host.parse::<std::net::IpAddr>(),
        ) {
            (Ok(own), Ok(other)) => own == other,
            _ => self.host.eq_ignore_ascii_case(host.trim_end_matches('.')),
        }
    }
}

fn unbracket(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|inner| inner.strip_suffix(']'))
        .unwrap_or(host)
}

impl std::str::FromStr for HostPattern {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err(
                "an empty host; write a name such as `wiki.internal` or `localhost:8080`".into(),
            );
        }
        if text.contains("://")
            || text.contains(['/', '@', '?', '#'])
            || text.contains(char::is_whitespace)
        {
            return Err(format!(
                "`{text}` is not a host; write only the host and maybe a port, e.g. `localhost:8080`"
            ));
        }
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| format!("`{text}` opens `[` without closing it"))?;
            match after {
                "" => (host, None),
                _ => match after.strip_prefix(':') {
                    Some(port) => (host, Some(port)),
                    None => return Err(format!("`{text}`: expected `:port` after `]`")),
                },
            }
        } else if text.matches(':').count() == 1 {
            let (host, port) = text.split_once(':').unwrap_or((text, ""));
            (host, Some(port))
        } else {
            (text, None)
        };
        if host.is_empty() {
            return Err(format!("`{text}` has no host"));
        }
        if host.contains(':') && host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`{host}` is not an IPv6 address"));
        }
        let port = port
            .map(|port| match port.parse::<u16>() {
                Ok(0) | Err(_) => Err(format!("`{port}` in `{text}` is not a port (1 to 65535)")),
                Ok(port) => Ok(port),
            })
            .transpose()?;
        Ok(Self {
            host: host.trim_end_matches('.').to_ascii_lowercase(),
            port,
        })
    }
}

impl TryFrom<String> for HostPattern {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<HostPattern> for String {
    fn from(pattern: HostPattern) -> String {
        pattern.to_string()
    }
}

impl std::fmt::Display for HostPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.port, self.host.contains(':')) {
            (Some(port), true) => write!(f, "[{}]:{port}", self.host),
            (Some(port), false) => write!(f, "{}:{port}", self.host),
            (None, _) => f.write_str(&self.host),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_patterns_parse_and_print_back() {
        for (text, shown) in [
            ("Example.COM.", "example.com"),
            ("wiki.internal:8080", "wiki.internal:8080"),
            ("10.0.0.5", "10.0.0.5"),
            ("::1", "::1"),
            ("[::1]:3000", "[::1]:3000"),
            ("[fe80::1]", "fe80::1"),
        ] {
            let pattern: HostPattern = text.parse().unwrap();
            assert_eq!(pattern.to_string(), shown, "{text}");
            assert_eq!(shown.parse::<HostPattern>().unwrap(), pattern, "{text}");
        }
        for bad in [
            "", "http://x", "x/y", "user@x", "x:", "x:0", "x:65536", "[::1", "[::1]x", "a:b:c",
            "x y",
        ] {
            assert!(bad.parse::<HostPattern>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn host_patterns_match_host_and_port() {
        let any_port: HostPattern = "intranet".parse().unwrap();
        assert!(any_port.matches("INTRANET", 80) && any_port.matches("intranet.", 8443));
        assert!(!any_port.matches("intranet.example", 80));
        let v4: HostPattern = "127.0.0.1:9".parse().unwrap();
        assert!(v4.matches("127.0.0.1", 9) && !v4.matches("127.0.0.1", 10));
        assert!(
            !v4.matches("[::ffff:127.0.0.1]", 9),
            "another address form is another host"
        );
    }

    #[test]
    fn web_settings_default_to_public_only_and_no_search() {
        let web = WebSettings::default();
        assert!(!web.allow_private_addresses && web.allowed_hosts.is_empty());
        assert_eq!(web.max_bytes.get(), DEFAULT_WEB_MAX_BYTES);
        assert_eq!(web.search.backend, None);
        let json = serde_json::to_value(&web).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"allowPrivateAddresses": false, "allowedHosts": [],
                               "maxBytes": DEFAULT_WEB_MAX_BYTES, "search": {}})
        );
    }
}

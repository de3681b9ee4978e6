//! `sandbox.*` keys ([`SandboxSettings`]) and the names of the folders no command may change
//! ([`PROTECTED_DIRS`]).

use super::HostPattern;
use crate::mcp::McpSandboxSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// Folders of a project that hold agentctl's, git's and other agents' own state. The approval
/// rater asks about every write under them, and the sandbox mounts them read-only (at the
/// project root and, found by a bounded walk, in nested directories) so that no command, even
/// an approved one, can change them.
pub const PROTECTED_DIRS: [&str; 4] = [".agentctl", ".git", ".claude", ".gemini"];

/// `sandbox.*` keys: how the commands of the `bash` tool (and, when asked, MCP stdio servers)
/// are confined by the operating system.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct SandboxSettings {
    /// What confined processes may write.
    pub mode: SandboxMode,
    /// What confined processes may reach on the network: `true` (default: the host's network,
    /// since builds and package managers need it), `false` (no network at all: no TCP, no
    /// UDP, no DNS), or `{"allow": ["example.com", "*.example.org", "host:8443"]}` (HTTP and
    /// HTTPS to the listed hosts only, through a proxy agentctl runs).
    pub network: NetworkAccess,
    /// Directories confined processes may write besides the project root and their temp dir,
    /// e.g. `~/.npm` or `~/.cargo/registry` for package caches (a later, unconfined build
    /// trusts what is written there). `~/` is the home directory; a relative path is relative
    /// to the project root; a missing directory is skipped.
    pub writable_roots: Vec<String>,
    /// Directories (or files) confined processes may read besides the system directories,
    /// the project, their temp dir and detected toolchains, e.g. `~/.config/gh`. The rest of
    /// the home directory is not visible. Same path rules as `writableRoots`.
    pub readable_roots: Vec<String>,
    /// Paths in the project that no command may change, besides `.agentctl`, `.git`,
    /// `.claude` and `.gemini` (which are always protected, nested ones too). Relative to the
    /// project root; a missing path is skipped.
    pub protected_paths: Vec<String>,
    /// Which MCP stdio servers run confined (with the same mode, network and roots; their
    /// working directory and the project root are writable): the project's always, the
    /// user's own when `confine` is true, none named in `unconfined`.
    pub mcp_servers: McpSandboxSettings,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            mode: SandboxMode::WorkspaceWrite,
            network: NetworkAccess::On,
            writable_roots: Vec::new(),
            readable_roots: Vec::new(),
            protected_paths: Vec::new(),
            mcp_servers: McpSandboxSettings::default(),
        }
    }
}

/// What a confined process may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// The project root, the process's temp dir and `sandbox.writableRoots`.
    #[default]
    WorkspaceWrite,
    /// Only the process's temp dir.
    ReadOnly,
    /// No confinement.
    Off,
}

impl SandboxMode {
    /// `workspace-write`, `read-only` or `off`, as written in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }

    /// Whether this mode lets a command do more than `other` (`off` > `workspace-write` >
    /// `read-only`): what a project's settings must not do on their own.
    pub fn allows_more_than(self, other: SandboxMode) -> bool {
        let rank = |mode| match mode {
            SandboxMode::ReadOnly => 0,
            SandboxMode::WorkspaceWrite => 1,
            SandboxMode::Off => 2,
        };
        rank(self) > rank(other)
    }
}

/// `sandbox.network`: `true`, `false` or `{"allow": [hosts…]}`.
///
/// ```
/// use agentctl_core::NetworkAccess;
///
/// let allow: NetworkAccess = serde_json::from_str(r#"{"allow": ["*.example.org"]}"#).unwrap();
/// assert!(allow.allow_list().unwrap()[0].matches("docs.example.org", 443));
/// assert_eq!(serde_json::from_str::<NetworkAccess>("false").unwrap(), NetworkAccess::Off);
/// assert_eq!(serde_json::to_string(&NetworkAccess::On).unwrap(), "true");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum NetworkAccess {
    /// The host's network, shared.
    #[default]
    On,
    /// No network at all.
    Off,
    /// HTTP and HTTPS through agentctl's proxy, to these hosts only.
    Allow(Vec<NetworkHost>),
}

impl NetworkAccess {
    /// Whether the host's network is shared as it is (`true`).
    pub fn is_on(&self) -> bool {
        matches!(self, NetworkAccess::On)
    }

    /// Whether this lets a command reach something `other` does not: `true` more than
    /// anything else, an allow-list more than `false` and more than a list lacking one of its
    /// entries. What a project's settings must not do on their own.
    ///
    /// ```
    /// use agentctl_core::NetworkAccess;
    ///
    /// let list = |hosts: &[&str]| NetworkAccess::Allow(hosts.iter().map(|h| h.parse().unwrap()).collect());
    /// assert!(NetworkAccess::On.allows_more_than(&list(&["a.org"])));
    /// assert!(list(&["a.org", "b.org"]).allows_more_than(&list(&["a.org"])));
    /// assert!(!list(&["a.org"]).allows_more_than(&list(&["b.org", "a.org"])));
    /// assert!(!NetworkAccess::Off.allows_more_than(&list(&[])));
    /// ```
    pub fn allows_more_than(&self, other: &NetworkAccess) -> bool {
        match (self, other) {
            (NetworkAccess::On, other) => !other.is_on(),
            (NetworkAccess::Off, _) | (NetworkAccess::Allow(_), NetworkAccess::On) => false,
            (NetworkAccess::Allow(hosts), NetworkAccess::Off) => !hosts.is_empty(),
            (NetworkAccess::Allow(hosts), NetworkAccess::Allow(theirs)) => {
                hosts.iter().any(|host| !theirs.contains(host))
            }
        }
    }

    /// The allowed hosts of `{"allow": […]}`; `None` for `true` and `false`.
    pub fn allow_list(&self) -> Option<&[NetworkHost]> {
        match self {
            NetworkAccess::Allow(hosts) => Some(hosts),
            NetworkAccess::On | NetworkAccess::Off => None,
        }
    }
}

impl From<bool> for NetworkAccess {
    fn from(on: bool) -> Self {
        if on {
            NetworkAccess::On
        } else {
            NetworkAccess::Off
        }
    }
}

impl Serialize for NetworkAccess {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            NetworkAccess::On => serializer.serialize_bool(true),
            NetworkAccess::Off => serializer.serialize_bool(false),
            NetworkAccess::Allow(hosts) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("allow", hosts)?;
                map.end()
            }
        }
    }
}

/// The object form of `sandbox.network` (other keys are reported as unknown by the loader).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AllowObject {
    /// Hosts reachable through agentctl's proxy: `example.com` (that name, any port),
    /// `*.example.org` (its subdomains), `host:8443` (that port only), `10.0.0.5` (an address
    /// is reachable only when listed as such). Names are compared without case.
    allow: Vec<NetworkHost>,
}

/// How `sandbox.network` is written, for the JSON Schema.
#[derive(JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "only describes the JSON Schema")]
enum NetworkAccessForm {
    /// `true`: the host's network; `false`: none.
    Flag(bool),
    /// Only the listed hosts, through agentctl's proxy.
    Allow(AllowObject),
}

impl JsonSchema for NetworkAccess {
    fn schema_name() -> Cow<'static, str> {
        "NetworkAccess".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        NetworkAccessForm::json_schema(generator)
    }
}

impl<'de> Deserialize<'de> for NetworkAccess {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct AccessVisitor;

        impl<'de> Visitor<'de> for AccessVisitor {
            type Value = NetworkAccess;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true`, `false` or an object `{\"allow\": [hosts…]}`")
            }

            fn visit_bool<E: de::Error>(self, on: bool) -> Result<NetworkAccess, E> {
                Ok(on.into())
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<NetworkAccess, A::Error> {
                let object = AllowObject::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(NetworkAccess::Allow(object.allow))
            }
        }

        deserializer.deserialize_any(AccessVisitor)
    }
}

/// An entry of `sandbox.network.allow`: a [`HostPattern`] (`name`, `name:port`, an address),
/// or `*.name` for every subdomain of `name` (not `name` itself).
///
/// ```
/// use agentctl_core::NetworkHost;
///
/// let any_sub: NetworkHost = "*.Example.org".parse().unwrap();
/// assert!(any_sub.matches("a.b.example.org.", 80));
/// assert!(!any_sub.matches("example.org", 80) && !any_sub.matches("badexample.org", 80));
/// let exact: NetworkHost = "localhost:8443".parse().unwrap();
/// assert!(exact.matches("LOCALHOST", 8443) && !exact.matches("localhost", 443));
/// assert!("*.10.0.0.1".parse::<NetworkHost>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "String", into = "String")]
#[schemars(with = "String")]
pub struct NetworkHost {
    /// `*.` was written before the pattern.
    subdomains: bool,
    pattern: HostPattern,
}

impl NetworkHost {
    /// Whether a request for `host` (a name, an address, an IPv6 address in brackets or not)
    /// on `port` is allowed by this entry.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        if !self.subdomains {
            return self.pattern.matches(host, port);
        }
        if self.pattern.port().is_some_and(|own| own != port) {
            return false;
        }
        let host = host.trim_end_matches('.');
        if host.parse::<std::net::IpAddr>().is_ok() {
            return false;
        }
        let suffix = self.pattern.host();
        host.len() > suffix.len() + 1
            && host
                .get(host.len() - suffix.len()..)
                .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix))
            && host.as_bytes()[host.len() - suffix.len() - 1] == b'.'
    }
}

impl std::str::FromStr for NetworkHost {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (subdomains, rest) = match text.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if rest.contains('*') {
            return Err(format!(
                "`{text}`: `*` may only start a pattern, as in `*.example.org`"
            ));
        }
        let pattern: HostPattern = rest.parse()?;
        if subdomains && pattern.host().parse::<std::net::IpAddr>().is_ok() {
            return Err(format!("`{text}`: an address has no subdomains"));
        }
        Ok(Self {
            subdomains,
            pattern,
        })
    }
}

impl TryFrom<String> for NetworkHost {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<NetworkHost> for String {
    fn from(host: NetworkHost) -> String {
        host.to_string()
    }
}

impl fmt::Display for NetworkHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.subdomains {
            f.write_str("*.")?;
        }
        write!(f, "{}", self.pattern)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn network_access_reads_and_writes_its_three_forms() {
        for (value, access) in [
            (json!(true), NetworkAccess::On),
            (json!(false), NetworkAccess::Off),
            (
                json!({"allow": ["*.example.org", "localhost:8443"]}),
                NetworkAccess::Allow(vec![
                    "*.example.org".parse().unwrap(),
                    "localhost:8443".parse().unwrap(),
                ]),
            ),
        ] {
            assert_eq!(
                serde_json::from_value::<NetworkAccess>(value.clone()).unwrap(),
                access
            );
            assert_eq!(serde_json::to_value(&access).unwrap(), value);
        }
        for bad in [
            json!("yes"),
            json!(1),
            json!({"allow": "x"}),
            json!({}),
            json!([]),
        ] {
            let error = serde_json::from_value::<NetworkAccess>(bad.clone()).unwrap_err();
            assert!(!error.to_string().is_empty(), "{bad}");
        }
        let error = serde_json::from_value::<NetworkAccess>(json!({"allow": ["http://x"]}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("is not a host"), "{error}");
    }

    #[test]
    fn network_hosts_match_names_subdomains_ports_and_addresses() {
        let sub: NetworkHost = "*.example.org:443".parse().unwrap();
        assert!(sub.matches("x.EXAMPLE.org", 443));
        assert!(!sub.matches("x.example.org", 80));
        assert!(!sub.matches("example.org", 443));
        assert!(!sub.matches(".example.org", 443));
        assert!(!sub.matches("xexample.org", 443));
        let name: NetworkHost = "example.com".parse().unwrap();
        assert!(name.matches("Example.Com.", 1) && !name.matches("a.example.com", 1));
        let address: NetworkHost = "127.0.0.1".parse().unwrap();
        assert!(address.matches("127.0.0.1", 80) && !address.matches("localhost", 80));
        let v6: NetworkHost = "[::1]:80".parse().unwrap();
        assert!(v6.matches("[::1]", 80) && v6.matches("::1", 80));
        for bad in ["*", "*.", "a.*.b", "*x.org", "*.::1", "", "x/y"] {
            assert!(bad.parse::<NetworkHost>().is_err(), "{bad:?}");
        }
        assert_eq!(sub.to_string(), "*.example.org:443");
    }

    #[test]
    fn modes_order_by_what_they_allow() {
        use SandboxMode::{Off, ReadOnly, WorkspaceWrite};
        assert!(Off.allows_more_than(WorkspaceWrite) && WorkspaceWrite.allows_more_than(ReadOnly));
        assert!(!ReadOnly.allows_more_than(WorkspaceWrite) && !Off.allows_more_than(Off));
    }

    #[test]
    fn sandbox_defaults_share_the_network_and_add_nothing() {
        let settings = SandboxSettings::default();
        assert_eq!(settings.network, NetworkAccess::On);
        assert!(settings.readable_roots.is_empty() && settings.protected_paths.is_empty());
        assert_eq!(
            serde_json::to_value(&settings).unwrap(),
            json!({"mode": "workspace-write", "network": true, "writableRoots": [],
                   "readableRoots": [], "protectedPaths": [],
                   "mcpServers": {"confine": false, "unconfined": []}})
        );
    }
}

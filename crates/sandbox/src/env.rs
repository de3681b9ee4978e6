//! What child processes see of agentctl's environment: [`EnvPolicy`].
//!
//! agentctl itself needs API keys in its environment; the commands a model chooses do not.
//! Shell commands get the parent environment minus names that look like secrets (codex's
//! `shell_environment_policy` does the same). MCP stdio servers get only the small set the MCP
//! SDKs pass by default, plus what their configuration sets explicitly (where `${VAR}` can
//! hand a server the one secret it needs).
//!
//! Database connection variables (`DATABASE_URL`, every `PG*`) are withheld like secrets:
//! dropped unless `env.passthrough` names them ([`EnvPolicy::is_connection_variable`]).
//!
//! Above these rules stand the variables agentctl **consumes** as credentials: the built-in
//! ones ([`EnvPolicy::is_agentctl_secret`]: the session database URL with `PGUSER` and
//! `PGPASSWORD`, which fill it, the OpenTelemetry exporter headers, the built-in providers'
//! and search services' key variables) and the ones the settings name
//! ([`EnvPolicy::withholding`]: `apiKeyEnv` names, the `${VAR}`s of MCP configurations).
//! No child gets those, whatever `env.passthrough` says: a command that could read them could
//! act as agentctl (rewrite its sessions, spend its keys). Passing through stays possible for
//! what agentctl does not read itself (a project's own `GITHUB_TOKEN`, `DATABASE_URL` or
//! `PGHOST`), which is the user's choice to make.

use agentctl_core::EnvSettings;
use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};

/// Parts of variable names that mark a secret, matched case-insensitively anywhere in the
/// name: `OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`, `PGPASSWORD`, …
pub const SECRET_NAME_PATTERNS: [&str; 5] = ["KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL"];

/// Variables an MCP stdio server inherits by default: the set the official MCP SDKs use
/// (`DEFAULT_INHERITED_ENV_VARS` of the TypeScript SDK).
#[cfg(not(windows))]
pub const DEFAULT_SERVER_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// Variables an MCP stdio server inherits by default: the set the official MCP SDKs use
/// (`DEFAULT_INHERITED_ENV_VARS` of the TypeScript SDK).
#[cfg(windows)]
pub const DEFAULT_SERVER_ENV: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// Which variables of a base environment (normally agentctl's own) a child process gets.
///
/// ```
/// use agentctl_sandbox::EnvPolicy;
///
/// let base = [
///     ("PATH", "/usr/bin"),
///     ("OPENAI_API_KEY", "sk-1"),
///     ("GITHUB_TOKEN", "gh-1"),
///     ("PGPASSWORD", "pw-1"),
///     ("PGHOST", "db.internal"),
///     ("BRAVE", "bsa-1"),
/// ];
/// // `BRAVE` is a key the settings name (`"apiKeyEnv": "BRAVE"`); agentctl reads
/// // `PGPASSWORD` itself: passthrough cannot hand them out.
/// let policy = EnvPolicy::new(["GITHUB_TOKEN", "PGPASSWORD", "BRAVE"]).withholding(["BRAVE"]);
/// let names: Vec<_> = policy.for_command(base).into_iter().map(|(name, _)| name).collect();
/// assert_eq!(names, ["PATH", "GITHUB_TOKEN"]);
/// let names: Vec<_> = policy.for_server(base).into_iter().map(|(name, _)| name).collect();
/// assert_eq!(names, ["PATH", "GITHUB_TOKEN"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    passthrough: BTreeSet<OsString>,
    /// Names agentctl consumes as credentials under the settings, beyond the built-in ones.
    withheld: BTreeSet<OsString>,
}

impl EnvPolicy {
    /// Variables agentctl itself reads as credentials whatever the settings say: the session
    /// database URL and the `PGUSER` / `PGPASSWORD` that fill it, the keys of the built-in
    /// providers, search services and tracing vendors. With the exporter headers they make
    /// [`is_agentctl_secret`](Self::is_agentctl_secret).
    pub const AGENTCTL_SECRETS: &'static [&'static str] = &[
        "AGENTCTL_DATABASE_URL",
        "PGUSER",
        "PGPASSWORD",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "BRAVE_API_KEY",
        "TAVILY_API_KEY",
        "LANGSMITH_API_KEY",
        "LANGFUSE_PUBLIC_KEY",
        "LANGFUSE_SECRET_KEY",
    ];

    /// The prefix of libpq's connection variables (`PGPASSWORD`, `PGPASSFILE`,
    /// `PGSERVICEFILE`, `PGUSER`, `PGHOST`, …), all withheld by default: together they
    /// connect `psql` to a database — agentctl's session store among them — as its owner.
    pub const PG_PREFIX: &'static str = "PG";

    /// A policy that also passes the variables named in `passthrough` (exact names), unless
    /// they are [withheld](Self::withholds).
    pub fn new<I, S>(passthrough: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self {
            passthrough: passthrough.into_iter().map(Into::into).collect(),
            withheld: BTreeSet::new(),
        }
    }

    /// The policy of `env.*` settings.
    pub fn from_settings(settings: &EnvSettings) -> Self {
        Self::new(settings.passthrough.iter().map(String::as_str))
    }

    /// The same policy, also withholding `names` from every child whatever `passthrough`
    /// says: the variables agentctl consumes under its settings (a provider's `apiKeyEnv`,
    /// `web.search.apiKeyEnv`, the `${VAR}`s of MCP configurations). Names
    /// [ordinary](Self::is_ordinary) variables use are not withheld: `${HOME}` in a server's
    /// arguments does not make `HOME` a secret.
    pub fn withholding<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.withheld.extend(
            names
                .into_iter()
                .map(Into::into)
                .filter(|name| !Self::is_ordinary(name)),
        );
        self
    }

    /// The names withheld beyond the built-in ones ([`withholding`](Self::withholding)).
    pub fn withheld(&self) -> impl Iterator<Item = &OsStr> {
        self.withheld.iter().map(OsString::as_os_str)
    }

    /// Whether `name` looks like it holds a secret ([`SECRET_NAME_PATTERNS`]).
    pub fn looks_secret(name: &OsStr) -> bool {
        // Compared byte by byte, ignoring ASCII case: no copy of the name (every variable of
        // the environment is looked at for each session and each command started).
        let name = name.as_encoded_bytes();
        SECRET_NAME_PATTERNS.iter().any(|pattern| {
            name.windows(pattern.len())
                .any(|window| window.eq_ignore_ascii_case(pattern.as_bytes()))
        })
    }

    /// Whether `name` is a credential agentctl reads whatever the settings say:
    /// [`AGENTCTL_SECRETS`](Self::AGENTCTL_SECRETS) and the OTLP exporter's headers
    /// (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TRACES_HEADERS` and the other
    /// `OTEL_EXPORTER_OTLP_*_HEADERS`).
    pub fn is_agentctl_secret(name: &OsStr) -> bool {
        let Some(name) = name.to_str() else {
            return false;
        };
        Self::AGENTCTL_SECRETS.contains(&name)
            || (name.starts_with("OTEL_EXPORTER_OTLP_") && name.ends_with("HEADERS"))
    }

    /// Whether `name` connects to a database: `DATABASE_URL` and every `PG*` variable
    /// ([`PG_PREFIX`](Self::PG_PREFIX)). Withheld like a secret unless passed through.
    pub fn is_connection_variable(name: &OsStr) -> bool {
        name.to_str()
            .is_some_and(|name| name == "DATABASE_URL" || name.starts_with(Self::PG_PREFIX))
    }

    /// Whether `name` is a variable every process is expected to see, never a secret even
    /// when a configuration references it: the MCP SDKs' [`DEFAULT_SERVER_ENV`], `PWD`,
    /// `TMPDIR`, `TZ`, the locale (`LANG`, `LANGUAGE`, `LC_*`) and the XDG base directories
    /// (`XDG_*`).
    pub fn is_ordinary(name: &OsStr) -> bool {
        let Some(name) = name.to_str() else {
            return false;
        };
        DEFAULT_SERVER_ENV.contains(&name)
            || ["PWD", "TMPDIR", "TZ", "LANG", "LANGUAGE"].contains(&name)
            || name.starts_with("LC_")
            || name.starts_with("XDG_")
    }

    /// Whether no child gets `name`, whatever `passthrough` says: a
    /// [built-in](Self::is_agentctl_secret) or [withheld](Self::withholding) credential.
    pub fn withholds(&self, name: &OsStr) -> bool {
        Self::is_agentctl_secret(name) || self.withheld.contains(name)
    }

    /// Whether `name` is passed through by the settings (and not [withheld](Self::withholds)).
    pub fn passes(&self, name: &OsStr) -> bool {
        self.passthrough.contains(name) && !self.withholds(name)
    }

    /// The environment of a shell command: `base` minus the [withheld](Self::withholds)
    /// names, and minus the names that [look like secrets](Self::looks_secret) and the
    /// [connection variables](Self::is_connection_variable) unless passed through.
    pub fn for_command<I, K, V>(&self, base: I) -> Vec<(OsString, OsString)>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        base.into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .filter(|(name, _)| {
                let secret = Self::looks_secret(name) || Self::is_connection_variable(name);
                !self.withholds(name) && (self.passes(name) || !secret)
            })
            .collect()
    }

    /// The inherited environment of an MCP stdio server: the names of
    /// [`DEFAULT_SERVER_ENV`] and the passed-through names found in `base`, never a
    /// [withheld](Self::withholds) one. The server's own configured variables are added on
    /// top by the caller. Values that start with `()` (shell functions) are dropped, as the
    /// MCP SDKs do.
    pub fn for_server<I, K, V>(&self, base: I) -> Vec<(OsString, OsString)>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        base.into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .filter(|(name, value)| {
                let default = DEFAULT_SERVER_ENV.iter().any(|known| name == known);
                let function = value.as_encoded_bytes().starts_with(b"()");
                (default || self.passes(name)) && !function && !self.withholds(name)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_match_anywhere_in_any_case() {
        for name in [
            "OPENAI_API_KEY",
            "my_secret",
            "GitHub_Token",
            "PGPASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "KEY",
        ] {
            assert!(EnvPolicy::looks_secret(OsStr::new(name)), "{name}");
        }
        for name in ["PATH", "HOME", "CARGO_HOME", "LANG", "TOKE", "", "K"] {
            assert!(!EnvPolicy::looks_secret(OsStr::new(name)), "{name}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_still_read() {
        use std::os::unix::ffi::OsStrExt as _;
        let name = OsStr::from_bytes(b"\xffapi_\xfekey");
        assert!(EnvPolicy::looks_secret(name));
        assert!(!EnvPolicy::looks_secret(OsStr::from_bytes(b"K\xffEY")));
    }

    #[test]
    fn commands_lose_secrets_unless_passed_through() {
        let base = [
            ("PATH", "/bin"),
            ("OPENAI_API_KEY", "sk"),
            ("MY_SECRET", "s"),
            ("GITHUB_TOKEN", "t"),
            ("LANG", "C"),
        ];
        let names = |policy: &EnvPolicy| -> Vec<OsString> {
            policy
                .for_command(base)
                .into_iter()
                .map(|(name, _)| name)
                .collect()
        };
        assert_eq!(names(&EnvPolicy::default()), ["PATH", "LANG"]);
        assert_eq!(
            names(&EnvPolicy::new(["GITHUB_TOKEN"])),
            ["PATH", "GITHUB_TOKEN", "LANG"]
        );
        // Exact names only: a pattern-like entry passes nothing.
        assert_eq!(names(&EnvPolicy::new(["*TOKEN*"])), ["PATH", "LANG"]);
    }

    #[test]
    fn agentctl_credentials_and_connection_variables_are_recognised_by_name() {
        for name in [
            "AGENTCTL_DATABASE_URL",
            "PGPASSWORD",
            "PGUSER",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
            "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
            "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
            "OPENAI_API_KEY",
            "GOOGLE_API_KEY",
            "BRAVE_API_KEY",
        ] {
            assert!(EnvPolicy::is_agentctl_secret(OsStr::new(name)), "{name}");
        }
        for name in [
            "PATH",
            "PAGER",
            "PGHOST",
            "DATABASE_URL",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_SERVICE_NAME",
            "pguser",
        ] {
            assert!(!EnvPolicy::is_agentctl_secret(OsStr::new(name)), "{name}");
        }
        for name in [
            "DATABASE_URL",
            "PGHOST",
            "PGPASSFILE",
            "PGSERVICEFILE",
            "PGDATABASE",
        ] {
            assert!(
                EnvPolicy::is_connection_variable(OsStr::new(name)),
                "{name}"
            );
        }
        for name in ["MY_DATABASE", "TEST_DATABASE_URL", "PAGER", "pghost"] {
            assert!(
                !EnvPolicy::is_connection_variable(OsStr::new(name)),
                "{name}"
            );
        }
    }

    #[test]
    fn consumed_secrets_are_withheld_whatever_passthrough_says() {
        let base = [
            ("PATH", "/bin"),
            ("HOME", "/home/u"),
            ("LANG", "C.UTF-8"),
            ("AGENTCTL_DATABASE_URL", "postgres://me:pw@db/agents"),
            ("PGPASSWORD", "pw"),
            ("PGHOST", "db"),
            ("DATABASE_URL", "postgres://app@db/app"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer x"),
            ("BRAVE", "bsa-1"),
            ("GITHUB_PAT", "ghp-1"),
            ("GITHUB_TOKEN", "gh-1"),
        ];
        let names = |env: Vec<(OsString, OsString)>| -> Vec<OsString> {
            env.into_iter().map(|(name, _)| name).collect()
        };
        // By default: no secret, no connection variable, nothing consumed.
        let policy = EnvPolicy::default().withholding(["BRAVE", "GITHUB_PAT", "HOME"]);
        assert_eq!(names(policy.for_command(base)), ["PATH", "HOME", "LANG"]);
        assert_eq!(names(policy.for_server(base)), ["PATH", "HOME"]);
        // Passing every name through re-admits only what agentctl does not consume.
        let every_name: Vec<&str> = base.iter().map(|(name, _)| *name).collect();
        let policy = EnvPolicy::new(every_name).withholding(["BRAVE", "GITHUB_PAT", "HOME"]);
        let admitted = [
            "PATH",
            "HOME",
            "LANG",
            "PGHOST",
            "DATABASE_URL",
            "GITHUB_TOKEN",
        ];
        assert_eq!(names(policy.for_command(base)), admitted);
        assert_eq!(names(policy.for_server(base)), admitted);
        // `HOME` is ordinary: a configuration's `${HOME}` does not withhold it.
        assert_eq!(
            policy.withheld().collect::<Vec<_>>(),
            [OsStr::new("BRAVE"), OsStr::new("GITHUB_PAT")]
        );
        assert!(!policy.passes(OsStr::new("PGPASSWORD")));
        assert!(policy.passes(OsStr::new("PGHOST")));
        // `GITHUB_PAT` does not look secret: only a configuration that consumes it withholds it.
        assert_eq!(
            names(
                EnvPolicy::default()
                    .withholding(["BRAVE"])
                    .for_command(base)
            ),
            ["PATH", "HOME", "LANG", "GITHUB_PAT"]
        );
    }

    #[test]
    fn servers_get_the_default_set_and_passed_names_only() {
        let base = [
            ("PATH", "/bin"),
            ("HOME", "/home/u"),
            ("LANG", "C"),
            ("AWS_PROFILE", "dev"),
            ("SHELL", "() { evil; }"),
        ];
        let env = EnvPolicy::new(["AWS_PROFILE"]).for_server(base);
        assert_eq!(
            env,
            [
                ("PATH", "/bin"),
                ("HOME", "/home/u"),
                ("AWS_PROFILE", "dev")
            ]
            .map(|(name, value)| (OsString::from(name), OsString::from(value)))
        );
    }
}

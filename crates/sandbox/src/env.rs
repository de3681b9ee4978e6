//! What child processes see of agentctl's environment: [`EnvPolicy`].
//!
//! agentctl itself needs API keys in its environment; the commands a model chooses do not.
//! Shell commands get the parent environment minus names that look like secrets (codex's
//! `shell_environment_policy` does the same). MCP stdio servers get only the small set the MCP
//! SDKs pass by default, plus what their configuration sets explicitly (where `${VAR}` can
//! hand a server the one secret it needs).

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
/// let base = [("PATH", "/usr/bin"), ("OPENAI_API_KEY", "sk-1"), ("GITHUB_TOKEN", "gh-1")];
/// let policy = EnvPolicy::new(["GITHUB_TOKEN"]);
/// let names: Vec<_> = policy.for_command(base).into_iter().map(|(name, _)| name).collect();
/// assert_eq!(names, ["PATH", "GITHUB_TOKEN"]);
/// let names: Vec<_> = policy.for_server(base).into_iter().map(|(name, _)| name).collect();
/// assert_eq!(names, ["PATH", "GITHUB_TOKEN"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    passthrough: BTreeSet<OsString>,
}

impl EnvPolicy {
    /// A policy that also passes the variables named in `passthrough` (exact names).
    pub fn new<I, S>(passthrough: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self {
            passthrough: passthrough.into_iter().map(Into::into).collect(),
        }
    }

    /// The policy of `env.*` settings.
    pub fn from_settings(settings: &EnvSettings) -> Self {
        Self::new(settings.passthrough.iter().map(String::as_str))
    }

    /// Whether `name` looks like it holds a secret ([`SECRET_NAME_PATTERNS`]).
    pub fn looks_secret(name: &OsStr) -> bool {
        let upper = name.to_string_lossy().to_ascii_uppercase();
        SECRET_NAME_PATTERNS
            .iter()
            .any(|pattern| upper.contains(pattern))
    }

    /// Whether `name` is passed through by the settings.
    pub fn passes(&self, name: &OsStr) -> bool {
        self.passthrough.contains(name)
    }

    /// The environment of a shell command: `base` minus the names that
    /// [look like secrets](Self::looks_secret), unless passed through.
    pub fn for_command<I, K, V>(&self, base: I) -> Vec<(OsString, OsString)>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        base.into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .filter(|(name, _)| self.passes(name) || !Self::looks_secret(name))
            .collect()
    }

    /// The inherited environment of an MCP stdio server: the names of
    /// [`DEFAULT_SERVER_ENV`] and the passed-through names found in `base`. The server's own
    /// configured variables are added on top by the caller. Values that start with `()` (shell
    /// functions) are dropped, as the MCP SDKs do.
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
                (default || self.passes(name)) && !function
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
        for name in ["PATH", "HOME", "CARGO_HOME", "LANG", "TOKE"] {
            assert!(!EnvPolicy::looks_secret(OsStr::new(name)), "{name}");
        }
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

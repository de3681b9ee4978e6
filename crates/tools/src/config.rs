//! How the built-in tools run: [`BuiltinToolsConfig`], resolved from settings.

use crate::grants::ReadGrants;
use agentctl_core::{Settings, WebSettings};
use agentctl_sandbox::{EnvPolicy, SandboxPolicy};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

/// The sandbox, environment and time limits of the built-in tools, passed to
/// [`register_builtin_tools`](crate::register_builtin_tools).
///
/// [`Default`] is what default settings give: `workspace-write` sandbox with network, secrets
/// scrubbed from commands' environment, ten minutes per call.
///
/// ```
/// use agentctl_core::{SandboxMode, Settings};
/// use agentctl_tools::BuiltinToolsConfig;
///
/// let mut settings = Settings::default();
/// settings.sandbox.mode = SandboxMode::ReadOnly;
/// settings.tools.timeouts.insert("bash".into(), std::num::NonZeroU64::new(30).unwrap());
/// let config = BuiltinToolsConfig::from_settings(&settings);
/// assert_eq!(config.sandbox().mode(), SandboxMode::ReadOnly);
/// assert_eq!(config.timeout_for("bash").as_secs(), 30);
/// assert_eq!(config.timeout_for("grep").as_secs(), 600);
/// ```
#[derive(Debug, Clone)]
pub struct BuiltinToolsConfig {
    sandbox: SandboxPolicy,
    env: EnvPolicy,
    default_timeout: Duration,
    timeouts: BTreeMap<String, Duration>,
    base_env: Option<Arc<[(OsString, OsString)]>>,
    web: WebSettings,
    read_grants: ReadGrants,
    /// `env.set`: variables set for commands on top of what the policy lets through.
    set: Vec<(OsString, OsString)>,
}

impl Default for BuiltinToolsConfig {
    fn default() -> Self {
        Self::from_settings(&Settings::default())
    }
}

impl BuiltinToolsConfig {
    /// The configuration of `sandbox.*`, `env.*`, `web.*` and `tools.timeoutSeconds` /
    /// `tools.timeouts`; the sandbox also holds the `Read(…)`/`Edit(…)` rules of
    /// `permissions.deny` (see [`SandboxPolicy::with_permission_denies`]).
    pub fn from_settings(settings: &Settings) -> Self {
        let tools = &settings.tools;
        Self {
            sandbox: SandboxPolicy::from_settings(&settings.sandbox)
                .with_permission_denies(&settings.permissions),
            env: EnvPolicy::from_settings(&settings.env),
            default_timeout: Duration::from_secs(tools.timeout_seconds.get()),
            timeouts: tools
                .timeouts
                .iter()
                .map(|(tool, secs)| (tool.clone(), Duration::from_secs(secs.get())))
                .collect(),
            base_env: None,
            web: settings.web.clone(),
            read_grants: ReadGrants::default(),
            set: settings
                .env
                .set
                .iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        }
    }

    /// The same configuration with another sandbox policy.
    pub fn with_sandbox(mut self, sandbox: SandboxPolicy) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The same configuration with another environment policy.
    pub fn with_env(mut self, env: EnvPolicy) -> Self {
        self.env = env;
        self
    }

    /// The same configuration with `tool`'s calls limited to `limit`.
    pub fn with_timeout(mut self, tool: impl Into<String>, limit: Duration) -> Self {
        self.timeouts.insert(tool.into(), limit);
        self
    }

    /// The same configuration with `vars` as the environment commands start from, instead of
    /// agentctl's own (embedders and tests; the [`EnvPolicy`] still applies). `web_search`
    /// reads its API key from it too.
    pub fn with_base_env<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.base_env = Some(
            vars.into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        );
        self
    }

    /// The same configuration with other `web.*` settings (what `web_fetch` may reach, the
    /// `web_search` service).
    pub fn with_web(mut self, web: WebSettings) -> Self {
        self.web = web;
        self
    }

    /// The same configuration whose `read_file` also reads the folders `grants` gives each
    /// agent (the skills it loaded; see [`ReadGrants`]).
    pub fn with_read_grants(mut self, grants: ReadGrants) -> Self {
        self.read_grants = grants;
        self
    }

    /// The folders outside the project `read_file` may read, by agent.
    pub fn read_grants(&self) -> &ReadGrants {
        &self.read_grants
    }

    /// The sandbox commands run in.
    pub fn sandbox(&self) -> &SandboxPolicy {
        &self.sandbox
    }

    /// What commands see of the environment.
    pub fn env(&self) -> &EnvPolicy {
        &self.env
    }

    /// The longest a call of `tool` may run (`tools.timeouts.<tool>`, else
    /// `tools.timeoutSeconds`).
    pub fn timeout_for(&self, tool: &str) -> Duration {
        self.timeouts
            .get(tool)
            .copied()
            .unwrap_or(self.default_timeout)
    }

    /// The `web.*` settings of `web_fetch` and `web_search`.
    pub fn web(&self) -> &WebSettings {
        &self.web
    }

    /// The limit `tools.timeouts.<tool>` (or [`with_timeout`](Self::with_timeout)) sets for
    /// `tool` itself, not the general `tools.timeoutSeconds`.
    pub(crate) fn own_timeout(&self, tool: &str) -> Option<Duration> {
        self.timeouts.get(tool).copied()
    }

    /// The value of environment variable `name` in the base environment (an API key).
    pub(crate) fn env_var(&self, name: &str) -> Option<String> {
        match &self.base_env {
            Some(vars) => vars
                .iter()
                .find(|(key, _)| key == name)
                .and_then(|(_, value)| value.to_str().map(str::to_owned)),
            None => std::env::var(name).ok(),
        }
    }

    /// The environment commands start from: the injected one, else agentctl's own.
    /// The environment of a command: the base environment under the env policy, then the
    /// variables `env.set` sets (Claude Code's `env`), except the credentials agentctl itself
    /// consumes, which no command gets.
    pub(crate) fn command_env(&self) -> Vec<(OsString, OsString)> {
        let mut vars = self.env.for_command(self.base_env());
        for (name, value) in &self.set {
            if self.env.withholds(name) {
                continue;
            }
            vars.retain(|(present, _)| present != name);
            vars.push((name.clone(), value.clone()));
        }
        vars
    }

    pub(crate) fn base_env(&self) -> Vec<(OsString, OsString)> {
        match &self.base_env {
            Some(vars) => vars.to_vec(),
            None => std::env::vars_os().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_set_reaches_commands_but_never_agentctls_own_secrets() {
        let mut settings = Settings::default();
        settings.env.set.insert("NODE_ENV".into(), "test".into());
        settings.env.set.insert("PATH".into(), "/opt/bin".into());
        settings
            .env
            .set
            .insert("OPENAI_API_KEY".into(), "sk-written".into());
        let config = BuiltinToolsConfig::from_settings(&settings).with_base_env([
            ("PATH", "/usr/bin"),
            ("GITHUB_TOKEN", "gh-secret"),
            ("OPENAI_API_KEY", "sk-real"),
        ]);
        let vars: BTreeMap<String, String> = config
            .command_env()
            .into_iter()
            .map(|(name, value)| {
                (
                    name.to_string_lossy().into_owned(),
                    value.to_string_lossy().into_owned(),
                )
            })
            .collect();
        assert_eq!(vars.get("NODE_ENV").map(String::as_str), Some("test"));
        assert_eq!(vars.get("PATH").map(String::as_str), Some("/opt/bin"));
        // Other secrets stay scrubbed; agentctl's own are never set, even when written.
        assert!(!vars.contains_key("GITHUB_TOKEN"));
        assert!(!vars.contains_key("OPENAI_API_KEY"));
    }
}

//! What a confined process may do: [`SandboxPolicy`], built from `sandbox.*` settings.

use crate::proxy::ProxyCell;
use agentctl_core::{
    NetworkAccess, PathAccess, PermissionRule, PermissionSettings, RuleTarget, SandboxMode,
    SandboxSettings,
};
use std::path::{Path, PathBuf};

/// What a confined process may read, write and reach.
///
/// A confined process sees the system's directories, the project, its own temp dir, the
/// detected toolchains and the configured readable and writable roots; it writes the project
/// (in `workspace-write`), its temp dir and the writable roots, never the protected paths.
///
/// Clones share one network proxy (for a `{"allow": […]}` network), started by the first
/// [`spawn`](crate::spawn) that needs it and stopped when the last clone is dropped.
///
/// ```
/// use agentctl_core::SandboxMode;
/// use agentctl_sandbox::SandboxPolicy;
///
/// let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite).with_network(false);
/// let writable = policy.writable_dirs("/work/project".as_ref(), "/tmp/run-1".as_ref());
/// assert_eq!(writable, ["/work/project", "/tmp/run-1"].map(std::path::PathBuf::from));
/// ```
#[derive(Debug, Clone)]
pub struct SandboxPolicy {
    mode: SandboxMode,
    network: NetworkAccess,
    writable_roots: Vec<PathBuf>,
    readable_roots: Vec<PathBuf>,
    protected_paths: Vec<PathBuf>,
    denied_read: Vec<String>,
    denied_write: Vec<String>,
    home: Option<PathBuf>,
    bwrap: Option<PathBuf>,
    helper: Option<PathBuf>,
    pub(crate) proxy: ProxyCell,
}

impl PartialEq for SandboxPolicy {
    /// Policies are equal when they allow the same; their proxies do not count.
    fn eq(&self, other: &Self) -> bool {
        self.mode == other.mode
            && self.network == other.network
            && self.writable_roots == other.writable_roots
            && self.readable_roots == other.readable_roots
            && self.protected_paths == other.protected_paths
            && self.denied_read == other.denied_read
            && self.denied_write == other.denied_write
            && self.home == other.home
            && self.bwrap == other.bwrap
            && self.helper == other.helper
    }
}

impl Eq for SandboxPolicy {}

impl Default for SandboxPolicy {
    /// `workspace-write` with network, as the settings default to.
    fn default() -> Self {
        Self::from_settings(&SandboxSettings::default())
    }
}

impl SandboxPolicy {
    /// A policy of `mode`, network allowed, no extra roots.
    pub fn new(mode: SandboxMode) -> Self {
        Self {
            mode,
            network: NetworkAccess::On,
            writable_roots: Vec::new(),
            readable_roots: Vec::new(),
            protected_paths: Vec::new(),
            denied_read: Vec::new(),
            denied_write: Vec::new(),
            home: None,
            bwrap: None,
            helper: None,
            proxy: ProxyCell::default(),
        }
    }

    /// No confinement at all.
    pub fn off() -> Self {
        Self::new(SandboxMode::Off)
    }

    /// The policy of `sandbox.*` settings. `~/` in `writableRoots` and `readableRoots` is
    /// expanded to the home directory now; relative entries are kept relative and resolved
    /// against the project root of each command.
    pub fn from_settings(settings: &SandboxSettings) -> Self {
        let home = dirs::home_dir();
        let expand = |roots: &[String]| {
            roots
                .iter()
                .filter_map(|root| expand_home(root, home.as_deref()))
                .collect()
        };
        Self {
            writable_roots: expand(&settings.writable_roots),
            readable_roots: expand(&settings.readable_roots),
            protected_paths: settings.protected_paths.iter().map(PathBuf::from).collect(),
            network: settings.network.clone(),
            ..Self::new(settings.mode)
        }
    }

    /// The same policy with the host's network (`true`) or none (`false`).
    pub fn with_network(self, network: bool) -> Self {
        self.with_network_access(network.into())
    }

    /// The same policy with `network` as its network access.
    pub fn with_network_access(mut self, network: NetworkAccess) -> Self {
        self.network = network;
        self.proxy = ProxyCell::default();
        self
    }

    /// The same policy with one more writable directory (in `workspace-write` mode only; in
    /// `read-only` mode it is readable).
    pub fn with_writable_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.writable_roots.push(root.into());
        self
    }

    /// The same policy with one more readable directory or file.
    pub fn with_readable_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.readable_roots.push(root.into());
        self
    }

    /// The same policy with one more protected path (relative to the project root, or
    /// absolute).
    pub fn with_protected_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.protected_paths.push(path.into());
        self
    }

    /// The same policy denying what a `Read(…)` (`access` [`PathAccess::Read`]: neither
    /// read nor written) or `Edit(…)` (not written) permission rule's `pattern` names, in
    /// Claude Code's syntax (`./secrets/**`, `~/.ssh/**`, `*.pem`; see
    /// [`PathPattern`](crate::PathPattern)). What exists when a command starts is hidden or
    /// read-only for it, whatever path it takes there.
    pub fn with_denied(mut self, access: PathAccess, pattern: impl Into<String>) -> Self {
        match access {
            PathAccess::Read => self.denied_read.push(pattern.into()),
            PathAccess::Edit => self.denied_write.push(pattern.into()),
        }
        self
    }

    /// The same policy denying what the `Read(…)` and `Edit(…)` rules of
    /// `permissions.deny` name (see [`with_denied`](Self::with_denied)); other rules, and
    /// rules that do not parse (the permission gate reports those), are left out.
    pub fn with_permission_denies(self, permissions: &PermissionSettings) -> Self {
        permissions
            .deny
            .iter()
            .filter_map(|text| PermissionRule::parse(text).ok())
            .fold(self, |policy, rule| match rule.target {
                RuleTarget::Path { access, pattern } => policy.with_denied(access, pattern),
                _ => policy,
            })
    }

    /// The same policy with `home` as the home directory whose toolchains are visible and
    /// whose other contents are hidden (default: the user's, from `$HOME`).
    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// The same policy with `bwrap` as the bubblewrap program (default: the first of
    /// [`BWRAP_LOCATIONS`](crate::BWRAP_LOCATIONS) that exists). A path that does not
    /// exist gives the Landlock-only fallback.
    pub fn with_bwrap(mut self, bwrap: impl Into<PathBuf>) -> Self {
        self.bwrap = Some(bwrap.into());
        self
    }

    /// The same policy with `helper` as the network bridge program (default: the one
    /// registered by [`run_helper_if_requested`](crate::run_helper_if_requested)).
    pub fn with_helper(mut self, helper: impl Into<PathBuf>) -> Self {
        self.helper = Some(helper.into());
        self
    }

    /// The mode.
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// What confined processes may reach on the network.
    pub fn network(&self) -> &NetworkAccess {
        &self.network
    }

    /// Whether this policy confines anything (its mode is not `off`).
    pub fn is_confining(&self) -> bool {
        self.mode != SandboxMode::Off
    }

    /// The directories a process may write under this policy, given the project root and the
    /// process's temp dir: the temp dir always (scratch space that is removed afterwards), and
    /// in `workspace-write` mode the root and the extra writable roots too. Empty when `off`.
    pub fn writable_dirs(&self, project_root: &Path, temp_dir: &Path) -> Vec<PathBuf> {
        match self.mode {
            SandboxMode::Off => Vec::new(),
            SandboxMode::ReadOnly => vec![temp_dir.to_path_buf()],
            SandboxMode::WorkspaceWrite => {
                let mut dirs = vec![project_root.to_path_buf(), temp_dir.to_path_buf()];
                dirs.extend(self.extra_writable(project_root));
                dirs
            }
        }
    }

    /// The writable roots, relative ones joined to `project_root`.
    pub(crate) fn extra_writable(&self, project_root: &Path) -> Vec<PathBuf> {
        joined(&self.writable_roots, project_root)
    }

    /// The readable roots, relative ones joined to `project_root`.
    pub(crate) fn extra_readable(&self, project_root: &Path) -> Vec<PathBuf> {
        joined(&self.readable_roots, project_root)
    }

    /// The protected paths named by the caller, relative ones joined to `project_root`.
    pub(crate) fn extra_protected(&self, project_root: &Path) -> Vec<PathBuf> {
        joined(&self.protected_paths, project_root)
    }

    /// Whether `Read(…)`/`Edit(…)` deny patterns are held by this policy.
    pub fn has_denied_paths(&self) -> bool {
        !(self.denied_read.is_empty() && self.denied_write.is_empty())
    }

    /// The patterns of denied reads and of denied writes.
    pub(crate) fn denied_patterns(&self) -> (&[String], &[String]) {
        (&self.denied_read, &self.denied_write)
    }

    /// The home directory whose toolchains are visible.
    pub(crate) fn home(&self) -> Option<PathBuf> {
        self.home.clone().or_else(dirs::home_dir)
    }

    /// The bubblewrap program named on the policy, if any.
    pub(crate) fn bwrap_override(&self) -> Option<&Path> {
        self.bwrap.as_deref()
    }

    /// The network bridge program named on the policy, if any.
    pub(crate) fn helper_override(&self) -> Option<&Path> {
        self.helper.as_deref()
    }
}

fn joined(paths: &[PathBuf], project_root: &Path) -> Vec<PathBuf> {
    paths.iter().map(|path| project_root.join(path)).collect()
}

/// `~` and `~/x` relative to `home`; other paths as they are. `None` for a `~` path when the
/// home directory is unknown: granting `./~/x` instead would surprise.
fn expand_home(path: &str, home: Option<&Path>) -> Option<PathBuf> {
    if path == "~" {
        return home.map(Path::to_path_buf);
    }
    match path.strip_prefix("~/") {
        Some(rest) => home.map(|home| home.join(rest)),
        None => Some(PathBuf::from(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_is_expanded_and_relative_roots_join_the_project() {
        let home = Path::new("/home/u");
        assert_eq!(
            expand_home("~/.cargo", Some(home)),
            Some("/home/u/.cargo".into())
        );
        assert_eq!(expand_home("~", Some(home)), Some("/home/u".into()));
        assert_eq!(expand_home("~/.npm", None), None);
        assert_eq!(expand_home("~x", Some(home)), Some("~x".into()));
        let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite)
            .with_writable_root("cache")
            .with_writable_root("/opt/cache")
            .with_readable_root("docs")
            .with_protected_path("deploy");
        assert_eq!(
            policy.writable_dirs(Path::new("/p"), Path::new("/t")),
            ["/p", "/t", "/p/cache", "/opt/cache"].map(PathBuf::from)
        );
        assert_eq!(
            policy.extra_readable(Path::new("/p")),
            [PathBuf::from("/p/docs")]
        );
        assert_eq!(
            policy.extra_protected(Path::new("/p")),
            [PathBuf::from("/p/deploy")]
        );
    }

    #[test]
    fn read_only_writes_only_its_temp_dir_and_off_nothing() {
        let read_only = SandboxPolicy::new(SandboxMode::ReadOnly).with_writable_root("/x");
        assert_eq!(
            read_only.writable_dirs(Path::new("/p"), Path::new("/t")),
            [PathBuf::from("/t")]
        );
        assert!(
            SandboxPolicy::off()
                .writable_dirs(Path::new("/p"), Path::new("/t"))
                .is_empty()
        );
    }

    #[test]
    fn defaults_follow_the_settings_defaults_and_clones_are_equal() {
        let policy = SandboxPolicy::default();
        assert_eq!(policy.mode(), SandboxMode::WorkspaceWrite);
        assert!(policy.network().is_on());
        assert!(policy.is_confining());
        assert_eq!(policy.clone(), policy);
        assert_ne!(policy.clone().with_network(false), policy);
    }

    #[test]
    fn read_and_edit_deny_rules_become_denied_patterns() {
        let permissions = PermissionSettings {
            deny: vec![
                "Read(./secrets/**)".into(),
                "Edit(./locked/**)".into(),
                "Write(//etc/**)".into(),
                "Bash(rm:*)".into(),
                "Read".into(),
                "Read(".into(),
            ],
            ..PermissionSettings::default()
        };
        let policy = SandboxPolicy::default().with_permission_denies(&permissions);
        let (read, write) = policy.denied_patterns();
        assert_eq!(read, ["./secrets/**"]);
        assert_eq!(write, ["./locked/**", "//etc/**"]);
        assert_ne!(policy, SandboxPolicy::default());
        assert!(policy.has_denied_paths() && !SandboxPolicy::default().has_denied_paths());
    }
}

//! What a confined process may do: [`SandboxPolicy`], built from `sandbox.*` settings.

use agentctl_core::{SandboxMode, SandboxSettings};
use std::path::{Path, PathBuf};

/// What a confined process may write and whether it may use TCP.
///
/// Reads are allowed everywhere in every mode: a build needs the toolchain, the package caches
/// and the system libraries, and listing every one of them is what makes sandboxes unusable.
///
/// ```
/// use agentctl_core::SandboxMode;
/// use agentctl_sandbox::{SandboxPolicy};
///
/// let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite).with_network(false);
/// let writable = policy.writable_dirs("/work/project".as_ref(), "/tmp/run-1".as_ref());
/// assert_eq!(writable, ["/work/project", "/tmp/run-1"].map(std::path::PathBuf::from));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    mode: SandboxMode,
    network: bool,
    writable_roots: Vec<PathBuf>,
}

impl Default for SandboxPolicy {
    /// `workspace-write` with network, as the settings default to.
    fn default() -> Self {
        Self::from_settings(&SandboxSettings::default())
    }
}

impl SandboxPolicy {
    /// A policy of `mode`, network allowed, no extra writable directories.
    pub fn new(mode: SandboxMode) -> Self {
        Self {
            mode,
            network: true,
            writable_roots: Vec::new(),
        }
    }

    /// No confinement at all.
    pub fn off() -> Self {
        Self::new(SandboxMode::Off)
    }

    /// The policy of `sandbox.*` settings. `~/` in `writableRoots` is expanded to the home
    /// directory now; relative entries are kept relative and resolved against the project
    /// root of each command.
    pub fn from_settings(settings: &SandboxSettings) -> Self {
        let home = dirs::home_dir();
        let writable_roots = settings
            .writable_roots
            .iter()
            .filter_map(|root| expand_home(root, home.as_deref()))
            .collect();
        Self {
            mode: settings.mode,
            network: settings.network,
            writable_roots,
        }
    }

    /// The same policy with TCP allowed (`true`) or refused (`false`).
    pub fn with_network(mut self, network: bool) -> Self {
        self.network = network;
        self
    }

    /// The same policy with one more writable directory (in `workspace-write` mode only).
    pub fn with_writable_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.writable_roots.push(root.into());
        self
    }

    /// The mode.
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// Whether TCP `bind` and `connect` are allowed.
    pub fn network(&self) -> bool {
        self.network
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
                dirs.extend(
                    self.writable_roots
                        .iter()
                        .map(|root| project_root.join(root)),
                );
                dirs
            }
        }
    }
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
            .with_writable_root("/opt/cache");
        assert_eq!(
            policy.writable_dirs(Path::new("/p"), Path::new("/t")),
            ["/p", "/t", "/p/cache", "/opt/cache"].map(PathBuf::from)
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
    fn defaults_follow_the_settings_defaults() {
        let policy = SandboxPolicy::default();
        assert_eq!(policy.mode(), SandboxMode::WorkspaceWrite);
        assert!(policy.network());
        assert!(policy.is_confining());
    }
}

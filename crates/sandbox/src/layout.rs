//! What a confined process sees of the file system: [`Layout`], shared by the bubblewrap
//! mount plan and the Landlock-only fallback.
//!
//! Visible: the system directories, the project, the command's temp dir, the configured
//! readable and writable roots and the detected toolchains (the directories of `PATH` entries
//! outside the system, and well-known folders of the home such as `~/.cargo`), with known
//! credential files inside them hidden. Not visible: the rest of the home, `/tmp`, `/run`.

mod protect;
mod toolchains;

use crate::deny::{Denied, carve};
use crate::policy::SandboxPolicy;
use agentctl_core::SandboxMode;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

pub use protect::WALK_CAP;
pub use toolchains::HOME_TOOLCHAINS;

/// The system's directories, shown read-only where they exist (as the symbolic links they
/// are, where they are links such as `/bin -> usr/bin`).
pub const SYSTEM_DIRS: [&str; 12] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/var", "/nix",
    "/snap",
];

/// Files of the system directories that hold secrets, hidden when they exist and are not
/// readable by everyone (they matter when agentctl runs as root).
const SECRET_SYSTEM_FILES: [&str; 8] = [
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_dsa_key",
];

/// What a process may read of `/dev` under Landlock alone (namespaces give it a `/dev` of
/// its own with only these): not disks, not `/dev/tty`.
const READABLE_DEVICES: [&str; 7] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/pts",
    "/dev/ptmx",
];

/// A system directory as it is on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SystemEntry {
    /// A directory, shown read-only.
    Dir(PathBuf),
    /// A symbolic link, recreated as such.
    Link { path: PathBuf, target: PathBuf },
}

/// A directory (or file) shown at its own path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bind {
    pub path: PathBuf,
    pub writable: bool,
    /// Whether the command cannot work without it (the project root, the temp dir).
    pub required: bool,
}

impl Bind {
    /// A bind that is skipped when its path does not exist.
    fn optional(path: &Path, writable: bool) -> Self {
        Self {
            path: normalize(path),
            writable,
            required: false,
        }
    }
}

/// Everything a confined process sees, computed once per spawn.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    /// The system directories that exist.
    pub system: Vec<SystemEntry>,
    /// Folders under `/run` that name resolution needs (the target of `/etc/resolv.conf`),
    /// with the host's network only.
    pub run: Vec<PathBuf>,
    /// The home directory, shown empty (and writable) except for what `binds` put in it.
    pub home: Option<PathBuf>,
    /// Project, temp dir, roots and toolchains, shallow paths first.
    pub binds: Vec<Bind>,
    /// Files hidden inside visible folders (credentials).
    pub masked: Vec<PathBuf>,
    /// Read-only on top of everything (only when asked for: the bubblewrap plan).
    pub protected: Vec<PathBuf>,
    /// Paths `Read(…)` deny rules name: hidden (an empty folder or file with namespaces, not
    /// granted with Landlock alone).
    pub hidden: Vec<PathBuf>,
    /// Paths `Edit(…)` deny rules name (read-only; with namespaces also in `protected`).
    pub locked: Vec<PathBuf>,
    /// The walk for denied paths stopped at [`DENY_WALK_CAP`](crate::DENY_WALK_CAP).
    pub deny_capped: bool,
    /// The protected-path walk stopped at [`WALK_CAP`] directories.
    pub walk_capped: bool,
    /// The folders some sandboxed process may write (this one's or another's): the project,
    /// the temp dir, the writable roots, whatever the mode.
    pub sandbox_writable: Vec<PathBuf>,
}

/// What a layout is computed from besides the policy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LayoutRequest<'a> {
    pub policy: &'a SandboxPolicy,
    pub project_root: &'a Path,
    pub temp_dir: &'a Path,
    /// The command's `PATH`, `CARGO_HOME` and `RUSTUP_HOME`.
    pub path_var: Option<&'a OsStr>,
    pub cargo_home: Option<&'a OsStr>,
    pub rustup_home: Option<&'a OsStr>,
    /// Files agentctl itself needs inside (the network bridge program and its socket's
    /// folder), shown read-only.
    pub own_files: &'a [PathBuf],
    /// Whether to find the protected paths (a walk of the writable folders).
    pub protect: bool,
    /// Whether the command shares the host's network. Only then is the resolver's folder
    /// under `/run` shown: its socket (systemd-resolved's) would answer DNS queries from a
    /// command that has no network of its own.
    pub shared_network: bool,
}

impl Layout {
    /// The layout of `request`.
    pub(crate) fn new(request: &LayoutRequest<'_>) -> Self {
        let policy = request.policy;
        let root = normalize(request.project_root);
        let temp = normalize(request.temp_dir);
        let home = policy
            .home()
            .map(|home| normalize(&home))
            .filter(|home| is_usable_home(home));
        let writable_mode = policy.mode() == SandboxMode::WorkspaceWrite;
        let git = protect::repository_dirs(&root);
        let mut binds = own_binds(request, &root, &temp, &git);
        let covered: Vec<PathBuf> = binds.iter().map(|bind| bind.path.clone()).collect();
        let toolchains = toolchains::detect(request, home.as_deref(), &covered);
        binds.extend(toolchains.iter().map(|path| Bind::optional(path, false)));
        let mut masked = toolchains::credentials(&toolchains);
        masked.extend(secret_system_files());
        let mut layout = Layout {
            system: system_entries(),
            run: if request.shared_network {
                run_dirs()
            } else {
                Vec::new()
            },
            home,
            binds: order(binds),
            masked,
            ..Layout::default()
        };
        if request.protect && writable_mode {
            let writable: Vec<PathBuf> = layout
                .binds
                .iter()
                .filter(|bind| bind.writable && bind.path != temp)
                .map(|bind| bind.path.clone())
                .collect();
            let found = protect::find(&root, &writable, &policy.extra_protected(&root));
            layout.protected = found.paths;
            layout.protected.extend(git);
            layout.protected = order_paths(layout.protected);
            layout.walk_capped = found.capped;
        }
        layout.deny(policy, &root);
        let mut writable = vec![root.clone(), temp];
        writable.extend(
            policy
                .extra_writable(&root)
                .iter()
                .map(|path| normalize(path)),
        );
        layout.prune(writable);
        layout
    }

    /// A command can replace a folder it may write with a symbolic link (`cache ->
    /// ../../..`), and bubblewrap mounts by path. Nothing optional is mounted beneath the
    /// folders sandboxed processes write (`writable`: the folder shows it already), and a
    /// protected path there only when no link is on the way now, just before the spawn (the
    /// helper checks again, inside, after the mounts).
    fn prune(&mut self, writable: Vec<PathBuf>) {
        self.binds.retain(|bind| {
            bind.required
                || !writable
                    .iter()
                    .any(|base| bind.path.starts_with(base) && bind.path != *base)
        });
        self.protected.retain(|path| !through_link(path, &writable));
        self.hidden.retain(|path| !through_link(path, &writable));
        self.sandbox_writable = writable;
    }

    /// Finds what the policy's deny rules name inside the binds: hidden, and locked (also
    /// protected: with namespaces, mounted read-only and checked from inside like them).
    fn deny(&mut self, policy: &SandboxPolicy, root: &Path) {
        let visible: Vec<PathBuf> = self.binds.iter().map(|bind| bind.path.clone()).collect();
        let home = policy.home();
        let denied = Denied::find(policy.denied_patterns(), (root, home.as_deref()), &visible);
        self.deny_capped = denied.capped;
        self.hidden = denied.read;
        self.locked = denied.write;
        if !self.protected.is_empty() || !self.locked.is_empty() {
            let mut protected = std::mem::take(&mut self.protected);
            protected.extend(self.locked.iter().cloned());
            self.protected = order_paths(protected);
        }
    }

    /// Every path a process may read: system directories, `/sys`, `/proc`, harmless devices, the run
    /// folders and every bind (for Landlock, which cannot hide files inside them).
    pub(crate) fn readable_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self
            .system
            .iter()
            .map(|entry| match entry {
                SystemEntry::Dir(path) | SystemEntry::Link { path, .. } => path.clone(),
            })
            .collect();
        paths.extend(
            ["/sys", "/proc"]
                .iter()
                .chain(&READABLE_DEVICES)
                .map(PathBuf::from),
        );
        paths.extend(self.run.iter().cloned());
        let mut denied = self.masked.clone();
        denied.extend(self.hidden.iter().cloned());
        for bind in &self.binds {
            carve(&bind.path, &denied, &mut paths);
        }
        paths
    }

    /// Every folder that holds a hidden path (Landlock lists them, but reads none of their
    /// files, as they were not granted whole).
    pub(crate) fn listable_paths(&self) -> Vec<PathBuf> {
        let mut on_the_way = Vec::new();
        for bind in &self.binds {
            on_the_way.extend(carve(&bind.path, &self.hidden, &mut Vec::new()));
        }
        on_the_way
    }

    /// The paths a process may write (Landlock), without the locked ones and the folders on
    /// the way to them.
    pub(crate) fn writable_paths(&self) -> Vec<PathBuf> {
        let mut granted = Vec::new();
        for bind in self.binds.iter().filter(|bind| bind.writable) {
            carve(&bind.path, &self.locked, &mut granted);
        }
        granted
    }
}

/// Whether `path` lies strictly beneath one of `writable` through a symbolic link (itself
/// included) that a sandboxed process could have made.
pub(crate) fn through_link(path: &Path, writable: &[PathBuf]) -> bool {
    writable.iter().any(|base| {
        let Ok(below) = path.strip_prefix(base) else {
            return false;
        };
        let mut walked = base.clone();
        below.components().any(|part| {
            walked.push(part);
            std::fs::symlink_metadata(&walked).is_ok_and(|meta| meta.file_type().is_symlink())
        })
    })
}

/// The project, the temp dir, the configured roots, agentctl's own files and the
/// repository folders `git` of a worktree project.
fn own_binds(request: &LayoutRequest<'_>, root: &Path, temp: &Path, git: &[PathBuf]) -> Vec<Bind> {
    let policy = request.policy;
    let writable_mode = policy.mode() == SandboxMode::WorkspaceWrite;
    let required = |path: &Path, writable| Bind {
        path: path.to_path_buf(),
        writable,
        required: true,
    };
    let mut binds = vec![required(root, writable_mode), required(temp, true)];
    binds.extend(
        policy
            .extra_writable(root)
            .iter()
            .map(|path| Bind::optional(path, writable_mode)),
    );
    binds.extend(
        policy
            .extra_readable(root)
            .iter()
            .chain(request.own_files)
            .chain(git)
            .map(|path| Bind::optional(path, false)),
    );
    binds
}

/// A home that can be replaced by an empty folder: absolute, not `/`, not a system directory.
fn is_usable_home(home: &Path) -> bool {
    home.is_absolute()
        && home.parent().is_some()
        && !SYSTEM_DIRS.iter().any(|dir| Path::new(dir) == home)
}

pub(crate) fn system_entries() -> Vec<SystemEntry> {
    SYSTEM_DIRS
        .iter()
        .map(PathBuf::from)
        .filter_map(|path| {
            let meta = std::fs::symlink_metadata(&path).ok()?;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).ok()?;
                Some(SystemEntry::Link { path, target })
            } else if meta.is_dir() {
                Some(SystemEntry::Dir(path))
            } else {
                None
            }
        })
        .collect()
}

/// The folder of `/etc/resolv.conf`'s target when it lies under `/run` (systemd-resolved,
/// NetworkManager, resolvconf).
fn run_dirs() -> Vec<PathBuf> {
    std::fs::canonicalize("/etc/resolv.conf")
        .ok()
        .filter(|target| target.starts_with("/run"))
        .and_then(|target| target.parent().map(Path::to_path_buf))
        .into_iter()
        .collect()
}

fn secret_system_files() -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    SECRET_SYSTEM_FILES
        .iter()
        .map(PathBuf::from)
        .filter(|path| {
            std::fs::symlink_metadata(path)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o004 == 0)
        })
        .collect()
}

/// Binds shallow first (so that a deeper one lands on top), one per path, writable winning.
fn order(mut binds: Vec<Bind>) -> Vec<Bind> {
    binds.sort_by_key(|bind| depth(&bind.path));
    let mut out: Vec<Bind> = Vec::with_capacity(binds.len());
    for bind in binds {
        match out.iter_mut().find(|kept| kept.path == bind.path) {
            Some(kept) => {
                kept.writable |= bind.writable;
                kept.required |= bind.required;
            }
            None => out.push(bind),
        }
    }
    out
}

/// Paths shallow first, each once.
pub(crate) fn order_paths(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
    paths.dedup();
    paths
}

fn depth(path: &Path) -> usize {
    path.components().count()
}

/// `path` made absolute with `.` and `..` resolved as text (symbolic links are left to the
/// kernel: bubblewrap resolves a bind's source and target the way a process would).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::from("/");
    for part in absolute.components() {
        match part {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_as_text() {
        assert_eq!(normalize(Path::new("/a/./b/../c/")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    }

    #[test]
    fn binds_go_shallow_first_and_writable_wins() {
        let bind = |path: &str, writable| Bind {
            path: path.into(),
            writable,
            required: false,
        };
        let ordered = order(vec![
            bind("/h/.cargo/registry", true),
            bind("/h/.cargo", false),
            bind("/p", false),
            bind("/p", true),
        ]);
        assert_eq!(
            ordered,
            [
                bind("/p", true),
                bind("/h/.cargo", false),
                bind("/h/.cargo/registry", true)
            ]
        );
    }

    #[test]
    fn paths_through_links_in_writable_folders_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("real/inner")).unwrap();
        std::os::unix::fs::symlink("../..", root.join("real/up")).unwrap();
        std::os::unix::fs::symlink("real", root.join("cache")).unwrap();
        let writable = [root.clone()];
        assert!(!through_link(&root.join("real/inner"), &writable));
        assert!(!through_link(&root, &writable));
        assert!(through_link(&root.join("cache"), &writable));
        assert!(through_link(&root.join("real/up/etc"), &writable));
        assert!(!through_link(Path::new("/usr/bin"), &writable));
    }

    #[test]
    fn a_home_must_be_a_folder_of_its_own() {
        assert!(is_usable_home(Path::new("/home/u")));
        assert!(!is_usable_home(Path::new("/")));
        assert!(!is_usable_home(Path::new("/usr")));
        assert!(!is_usable_home(Path::new("home")));
    }
}

//! Namespaces through bubblewrap: finding it, checking once per process that it can create
//! namespaces here, and the arguments of a confined command ([`arguments`]).
//!
//! The mount plan is a whitelist root (bubblewrap builds it on a fresh tmpfs): the system
//! directories read-only, a fresh `/tmp`, `/run` and home, a `/dev` with only the harmless
//! devices (`/dev/tty` masked), then the [`Layout`]'s binds shallow first, a `/proc` of the
//! command's own PID namespace, and last the protected paths read-only on top of everything.
//! The command runs with every capability dropped and no way to make user namespaces of its
//! own, so it cannot unmount or remount what hides or protects.

use crate::layout::{Layout, SystemEntry};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where agentctl looks for bubblewrap, in order. Not the command's `PATH`: a `bwrap` planted
/// in a project folder on `PATH` would run unconfined.
pub const BWRAP_LOCATIONS: [&str; 4] = [
    "/usr/bin/bwrap",
    "/usr/local/bin/bwrap",
    "/bin/bwrap",
    "/run/current-system/sw/bin/bwrap",
];

/// The outcome of checking each bubblewrap program, once per process.
static CHECKED: Mutex<BTreeMap<PathBuf, Result<(), String>>> = Mutex::new(BTreeMap::new());

/// The bubblewrap program to use: `chosen`, or the first of [`BWRAP_LOCATIONS`] that exists.
pub(crate) fn locate(chosen: Option<&Path>) -> Result<PathBuf, String> {
    match chosen {
        Some(path) if path.is_file() => Ok(path.to_path_buf()),
        Some(path) => Err(format!("bubblewrap not found at {}", path.display())),
        None => BWRAP_LOCATIONS
            .iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
            .ok_or_else(|| "bubblewrap not found: install the bubblewrap package".to_owned()),
    }
}

/// Whether `bwrap` can create the sandbox's namespaces here, checked by running it the first
/// time and remembered. `check` runs the probe (on a thread confined as spawns are).
pub(crate) fn usable(
    bwrap: &Path,
    check: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let mut checked = CHECKED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    checked
        .entry(bwrap.to_path_buf())
        .or_insert_with(|| check(bwrap))
        .clone()
}

/// Runs `bwrap` in the sandbox's namespaces with a minimal root (on the calling thread) and
/// reports why it failed, if it did.
pub(crate) fn probe_once(bwrap: &Path) -> Result<(), String> {
    let mut args = namespace_args(true);
    let layout = Layout {
        system: crate::layout::system_entries(),
        ..Layout::default()
    };
    args.extend(mount_args(&layout));
    args.extend(["--proc", "/proc", "--"].map(OsString::from));
    args.push(bwrap.into());
    args.push("--version".into());
    let output = std::process::Command::new(bwrap)
        .args(args)
        .env_clear()
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|error| format!("cannot run bubblewrap at {}: {error}", bwrap.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().next().unwrap_or("no message").trim();
    if first.contains("--disable-userns") {
        return Err(format!(
            "bubblewrap at {} is too old (0.8 or newer is needed for --disable-userns)",
            bwrap.display()
        ));
    }
    Err(format!(
        "bubblewrap at {} cannot create namespaces here: {first}",
        bwrap.display()
    ))
}

/// How the command's network is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Net {
    /// The host's network.
    Shared,
    /// A network namespace of its own: only a loopback interface.
    Isolated,
}

/// The bubblewrap arguments (before `--` and the program) of a command that runs in `cwd`
/// with `layout` and `net`.
pub(crate) fn arguments(layout: &Layout, net: Net, cwd: &Path) -> Vec<OsString> {
    let mut args = namespace_args(net == Net::Isolated);
    args.extend(mount_args(layout));
    args.push("--chdir".into());
    args.push(cwd.into());
    args
}

/// Every namespace, every capability dropped, no nested user namespaces. No
/// `--new-session`: the command must stay in the process group that is killed, and killing
/// the PID namespace's init (bubblewrap, in that group) kills everything inside.
fn namespace_args(isolated_net: bool) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--unshare-user",
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]
    .map(OsString::from)
    .into();
    if isolated_net {
        args.push("--unshare-net".into());
    }
    args
}

fn mount_args(layout: &Layout) -> Vec<OsString> {
    let mut args = Args::default();
    for entry in &layout.system {
        match entry {
            SystemEntry::Dir(path) => args.op("--ro-bind", path, path),
            SystemEntry::Link { path, target } => args.op("--symlink", target, path),
        }
    }
    args.op("--ro-bind", "/sys", "/sys");
    args.one("--tmpfs", "/tmp");
    if layout.system.contains(&SystemEntry::Dir("/var".into())) && Path::new("/var/tmp").is_dir() {
        args.one("--tmpfs", "/var/tmp");
    }
    args.one("--tmpfs", "/run");
    for dir in &layout.run {
        args.op("--ro-bind-try", dir, dir);
    }
    if let Some(home) = &layout.home {
        args.one("--tmpfs", home);
    }
    args.one("--dev", "/dev");
    for bind in &layout.binds {
        let op = match (bind.writable, bind.required) {
            (true, true) => "--bind",
            (true, false) => "--bind-try",
            (false, true) => "--ro-bind",
            (false, false) => "--ro-bind-try",
        };
        args.op(op, &bind.path, &bind.path);
    }
    // After the binds, so that no bind (even one of `/`) shows the host's.
    args.one("--proc", "/proc");
    for path in layout.masked.iter().chain([&PathBuf::from("/dev/tty")]) {
        args.op("--ro-bind", "/dev/null", path);
    }
    for path in &layout.protected {
        args.op("--ro-bind-try", path, path);
    }
    // Last, so that no protected mount shows what a deny rule hides: an empty read-only
    // folder over a folder, an empty file over a file.
    for path in &layout.hidden {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                args.one("--tmpfs", path);
                args.one("--remount-ro", path);
            }
            Ok(_) => args.op("--ro-bind", "/dev/null", path),
            Err(_) => {}
        }
    }
    args.0
}

#[derive(Default)]
struct Args(Vec<OsString>);

impl Args {
    fn one(&mut self, op: &str, path: impl AsRef<Path>) {
        self.0.push(op.into());
        self.0.push(path.as_ref().into());
    }

    fn op(&mut self, op: &str, source: impl AsRef<Path>, target: impl AsRef<Path>) {
        self.one(op, source);
        self.0.push(target.as_ref().into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Bind;

    #[test]
    fn protected_paths_come_last_and_binds_keep_their_order() {
        let layout = Layout {
            system: vec![
                SystemEntry::Dir("/usr".into()),
                SystemEntry::Link {
                    path: "/bin".into(),
                    target: "usr/bin".into(),
                },
            ],
            home: Some("/home/u".into()),
            binds: vec![
                Bind {
                    path: "/p".into(),
                    writable: true,
                    required: true,
                },
                Bind {
                    path: "/home/u/.cargo".into(),
                    writable: false,
                    required: false,
                },
            ],
            masked: vec!["/home/u/.cargo/credentials.toml".into()],
            protected: vec!["/p/.git".into()],
            ..Layout::default()
        };
        let args = arguments(&layout, Net::Isolated, Path::new("/p/src"));
        let text: Vec<_> = args.iter().map(|arg| arg.to_string_lossy()).collect();
        let text = text.join(" ");
        assert!(text.starts_with("--unshare-user --disable-userns --cap-drop ALL --unshare-pid"));
        assert!(text.contains("--unshare-net"));
        assert!(!text.contains("--new-session") && !text.contains("--die-with-parent"));
        let position = |needle: &str| text.find(needle).unwrap();
        assert!(position("--ro-bind /usr /usr") < position("--symlink usr/bin /bin"));
        assert!(position("--tmpfs /home/u") < position("--bind /p /p"));
        assert!(position("--bind /p /p") < position("--ro-bind-try /home/u/.cargo"));
        assert!(position("--proc /proc") < position("--ro-bind-try /p/.git /p/.git"));
        assert!(text.contains("--ro-bind /dev/null /home/u/.cargo/credentials.toml"));
        assert!(text.contains("--ro-bind /dev/null /dev/tty"));
        assert!(text.ends_with("--ro-bind-try /p/.git /p/.git --chdir /p/src"));
    }
}

//! agentctl's own executable as the sandbox's helper (the "arg0" pattern codex uses for its
//! Linux sandbox): [`run_helper_if_requested`] turns the process into the network bridge
//! when its arguments ask for it, and otherwise registers the executable so that
//! [`spawn`](crate::spawn) can run it inside the sandbox. [`set_non_dumpable`] keeps other
//! processes of the same user out of agentctl's memory and environment.

mod bridge;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The first argument that makes an executable the network bridge.
pub(crate) const BRIDGE_FLAG: &str = "__agentctl-sandbox-bridge";

/// The registered helper executable.
static HELPER: OnceLock<PathBuf> = OnceLock::new();

/// Call first thing in `main` of a program that runs sandboxed commands with a network
/// allow-list (the `agentctl` binary does).
///
/// When the process was started as the sandbox's network bridge (its first argument is the
/// bridge flag), this runs the bridge and the command it wraps, and exits with the command's
/// status: it never returns. Otherwise it returns at once, having registered
/// [`std::env::current_exe`] as the helper that [`spawn`](crate::spawn) runs inside the
/// sandbox for `network: {"allow": […]}`. A program that does not call it gets no network
/// for such commands (the allow-list fails closed) and a status gap that says so.
///
/// ```
/// agentctl_sandbox::run_helper_if_requested();
/// // … the program's own work.
/// ```
pub fn run_helper_if_requested() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() == Some(OsStr::new(BRIDGE_FLAG)) {
        std::process::exit(bridge::run(args));
    }
    if let Ok(exe) = std::env::current_exe() {
        let _ = HELPER.set(exe);
    }
}

/// The helper to run inside the sandbox: the one named on the policy, else the registered one.
pub(crate) fn helper(chosen: Option<&Path>) -> Result<PathBuf, String> {
    match chosen {
        Some(path) if path.is_file() => Ok(path.to_path_buf()),
        Some(path) => Err(format!(
            "the network bridge program {} does not exist",
            path.display()
        )),
        None => HELPER.get().cloned().ok_or_else(|| {
            "no network bridge program is registered (the embedding program does not call \
             agentctl_sandbox::run_helper_if_requested)"
                .to_owned()
        }),
    }
}

/// Makes this process non-dumpable: other processes of the same user can no longer read its
/// `/proc/<pid>/environ`, `mem` or `cmdline`-adjacent files nor attach a debugger, and it
/// leaves no core dump (which would hold its API keys). Children get their own setting back
/// when they execute a program. Call first thing in `main`; a no-op elsewhere than Linux.
///
/// ```
/// agentctl_sandbox::set_non_dumpable().unwrap();
/// ```
pub fn set_non_dumpable() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)?;
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_process_becomes_non_dumpable_and_the_policy_helper_must_exist() {
        set_non_dumpable().unwrap();
        assert_eq!(
            rustix::process::dumpable_behavior().unwrap(),
            rustix::process::DumpableBehavior::NotDumpable
        );
        let missing = helper(Some(Path::new("/nonexistent/agentctl"))).unwrap_err();
        assert_eq!(
            missing,
            "the network bridge program /nonexistent/agentctl does not exist"
        );
    }
}

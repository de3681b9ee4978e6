//! agentctl's own executable as the sandbox's helper (the "arg0" pattern codex uses for its
//! Linux sandbox): [`run_helper_if_requested`] turns the process into the helper when its
//! arguments ask for it, and otherwise registers the executable so that
//! [`spawn`](crate::spawn) can run it inside the sandbox. [`set_non_dumpable`] keeps other
//! processes of the same user out of agentctl's memory and environment.
//!
//! Inside the sandbox, before the command, the helper checks that every protected path is
//! really read-only (bubblewrap mounts by path, and a process running concurrently in another
//! sandbox could have swapped a folder for a symbolic link between agentctl's walk and the
//! mount), then runs the command: directly (`exec`), or with the network bridge for an
//! allow-list.
//!
//! Arguments after the helper flag: `[--writable DIR]… [--protected PATH]… [--proxy SOCKET]
//! -- PROGRAM [ARGS…]`.

mod bridge;
mod check;

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The first argument that makes an executable the sandbox's helper.
pub(crate) const HELPER_FLAG: &str = "__agentctl-sandbox-helper";

/// The registered helper executable.
static HELPER: OnceLock<PathBuf> = OnceLock::new();

/// Call first thing in `main` of a program that runs sandboxed commands (the `agentctl`
/// binary does).
///
/// When the process was started as the sandbox's helper (its first argument is the helper
/// flag), this checks the sandbox, runs the command it wraps and exits with the command's
/// status: it never returns. Otherwise it returns at once, having registered
/// [`std::env::current_exe`] as the helper that [`spawn`](crate::spawn) runs inside the
/// sandbox. A program that does not call it gets no network for `network: {"allow": […]}`
/// (the allow-list fails closed) and no check of the protected mounts, and the status says so.
///
/// ```
/// agentctl_sandbox::run_helper_if_requested();
/// // … the program's own work.
/// ```
pub fn run_helper_if_requested() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() == Some(OsStr::new(HELPER_FLAG)) {
        std::process::exit(run(args));
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
            "the sandbox helper program {} does not exist",
            path.display()
        )),
        None => HELPER.get().cloned().ok_or_else(|| {
            "no sandbox helper program is registered (the embedding program does not call \
             agentctl_sandbox::run_helper_if_requested)"
                .to_owned()
        }),
    }
}

/// The helper's arguments for `program` with `args`.
pub(crate) fn arguments(
    writable: &[PathBuf],
    protected: &[PathBuf],
    proxy: Option<&Path>,
) -> Vec<OsString> {
    let mut out: Vec<OsString> = vec![HELPER_FLAG.into()];
    for dir in writable {
        out.extend(["--writable".into(), dir.into()]);
    }
    for path in protected {
        out.extend(["--protected".into(), path.into()]);
    }
    if let Some(socket) = proxy {
        out.extend(["--proxy".into(), socket.into()]);
    }
    out.push("--".into());
    out
}

/// What the helper was asked to do.
#[derive(Debug, Default)]
struct Request {
    writable: Vec<PathBuf>,
    protected: Vec<PathBuf>,
    proxy: Option<PathBuf>,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Request, String> {
    let mut request = Request::default();
    loop {
        let flag = args.next().ok_or("no `--` before the program")?;
        if flag == "--" {
            break;
        }
        let value = PathBuf::from(args.next().ok_or("an option without a value")?);
        match flag.to_str() {
            Some("--writable") => request.writable.push(value),
            Some("--protected") => request.protected.push(value),
            Some("--proxy") => request.proxy = Some(value),
            _ => return Err(format!("unknown option {}", flag.to_string_lossy())),
        }
    }
    request.program = args.next().ok_or("no program")?;
    request.args = args.collect();
    Ok(request)
}

/// Runs the helper; returns the exit code to leave with.
fn run(args: impl Iterator<Item = OsString>) -> i32 {
    let request = match parse(args) {
        Ok(request) => request,
        Err(error) => {
            say(&format!("agentctl sandbox helper: {error}"));
            return 2;
        }
    };
    if let Err(error) = check::protected_are_read_only(&request.protected, &request.writable) {
        say(&format!(
            "agentctl sandbox: refusing to run the command: {error}"
        ));
        return 126;
    }
    match &request.proxy {
        Some(socket) => bridge::run(socket, &request.program, &request.args),
        None => {
            use std::os::unix::process::CommandExt as _;
            let error = std::process::Command::new(&request.program)
                .args(&request.args)
                .exec();
            say(&format!(
                "agentctl sandbox: cannot start `{}`: {error}",
                request.program.to_string_lossy()
            ));
            127
        }
    }
}

/// Writes `message` to stderr (the command's: the helper shares its streams).
fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// Makes this process non-dumpable: other processes of the same user can no longer read its
/// `/proc/<pid>/environ` or `mem` nor attach a debugger, and it leaves no core dump (which
/// would hold its API keys). Children get their own setting back when they execute a
/// program. Call first thing in `main`; a no-op elsewhere than Linux.
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
            "the sandbox helper program /nonexistent/agentctl does not exist"
        );
    }

    #[test]
    fn arguments_parse_back() {
        let args = arguments(
            &["/p".into()],
            &["/p/.git".into(), "/p/.agentctl".into()],
            Some(Path::new("/t/proxy.sock")),
        );
        let mut args = args.into_iter().skip(1).collect::<Vec<_>>();
        args.extend(["sh".into(), "-c".into(), "x".into()]);
        let request = parse(args.into_iter()).unwrap();
        assert_eq!(request.writable, [PathBuf::from("/p")]);
        assert_eq!(request.protected.len(), 2);
        assert_eq!(request.proxy, Some("/t/proxy.sock".into()));
        assert_eq!((request.program, request.args.len()), ("sh".into(), 2));
        for bad in [
            vec!["--x", "1", "--", "sh"],
            vec!["--writable"],
            vec!["--"],
            vec![],
        ] {
            let bad = bad.into_iter().map(OsString::from);
            assert!(parse(bad).is_err());
        }
    }
}

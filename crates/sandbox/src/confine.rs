//! Starting a child process inside the sandbox without `unsafe` code: [`spawn`] and [`probe`].
//!
//! Landlock rules and `no_new_privs` apply to the calling *thread* and are inherited by every
//! process that thread starts (`fork`, `vfork` and `posix_spawn` copy the thread's
//! credentials). The usual way to confine only a child is a `pre_exec` hook, which is `unsafe`
//! and forbidden in this workspace. Instead each confined spawn gets a short-lived OS thread
//! of its own:
//!
//! 1. a scoped thread is started (it borrows the command, so nothing needs to be `'static`);
//! 2. the thread restricts itself, then enters the caller's tokio runtime and spawns the
//!    child, which inherits the restriction;
//! 3. the thread hands the `Child` back and exits, taking its restriction with it.
//!
//! The restricted thread does nothing else: in particular it never runs tokio tasks or
//! `spawn_blocking`, since a thread it started (a blocking-pool worker, say) would inherit the
//! restriction and later do the agent's own work confined. The caller waits for the thread,
//! which takes about as long as the `fork` that `Command::spawn` does anyway.

use crate::error::SandboxError;
use crate::policy::SandboxPolicy;
use crate::status::SandboxStatus;
use std::path::{Path, PathBuf};
use tokio::process::{Child, Command};

/// A child started by [`spawn`], and how it is confined.
#[derive(Debug)]
pub struct SpawnedChild {
    /// The running child.
    pub child: Child,
    /// Whether and how far it is confined.
    pub status: SandboxStatus,
}

/// Starts `command` confined by `policy`: it may write only `policy`'s
/// [writable directories](SandboxPolicy::writable_dirs) for `project_root` and `temp_dir`, and
/// use TCP only if the policy allows it.
///
/// Must be called within a tokio runtime (the child's pipes and exit are watched by it). When
/// the system cannot confine the child, it is started unconfined and the returned
/// [`SandboxStatus`] says why. The command's own settings (working directory, environment,
/// process group, pipes) are kept; set them before calling.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use agentctl_core::SandboxMode;
/// use agentctl_sandbox::{SandboxPolicy, spawn};
///
/// let root = tempfile::tempdir()?;
/// let temp = tempfile::tempdir()?;
/// let mut command = tokio::process::Command::new("sh");
/// command.args(["-c", "echo hi > note.txt"]).current_dir(root.path());
/// let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
/// let mut spawned = spawn(&mut command, &policy, root.path(), temp.path())?;
/// assert!(spawned.child.wait().await?.success());
/// assert!(root.path().join("note.txt").exists());
/// println!("sandbox: {}", spawned.status);
/// # Ok(())
/// # }
/// ```
pub fn spawn(
    command: &mut Command,
    policy: &SandboxPolicy,
    project_root: &Path,
    temp_dir: &Path,
) -> Result<SpawnedChild, SandboxError> {
    let program = command
        .as_std()
        .get_program()
        .to_string_lossy()
        .into_owned();
    if !policy.is_confining() {
        let child = command
            .spawn()
            .map_err(|source| SandboxError::Spawn { program, source })?;
        return Ok(SpawnedChild {
            child,
            status: SandboxStatus::Off,
        });
    }
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| SandboxError::NoRuntime {
        program: program.clone(),
    })?;
    let writable = policy.writable_dirs(project_root, temp_dir);
    let (spawned, status) = on_confined_thread(policy, &writable, &program, || {
        let _entered = runtime.enter();
        command.spawn()
    })?;
    let child = spawned.map_err(|source| SandboxError::Spawn { program, source })?;
    Ok(SpawnedChild { child, status })
}

/// What confining a process under `policy` would give on this system, found by confining a
/// throwaway thread. Front ends print it once per run.
///
/// ```
/// use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe};
///
/// assert_eq!(probe(&SandboxPolicy::off()), SandboxStatus::Off);
/// match probe(&SandboxPolicy::default()) {
///     SandboxStatus::Unavailable { reason } => println!("not sandboxed: {reason}"),
///     status => println!("sandbox: {status}"),
/// }
/// ```
pub fn probe(policy: &SandboxPolicy) -> SandboxStatus {
    if !policy.is_confining() {
        return SandboxStatus::Off;
    }
    match on_confined_thread(policy, &[], "(probe)", || ()) {
        Ok(((), status)) => status,
        Err(error) => SandboxStatus::Unavailable {
            reason: error.to_string(),
        },
    }
}

/// Runs `work` on a new thread confined by `policy`, and returns its result and the status of
/// the confinement. `work` must only start processes (see the module docs).
fn on_confined_thread<T: Send>(
    policy: &SandboxPolicy,
    writable: &[PathBuf],
    program: &str,
    work: impl FnOnce() -> T + Send,
) -> Result<(T, SandboxStatus), SandboxError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("agentctl-sandbox".into())
            .spawn_scoped(scope, || {
                let status = restrict_current_thread(policy, writable);
                (work(), status)
            })
            .map_err(|source| SandboxError::Thread {
                program: program.to_owned(),
                source,
            })?;
        thread.join().map_err(|_| SandboxError::ThreadPanicked {
            program: program.to_owned(),
        })
    })
}

#[cfg(target_os = "linux")]
fn restrict_current_thread(policy: &SandboxPolicy, writable: &[PathBuf]) -> SandboxStatus {
    crate::landlock_rules::restrict_current_thread(policy, writable)
}

#[cfg(not(target_os = "linux"))]
fn restrict_current_thread(_policy: &SandboxPolicy, _writable: &[PathBuf]) -> SandboxStatus {
    SandboxStatus::Unavailable {
        reason: "the sandbox uses Landlock, which only Linux has".into(),
    }
}

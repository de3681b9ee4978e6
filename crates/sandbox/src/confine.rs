//! Starting a child process inside the sandbox without `unsafe` code: [`spawn`] and [`probe`].
//!
//! Two layers, chosen once per process by running bubblewrap:
//!
//! - **Namespaces** (bubblewrap): the command runs in user, mount, PID, IPC and UTS namespaces
//!   (and a network namespace unless the network is shared) with the mount plan of the
//!   `bwrap` module. Creating namespaces needs a single-threaded process, which agentctl (a
//!   tokio program, with `unsafe` forbidden) is not: bubblewrap does it for us.
//! - **Landlock**, always when the kernel has it. With namespaces it only scopes signals and
//!   abstract Unix sockets (a domain that handles file-system rights forbids `mount`, which
//!   bubblewrap needs; a network namespace needs no TCP rules). Without namespaces it does
//!   all it can: reads and writes confined to the visible and writable folders, TCP refused
//!   when the network is not shared.
//!
//! Landlock rules and `no_new_privs` apply to the calling *thread* and are inherited by every
//! process that thread starts. The usual way to confine only a child is a `pre_exec` hook,
//! which is `unsafe`. Instead each confined spawn gets a short-lived OS thread of its own:
//! the thread restricts itself, enters the caller's tokio runtime, spawns the child (which
//! inherits the restriction), hands the `Child` back and exits, taking its restriction with
//! it. The thread does nothing else: in particular it never runs tokio tasks or
//! `spawn_blocking`, whose threads would inherit the restriction. bubblewrap is started
//! without `--die-with-parent`, since that fires when the *thread* that started it exits.

mod decide;

use crate::command::SandboxCommand;
use crate::error::SandboxError;
use crate::policy::SandboxPolicy;
use crate::status::SandboxStatus;
use std::path::Path;
use tokio::process::Child;

/// A child started by [`spawn`], and how it is confined.
#[derive(Debug)]
pub struct SpawnedChild {
    /// The running child. With namespaces it is bubblewrap, which exits with the command's
    /// status; the command and everything it starts share its process group.
    pub child: Child,
    /// Whether and how far it is confined.
    pub status: SandboxStatus,
}

/// Starts `command` confined by `policy`, for the project at `project_root` with `temp_dir`
/// as the command's own scratch folder (writable, and the only thing of `/tmp` it sees).
///
/// Must be called within a tokio runtime (the child's pipes and exit are watched by it, and
/// an allow-list network's proxy runs on it). When the system cannot confine the child at
/// all, it is started unconfined and the returned [`SandboxStatus`] says why.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use agentctl_core::SandboxMode;
/// use agentctl_sandbox::{SandboxCommand, SandboxPolicy, spawn};
///
/// let root = tempfile::tempdir()?;
/// let temp = tempfile::tempdir()?;
/// let command = SandboxCommand::new("sh")
///     .args(["-c", "echo hi > note.txt"])
///     .current_dir(root.path())
///     .env("PATH", "/usr/bin:/bin");
/// let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
/// let mut spawned = spawn(command, &policy, root.path(), temp.path())?;
/// assert!(spawned.child.wait().await?.success());
/// assert!(root.path().join("note.txt").exists());
/// println!("sandbox: {}", spawned.status);
/// # Ok(())
/// # }
/// ```
pub fn spawn(
    command: SandboxCommand,
    policy: &SandboxPolicy,
    project_root: &Path,
    temp_dir: &Path,
) -> Result<SpawnedChild, SandboxError> {
    let program = command.display_name();
    if !policy.is_confining() {
        let child = command
            .build_direct()
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
    let (child, status) =
        decide::spawn_confined(command, policy, project_root, temp_dir, &runtime)?;
    let child = child.map_err(|source| SandboxError::Spawn { program, source })?;
    Ok(SpawnedChild { child, status })
}

/// What confining a process under `policy` gives on this system, found by running
/// bubblewrap (once per process) and confining a throwaway thread. Front ends print it once
/// per run.
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
    decide::probe(policy)
}

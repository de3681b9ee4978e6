//! Stdio servers as child processes that cannot outlive the manager.
//!
//! Each server runs in a process group of its own (so that `npx` wrappers and other
//! grandchildren go too) and the whole group is killed when the [`ChildProcess`] is shut down
//! or dropped. Dropping kills synchronously, so an interrupted run leaves no orphans even when
//! the async runtime is already going away.

use crate::config::TransportSpec;
use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Lines of the server's stderr kept for error messages.
const STDERR_LINES: usize = 12;

/// How long a server gets to exit after its stdin closes, and again after SIGTERM.
const GRACE: Duration = Duration::from_millis(500);

/// A running stdio server.
pub(crate) struct ChildProcess {
    child: Child,
    pid: Option<u32>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl std::fmt::Debug for ChildProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildProcess")
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

/// Starts the server of a stdio transport; returns the process and its stdout and stdin.
pub(crate) fn spawn(
    transport: &TransportSpec,
    base_dir: &Path,
) -> std::io::Result<(ChildProcess, ChildStdout, ChildStdin)> {
    let TransportSpec::Stdio {
        command,
        args,
        env,
        cwd,
    } = transport
    else {
        return Err(std::io::Error::other("not a stdio transport"));
    };
    let mut cmd = Command::new(command);
    cmd.args(args)
        .envs(env)
        .current_dir(cwd.as_deref().unwrap_or(base_dir))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd.spawn()?;
    let pid = child.id();
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("child stdout missing"))?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("child stdin missing"))?;
    let stderr = Arc::new(Mutex::new(VecDeque::new()));
    if let Some(pipe) = child.stderr.take() {
        let tail = Arc::clone(&stderr);
        // Drain stderr so a chatty server never blocks on a full pipe; keep the last lines.
        tokio::spawn(async move {
            let mut lines = BufReader::new(pipe).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(mut tail) = tail.lock() {
                    if tail.len() == STDERR_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            }
        });
    }
    Ok((ChildProcess { child, pid, stderr }, stdout, stdin))
}

impl ChildProcess {
    /// Process id of the server (the leader of its process group).
    pub(crate) fn id(&self) -> Option<u32> {
        self.pid
    }

    /// The last lines the server wrote on stderr, joined, or an empty string.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|tail| tail.iter().cloned().collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }

    /// Exit status if the server has exited.
    pub(crate) fn try_exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Stops the server: waits briefly for it to exit on its own (its stdin is closed by then),
    /// then SIGTERM to the group, then SIGKILL.
    pub(crate) async fn shutdown(&mut self) {
        if tokio::time::timeout(GRACE, self.child.wait()).await.is_ok() {
            self.kill_group(false);
            return;
        }
        self.kill_group(true);
        if tokio::time::timeout(GRACE, self.child.wait())
            .await
            .is_err()
        {
            self.kill_group(false);
            let _ = self.child.kill().await;
        }
        self.kill_group(false);
    }

    /// Signals the server's whole process group (SIGTERM when `gentle`, else SIGKILL).
    fn kill_group(&self, gentle: bool) {
        #[cfg(unix)]
        if let Some(pid) = self
            .pid
            .and_then(|pid| i32::try_from(pid).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            let signal = if gentle {
                rustix::process::Signal::TERM
            } else {
                rustix::process::Signal::KILL
            };
            // The group may be gone already; nothing to do then.
            let _ = rustix::process::kill_process_group(pid, signal);
        }
        #[cfg(not(unix))]
        let _ = gentle;
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        self.kill_group(false);
        let _ = self.child.start_kill();
    }
}

//! The `bash` tool: runs a shell command in the project root, inside the sandbox.
//!
//! The command runs as `sh -c` with stdin closed, confined by the configured
//! [`SandboxPolicy`](agentctl_sandbox::SandboxPolicy) (by default it may write only the project
//! root and its `$TMPDIR`), with an environment scrubbed of secret-looking variables, and in a
//! process group of its own. On timeout, cancellation or when the call is dropped, the whole
//! group is killed (a pipeline's children too, not only `sh`), and the output read so far is
//! returned. Background jobs of a command that exits normally may keep running until the tool
//! itself is dropped (at the end of the run), when their groups are killed too.
//!
//! stdout and stderr are each capped: the head and the tail are kept, since build logs put
//! their errors at the end.

mod output;

use crate::config::BuiltinToolsConfig;
use crate::util::root_of;
use agentctl_core::{
    NetworkAccess, RiskLevel, SandboxMode, ToolContext, ToolError, ToolOutput, TypedTool,
};
use agentctl_sandbox::{ProcessGroup, SandboxCommand, SandboxGap};
use async_trait::async_trait;
use output::{Capped, describe_status, pump, render_stream};
use schemars::JsonSchema;
use serde::Deserialize;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio::process::Child;

/// Timeout of a call that asks for none, in seconds (lowered to the configured limit when that
/// is shorter).
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Default of the longest a call may run, in seconds; `tools.timeouts.bash` (or
/// `tools.timeoutSeconds`) sets it.
pub const MAX_TIMEOUT_SECS: u64 = agentctl_core::DEFAULT_TOOL_TIMEOUT_SECS;
/// Most bytes kept of stdout and of stderr, each.
pub const MAX_STREAM_BYTES: usize = 30 * 1024;
/// How long to wait for the output pipes to close after the shell has exited.
const PIPE_GRACE: Duration = Duration::from_secs(2);
/// How long a command gets to exit after SIGTERM before its group gets SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(500);

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BashArgs {
    /// The command line, run with `sh -c` in the project root.
    command: String,
    /// Seconds before the command is killed (default 120, at most the configured limit).
    #[serde(default)]
    timeout_secs: Option<u64>,
}

/// `bash`: runs a shell command.
pub(crate) struct Bash {
    config: BuiltinToolsConfig,
    /// The commands' `$TMPDIR`, created by the first command and removed with the tool: a
    /// conversation that runs no command makes no folder.
    temp: OnceLock<tempfile::TempDir>,
    limit: Duration,
    description: String,
    /// Groups of commands that exited but left background jobs, killed when the tool is
    /// dropped.
    lingering: Mutex<Vec<ProcessGroup>>,
}

impl Bash {
    /// The tool; its commands' temp dir is made when the first one runs.
    pub(crate) fn new(config: &BuiltinToolsConfig) -> Self {
        let limit = config.timeout_for("bash");
        Self {
            description: describe(config, limit),
            config: config.clone(),
            temp: OnceLock::new(),
            limit,
            lingering: Mutex::new(Vec::new()),
        }
    }

    /// How long this call may run: what it asks for (at least a second), else the default,
    /// never more than the configured limit.
    fn timeout(&self, asked_secs: Option<u64>) -> Duration {
        asked_secs
            .map(|secs| Duration::from_secs(secs.max(1)))
            .unwrap_or(Duration::from_secs(DEFAULT_TIMEOUT_SECS))
            .min(self.limit)
    }

    /// The command's environment: the base environment under the env policy and `env.set`,
    /// plus `TMPDIR`.
    fn environment(&self, temp: &Path) -> Vec<(OsString, OsString)> {
        let mut vars = self.config.command_env();
        vars.retain(|(name, _)| name != "TMPDIR");
        vars.push(("TMPDIR".into(), temp.into()));
        vars
    }

    /// The commands' temp dir (private, `0700`), made now if no command made it yet. One that
    /// cannot be made fails this call only: the next command tries again.
    fn temp_dir(&self) -> Result<&Path, ToolError> {
        if let Some(temp) = self.temp.get() {
            return Ok(temp.path());
        }
        let made = agentctl_private_files::private_temp_dir("agentctl-bash-").map_err(|error| {
            ToolError::failed(format!(
                "cannot create a temp dir for commands in {}: {error}",
                std::env::temp_dir().display()
            ))
        })?;
        // Two first commands at once each make one; the second to get here drops (removes)
        // its own and uses the first.
        Ok(self.temp.get_or_init(|| made).path())
    }

    /// Starts `command_line`; the child, and what of the deny rules its sandbox cannot hold.
    fn start(
        &self,
        command_line: &str,
        root: &Path,
    ) -> Result<(Child, Vec<SandboxGap>), ToolError> {
        let temp = self.temp_dir()?;
        let command = SandboxCommand::new("sh")
            .arg("-c")
            .arg(command_line)
            .current_dir(root)
            .envs(self.environment(temp))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let spawned = agentctl_sandbox::spawn(command, self.config.sandbox(), root, temp)
            .map_err(|error| ToolError::failed(error.to_string()))?;
        let gaps = spawned
            .status
            .gaps()
            .iter()
            .filter(|gap| {
                matches!(
                    gap,
                    SandboxGap::DenyWalkCapped { .. } | SandboxGap::DenyFolders
                )
            })
            .cloned()
            .collect();
        Ok((spawned.child, gaps))
    }

    /// Keeps `group` for killing at drop if background jobs still run in it.
    fn keep_if_alive(&self, group: ProcessGroup) {
        let mut lingering = self
            .lingering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for old in std::mem::take(&mut *lingering) {
            if old.exists() {
                lingering.push(old);
            } else {
                old.release();
            }
        }
        if group.exists() {
            lingering.push(group);
        } else {
            group.release();
        }
    }
}

/// The tool description, which tells the model what the sandbox refuses so that a
/// "Permission denied" makes sense to it.
fn describe(config: &BuiltinToolsConfig, limit: Duration) -> String {
    let default = limit.as_secs().min(DEFAULT_TIMEOUT_SECS);
    let mut text = format!(
        "Run a shell command (`sh -c`) in the project root, stdin closed. Returns the exit code, \
         stdout and stderr (each capped at 30 KB). Killed after timeout_secs (default {default}, \
         at most {}).",
        limit.as_secs()
    );
    let sandbox = config.sandbox();
    match sandbox.mode() {
        SandboxMode::WorkspaceWrite => text.push_str(
            " Sandboxed: only the project root and $TMPDIR are writable (other writes fail with \
             \"Read-only file system\" or \"Permission denied\"); .git, .agentctl, .claude and \
             .gemini folders are read-only; the home directory, /tmp and other processes are \
             not visible.",
        ),
        SandboxMode::ReadOnly => text.push_str(
            " Sandboxed read-only: only $TMPDIR is writable; other writes fail with \
             \"Read-only file system\" or \"Permission denied\"; the home directory, /tmp and \
             other processes are not visible.",
        ),
        SandboxMode::Off => {}
    }
    if sandbox.is_confining() && sandbox.has_denied_paths() {
        text.push_str(
            " Paths the permission rules deny are hidden (Read) or read-only (Edit), whatever \
             way a command takes to them.",
        );
    }
    if sandbox.is_confining() {
        match sandbox.network() {
            NetworkAccess::On => {}
            NetworkAccess::Off => text.push_str(" No network access."),
            NetworkAccess::Allow(hosts) => {
                let hosts: Vec<String> = hosts.iter().map(ToString::to_string).collect();
                let _ = write!(
                    text,
                    " Network: HTTP(S) through the proxy in $HTTPS_PROXY to {} only.",
                    hosts.join(", ")
                );
            }
        }
    }
    text.push_str(" Environment variables that look like secrets are removed.");
    text
}

impl Drop for Bash {
    fn drop(&mut self) {
        // Background jobs die before their $TMPDIR goes (fields drop after this).
        let lingering = self
            .lingering
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for group in lingering.drain(..) {
            group.kill();
        }
    }
}

#[async_trait]
impl TypedTool for Bash {
    type Args = BashArgs;

    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Medium
    }

    fn is_mutating(&self) -> bool {
        true
    }

    async fn call(&self, args: BashArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        let timeout = self.timeout(args.timeout_secs);
        let (mut child, deny_gaps) = self.start(&args.command, root.path())?;
        // From here on, dropping the call (or returning early) kills the whole group.
        let group = ProcessGroup::led_by(child.id());
        let stdout = Arc::new(Mutex::new(Capped::default()));
        let stderr = Arc::new(Mutex::new(Capped::default()));
        let readers = [
            child
                .stdout
                .take()
                .map(|pipe| pump(pipe, Arc::clone(&stdout))),
            child
                .stderr
                .take()
                .map(|pipe| pump(pipe, Arc::clone(&stderr))),
        ];
        let end = tokio::select! {
            status = child.wait() => End::Exited(status.map_err(|error| {
                ToolError::failed(format!("cannot wait for the command: {error}"))
            })?),
            () = tokio::time::sleep(timeout) => End::TimedOut,
            () = ctx.cancellation().cancelled() => End::Cancelled,
        };
        if !matches!(end, End::Exited(_)) {
            stop(&group, &mut child).await;
        }
        let mut pipes_open = false;
        for reader in readers.into_iter().flatten() {
            let abort = reader.abort_handle();
            if tokio::time::timeout(PIPE_GRACE, reader).await.is_err() {
                abort.abort();
                pipes_open = true;
            }
        }
        let mut out = String::new();
        match &end {
            End::Exited(status) => {
                self.keep_if_alive(group);
                let _ = writeln!(out, "{}", describe_status(status));
            }
            End::TimedOut => {
                let _ = writeln!(
                    out,
                    "command timed out after {} s and was killed; output so far:",
                    timeout.as_secs()
                );
            }
            End::Cancelled => return Err(ToolError::Cancelled),
        }
        render_stream(&mut out, "stdout", &stdout);
        render_stream(&mut out, "stderr", &stderr);
        for gap in &deny_gaps {
            let _ = writeln!(out, "[sandbox: {gap}]");
        }
        if pipes_open {
            out.push_str(
                "[background processes still hold the output open; not waiting for them]\n",
            );
        }
        match end {
            End::TimedOut => Err(ToolError::failed(out.trim_end().to_owned())),
            _ => Ok(ToolOutput::text(out.trim_end().to_owned())),
        }
    }
}

enum End {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

/// Stops a command that ran out of time or was cancelled: SIGTERM to its group, a short grace
/// for cleanup, then SIGKILL to whatever is left of the group. Every process of the group has
/// been sent SIGKILL (or is gone) when this returns.
async fn stop(group: &ProcessGroup, child: &mut Child) {
    group.terminate();
    let _ = tokio::time::timeout(TERM_GRACE, child.wait()).await;
    group.kill();
    let _ = child.kill().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A conversation whose agent runs no command makes no folder.
    #[test]
    fn no_temp_dir_before_the_first_command() {
        let bash = Bash::new(&BuiltinToolsConfig::default());
        assert!(bash.temp.get().is_none());
    }
}

//! A shell command line run confined, with input on stdin and both outputs kept up to a bound:
//! what hooks need (Claude Code's `type: command` hooks are `sh -c` lines).
//!
//! It runs exactly as a `command:` validator does ([`CommandEnvironment`]: the tools' sandbox,
//! the scrubbed environment plus a `TMPDIR` of its own, a process group killed when the run
//! ends, times out or is dropped), and so as the `bash` tool's commands do.

use crate::command::{CommandEnvironment, describe_status, exit, finish, read_capped};
use agentctl_sandbox::{ProcessGroup, SandboxCommand, SandboxError};
use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// One shell command line to run.
#[derive(Debug, Clone)]
pub struct ShellRun<'a> {
    /// The line, run as `sh -c LINE`.
    pub line: &'a str,
    /// Its working directory (the project root).
    pub working_dir: &'a Path,
    /// One more folder it may read, besides what the sandbox allows (a plugin's own).
    pub readable: Option<&'a Path>,
    /// What it reads on stdin.
    pub stdin: &'a [u8],
    /// How long it may run before its group is killed.
    pub timeout: Duration,
    /// Variables added to the scrubbed environment (after the policy: they are the caller's).
    pub vars: Vec<(OsString, OsString)>,
    /// Bytes of stdout kept; the rest is read and dropped.
    pub max_stdout: usize,
    /// Bytes of stderr kept; the rest is read and dropped.
    pub max_stderr: usize,
}

/// How a [`ShellRun`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOutcome {
    /// The exit code; `None` when it timed out or a signal ended it.
    pub code: Option<i32>,
    /// Whether it ran out of time (and was killed).
    pub timed_out: bool,
    /// How it ended, in words (`exited with status 3`, `killed by signal 9`).
    pub status: String,
    /// The stdout kept.
    pub stdout: Vec<u8>,
    /// Whether stdout was longer than what was kept.
    pub stdout_truncated: bool,
    /// The stderr kept.
    pub stderr: Vec<u8>,
}

impl CommandEnvironment {
    /// Runs `run` confined; an error says why it could not start.
    pub async fn run_shell(&self, run: ShellRun<'_>) -> Result<ShellOutcome, String> {
        let temp = agentctl_private_files::private_temp_dir("agentctl-hook-").map_err(|error| {
            format!(
                "cannot create a temp dir in {}: {error}",
                std::env::temp_dir().display()
            )
        })?;
        let outcome = self.run_in(run, temp.path()).await;
        // A command may have filled its TMPDIR: remove it off the async workers.
        let _ = tokio::task::spawn_blocking(move || drop(temp)).await;
        outcome
    }

    async fn run_in(&self, run: ShellRun<'_>, temp: &Path) -> Result<ShellOutcome, String> {
        if !run.working_dir.is_dir() {
            return Err(format!(
                "its working directory {} is not a directory",
                run.working_dir.display()
            ));
        }
        let mut vars = self.vars(temp);
        vars.retain(|(name, _)| !run.vars.iter().any(|(added, _)| added == name));
        vars.extend(run.vars.iter().cloned());
        let command = SandboxCommand::new("sh")
            .arg("-c")
            .arg(run.line)
            .current_dir(run.working_dir)
            .envs(vars)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let widened;
        let sandbox = match run.readable {
            Some(folder) => {
                widened = self.sandbox().clone().with_readable_root(folder);
                &widened
            }
            None => self.sandbox(),
        };
        let mut child = agentctl_sandbox::spawn(command, sandbox, run.working_dir, temp)
            .map_err(|error| match error {
                SandboxError::Spawn { source, .. } => format!("cannot start `sh`: {source}"),
                other => other.to_string(),
            })?
            .child;
        // From here on, returning early or being dropped kills the whole group.
        let group = ProcessGroup::led_by(child.id());
        let stdout = child
            .stdout
            .take()
            .map(|pipe| read_capped(pipe, run.max_stdout));
        let stderr = child
            .stderr
            .take()
            .map(|pipe| read_capped(pipe, run.max_stderr));
        let stdin = child.stdin.take();
        let ended = tokio::time::timeout(run.timeout, exit(&mut child, stdin, run.stdin)).await;
        // Nothing of a hook may outlive its run.
        group.kill();
        let _ = child.kill().await;
        let (stdout, stdout_truncated) = match stdout {
            Some(reader) => finish(reader).await.unwrap_or_default(),
            None => (Vec::new(), false),
        };
        let (stderr, _) = match stderr {
            Some(reader) => finish(reader).await.unwrap_or_default(),
            None => (Vec::new(), false),
        };
        let (code, timed_out, status) = match ended {
            Ok(Ok(status)) => (status.code(), false, describe_status(&status)),
            Ok(Err(error)) => return Err(format!("cannot wait for `sh`: {error}")),
            Err(_) => (
                None,
                true,
                format!(
                    "did not finish within {} s and was killed",
                    run.timeout.as_secs()
                ),
            ),
        };
        Ok(ShellOutcome {
            code,
            timed_out,
            status,
            stdout,
            stdout_truncated,
            stderr,
        })
    }
}

//! The `bash` tool: runs a shell command in the project root.
//!
//! The command runs as `sh -c` in its own process group with stdin closed. On timeout or
//! cancellation the whole group is killed (a pipeline's children too, not only `sh`), and the
//! output read so far is returned. stdout and stderr are each capped: the head and the tail are
//! kept, since build logs put their errors at the end.

use crate::util::root_of;
use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Default timeout of a command, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Longest timeout a call may ask for, in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 600;
/// Most bytes kept of stdout and of stderr, each.
pub const MAX_STREAM_BYTES: usize = 30 * 1024;
/// How long to wait for the output pipes to close after the shell has exited.
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BashArgs {
    /// The command line, run with `sh -c` in the project root.
    command: String,
    /// Seconds before the command is killed (default 120, at most 600).
    #[serde(default)]
    timeout_secs: Option<u64>,
}

/// `bash`: runs a shell command.
pub(crate) struct Bash;

#[async_trait]
impl TypedTool for Bash {
    type Args = BashArgs;

    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        "Run a shell command (`sh -c`) in the project root, stdin closed. Returns the exit code, \
         stdout and stderr (each capped at 30 KB). Killed after timeout_secs (default 120)."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Medium
    }

    fn is_mutating(&self) -> bool {
        true
    }

    async fn call(&self, args: BashArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        let secs = args
            .timeout_secs
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1, MAX_TIMEOUT_SECS);
        let mut command = tokio::process::Command::new("sh");
        command
            .arg("-c")
            .arg(&args.command)
            .current_dir(root.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command
            .spawn()
            .map_err(|error| ToolError::failed(format!("cannot start sh: {error}")))?;
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
        let pid = child.id();
        let end = tokio::select! {
            status = child.wait() => End::Exited(status.map_err(|error| {
                ToolError::failed(format!("cannot wait for the command: {error}"))
            })?),
            () = tokio::time::sleep(Duration::from_secs(secs)) => End::TimedOut,
            () = ctx.cancellation().cancelled() => End::Cancelled,
        };
        if !matches!(end, End::Exited(_)) {
            kill_group(pid);
            let _ = child.kill().await;
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
                let _ = writeln!(out, "{}", describe_status(status));
            }
            End::TimedOut => {
                let _ = writeln!(
                    out,
                    "command timed out after {secs} s and was killed; output so far:"
                );
            }
            End::Cancelled => return Err(ToolError::Cancelled),
        }
        render_stream(&mut out, "stdout", &stdout);
        render_stream(&mut out, "stderr", &stderr);
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

fn describe_status(status: &ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code: {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return format!("exit code: none (killed by signal {signal})");
        }
    }
    "exit code: unknown".to_owned()
}

/// Kills the command's whole process group (it leads its own group, so its id is the group's).
fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid
        .and_then(|pid| i32::try_from(pid).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

fn pump<R>(mut pipe: R, sink: Arc<Mutex<Capped>>) -> tokio::task::JoinHandle<()>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 8192];
        while let Ok(read) = pipe.read(&mut chunk).await {
            if read == 0 {
                break;
            }
            if let Ok(mut sink) = sink.lock() {
                sink.push(&chunk[..read]);
            }
        }
    })
}

fn render_stream(out: &mut String, name: &str, stream: &Mutex<Capped>) {
    let Ok(stream) = stream.lock() else {
        return;
    };
    if stream.is_empty() {
        let _ = writeln!(out, "{name}: (empty)");
    } else {
        let _ = writeln!(out, "{name}:");
        out.push_str(&stream.render());
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
}

/// A byte stream capped at [`MAX_STREAM_BYTES`]: the first two thirds and the last third are
/// kept, and the number of bytes dropped in between is counted.
#[derive(Debug, Default)]
pub(crate) struct Capped {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: usize,
}

impl Capped {
    const HEAD: usize = MAX_STREAM_BYTES * 2 / 3;
    const TAIL: usize = MAX_STREAM_BYTES - Self::HEAD;

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        let room = Self::HEAD.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(Self::TAIL);
        self.tail.drain(..excess);
        self.dropped += excess;
    }

    fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    pub(crate) fn render(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            let _ = write!(text, "\n[… {} bytes omitted …]\n", self.dropped);
        }
        let (a, b) = self.tail.as_slices();
        text.push_str(&String::from_utf8_lossy(&[a, b].concat()));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_keeps_head_and_tail() {
        let mut capped = Capped::default();
        for _ in 0..100 {
            capped.push(&[b'x'; 1000]);
        }
        capped.push(b"THE END");
        let text = capped.render();
        assert!(text.len() < MAX_STREAM_BYTES + 100);
        assert!(text.ends_with("THE END"));
        assert!(text.contains("bytes omitted"));
    }
}

//! `command:` validators: a program that reads the text on stdin and passes it by exiting 0.
//!
//! The program runs like the `bash` tool's commands: in the project root, confined by the
//! tools' sandbox, with an environment scrubbed of secret-looking variables plus a `TMPDIR` of
//! its own, in a process group of its own that is killed when the check ends (a validator has
//! no business leaving processes behind), times out or is dropped. The text goes through stdin
//! only: never on a command line, never through a shell. A program that cannot be started
//! fails the check: a guardrail that cannot run must not let the text through.

use agentctl_core::Settings;
use agentctl_sandbox::{EnvPolicy, ProcessGroup, SandboxCommand, SandboxError, SandboxPolicy};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin};

/// Bytes of a validator's stderr kept; the rest is read and dropped.
pub const MAX_STDERR_BYTES: usize = 8 * 1024;
/// Lines of stderr reported as errors, at most.
const MAX_ERROR_LINES: usize = 20;
/// Characters of one stderr line reported.
const MAX_LINE_CHARS: usize = 500;
/// How long to wait for the output pipes to close once the group has been killed (a process
/// that left the group with `setsid` may still hold them).
const PIPE_GRACE: Duration = Duration::from_secs(2);
/// The longest a `timeoutSeconds` is taken to mean (a day): larger values would overflow
/// deadlines.
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// Where and how `command:` validators run: the sandbox, the environment policy and the
/// environment they start from.
///
/// [`Default`] is what default settings give: `workspace-write` sandbox with network,
/// secret-looking variables removed, agentctl's own environment as the base.
///
/// ```
/// use agentctl_core::SandboxMode;
/// use agentctl_guardrails::CommandEnvironment;
/// use agentctl_sandbox::{EnvPolicy, SandboxPolicy};
///
/// let env = CommandEnvironment::new(SandboxPolicy::new(SandboxMode::ReadOnly), EnvPolicy::default())
///     .with_base_env([("PATH", "/usr/bin:/bin"), ("OPENAI_API_KEY", "sk-…")]);
/// assert_eq!(env.sandbox().mode(), SandboxMode::ReadOnly);
/// ```
#[derive(Debug, Clone, Default)]
pub struct CommandEnvironment {
    sandbox: SandboxPolicy,
    env: EnvPolicy,
    base_env: Option<Arc<[(OsString, OsString)]>>,
}

impl CommandEnvironment {
    /// Validators confined by `sandbox`, with environments filtered by `env`.
    pub fn new(sandbox: SandboxPolicy, env: EnvPolicy) -> Self {
        Self {
            sandbox,
            env,
            base_env: None,
        }
    }

    /// The environment of `sandbox.*` and `env.*` settings, with the `Read(…)`/`Edit(…)`
    /// rules of `permissions.deny` held by the sandbox (the same as the tools').
    pub fn from_settings(settings: &Settings) -> Self {
        Self::new(
            SandboxPolicy::from_settings(&settings.sandbox)
                .with_permission_denies(&settings.permissions),
            EnvPolicy::from_settings(&settings.env),
        )
    }

    /// The same environment with `vars` as the base environment instead of agentctl's own
    /// (embedders and tests; the [`EnvPolicy`] still applies).
    pub fn with_base_env<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.base_env = Some(
            vars.into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        );
        self
    }

    /// The sandbox validators run in.
    pub fn sandbox(&self) -> &SandboxPolicy {
        &self.sandbox
    }

    /// What validators see of the environment.
    pub fn env(&self) -> &EnvPolicy {
        &self.env
    }

    /// A validator's environment: the base under the policy, plus its own `TMPDIR`.
    pub(crate) fn vars(&self, temp: &Path) -> Vec<(OsString, OsString)> {
        let base = match &self.base_env {
            Some(vars) => vars.to_vec(),
            None => std::env::vars_os().collect(),
        };
        let mut vars = self.env.for_command(base);
        vars.retain(|(name, _)| name != "TMPDIR");
        vars.push(("TMPDIR".into(), temp.into()));
        vars
    }
}

/// One `command:` validator, ready to run.
#[derive(Debug, Clone)]
pub(crate) struct CommandCheck {
    /// The program and its arguments, as declared.
    pub(crate) argv: Vec<String>,
    pub(crate) timeout: Duration,
    pub(crate) environment: Arc<CommandEnvironment>,
    pub(crate) working_dir: PathBuf,
}

impl CommandCheck {
    /// Runs the program on `text`: `Ok` when it exits 0.
    pub(crate) async fn check(&self, text: &str) -> Result<(), Vec<String>> {
        let temp =
            agentctl_private_files::private_temp_dir("agentctl-validator-").map_err(|error| {
                vec![format!(
                    "cannot create a temp dir for the validator in {}: {error}",
                    std::env::temp_dir().display()
                )]
            })?;
        let outcome = self.run(text, temp.path()).await;
        // A validator may have filled its TMPDIR: remove it off the async workers.
        let _ = tokio::task::spawn_blocking(move || drop(temp)).await;
        outcome
    }

    async fn run(&self, text: &str, temp: &Path) -> Result<(), Vec<String>> {
        let vars = self.environment.vars(temp);
        let (program, args) = self
            .argv
            .split_first()
            .ok_or_else(|| vec!["the validator has no command to run".to_owned()])?;
        if !self.working_dir.is_dir() {
            return Err(vec![format!(
                "cannot start `{program}`: its working directory {} is not a directory",
                self.working_dir.display()
            )]);
        }
        let path = resolve(program, &self.working_dir, &vars).map_err(|error| vec![error])?;
        let command = SandboxCommand::new(&path)
            .args(args)
            .current_dir(&self.working_dir)
            .envs(vars)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child =
            agentctl_sandbox::spawn(command, self.environment.sandbox(), &self.working_dir, temp)
                .map_err(|error| match error {
                    SandboxError::Spawn { source, .. } => {
                        vec![format!("cannot start `{program}`: {source}")]
                    }
                    other => vec![other.to_string()],
                })?
                .child;
        // From here on, returning early or being dropped kills the whole group.
        let group = ProcessGroup::led_by(child.id());
        let stdout = child.stdout.take().map(|pipe| read_capped(pipe, 0));
        let stderr = child
            .stderr
            .take()
            .map(|pipe| read_capped(pipe, MAX_STDERR_BYTES));
        let stdin = child.stdin.take();
        let ended =
            tokio::time::timeout(self.timeout, exit(&mut child, stdin, text.as_bytes())).await;
        // The validator is done (or out of time): nothing of it may outlive the check.
        group.kill();
        let status = match ended {
            Ok(Ok(status)) => Some(status),
            Ok(Err(error)) => {
                return Err(vec![format!("cannot wait for `{program}`: {error}")]);
            }
            Err(_) => None,
        };
        let _ = child.kill().await;
        if let Some(stdout) = stdout {
            finish(stdout).await;
        }
        let stderr = match stderr {
            Some(stderr) => finish(stderr)
                .await
                .map(|(kept, _)| kept)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let Some(status) = status else {
            return Err(vec![format!(
                "the validator `{program}` did not finish within {} s and was killed (raise `timeoutSeconds` if it needs longer)",
                self.timeout.as_secs()
            )]);
        };
        if status.success() {
            return Ok(());
        }
        Err(stderr_errors(&stderr).unwrap_or_else(|| vec![describe_status(&status)]))
    }
}

/// `timeoutSeconds` as a duration, at least a second and at most a day.
pub(crate) fn timeout_of(seconds: u64) -> Duration {
    Duration::from_secs(seconds.max(1)).min(MAX_TIMEOUT)
}

/// Writes `text` to the child's stdin (then closes it) while waiting for the child to exit.
/// A child that exits without reading it all is fine: what matters is its status.
pub(crate) async fn exit(
    child: &mut Child,
    stdin: Option<ChildStdin>,
    text: &[u8],
) -> std::io::Result<ExitStatus> {
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A validator that stops reading closes the pipe: its status says the rest.
            let _ = stdin.write_all(text).await;
            let _ = stdin.shutdown().await;
        }
    };
    tokio::pin!(write);
    let mut writing = true;
    loop {
        tokio::select! {
            () = &mut write, if writing => writing = false,
            status = child.wait() => return status,
        }
    }
}

/// Reads `pipe` to its end on a task of its own, keeping the first `keep` bytes; whether
/// more was read and dropped.
pub(crate) fn read_capped<R>(mut pipe: R, keep: usize) -> tokio::task::JoinHandle<(Vec<u8>, bool)>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut kept = Vec::new();
        let mut dropped = false;
        let mut chunk = vec![0u8; 8192];
        while let Ok(read) = pipe.read(&mut chunk).await {
            if read == 0 {
                break;
            }
            let room = keep.saturating_sub(kept.len()).min(read);
            kept.extend_from_slice(&chunk[..room]);
            dropped |= room < read;
        }
        (kept, dropped)
    })
}

/// What a reader read, or `None` when the pipe stayed open past [`PIPE_GRACE`] (it is then
/// abandoned).
pub(crate) async fn finish<T>(reader: tokio::task::JoinHandle<T>) -> Option<T> {
    let abort = reader.abort_handle();
    match tokio::time::timeout(PIPE_GRACE, reader).await {
        Ok(read) => read.ok(),
        Err(_) => {
            abort.abort();
            None
        }
    }
}

/// The non-empty lines of stderr as errors (capped), or `None` when there are none.
fn stderr_errors(stderr: &[u8]) -> Option<Vec<String>> {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let mut errors: Vec<String> = lines
        .iter()
        .take(MAX_ERROR_LINES)
        .map(|line| {
            if line.chars().count() <= MAX_LINE_CHARS {
                (*line).to_owned()
            } else {
                let mut short: String = line.chars().take(MAX_LINE_CHARS).collect();
                short.push('…');
                short
            }
        })
        .collect();
    if lines.len() > MAX_ERROR_LINES {
        errors.push(format!(
            "… and {} more lines",
            lines.len() - MAX_ERROR_LINES
        ));
    }
    Some(errors)
}

/// `exited with status 3`, or the signal that ended the validator.
pub(crate) fn describe_status(status: &ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    "exited unsuccessfully".to_owned()
}

/// The file `program` names: a path (with a `/`) relative to the project root, else the first
/// executable of that name in the validator's `PATH`. Relative `PATH` entries are skipped: the
/// project root is writable by the model, and a `.` in `PATH` would let a file it wrote stand
/// in for the validator the agent file names.
fn resolve(
    program: &str,
    working_dir: &Path,
    vars: &[(OsString, OsString)],
) -> Result<PathBuf, String> {
    if program.contains(std::path::MAIN_SEPARATOR) || program.contains('/') {
        let path = working_dir.join(program);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "cannot start `{program}`: there is no file {}",
                path.display()
            ))
        };
    }
    let path_var = vars
        .iter()
        .find(|(name, _)| name == OsStr::new("PATH"))
        .map(|(_, value)| value.clone())
        .unwrap_or_default();
    std::env::split_paths(&path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| {
            format!(
                "cannot start `{program}`: it is not in PATH ({}); install it or give its path",
                path_var.to_string_lossy()
            )
        })
}

fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = path.metadata() else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    metadata.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_lines_become_errors() {
        assert_eq!(stderr_errors(b"\n  \n"), None);
        assert_eq!(
            stderr_errors(b"first\r\n\n  second  \n").unwrap(),
            ["first", "  second"]
        );
        let many = "x\n".repeat(25);
        let errors = stderr_errors(many.as_bytes()).unwrap();
        assert_eq!(errors.len(), MAX_ERROR_LINES + 1);
        assert_eq!(errors[MAX_ERROR_LINES], "… and 5 more lines");
    }

    #[test]
    fn programs_resolve_by_path_or_relative_to_the_root() {
        let root = Path::new("/nonexistent-root");
        let vars = [("PATH".into(), "relative:/bin:/usr/bin".into())];
        assert!(resolve("sh", root, &vars).unwrap().is_absolute());
        let error = resolve("no-such-program-xyz", root, &vars).unwrap_err();
        assert_eq!(
            error,
            "cannot start `no-such-program-xyz`: it is not in PATH (relative:/bin:/usr/bin); install it or give its path"
        );
        let error = resolve("./check.sh", root, &vars).unwrap_err();
        assert_eq!(
            error,
            "cannot start `./check.sh`: there is no file /nonexistent-root/./check.sh"
        );
    }
}

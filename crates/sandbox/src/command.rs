//! What to run: [`SandboxCommand`], an owned description that [`spawn`](crate::spawn) turns
//! into the direct, the bubblewrap or the Landlock-only process.
//!
//! A `tokio::process::Command` cannot be inspected for its pipes or for whether its
//! environment was cleared, and the bubblewrap wrapper runs another program with the
//! command's as arguments, so callers describe the command instead of building one.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A program to run confined: its arguments, working directory, environment (always exactly
/// the variables given: nothing of agentctl's own environment is inherited), standard streams,
/// process group and whether dropping the child kills it.
///
/// ```
/// use agentctl_sandbox::SandboxCommand;
/// use std::process::Stdio;
///
/// let command = SandboxCommand::new("sh")
///     .args(["-c", "echo hi"])
///     .current_dir("/tmp")
///     .env("PATH", "/usr/bin:/bin")
///     .stdout(Stdio::piped());
/// assert_eq!(command.get_program(), "sh");
/// assert_eq!(command.get_env("PATH"), Some("/usr/bin:/bin".as_ref()));
/// assert_eq!(command.get_env("HOME"), None);
/// ```
#[derive(Debug)]
pub struct SandboxCommand {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) env: BTreeMap<OsString, OsString>,
    pub(crate) stdin: Option<Stdio>,
    pub(crate) stdout: Option<Stdio>,
    pub(crate) stderr: Option<Stdio>,
    pub(crate) process_group: bool,
    pub(crate) kill_on_drop: bool,
}

impl SandboxCommand {
    /// `program` (a path, or a name looked up in the command's own `PATH`), no arguments, an
    /// empty environment, inherited streams, in a process group of its own.
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: BTreeMap::new(),
            stdin: None,
            stdout: None,
            stderr: None,
            process_group: true,
            kill_on_drop: false,
        }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The working directory (default: agentctl's own).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets a variable (a later value for the same name replaces the earlier one).
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// Sets variables.
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.env.extend(
            vars.into_iter()
                .map(|(name, value)| (name.into(), value.into())),
        );
        self
    }

    /// Removes a variable.
    pub fn env_remove(mut self, name: impl AsRef<OsStr>) -> Self {
        self.env.remove(name.as_ref());
        self
    }

    /// Standard input (default: inherited).
    pub fn stdin(mut self, stdin: Stdio) -> Self {
        self.stdin = Some(stdin);
        self
    }

    /// Standard output (default: inherited).
    pub fn stdout(mut self, stdout: Stdio) -> Self {
        self.stdout = Some(stdout);
        self
    }

    /// Standard error (default: inherited).
    pub fn stderr(mut self, stderr: Stdio) -> Self {
        self.stderr = Some(stderr);
        self
    }

    /// Whether the child leads a new process group (default: yes), so that
    /// [`ProcessGroup`](crate::ProcessGroup) can kill it with everything it starts.
    pub fn process_group(mut self, own_group: bool) -> Self {
        self.process_group = own_group;
        self
    }

    /// Whether dropping the child's handle kills it (default: no). Only the child itself:
    /// use a [`ProcessGroup`](crate::ProcessGroup) for what it started.
    pub fn kill_on_drop(mut self, kill: bool) -> Self {
        self.kill_on_drop = kill;
        self
    }

    /// The program as given.
    pub fn get_program(&self) -> &OsStr {
        &self.program
    }

    /// The value of a variable of the command's environment.
    pub fn get_env(&self, name: impl AsRef<OsStr>) -> Option<&OsStr> {
        self.env.get(name.as_ref()).map(OsString::as_os_str)
    }

    /// The working directory, made absolute against agentctl's own.
    pub(crate) fn working_dir(&self) -> PathBuf {
        let cwd = self.cwd.clone().unwrap_or_default();
        std::path::absolute(&cwd).unwrap_or(cwd)
    }

    /// Whether the program can be started, checked as `execvp` would (a path relative to the
    /// working directory, or a name looked up in the command's `PATH`), so that a wrapped
    /// command fails with the same error as a direct one instead of the wrapper's message.
    pub(crate) fn check_program(&self) -> std::io::Result<()> {
        use std::os::unix::ffi::OsStrExt as _;
        let cwd = self.working_dir();
        let candidates: Vec<PathBuf> = if self.program.as_bytes().contains(&b'/') {
            vec![cwd.join(&self.program)]
        } else {
            let path = self
                .get_env("PATH")
                .unwrap_or_else(|| OsStr::new("/bin:/usr/bin"));
            std::env::split_paths(path)
                .map(|dir| cwd.join(dir).join(&self.program))
                .collect()
        };
        let mut error = std::io::Error::from(std::io::ErrorKind::NotFound);
        for path in candidates {
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() => {
                    match rustix::fs::access(&path, rustix::fs::Access::EXEC_OK) {
                        Ok(()) => return Ok(()),
                        Err(denied) => error = denied.into(),
                    }
                }
                Ok(_) => error = std::io::Error::from(std::io::ErrorKind::PermissionDenied),
                Err(missing) if missing.kind() == std::io::ErrorKind::NotFound => {}
                Err(other) => error = other,
            }
        }
        Err(error)
    }

    /// The program name for messages.
    pub(crate) fn display_name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    /// The process that runs `program` with `args` (the command's own, or a wrapper's) in the
    /// command's working directory, environment, streams and group.
    pub(crate) fn build(
        self,
        program: &Path,
        args: impl IntoIterator<Item = OsString>,
    ) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(program);
        command.args(args).env_clear().envs(self.env);
        if let Some(cwd) = self.cwd {
            command.current_dir(cwd);
        }
        if let Some(stdin) = self.stdin {
            command.stdin(stdin);
        }
        if let Some(stdout) = self.stdout {
            command.stdout(stdout);
        }
        if let Some(stderr) = self.stderr {
            command.stderr(stderr);
        }
        command.kill_on_drop(self.kill_on_drop);
        #[cfg(unix)]
        if self.process_group {
            command.process_group(0);
        }
        command
    }

    /// The process that runs the command itself, unwrapped.
    pub(crate) fn build_direct(mut self) -> tokio::process::Command {
        let program = PathBuf::from(std::mem::take(&mut self.program));
        let args = std::mem::take(&mut self.args);
        self.build(&program, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_values_replace_earlier_ones_and_nothing_is_inherited() {
        let command = SandboxCommand::new("env")
            .env("A", "1")
            .envs([("A", "2"), ("B", "3")])
            .env_remove("B");
        assert_eq!(command.get_env("A"), Some(OsStr::new("2")));
        assert_eq!(command.get_env("B"), None);
        let built = command.build_direct();
        let vars: Vec<_> = built.as_std().get_envs().collect();
        assert_eq!(vars, [(OsStr::new("A"), Some(OsStr::new("2")))]);
    }
}

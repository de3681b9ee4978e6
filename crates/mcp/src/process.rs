//! Stdio servers as child processes that cannot outlive the manager, see only the environment
//! they need and, when settings ask, run in the sandbox.
//!
//! Each server runs in a process group of its own (so that `npx` wrappers and other
//! grandchildren go too) and the whole group is killed when the [`ChildProcess`] is shut down
//! or dropped. Dropping kills synchronously, so an interrupted run leaves no orphans even when
//! the async runtime is already going away.
//!
//! A server inherits only the MCP SDKs' default variables (`HOME`, `LOGNAME`, `PATH`, `SHELL`,
//! `TERM`, `USER`) and the names in `env.passthrough`, plus its configured `env`: a secret
//! reaches a server only when its configuration names it (`"GITHUB_TOKEN": "${GITHUB_TOKEN}"`).

use crate::config::TransportSpec;
use crate::project::ProjectLaunch;
use agentctl_config::{LoadedSettings, TrustStore};
use agentctl_core::Settings;
use agentctl_sandbox::{EnvPolicy, ProcessGroup, SandboxCommand, SandboxPolicy, SandboxStatus};
use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// Lines of the server's stderr kept for error messages.
const STDERR_LINES: usize = 12;

/// How long a server gets to exit after its stdin closes, and again after SIGTERM.
const GRACE: Duration = Duration::from_millis(500);

/// How stdio servers are started: what they see of the environment and whether they are
/// confined.
///
/// [`Default`]: the MCP SDKs' default variables only, no sandbox, no server taken to be a
/// project's.
///
/// ```
/// let mut settings = agentctl_core::Settings::default();
/// settings.sandbox.mcp_servers.confine = true;
/// settings.env.passthrough = vec!["AWS_PROFILE".into()];
/// let launch = agentctl_mcp::LaunchPolicy::from_settings(&settings);
/// assert!(launch.sandbox.is_some());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchPolicy {
    /// Which variables of agentctl's environment a server inherits.
    pub env: EnvPolicy,
    /// The sandbox the user's own servers run in; `None` runs them unconfined.
    pub sandbox: Option<SandboxPolicy>,
    /// How the servers a project defines start (always confined unless the user says
    /// otherwise, their files trusted on first use); `None` when there is no project.
    pub project: Option<ProjectLaunch>,
}

impl LaunchPolicy {
    /// `env.passthrough`, and the `sandbox.*` policy when `sandbox.mcpServers.confine` is on
    /// (for servers that are not a project's: embedders, and every server outside a project),
    /// holding the `Read(…)`/`Edit(…)` rules of `permissions.deny` as `bash`'s does.
    pub fn from_settings(settings: &Settings) -> Self {
        Self {
            env: EnvPolicy::from_settings(&settings.env),
            sandbox: settings.sandbox.mcp_servers.confine.then(|| {
                SandboxPolicy::from_settings(&settings.sandbox)
                    .with_permission_denies(&settings.permissions)
            }),
            project: None,
        }
    }

    /// [`from_settings`](Self::from_settings) for a project at `root` whose settings were
    /// loaded as `loaded`: the servers its settings layer and its agent files define run
    /// confined and have their files recorded in `store`.
    pub fn for_project(loaded: &LoadedSettings, root: &Path, store: TrustStore) -> Self {
        Self {
            project: Some(ProjectLaunch::new(loaded, root, store)),
            ..Self::from_settings(&loaded.settings)
        }
    }

    /// The policy one server starts under: the project's sandbox for a project server
    /// (`project` true), the user's otherwise.
    pub(crate) fn for_server(&self, name: &str, project: bool) -> Self {
        let sandbox = match (&self.project, project) {
            (Some(launch), true) => launch.sandbox_for(name).cloned(),
            (Some(launch), false) if launch.unconfined.contains(name) => None,
            _ => self.sandbox.clone(),
        };
        Self {
            env: self.env.clone(),
            sandbox,
            project: None,
        }
    }
}

/// A running stdio server.
pub(crate) struct ChildProcess {
    child: Child,
    pid: Option<u32>,
    group: ProcessGroup,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// How the server is confined.
    sandbox: SandboxStatus,
    /// A sandboxed server's `$TMPDIR`, removed after the server is gone (fields drop in order,
    /// after [`Drop::drop`] has killed the group).
    _temp: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for ChildProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildProcess")
            .field("pid", &self.pid)
            .field("sandbox", &self.sandbox)
            .finish_non_exhaustive()
    }
}

/// Starts the server of a stdio transport under `launch`; returns the process and its stdout
/// and stdin. `base_dir` is the default working directory and, for a sandboxed server, the
/// project root it may write.
pub(crate) fn spawn(
    transport: &TransportSpec,
    base_dir: &Path,
    launch: &LaunchPolicy,
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
    let mut cmd = SandboxCommand::new(command)
        .args(args)
        .envs(launch.env.for_server(std::env::vars_os()))
        .envs(env)
        .current_dir(cwd.as_deref().unwrap_or(base_dir))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let (policy, temp) = match &launch.sandbox {
        Some(policy) if policy.is_confining() => {
            let temp = agentctl_private_files::private_temp_dir("agentctl-mcp-")?;
            cmd = cmd.env("TMPDIR", temp.path());
            // `~/.npm` is read-only in the sandbox, and `npx -y some-server` writes its cache
            // there: a confined server gets a cache of its own (downloaded again at each start)
            // unless its configuration names one.
            if !env.contains_key("npm_config_cache") {
                cmd = cmd.env("npm_config_cache", temp.path().join("npm-cache"));
            }
            (policy.clone(), Some(temp))
        }
        _ => (SandboxPolicy::off(), None),
    };
    let temp_dir = temp.as_ref().map_or(base_dir, |temp| temp.path());
    let spawned =
        agentctl_sandbox::spawn(cmd, &policy, base_dir, temp_dir).map_err(|error| match error {
            agentctl_sandbox::SandboxError::Spawn { source, .. } => source,
            other => std::io::Error::other(other),
        })?;
    let (mut child, sandbox) = (spawned.child, spawned.status);
    let pid = child.id();
    let group = ProcessGroup::led_by(pid);
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
    let process = ChildProcess {
        child,
        pid,
        group,
        stderr,
        sandbox,
        _temp: temp,
    };
    Ok((process, stdout, stdin))
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
            self.group.kill();
            return;
        }
        self.group.terminate();
        if tokio::time::timeout(GRACE, self.child.wait())
            .await
            .is_err()
        {
            self.group.kill();
            let _ = self.child.kill().await;
        }
        self.group.kill();
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        self.group.kill();
        let _ = self.child.start_kill();
    }
}

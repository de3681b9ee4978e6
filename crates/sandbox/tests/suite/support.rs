use agentctl_core::SandboxMode;
use agentctl_sandbox::{SandboxCommand, SandboxPolicy, SandboxStatus, probe, spawn};
use std::path::Path;
use std::process::Stdio;

/// A bubblewrap path that does not exist: the Landlock-only fallback.
pub const NO_BWRAP: &str = "/nonexistent/agentctl-test/bwrap";

/// The bridge program built with this crate.
pub const HELPER: &str = env!("CARGO_BIN_EXE_agentctl-sandbox-helper");

/// Whether namespaces (bubblewrap) confine processes here. When they cannot, the test is
/// skipped with a message, except under CI (`CI=true`), where they must work.
pub fn namespaces_or_skip() -> bool {
    agentctl_test_support::requirement(
        match probe(&SandboxPolicy::new(SandboxMode::WorkspaceWrite)) {
            SandboxStatus::Enforced {
                namespaces: true, ..
            } => Ok(()),
            status => Err(format!("the sandbox has no namespaces: {status}")),
        },
    )
}

/// Whether Landlock alone confines processes here (the fallback without bubblewrap).
pub fn landlock_or_skip() -> bool {
    agentctl_test_support::requirement(match probe(&fallback(SandboxMode::WorkspaceWrite)) {
        SandboxStatus::Enforced {
            landlock_abi: Some(_),
            ..
        } => Ok(()),
        status => Err(format!("Landlock does not confine here: {status}")),
    })
}

/// A policy of `mode` with this crate's helper (which checks the protected mounts from inside
/// and bridges an allow-list network).
pub fn ns(mode: SandboxMode) -> SandboxPolicy {
    SandboxPolicy::new(mode).with_helper(HELPER)
}

/// A policy of `mode` that cannot use bubblewrap: Landlock alone.
pub fn fallback(mode: SandboxMode) -> SandboxPolicy {
    SandboxPolicy::new(mode).with_bwrap(NO_BWRAP)
}

/// Output of one `sh -c` run.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub status: SandboxStatus,
}

impl Run {
    /// The lines of stdout.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

/// Runs `script` with `sh -c` in `cwd`, confined by `policy` for the project `root`, with
/// `temp` as its temp dir and `home` as `HOME`.
pub async fn sh(
    policy: &SandboxPolicy,
    (root, cwd): (&Path, &Path),
    temp: &Path,
    home: &Path,
    script: &str,
) -> Run {
    let command = SandboxCommand::new("sh")
        .args(["-c", script])
        .current_dir(cwd)
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("TMPDIR", temp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let spawned = spawn(command, policy, root, temp).unwrap();
    let out = spawned.child.wait_with_output().await.unwrap();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: spawned.status,
    }
}

/// A project root, a temp dir, an outside directory holding `f` ("keep"), and a home.
pub struct Dirs {
    pub root: tempfile::TempDir,
    pub temp: tempfile::TempDir,
    pub outside: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Dirs {
    pub fn new() -> Self {
        let dirs = Self {
            root: tempfile::tempdir().unwrap(),
            temp: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        std::fs::write(dirs.outside.path().join("f"), "keep").unwrap();
        dirs
    }

    /// `policy` with this home.
    pub fn policy(&self, policy: SandboxPolicy) -> SandboxPolicy {
        policy.with_home(self.home.path())
    }

    /// Runs `script` in the root (`OUTSIDE` replaced by the outside directory, `HOME` by the
    /// home), with this home.
    pub async fn sh(&self, policy: &SandboxPolicy, script: &str) -> Run {
        self.sh_in(policy, self.root.path(), script).await
    }

    /// Runs `script` in `cwd`.
    pub async fn sh_in(&self, policy: &SandboxPolicy, cwd: &Path, script: &str) -> Run {
        let script = script
            .replace("OUTSIDE", &self.outside.path().display().to_string())
            .replace("THEHOME", &self.home.path().display().to_string());
        let policy = self.policy(policy.clone());
        sh(
            &policy,
            (self.root.path(), cwd),
            self.temp.path(),
            self.home.path(),
            &script,
        )
        .await
    }

    pub fn outside_intact(&self) -> bool {
        std::fs::read_to_string(self.outside.path().join("f")).is_ok_and(|text| text == "keep")
    }
}

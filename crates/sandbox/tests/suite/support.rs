use agentctl_core::SandboxMode;
use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe, spawn};
use std::path::Path;
use std::process::Stdio;

/// Whether Landlock confines processes here. When it cannot, the test is skipped with a
/// message, except under CI (`CI=true`), where the sandbox must work.
pub fn landlock_or_skip() -> bool {
    agentctl_test_support::requirement(
        match probe(&SandboxPolicy::new(SandboxMode::WorkspaceWrite)) {
            SandboxStatus::Enforced { .. } => Ok(()),
            status => Err(format!("the sandbox is {status}")),
        },
    )
}

/// Output of one `sh -c` run confined by `policy` in `root`, with `temp` as its temp dir.
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

pub async fn sh(policy: &SandboxPolicy, root: &Path, temp: &Path, script: &str) -> Run {
    let mut command = tokio::process::Command::new("sh");
    command
        .args(["-c", script])
        .current_dir(root)
        .env("TMPDIR", temp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let spawned = spawn(&mut command, policy, root, temp).unwrap();
    let out = spawned.child.wait_with_output().await.unwrap();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: spawned.status,
    }
}

/// A project root, a temp dir and an outside directory holding `f` ("keep").
pub struct Dirs {
    pub root: tempfile::TempDir,
    pub temp: tempfile::TempDir,
    pub outside: tempfile::TempDir,
}

impl Dirs {
    pub fn new() -> Self {
        let dirs = Self {
            root: tempfile::tempdir().unwrap(),
            temp: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
        };
        std::fs::write(dirs.outside.path().join("f"), "keep").unwrap();
        dirs
    }

    pub async fn sh(&self, policy: &SandboxPolicy, script: &str) -> Run {
        let script = script.replace("OUTSIDE", &self.outside.path().display().to_string());
        sh(policy, self.root.path(), self.temp.path(), &script).await
    }

    pub fn outside_intact(&self) -> bool {
        std::fs::read_to_string(self.outside.path().join("f")).is_ok_and(|text| text == "keep")
    }
}

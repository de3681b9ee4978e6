//! The bash tool runs its commands in the sandbox: what an approved command can still not do.

use super::support::{bash_with, ctx, landlock_or_skip};
use agentctl_core::Tool;
use agentctl_core::{SandboxMode, Settings};
use agentctl_sandbox::SandboxPolicy;
use agentctl_tools::BuiltinToolsConfig;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// A project root, and a directory outside it holding `f` ("keep").
struct Dirs {
    root: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Self {
        let dirs = Self {
            root: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
        };
        std::fs::write(dirs.outside.path().join("f"), "keep").unwrap();
        dirs
    }

    fn outside(&self) -> String {
        self.outside.path().display().to_string()
    }

    async fn run(&self, bash: &Arc<dyn Tool>, command: &str) -> String {
        let command = command.replace("OUTSIDE", &self.outside());
        bash.call(json!({"command": command}), &ctx(self.root.path()))
            .await
            .unwrap()
            .content
    }

    fn outside_intact(&self) -> bool {
        std::fs::read_to_string(self.outside.path().join("f")).is_ok_and(|text| text == "keep")
    }
}

/// Whether `out` shows the sandbox refusing: with namespaces the outside is not even there
/// and the root may be read-only; with Landlock alone access is denied.
fn refused(out: &str) -> bool {
    [
        "Permission denied",
        "Read-only file system",
        "No such file or directory",
        "Directory nonexistent",
        "Invalid cross-device link",
    ]
    .iter()
    .any(|error| out.contains(error))
}

fn bash(mode: SandboxMode) -> Arc<dyn Tool> {
    let mut settings = Settings::default();
    settings.sandbox.mode = mode;
    bash_with(&BuiltinToolsConfig::from_settings(&settings))
}

#[tokio::test]
async fn an_approved_rm_rf_outside_the_root_fails_and_the_files_survive() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let bash = bash(SandboxMode::WorkspaceWrite);
    // With namespaces the outside is not there to remove (`rm -rf` of nothing succeeds).
    let out = dirs.run(&bash, "rm -rf OUTSIDE").await;
    assert!(dirs.outside_intact(), "{out}");
    let out = dirs.run(&bash, "rm -r OUTSIDE").await;
    assert!(out.starts_with("exit code: 1"), "{out}");
    assert!(refused(&out), "{out}");
    assert!(dirs.outside_intact());
    let out = dirs.run(&bash, "echo x > OUTSIDE/f").await;
    assert!(out.starts_with("exit code: 2"), "{out}");
    assert!(refused(&out), "{out}");
    assert!(dirs.outside_intact());
}

#[tokio::test]
async fn writes_in_the_root_and_tmpdir_succeed() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let bash = bash(SandboxMode::WorkspaceWrite);
    let out = dirs
        .run(
            &bash,
            "mkdir -p src && echo in > src/a && mv src/a src/b && echo t > \"$TMPDIR/t\" && \
             cat \"$TMPDIR/t\" && echo \"$TMPDIR\"",
        )
        .await;
    assert!(out.starts_with("exit code: 0\nstdout:\nt\n"), "{out}");
    assert!(dirs.root.path().join("src/b").exists());
    // $TMPDIR is the tool's own directory, outside the root, and goes with the tool.
    let tmpdir = out.lines().nth(3).unwrap().to_owned();
    assert!(Path::new(&tmpdir).join("t").exists(), "{out}");
    assert!(!Path::new(&tmpdir).starts_with(dirs.root.path()));
    drop(bash);
    assert!(!Path::new(&tmpdir).exists(), "{tmpdir} survived the tool");
}

#[tokio::test]
async fn hard_links_and_renames_cannot_bring_outside_files_in() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let bash = bash(SandboxMode::WorkspaceWrite);
    let out = dirs.run(&bash, "ln OUTSIDE/f hl").await;
    assert!(refused(&out), "{out}");
    let out = dirs.run(&bash, "mv OUTSIDE/f moved").await;
    assert!(refused(&out), "{out}");
    // A symbolic link is followed to the outside file, which stays out of reach.
    let out = dirs.run(&bash, "ln -s OUTSIDE/f sl && echo x > sl").await;
    assert!(refused(&out), "{out}");
    assert!(!dirs.root.path().join("hl").exists());
    assert!(!dirs.root.path().join("moved").exists());
    assert!(dirs.outside_intact());
}

#[tokio::test]
async fn read_only_refuses_writes_in_the_root_too() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let bash = bash(SandboxMode::ReadOnly);
    let out = dirs.run(&bash, "echo x > inside.txt").await;
    assert!(refused(&out), "{out}");
    assert!(!dirs.root.path().join("inside.txt").exists());
    std::fs::write(dirs.root.path().join("present.txt"), "keep").unwrap();
    let out = dirs
        .run(&bash, "cat present.txt && echo t > \"$TMPDIR/t\"")
        .await;
    assert!(out.starts_with("exit code: 0\nstdout:\nkeep"), "{out}");
    assert!(
        bash.description().contains("read-only"),
        "{}",
        bash.description()
    );
}

#[tokio::test]
async fn off_mode_writes_outside() {
    let dirs = Dirs::new();
    let out = dirs
        .run(&bash(SandboxMode::Off), "echo off > OUTSIDE/f")
        .await;
    assert!(out.starts_with("exit code: 0"), "{out}");
    assert!(!dirs.outside_intact());
}

#[tokio::test]
async fn network_false_refuses_a_tcp_connect() {
    if !landlock_or_skip() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let dirs = Dirs::new();
    let command = format!("bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}'");
    let offline = bash_with(
        &BuiltinToolsConfig::default()
            .with_sandbox(SandboxPolicy::new(SandboxMode::WorkspaceWrite).with_network(false)),
    );
    assert!(offline.description().contains("No network access."));
    let out = dirs.run(&offline, &command).await;
    // Landlock refuses the connect; in a network namespace nothing listens there.
    assert!(
        out.contains("Permission denied") || out.contains("Connection refused"),
        "{out}"
    );
    assert!(listener.accept().is_err(), "the listener got a connection");
    // The same command with network allowed connects.
    let out = dirs.run(&bash(SandboxMode::WorkspaceWrite), &command).await;
    assert!(out.starts_with("exit code: 0"), "{out}");
    assert!(listener.accept().is_ok());
}

#[tokio::test]
async fn permission_deny_rules_reach_the_sandbox_and_its_limits_are_told() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    std::fs::create_dir(dirs.root.path().join("secrets")).unwrap();
    std::fs::write(dirs.root.path().join("secrets/key"), "s3cret").unwrap();
    let mut settings = Settings::default();
    settings.permissions.deny = vec!["Read(./secrets/**)".into()];
    let config = BuiltinToolsConfig::from_settings(&settings);
    assert!(config.sandbox().has_denied_paths());
    let bash = bash_with(&config);
    assert!(bash.description().contains("hidden (Read)"));
    let out = dirs.run(&bash, "cd secrets && cat key").await;
    assert!(!out.contains("s3cret"), "{out}");
    // Landlock alone cannot take rights away, and says what that costs.
    let fallback = config.with_sandbox(
        SandboxPolicy::new(SandboxMode::WorkspaceWrite)
            .with_bwrap("/nonexistent/agentctl-test/bwrap")
            .with_permission_denies(&settings.permissions),
    );
    let out = dirs.run(&bash_with(&fallback), "cat secrets/key").await;
    assert!(!out.contains("s3cret"), "{out}");
    assert!(
        out.contains("[sandbox: new entries of folders holding a denied path"),
        "{out}"
    );
}

//! A command and everything it starts die with its process group, even what left the group
//! with `setsid`: killing the group kills the PID namespace's init, and with it everything
//! inside the namespace.

use super::support::{Dirs, namespaces_or_skip, ns};
use agentctl_core::SandboxMode;
use agentctl_sandbox::{ProcessGroup, SandboxCommand, spawn};
use std::process::Stdio;
use std::time::Duration;

/// Whether a process whose command line contains `marker` runs on the host.
fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .any(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
}

/// Polls `done` for up to a minute (a bound against hanging, not a timing assertion).
async fn wait_until(done: impl Fn() -> bool, what: &str) {
    for _ in 0..3000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("gave up waiting for {what}");
}

#[tokio::test]
async fn a_setsid_escapee_is_killed_with_the_group() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    // A unique sleep length marks the escapee's command line.
    let marker = format!("{}", 100_000 + std::process::id() % 100_000);
    let command = SandboxCommand::new("sh")
        .args([
            "-c",
            &format!(
                "setsid sleep {marker} > /dev/null 2>&1 < /dev/null & echo started; sleep 1000"
            ),
        ])
        .current_dir(dirs.root.path())
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    let policy = dirs.policy(ns(SandboxMode::WorkspaceWrite));
    let mut spawned = spawn(command, &policy, dirs.root.path(), dirs.temp.path()).unwrap();
    let group = ProcessGroup::led_by(spawned.child.id());
    let mut stdout = spawned.child.stdout.take().unwrap();
    let mut started = [0u8; 8];
    tokio::io::AsyncReadExt::read_exact(&mut stdout, &mut started)
        .await
        .unwrap();
    assert_eq!(&started, b"started\n");
    let escapee = format!("sleep\0{marker}");
    // setsid has run by now or will shortly.
    wait_until(|| running(&escapee), "the escapee to start").await;
    group.kill();
    spawned.child.wait().await.unwrap();
    // The kernel kills the namespace's processes as its init dies.
    wait_until(|| !running(&escapee), "the escapee to be killed").await;
    wait_until(|| !group.exists(), "the group to be gone").await;
}

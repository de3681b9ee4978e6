//! What a confined `sh` may and may not write, and that nothing else is confined.

use super::support::{Dirs, landlock_or_skip};
use agentctl_core::SandboxMode;
use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe};

fn workspace_write() -> SandboxPolicy {
    SandboxPolicy::new(SandboxMode::WorkspaceWrite)
}

#[tokio::test]
async fn workspace_write_allows_the_root_and_the_temp_dir() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let run = dirs
        .sh(
            &workspace_write(),
            "mkdir -p a/b && echo in > a/b/f && mv a/b/f a/g && ln a/g a/h && \
             echo tmp > \"$TMPDIR/t\" && echo dev > /dev/null && echo out > /dev/stdout && echo ok",
        )
        .await;
    assert!(
        matches!(run.status, SandboxStatus::Enforced { .. }),
        "{run:?}"
    );
    assert_eq!(run.lines(), ["out", "ok"], "{run:?}");
    assert!(dirs.root.path().join("a/h").exists());
    assert!(dirs.temp.path().join("t").exists());
}

#[tokio::test]
async fn workspace_write_refuses_everything_outside() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    for script in [
        "echo x > OUTSIDE/f",
        "echo x >> OUTSIDE/f",
        "rm -rf OUTSIDE",
        "rm OUTSIDE/f",
        "mkdir OUTSIDE/d",
        "touch OUTSIDE/new",
        "truncate -s 0 OUTSIDE/f",
        // A hard link would let the command write the outside file through the root.
        "ln OUTSIDE/f hl",
        // So would a rename of the outside file into the root.
        "mv OUTSIDE/f moved",
        // A symbolic link is followed to the outside file, which is checked as such.
        "ln -s OUTSIDE/f sl && echo x > sl",
        "echo x > /etc/agentctl-sandbox-test",
    ] {
        let run = dirs
            .sh(&workspace_write(), &format!("{script} && echo DONE"))
            .await;
        assert!(!run.stdout.contains("DONE"), "{script}: {run:?}");
        assert!(
            run.stderr.contains("Permission denied")
                || run.stderr.contains("Invalid cross-device link")
                || run.stderr.contains("Operation not permitted"),
            "{script}: {run:?}"
        );
        assert!(dirs.outside_intact(), "{script}");
        assert!(!dirs.root.path().join("hl").exists() && !dirs.root.path().join("moved").exists());
    }
}

#[tokio::test]
async fn only_the_child_is_confined() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let run = dirs.sh(&workspace_write(), "echo x > OUTSIDE/f").await;
    assert!(run.stderr.contains("Permission denied"), "{run:?}");
    // The test's own threads, the runtime's blocking pool and new threads still write anywhere.
    let file = dirs.outside.path().join("g");
    std::fs::write(&file, "main").unwrap();
    let blocking = file.clone();
    tokio::task::spawn_blocking(move || std::fs::write(blocking, "pool"))
        .await
        .unwrap()
        .unwrap();
    let threaded = file.clone();
    std::thread::spawn(move || std::fs::write(threaded, "thread"))
        .join()
        .unwrap()
        .unwrap();
    // And an unconfined child afterwards too.
    let run = dirs
        .sh(&SandboxPolicy::off(), "echo x > OUTSIDE/f && echo ok")
        .await;
    assert_eq!(run.lines(), ["ok"], "{run:?}");
    assert_eq!(run.status, SandboxStatus::Off);
}

#[tokio::test]
async fn read_only_refuses_the_root_but_not_the_temp_dir() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let policy = SandboxPolicy::new(SandboxMode::ReadOnly);
    let run = dirs.sh(&policy, "echo x > inside.txt; echo rc=$?").await;
    assert_eq!(run.lines(), ["rc=2"], "{run:?}");
    assert!(run.stderr.contains("Permission denied"), "{run:?}");
    assert!(!dirs.root.path().join("inside.txt").exists());
    let run = dirs
        .sh(
            &policy,
            "cat OUTSIDE/f && echo && echo t > \"$TMPDIR/t\" && echo ok",
        )
        .await;
    assert_eq!(run.lines(), ["keep", "ok"], "{run:?}");
}

#[tokio::test]
async fn off_confines_nothing() {
    let dirs = Dirs::new();
    let run = dirs
        .sh(&SandboxPolicy::off(), "echo off > OUTSIDE/f && echo ok")
        .await;
    assert_eq!(run.lines(), ["ok"], "{run:?}");
    assert!(!dirs.outside_intact());
}

#[tokio::test]
async fn extra_writable_roots_are_writable() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let policy = workspace_write().with_writable_root(dirs.outside.path());
    let run = dirs.sh(&policy, "echo more > OUTSIDE/f && echo ok").await;
    assert_eq!(run.lines(), ["ok"], "{run:?}");
    // A relative root is relative to the project root; a missing one is skipped.
    let policy = workspace_write()
        .with_writable_root("cache")
        .with_writable_root("/nonexistent/agentctl");
    std::fs::create_dir(dirs.root.path().join("cache")).unwrap();
    let run = dirs.sh(&policy, "echo c > cache/c && echo ok").await;
    assert_eq!(run.lines(), ["ok"], "{run:?}");
}

#[tokio::test]
async fn no_new_privs_is_set_and_outside_processes_cannot_be_signalled() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let mut outsider = std::process::Command::new("sleep")
        .arg("100")
        .spawn()
        .unwrap();
    let run = dirs
        .sh(
            &workspace_write(),
            &format!(
                "grep NoNewPrivs /proc/self/status; kill {}; echo kill=$?; \
                 sleep 100 & kill $!; echo own=$?",
                outsider.id()
            ),
        )
        .await;
    let abi_6 = matches!(run.status, SandboxStatus::Enforced { abi, .. } if abi >= 6);
    assert!(run.stdout.contains("NoNewPrivs:\t1"), "{run:?}");
    if abi_6 {
        assert!(run.stdout.contains("kill=1"), "{run:?}");
        assert!(
            outsider.try_wait().unwrap().is_none(),
            "the outsider was killed"
        );
    }
    assert!(run.stdout.contains("own=0"), "{run:?}");
    outsider.kill().unwrap();
    outsider.wait().unwrap();
}

#[test]
fn probing_confines_no_caller_thread() {
    let status = probe(&workspace_write());
    println!("sandbox: {status}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("after-probe"), "x").unwrap();
    assert_eq!(probe(&SandboxPolicy::off()), SandboxStatus::Off);
}

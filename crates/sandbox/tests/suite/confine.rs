//! What a confined `sh` may and may not write, with namespaces and with Landlock alone, and
//! that nothing else is confined.

use super::support::{Dirs, fallback, landlock_or_skip, namespaces_or_skip, ns};
use agentctl_core::SandboxMode;
use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe};

fn workspace_write() -> SandboxPolicy {
    ns(SandboxMode::WorkspaceWrite)
}

/// The policies to try: namespaces and the Landlock fallback, each where it works.
fn both(mode: SandboxMode) -> Vec<SandboxPolicy> {
    let mut policies = Vec::new();
    if namespaces_or_skip() {
        policies.push(SandboxPolicy::new(mode));
    }
    if landlock_or_skip() {
        policies.push(fallback(mode));
    }
    policies
}

#[tokio::test]
async fn workspace_write_allows_the_root_and_the_temp_dir() {
    for policy in both(SandboxMode::WorkspaceWrite) {
        let dirs = Dirs::new();
        let run = dirs
            .sh(
                &policy,
                "mkdir -p a/b && echo in > a/b/f && mv a/b/f a/g && ln a/g a/h && \
                 echo tmp > \"$TMPDIR/t\" && echo dev > /dev/null && echo out > /dev/stdout && \
                 echo ok",
            )
            .await;
        assert!(run.status.is_enforced(), "{run:?}");
        assert_eq!(run.lines(), ["out", "ok"], "{run:?}");
        assert!(dirs.root.path().join("a/h").exists());
        assert!(dirs.temp.path().join("t").exists());
    }
}

#[tokio::test]
async fn workspace_write_refuses_everything_outside() {
    for policy in both(SandboxMode::WorkspaceWrite) {
        let dirs = Dirs::new();
        for script in [
            "echo x > OUTSIDE/f",
            "echo x >> OUTSIDE/f",
            "rm -r OUTSIDE",
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
            "echo x > /usr/agentctl-sandbox-test",
        ] {
            let run = dirs.sh(&policy, &format!("{script} && echo DONE")).await;
            assert!(!run.stdout.contains("DONE"), "{script}: {run:?}");
            // With namespaces the outside is not even there; read-only system folders are.
            assert!(
                [
                    "Permission denied",
                    "Invalid cross-device link",
                    "Operation not permitted"
                ]
                .iter()
                .chain(&[
                    "No such file or directory",
                    "Directory nonexistent",
                    "Read-only file system",
                ])
                .any(|error| run.stderr.contains(error)),
                "{script}: {run:?}"
            );
            assert!(dirs.outside_intact(), "{script}");
            assert!(
                !dirs.root.path().join("hl").exists() && !dirs.root.path().join("moved").exists()
            );
        }
    }
}

#[tokio::test]
async fn only_the_child_is_confined() {
    for policy in both(SandboxMode::WorkspaceWrite) {
        let dirs = Dirs::new();
        let run = dirs.sh(&policy, "echo x > OUTSIDE/f").await;
        assert!(!run.stderr.is_empty(), "{run:?}");
        assert!(dirs.outside_intact());
        // The test's own threads, the runtime's blocking pool and new threads still write
        // anywhere.
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
}

#[tokio::test]
async fn read_only_refuses_the_root_but_not_the_temp_dir() {
    for policy in both(SandboxMode::ReadOnly) {
        let dirs = Dirs::new();
        std::fs::write(dirs.root.path().join("inside.txt"), "in").unwrap();
        let run = dirs.sh(&policy, "echo x > inside.txt; echo rc=$?").await;
        assert_eq!(run.lines(), ["rc=2"], "{run:?}");
        assert!(
            run.stderr.contains("Permission denied") || run.stderr.contains("Read-only"),
            "{run:?}"
        );
        assert_eq!(
            std::fs::read_to_string(dirs.root.path().join("inside.txt")).unwrap(),
            "in"
        );
        let run = dirs
            .sh(
                &policy,
                "cat inside.txt && echo && echo t > \"$TMPDIR/t\" && echo ok",
            )
            .await;
        assert_eq!(run.lines(), ["in", "ok"], "{run:?}");
    }
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
    for policy in both(SandboxMode::WorkspaceWrite) {
        let dirs = Dirs::new();
        let wider = policy.clone().with_writable_root(dirs.outside.path());
        let run = dirs.sh(&wider, "echo more > OUTSIDE/f && echo ok").await;
        assert_eq!(run.lines(), ["ok"], "{run:?}");
        // A relative root is relative to the project root; a missing one is skipped.
        let policy = policy
            .with_writable_root("cache")
            .with_writable_root("/nonexistent/agentctl");
        std::fs::create_dir(dirs.root.path().join("cache")).unwrap();
        let run = dirs.sh(&policy, "echo c > cache/c && echo ok").await;
        assert_eq!(run.lines(), ["ok"], "{run:?}");
    }
}

#[tokio::test]
async fn no_new_privs_is_set_and_outside_processes_cannot_be_signalled() {
    for policy in both(SandboxMode::WorkspaceWrite) {
        let dirs = Dirs::new();
        let mut outsider = std::process::Command::new("sleep")
            .arg("100")
            .spawn()
            .unwrap();
        let run = dirs
            .sh(
                &policy,
                &format!(
                    "grep NoNewPrivs /proc/self/status; kill {}; echo kill=$?; \
                     sleep 100 & kill $!; echo own=$?",
                    outsider.id()
                ),
            )
            .await;
        let SandboxStatus::Enforced {
            namespaces,
            landlock_abi,
            ..
        } = run.status
        else {
            panic!("not enforced: {run:?}")
        };
        if landlock_abi.is_some() {
            assert!(run.stdout.contains("NoNewPrivs:\t1"), "{run:?}");
        }
        if namespaces || landlock_abi.is_some_and(|abi| abi >= 6) {
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
}

#[test]
fn probing_confines_no_caller_thread() {
    let status = probe(&workspace_write());
    println!("sandbox: {status}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("after-probe"), "x").unwrap();
    assert_eq!(probe(&SandboxPolicy::off()), SandboxStatus::Off);
}

#[tokio::test]
async fn a_program_that_cannot_start_is_a_spawn_error_as_without_the_sandbox() {
    use agentctl_sandbox::{SandboxCommand, SandboxError, spawn};
    let dirs = Dirs::new();
    std::fs::write(dirs.root.path().join("plain.sh"), "echo hi").unwrap();
    let mut policies = vec![SandboxPolicy::off()];
    policies.extend(both(SandboxMode::WorkspaceWrite));
    for policy in policies {
        for (program, kind) in [
            ("./plain.sh", std::io::ErrorKind::PermissionDenied),
            ("./missing.sh", std::io::ErrorKind::NotFound),
            ("agentctl-no-such-program", std::io::ErrorKind::NotFound),
        ] {
            let command = SandboxCommand::new(program)
                .current_dir(dirs.root.path())
                .env("PATH", "/usr/bin:/bin");
            let error = spawn(command, &policy, dirs.root.path(), dirs.temp.path()).unwrap_err();
            let SandboxError::Spawn { source, .. } = &error else {
                panic!("{program}: {error}")
            };
            assert_eq!(source.kind(), kind, "{program}: {error}");
        }
    }
}

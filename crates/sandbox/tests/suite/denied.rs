//! `Read(…)` and `Edit(…)` deny rules held by the OS: whatever way a shell takes to a denied
//! file (a `cd`, a glob, a substitution, `find -exec`, `grep -r`, `tar`, a symbolic link it
//! makes), the file's contents stay out of reach, and an `Edit` denied folder stays unwritten;
//! files next to them still read and write. With namespaces and with Landlock alone.

use super::support::{Dirs, fallback, landlock_or_skip, namespaces_or_skip, ns};
use agentctl_core::{PathAccess, SandboxMode};
use agentctl_sandbox::{SandboxGap, SandboxPolicy};

const SECRET: &str = "TOKEN=s3cr3t-value";

/// Both layers where they work, each denying `./secrets/**` and `./config/*.key` reads and
/// `./locked/**` writes.
fn policies() -> Vec<SandboxPolicy> {
    let deny = |policy: SandboxPolicy| {
        policy
            .with_denied(PathAccess::Read, "./secrets/**")
            .with_denied(PathAccess::Read, "./config/*.key")
            .with_denied(PathAccess::Edit, "./locked/**")
    };
    let mut policies = Vec::new();
    if namespaces_or_skip() {
        policies.push(deny(ns(SandboxMode::WorkspaceWrite)));
    }
    if landlock_or_skip() {
        policies.push(deny(fallback(SandboxMode::WorkspaceWrite)));
    }
    policies
}

fn plant(dirs: &Dirs) {
    let root = dirs.root.path();
    for dir in ["secrets/deep", "config", "locked", "src"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for (path, text) in [
        ("secrets/key.txt", SECRET),
        ("secrets/deep/more.txt", SECRET),
        ("config/prod.key", SECRET),
        ("config/app.toml", "name = \"allowed\""),
        ("locked/f", "original"),
        ("src/main.rs", "fn main() {} // allowed"),
    ] {
        std::fs::write(root.join(path), text).unwrap();
    }
}

#[tokio::test]
async fn no_shell_path_reads_a_denied_file() {
    for policy in policies() {
        let dirs = Dirs::new();
        plant(&dirs);
        for script in [
            "cat secrets/key.txt",
            "cd secrets && cat key.txt",
            "cd secrets/deep; cat more.txt",
            "cat sec*/key.txt",
            "cat $(printf secrets)/key.txt",
            "cat /proc/self/cwd/secrets/key.txt",
            "find . -type f -exec cat {} +",
            "grep -r TOKEN .",
            "grep -r TOKEN config",
            "cat config/*",
            "tar c . 2>/dev/null | tar x -O",
            "ln -s secrets s && cat s/key.txt",
            "ln -s config/prod.key k && cat k",
            "cp -r secrets copy && cat copy/key.txt",
            "mv secrets/key.txt src/ && cat src/key.txt",
            "mv secrets open && cat open/key.txt",
            // Other spellings of the same path, and a path attached to an option.
            "cat ./secrets//key.txt",
            "cat \"$PWD/secrets/key.txt\"",
            "cat /dev/fd/../cwd/secrets/key.txt",
            "cat /proc/self/root\"$PWD\"/secrets/key.txt",
            "dd if=secrets/key.txt 2>/dev/null",
            "sed -n p --in-place=.bak secrets/key.txt; cat secrets/key.txt.bak",
        ] {
            let run = dirs.sh(&policy, script).await;
            assert!(run.status.is_enforced(), "{script}: {run:?}");
            assert!(!run.stdout.contains("s3cr3t"), "{script}: {run:?}");
        }
        // Files beside the denied ones still read, by every way.
        let run = dirs
            .sh(
                &policy,
                "cat config/app.toml && grep -r allowed src && find src -type f -exec cat {} +",
            )
            .await;
        assert!(run.stdout.contains("name = \"allowed\""), "{run:?}");
        assert!(run.stdout.contains("main.rs:fn main"), "{run:?}");
        let root = dirs.root.path();
        assert_eq!(
            std::fs::read_to_string(root.join("secrets/key.txt")).unwrap(),
            SECRET
        );
    }
}

#[tokio::test]
async fn an_edit_denied_folder_is_not_written_by_any_path() {
    for policy in policies() {
        let dirs = Dirs::new();
        plant(&dirs);
        for script in [
            "echo x > locked/f",
            "echo x >> locked/f",
            "cd locked; echo x > f",
            "cd locked && echo x > new",
            "sh -c 'echo x > locked/g'",
            "echo x > $(printf lock)ed/f",
            "ln -s locked l && echo x > l/f",
            "rm locked/f",
            "mv locked/f src/",
            "echo x > ./locked//f",
            "echo x > \"$PWD/locked/f\"",
            "echo x > /proc/self/cwd/locked/f",
            "echo x > /dev/fd/../cwd/locked/f",
            "echo x > /proc/self/root\"$PWD\"/locked/f",
            "echo x | dd of=locked/f 2>/dev/null",
            "echo x | tee locked/f",
        ] {
            let run = dirs.sh(&policy, &format!("{script} && echo DONE")).await;
            assert!(!run.stdout.contains("DONE"), "{script}: {run:?}");
        }
        let root = dirs.root.path();
        assert_eq!(
            std::fs::read_to_string(root.join("locked/f")).unwrap(),
            "original"
        );
        assert!(!root.join("locked/new").exists() && !root.join("locked/g").exists());
        // The locked file still reads, and the folders beside it still take writes.
        let run = dirs
            .sh(
                &policy,
                "cat locked/f && echo && echo ok > src/new && echo DONE",
            )
            .await;
        assert_eq!(run.lines(), ["original", "DONE"], "{run:?}");
    }
}

#[tokio::test]
async fn landlock_alone_says_what_it_cannot_hold() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    plant(&dirs);
    let policy = fallback(SandboxMode::WorkspaceWrite).with_denied(PathAccess::Read, "secrets");
    let run = dirs
        .sh(&policy, "ls && ls secrets && cat secrets/key.txt")
        .await;
    assert!(
        run.status.gaps().contains(&SandboxGap::DenyFolders),
        "{run:?}"
    );
    // Names can be listed on the way; contents cannot be read.
    assert!(
        run.stdout.contains("src") && run.stdout.contains("key.txt"),
        "{run:?}"
    );
    assert!(!run.stdout.contains("s3cr3t"), "{run:?}");
    let plain = dirs
        .sh(&fallback(SandboxMode::WorkspaceWrite), "true")
        .await;
    assert!(!plain.status.gaps().contains(&SandboxGap::DenyFolders));
}

#[tokio::test]
async fn a_huge_project_caps_the_walk_and_says_so() {
    let Some(policy) = policies().into_iter().next() else {
        return;
    };
    let dirs = Dirs::new();
    plant(&dirs);
    let big = dirs.root.path().join("big");
    std::fs::create_dir(&big).unwrap();
    for index in 0..=agentctl_sandbox::DENY_WALK_CAP {
        std::fs::File::create(big.join(index.to_string())).unwrap();
    }
    let policy = policy.with_denied(PathAccess::Read, "*.pem");
    let started = std::time::Instant::now();
    let run = dirs.sh(&policy, "cat config/app.toml").await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{run:?}"
    );
    assert!(run.stdout.contains("allowed"), "{run:?}");
    // The narrow patterns still hold.
    let held = dirs
        .sh(&policy, "cat config/prod.key secrets/key.txt")
        .await;
    assert!(!held.stdout.contains("s3cr3t"), "{held:?}");
    assert!(
        run.status.gaps().contains(&SandboxGap::DenyWalkCapped {
            entries: agentctl_sandbox::DENY_WALK_CAP
        }),
        "{run:?}"
    );
}

#[tokio::test]
async fn a_home_pattern_holds_inside_a_visible_toolchain() {
    for policy in policies() {
        let dirs = Dirs::new();
        let home = dirs.home.path();
        std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
        std::fs::write(home.join(".cargo/config.toml"), "[build]").unwrap();
        std::fs::write(home.join(".cargo/token.txt"), SECRET).unwrap();
        let policy = policy.with_denied(PathAccess::Read, "~/.cargo/token.txt");
        let run = dirs
            .sh(
                &policy,
                "cat THEHOME/.cargo/config.toml; echo; cat THEHOME/.cargo/token.txt; \
                 cd THEHOME/.cargo && cat token.txt",
            )
            .await;
        assert!(run.stdout.contains("[build]"), "{run:?}");
        assert!(!run.stdout.contains("s3cr3t"), "{run:?}");
    }
}

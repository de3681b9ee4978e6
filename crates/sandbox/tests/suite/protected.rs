//! Protected paths are read-only inside the sandbox whatever the spelling: `.git` (nested
//! ones too, and a `.git` file), `.agentctl`, `protectedPaths`; the rest of the project is
//! writable.

use super::support::{Dirs, namespaces_or_skip, ns};
use agentctl_core::SandboxMode;
use agentctl_sandbox::SandboxGap;
use std::path::Path;

/// Files of the project and what they must still hold afterwards.
const FILES: [(&str, &str); 7] = [
    (".git/config", "[core]\n"),
    (".git/HEAD", "ref: refs/heads/main\n"),
    (".agentctl/settings.json", "{}\n"),
    (".agentctl/sessions.db", "db"),
    ("sub/.git/config", "[nested]\n"),
    ("deploy/keep.txt", "keep\n"),
    ("wt/.git", "gitdir: /elsewhere\n"),
];

/// A project with protected files, an in-project symlink `a/b/up -> ../..`, a symlinked dir
/// `lnk -> sub`, a file `x` and a protected `deploy` folder.
fn project() -> Dirs {
    let dirs = Dirs::new();
    let root = dirs.root.path();
    for dir in [".git/hooks", "sub/.git", "a/b", "deploy", "wt", ".agentctl"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for (path, text) in FILES {
        std::fs::write(root.join(path), text).unwrap();
    }
    std::fs::write(root.join("x"), "payload").unwrap();
    std::os::unix::fs::symlink("../..", root.join("a/b/up")).unwrap();
    std::os::unix::fs::symlink("sub", root.join("lnk")).unwrap();
    dirs
}

fn intact(root: &Path) -> Result<(), String> {
    for (path, text) in FILES {
        match std::fs::read_to_string(root.join(path)) {
            Ok(now) if now == text => {}
            other => return Err(format!("{path}: {other:?}")),
        }
    }
    let hooks: Vec<_> = std::fs::read_dir(root.join(".git/hooks"))
        .unwrap()
        .collect();
    if !hooks.is_empty() {
        return Err(format!(".git/hooks gained {hooks:?}"));
    }
    Ok(())
}

/// Every way of writing the project path `target` (relative to the root).
fn spellings(root: &Path, target: &str) -> Vec<String> {
    let root = root.display();
    vec![
        target.to_owned(),
        format!("./{target}"),
        format!("{root}/{target}"),
        format!("/dev/fd/../cwd/{target}"),
        format!("/proc/self/cwd/{target}"),
        format!("/proc/self/root{root}/{target}"),
        format!("a/b/up/{target}"),
        format!("lnk/../{target}"),
    ]
}

/// Operations on protected targets, `{}` standing for the spelled target.
const ATTACKS: [(&str, &str); 15] = [
    ("echo x > {}", ".git/config"),
    ("echo x >> {}", ".git/HEAD"),
    (
        "echo '{\"sandbox\":{\"mode\":\"off\"}}' > {}",
        ".agentctl/settings.json",
    ),
    ("cp x {}", ".agentctl/sessions.db"),
    ("ln -s /tmp/evil {}", ".git/hooks/pre-commit"),
    ("ln x {}", ".git/hooks/pre-commit"),
    ("mv x {}", ".git/hooks/pre-commit"),
    ("cp x {}", ".git/hooks/pre-commit"),
    ("rm -rf {}", ".git"),
    ("mv {} g2", ".git"),
    ("rm -f {}", ".git/config"),
    ("echo x > {}", "sub/.git/config"),
    ("echo x > {}", "deploy/keep.txt"),
    ("echo 'gitdir: /tmp' > {}", "wt/.git"),
    ("mv {} gone", ".agentctl"),
];

#[tokio::test]
async fn protected_paths_are_read_only_whatever_the_spelling() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = project();
    let root = dirs.root.path();
    let policy = ns(SandboxMode::WorkspaceWrite).with_protected_path("deploy");
    let mut tried = 0;
    for (attack, target) in ATTACKS {
        for spelled in spellings(root, target) {
            let script = format!("{} && echo DONE", attack.replace("{}", &spelled));
            let run = dirs.sh(&policy, &script).await;
            assert!(!run.stdout.contains("DONE"), "{script}: {run:?}");
            assert!(
                [
                    "Read-only file system",
                    "Device or resource busy",
                    "Operation not permitted",
                    "Permission denied",
                ]
                .iter()
                .any(|error| run.stderr.contains(error)),
                "{script}: {run:?}"
            );
            if let Err(damage) = intact(root) {
                panic!("{script} changed {damage}: {run:?}");
            }
            tried += 1;
        }
    }
    assert_eq!(tried, ATTACKS.len() * 8);
    // The rest of the project is as writable as ever, next to the protected folders too.
    let run = dirs
        .sh(
            &policy,
            "echo ok > sub/new && mkdir -p a/c && mv sub/new a/c/moved && rm x && \
             echo y > /dev/fd/../cwd/y && cat a/c/moved",
        )
        .await;
    assert_eq!(run.lines(), ["ok"], "{run:?}");
    assert!(root.join("y").exists() && !root.join("x").exists());
}

#[tokio::test]
async fn protection_holds_in_a_subfolder_and_for_a_missing_agentctl_folder() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let root = dirs.root.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    let policy = ns(SandboxMode::WorkspaceWrite);
    let run = dirs
        .sh_in(
            &policy,
            &root.join("src"),
            "echo x > ../.agentctl/settings.json; mkdir ../.agentctl/d; echo done",
        )
        .await;
    assert_eq!(run.lines(), ["done"], "{run:?}");
    assert_eq!(
        run.stderr.matches("Read-only file system").count(),
        2,
        "{run:?}"
    );
    use std::os::unix::fs::PermissionsExt as _;
    let meta = std::fs::metadata(root.join(".agentctl")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    assert_eq!(
        std::fs::read_dir(root.join(".agentctl")).unwrap().count(),
        0
    );
}

#[tokio::test]
async fn privileges_to_undo_the_mounts_are_gone() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = project();
    let policy = ns(SandboxMode::WorkspaceWrite);
    for script in [
        "umount .git",
        "umount -l .git",
        "mount -o remount,rw .git",
        "mount --bind x .git/config",
        "unshare -Ur true",
        "unshare -m true",
    ] {
        let run = dirs.sh(&policy, &format!("{script} && echo DONE")).await;
        assert!(!run.stdout.contains("DONE"), "{script}: {run:?}");
        assert!(intact(dirs.root.path()).is_ok(), "{script}");
    }
    let run = dirs
        .sh(&policy, "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status")
        .await;
    assert_eq!(
        run.lines(),
        [
            "CapPrm:\t0000000000000000",
            "CapEff:\t0000000000000000",
            "CapBnd:\t0000000000000000"
        ],
        "{run:?}"
    );
}

#[tokio::test]
async fn writable_roots_protect_their_repositories_too() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let other = dirs.outside.path();
    std::fs::create_dir_all(other.join("repo/.git")).unwrap();
    std::fs::write(other.join("repo/.git/config"), "keep").unwrap();
    let policy = ns(SandboxMode::WorkspaceWrite).with_writable_root(other);
    let run = dirs
        .sh(
            &policy,
            "echo x > OUTSIDE/repo/.git/config; echo new > OUTSIDE/repo/file && echo ok",
        )
        .await;
    assert_eq!(run.lines(), ["ok"], "{run:?}");
    assert!(run.stderr.contains("Read-only file system"), "{run:?}");
    assert_eq!(
        std::fs::read_to_string(other.join("repo/.git/config")).unwrap(),
        "keep"
    );
    assert!(
        run.status
            .gaps()
            .iter()
            .all(|gap| !matches!(gap, SandboxGap::WalkCapped { .. }))
    );
}

/// Runs `git` with `args` in `dir` (outside any sandbox), failing the test if it fails.
fn git(dir: &Path, args: &[&str]) {
    let output = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
}

#[tokio::test]
async fn git_reads_a_worktree_inside_the_sandbox_but_cannot_commit() {
    if !namespaces_or_skip() {
        return;
    }
    let git_found = std::process::Command::new("git").arg("--version").output();
    if !agentctl_test_support::requirement(
        git_found
            .map(|_| ())
            .map_err(|error| format!("git is not installed: {error}")),
    ) {
        return;
    }
    let dirs = Dirs::new();
    let main = dirs.outside.path().join("main");
    std::fs::create_dir(&main).unwrap();
    git(&main, &["init", "-q"]);
    std::fs::write(main.join("a.txt"), "a").unwrap();
    git(&main, &["add", "a.txt"]);
    git(&main, &["commit", "-q", "-m", "first"]);
    // The project is the worktree: its `.git` file points into the main repository.
    let worktree = dirs.temp.path().join("wt");
    git(
        &main,
        &["worktree", "add", "-q", worktree.to_str().unwrap()],
    );
    let temp = tempfile::tempdir().unwrap();
    let policy = ns(SandboxMode::WorkspaceWrite).with_home(dirs.home.path());
    let run = super::support::sh(
        &policy,
        (&worktree, &worktree),
        temp.path(),
        dirs.home.path(),
        "git log --format=%s; echo b > b.txt; git status --short; \
         git -c user.name=t -c user.email=t@t commit -qam x 2>/dev/null || echo no-commit; \
         git add b.txt 2>/dev/null || echo no-add",
    )
    .await;
    assert_eq!(
        run.lines(),
        ["first", "?? b.txt", "no-commit", "no-add"],
        "{run:?}"
    );
}

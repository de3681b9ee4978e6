//! Read-only `git` in real repositories made by `git init`: `safe` in the project's own
//! repository with an ordinary configuration, `medium` when that configuration (or a file it
//! includes, or the common configuration of a linked worktree) sets a key that runs a program,
//! and `medium` in a nested repository — a `.git` folder, a `.git` file or a bare repository
//! inside the project.

use agentctl_core::RiskLevel::{Medium, Safe};
use agentctl_tools::classify_command;
use std::path::Path;
use std::process::Command;

/// Runs git in `dir` without the user's or the system's configuration; it must succeed.
fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?} in {}", dir.display());
}

fn git_installed() -> bool {
    let found = Command::new("git").arg("--version").output();
    agentctl_test_support::requirement(match found {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err("git is not installed (apt-get install git)".to_owned()),
    })
}

fn repository() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    git(&root, &["init", "-q"]);
    (dir, root)
}

fn rate(command: &str, root: &Path) -> agentctl_tools::RiskAssessment {
    classify_command(command, Some(root))
}

#[test]
fn the_projects_own_configuration_decides() {
    if !git_installed() {
        return;
    }
    let (_dir, root) = repository();
    for command in [
        "git status",
        "git log --oneline -3",
        "git -C src diff",
        "cd src && git status",
    ] {
        assert_eq!(rate(command, &root).level, Safe, "{command}");
    }
    for (key, value) in [
        ("core.fsmonitor", "touch pwned"),
        ("core.pager", "sh -c id"),
        ("diff.x.textconv", "sh"),
        ("alias.st", "!id"),
        ("filter.lfs.smudge", "id"),
    ] {
        git(&root, &["config", key, value]);
        let got = rate("git status", &root);
        assert_eq!(got.level, Medium, "{key}: {got:?}");
        assert!(
            got.reason.contains(&key.to_ascii_lowercase()),
            "{key}: {}",
            got.reason
        );
        git(&root, &["config", "--unset", key]);
        assert_eq!(rate("git status", &root).level, Safe, "{key} unset");
    }
    // An include is followed, whatever its condition.
    std::fs::write(root.join("extra.cfg"), "[core]\n\tsshCommand = id\n").unwrap();
    git(
        &root,
        &["config", "includeIf.gitdir:/nowhere/.path", "../extra.cfg"],
    );
    let included = rate("git log", &root);
    assert!(included.reason.contains("core.sshcommand"), "{included:?}");
}

#[test]
fn nested_repositories_are_medium() {
    if !git_installed() {
        return;
    }
    let (_dir, root) = repository();
    let nested = root.join("fixtures/repo");
    std::fs::create_dir_all(&nested).unwrap();
    git(&nested, &["init", "-q"]);
    git(&nested, &["config", "core.fsmonitor", "touch pwned"]);
    let got = rate("git -C fixtures/repo status", &root);
    assert_eq!(got.level, Medium);
    assert!(
        got.reason.contains("nested repository fixtures/repo/"),
        "{got:?}"
    );
    assert_eq!(
        rate("cd fixtures/repo/.git && git log", &root).level,
        Medium
    );
    // A bare repository committed inside the project is one too.
    git(&root, &["init", "-q", "--bare", "vendor/lib.git"]);
    assert_eq!(rate("git -C vendor/lib.git log", &root).level, Medium);
    // The project's own repository, from a folder beside the nested one, stays safe.
    assert_eq!(rate("git -C fixtures status", &root).level, Safe);
}

#[test]
fn a_linked_worktree_is_checked_through_its_common_folder() {
    if !git_installed() {
        return;
    }
    let (dir, main) = repository();
    git(
        &main,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
    );
    let linked = dir.path().join("linked");
    git(&main, &["worktree", "add", "-q", linked.to_str().unwrap()]);
    assert!(linked.join(".git").is_file());
    assert_eq!(rate("git status", &linked).level, Safe);
    git(&main, &["config", "core.hooksPath", "/tmp/hooks"]);
    let got = rate("git status", &linked);
    assert_eq!(got.level, Medium, "{got:?}");
    assert!(got.reason.contains("core.hookspath"), "{got:?}");
}

#[cfg(unix)]
#[test]
fn fifos_where_git_files_belong_are_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let git_dir = root.join(".git");
    std::fs::create_dir_all(git_dir.join("objects")).unwrap();
    std::fs::create_dir_all(git_dir.join("refs")).unwrap();
    std::fs::write(git_dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    agentctl_test_support::mkfifo(&git_dir.join("commondir"));
    agentctl_test_support::mkfifo(&git_dir.join("config"));
    let nested = root.join("sub");
    std::fs::create_dir_all(&nested).unwrap();
    agentctl_test_support::mkfifo(&nested.join(".git"));
    let rated = agentctl_test_support::or_hang(std::time::Duration::from_secs(20), move || {
        (
            classify_command("git status", Some(&root)),
            classify_command("git -C sub status", Some(&root)),
        )
    });
    assert_eq!(rated.0.level, Medium, "{:?}", rated.0);
    assert!(rated.0.reason.contains("not a file"), "{:?}", rated.0);
    assert_eq!(rated.1.level, Medium, "{:?}", rated.1);
}

//! Reads are confined: the home's secrets, other tests' `/tmp` files and other processes are
//! out of reach; readable roots and toolchains are visible, credentials inside them are not.

use super::support::{Dirs, fallback, landlock_or_skip, namespaces_or_skip, ns};
use agentctl_core::SandboxMode;

/// A home with secrets, a toolchain with a credentials file, and a readable folder.
fn plant(dirs: &Dirs) {
    let home = dirs.home.path();
    for dir in [".ssh", ".aws", ".config/gh", ".cargo/bin", "notes"] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
    }
    for (path, text) in [
        (".ssh/id_rsa", "PRIVATE KEY"),
        (".aws/credentials", "AWS SECRET"),
        (".netrc", "machine x password p"),
        (".gitconfig", "[user]"),
        (".config/gh/hosts.yml", "oauth_token: t"),
        (".cargo/credentials.toml", "token = \"cargo-secret\""),
        (".cargo/config.toml", "[build]"),
        (".cargo/bin/tool", "#!/bin/sh\necho tool"),
        ("notes/n.txt", "readable note"),
    ] {
        std::fs::write(home.join(path), text).unwrap();
    }
}

#[tokio::test]
async fn the_home_is_hidden_but_toolchains_and_readable_roots_are_not() {
    let mut policies = Vec::new();
    if namespaces_or_skip() {
        policies.push(ns(SandboxMode::WorkspaceWrite));
    }
    if landlock_or_skip() {
        policies.push(fallback(SandboxMode::WorkspaceWrite));
    }
    for policy in policies {
        let dirs = Dirs::new();
        plant(&dirs);
        for secret in [
            "THEHOME/.ssh/id_rsa",
            "THEHOME/.aws/credentials",
            "THEHOME/.netrc",
            "THEHOME/.gitconfig",
            "THEHOME/.config/gh/hosts.yml",
            "THEHOME/.cargo/credentials.toml",
            "~/.ssh/id_rsa",
            "/proc/self/root/THEHOME/.ssh/id_rsa",
            "OUTSIDE/f",
        ] {
            let run = dirs
                .sh(&policy, &format!("cat {secret} && echo DONE"))
                .await;
            assert!(!run.stdout.contains("DONE"), "{secret}: {run:?}");
            assert!(
                ["No such file or directory", "Permission denied"]
                    .iter()
                    .any(|error| run.stderr.contains(error)),
                "{secret}: {run:?}"
            );
        }
        let run = dirs.sh(&policy, "ls THEHOME; echo rc=$?").await;
        assert!(!run.stdout.contains(".ssh"), "{run:?}");
        // Toolchains (~/.cargo) are readable, and so is a readable root.
        let run = dirs
            .sh(
                &policy
                    .clone()
                    .with_readable_root(dirs.home.path().join("notes")),
                "cat THEHOME/.cargo/config.toml && echo && cat THEHOME/notes/n.txt",
            )
            .await;
        assert_eq!(run.lines(), ["[build]", "readable note"], "{run:?}");
    }
}

#[tokio::test]
async fn other_tmp_files_are_invisible_and_the_temp_dir_is_private() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let neighbour = tempfile::tempdir().unwrap();
    std::fs::write(neighbour.path().join("other-test"), "theirs").unwrap();
    let script = format!(
        "cat {}/other-test; ls /tmp | grep -c . ; echo mine > /tmp/own && cat /tmp/own",
        neighbour.path().display()
    );
    let policy = ns(SandboxMode::WorkspaceWrite);
    let run = dirs.sh(&policy, &script).await;
    assert!(run.stderr.contains("No such file or directory"), "{run:?}");
    // `/tmp` holds only the folders of the root, the temp dir, the home (and what the command
    // wrote), not the neighbour's.
    assert!(!run.stdout.contains("theirs"), "{run:?}");
    assert!(run.stdout.ends_with("mine\n"), "{run:?}");
    assert!(
        !std::path::Path::new("/tmp/own").exists()
            || std::fs::read_to_string("/tmp/own").is_ok_and(|text| text != "mine\n")
    );
}

#[tokio::test]
async fn other_processes_are_invisible_with_namespaces() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let me = std::process::id();
    let policy = ns(SandboxMode::WorkspaceWrite);
    let run = dirs
        .sh(
            &policy,
            &format!(
                "cat /proc/{me}/environ; cat /proc/{me}/cmdline; ls /proc | grep -c '^[0-9]'; \
                 grep -a -l PATH /proc/*/environ 2>/dev/null | wc -l"
            ),
        )
        .await;
    assert!(run.stderr.contains("No such file or directory"), "{run:?}");
    let counts: Vec<usize> = run
        .lines()
        .iter()
        .map(|line| line.parse().unwrap())
        .collect();
    // sh, the pipeline's processes and bubblewrap's init: a handful, never the host's.
    assert!(counts[0] < 10, "{run:?}");
}

/// What Landlock alone does and does not keep from other processes of the same user, as
/// this kernel behaves: their memory is out of reach (Landlock refuses to let a confined
/// process trace an unconfined one), their environment is not (reading it passes the same
/// check on Linux 6.18), which is why the fallback reports other processes as visible and
/// agentctl makes itself non-dumpable.
#[tokio::test]
async fn landlock_alone_keeps_other_processes_memory_but_not_their_environment_out_of_reach() {
    if !landlock_or_skip() {
        return;
    }
    let dirs = Dirs::new();
    let mut outsider = std::process::Command::new("sleep")
        .arg("100")
        .env("AGENTCTL_TEST_SECRET", "sk-outsider")
        .spawn()
        .unwrap();
    let pid = outsider.id();
    let run = dirs
        .sh(
            &fallback(SandboxMode::WorkspaceWrite),
            &format!("head -c 16 /proc/{pid}/mem; echo; tr '\\0' '\\n' < /proc/{pid}/environ | grep SECRET"),
        )
        .await;
    outsider.kill().unwrap();
    outsider.wait().unwrap();
    assert!(run.stderr.contains("Permission denied"), "{run:?}");
    assert!(
        run.status
            .gaps()
            .iter()
            .any(|gap| matches!(gap, agentctl_sandbox::SandboxGap::NoNamespaces { .. })),
        "{run:?}"
    );
    assert_eq!(
        run.lines(),
        ["", "AGENTCTL_TEST_SECRET=sk-outsider"],
        "{run:?}"
    );
}

#[tokio::test]
async fn roots_a_command_replaced_by_links_show_nothing_outside() {
    let mut policies = Vec::new();
    if namespaces_or_skip() {
        policies.push(ns(SandboxMode::WorkspaceWrite));
    }
    if landlock_or_skip() {
        policies.push(fallback(SandboxMode::WorkspaceWrite));
    }
    for policy in policies {
        let dirs = Dirs::new();
        plant(&dirs);
        let policy = policy
            .with_writable_root("cache")
            .with_readable_root("docs");
        // An earlier command turned the configured roots into links to the home, relative ones
        // (resolved alike inside and outside the sandbox, where the home is an empty folder).
        let home = format!(
            "../{}",
            dirs.home.path().file_name().unwrap().to_string_lossy()
        );
        let script = format!("ln -s {home} cache && ln -s {home} docs && echo linked");
        let run = dirs.sh(&policy, &script).await;
        assert_eq!(run.lines(), ["linked"], "{run:?}");
        let run = dirs
            .sh(
                &policy,
                "echo x > cache/owned; cat docs/.ssh/id_rsa; cat THEHOME/.ssh/id_rsa; echo done",
            )
            .await;
        assert_eq!(run.lines(), ["done"], "{run:?}");
        assert!(!dirs.home.path().join("owned").exists(), "{run:?}");
    }
}

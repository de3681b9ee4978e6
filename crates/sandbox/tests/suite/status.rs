//! The probe says which layers are in effect, and names the gaps when bubblewrap is missing.

use super::support::{HELPER, NO_BWRAP, fallback, landlock_or_skip, namespaces_or_skip, ns};
use agentctl_core::{NetworkAccess, SandboxMode};
use agentctl_sandbox::{SandboxGap, SandboxStatus, probe};

#[test]
fn the_probe_reports_namespaces_when_bubblewrap_works() {
    if !namespaces_or_skip() {
        return;
    }
    let status = probe(&ns(SandboxMode::WorkspaceWrite));
    let SandboxStatus::Enforced {
        namespaces: true,
        landlock_abi,
        gaps,
    } = &status
    else {
        panic!("{status}")
    };
    let text = status.to_string();
    match landlock_abi {
        Some(abi) if gaps.is_empty() => {
            assert_eq!(text, format!("enforced (namespaces + Landlock ABI {abi})"));
        }
        _ => assert!(text.starts_with("partly enforced (namespaces"), "{text}"),
    }
    let allow = NetworkAccess::Allow(vec!["example.com".parse().unwrap()]);
    let with_bridge = ns(SandboxMode::WorkspaceWrite)
        .with_network_access(allow.clone())
        .with_helper(HELPER);
    assert!(
        probe(&with_bridge).gaps().is_empty(),
        "{}",
        probe(&with_bridge)
    );
    let without = ns(SandboxMode::WorkspaceWrite)
        .with_network_access(allow)
        .with_helper("/nonexistent/helper");
    let status = probe(&without);
    assert!(
        status.to_string().contains(
            "the network allow-list cannot be enforced, so there is no network (the sandbox \
             helper program /nonexistent/helper does not exist); protected paths are not \
             checked from inside before the command runs (the sandbox helper program \
             /nonexistent/helper does not exist)"
        ),
        "{status}"
    );
}

#[test]
fn the_probe_names_the_gaps_without_bubblewrap() {
    if !landlock_or_skip() {
        return;
    }
    let status = probe(&fallback(SandboxMode::WorkspaceWrite));
    let SandboxStatus::Enforced {
        namespaces: false,
        landlock_abi: Some(abi),
        gaps,
    } = &status
    else {
        panic!("{status}")
    };
    assert_eq!(
        gaps[0],
        SandboxGap::NoNamespaces {
            reason: format!("bubblewrap not found at {NO_BWRAP}")
        }
    );
    assert!(
        status.to_string().starts_with(&format!(
            "partly enforced (Landlock ABI {abi}): protected paths are writable and other \
             processes are visible (bubblewrap not found at {NO_BWRAP})"
        )),
        "{status}"
    );
    let closed = fallback(SandboxMode::WorkspaceWrite).with_network(false);
    assert!(probe(&closed).gaps().contains(&SandboxGap::Udp));
    let allow = fallback(SandboxMode::WorkspaceWrite)
        .with_network_access(NetworkAccess::Allow(vec!["example.com".parse().unwrap()]));
    let status = probe(&allow);
    assert!(
        status
            .to_string()
            .contains("the network allow-list cannot be enforced, so there is no network (it needs namespaces)"),
        "{status}"
    );
}

#[test]
fn the_helper_refuses_to_run_a_command_when_a_protected_path_is_writable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let output = std::process::Command::new(HELPER)
        .arg("__agentctl-sandbox-helper")
        .arg("--writable")
        .arg(dir.path())
        .arg("--protected")
        .arg(dir.path().join(".git"))
        .args(["--", "sh", "-c", "echo RAN"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(126), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("agentctl sandbox: refusing to run the command: ")
            && stderr.contains(".git is not mounted read-only"),
        "{stderr}"
    );
    // With nothing to check it runs the command in its place.
    let output = std::process::Command::new(HELPER)
        .args([
            "__agentctl-sandbox-helper",
            "--",
            "sh",
            "-c",
            "echo RAN; exit 3",
        ])
        .output()
        .unwrap();
    assert_eq!(
        (output.status.code(), output.stdout.as_slice()),
        (Some(3), &b"RAN\n"[..])
    );
}

#[tokio::test]
async fn without_a_helper_the_protected_mounts_go_unchecked_and_the_status_says_so() {
    if !namespaces_or_skip() {
        return;
    }
    let dirs = super::support::Dirs::new();
    let policy = agentctl_sandbox::SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    let run = dirs.sh(&policy, "echo x > .agentctl/x; echo done").await;
    assert_eq!(run.lines(), ["done"], "{run:?}");
    assert!(run.stderr.contains("Read-only file system"), "{run:?}");
    assert!(
        run.status
            .gaps()
            .iter()
            .any(|gap| matches!(gap, SandboxGap::Unchecked { .. })),
        "{run:?}"
    );
}

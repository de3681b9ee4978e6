//! The probe says which layers are in effect, and names the gaps when bubblewrap is missing.

use super::support::{HELPER, NO_BWRAP, fallback, landlock_or_skip, namespaces_or_skip};
use agentctl_core::{NetworkAccess, SandboxMode};
use agentctl_sandbox::{SandboxGap, SandboxPolicy, SandboxStatus, probe};

#[test]
fn the_probe_reports_namespaces_when_bubblewrap_works() {
    if !namespaces_or_skip() {
        return;
    }
    let status = probe(&SandboxPolicy::new(SandboxMode::WorkspaceWrite));
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
    let with_bridge = SandboxPolicy::new(SandboxMode::WorkspaceWrite)
        .with_network_access(allow.clone())
        .with_helper(HELPER);
    assert!(
        probe(&with_bridge).gaps().is_empty(),
        "{}",
        probe(&with_bridge)
    );
    let without = SandboxPolicy::new(SandboxMode::WorkspaceWrite)
        .with_network_access(allow)
        .with_helper("/nonexistent/helper");
    let status = probe(&without);
    assert!(
        status.to_string().contains(
            "the network allow-list cannot be enforced, so there is no network (the network \
             bridge program /nonexistent/helper does not exist)"
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

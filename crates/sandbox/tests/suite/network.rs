//! `network: false` refuses TCP; `network: true` allows it.

use super::support::{Dirs, landlock_or_skip};
use agentctl_sandbox::{SandboxGap, SandboxMode, SandboxPolicy, SandboxStatus};
use std::net::TcpListener;

/// Connects to `listener` with bash's `/dev/tcp` from a confined shell; returns whether the
/// listener got the connection.
async fn connects(policy: &SandboxPolicy, listener: &TcpListener) -> (bool, SandboxStatus) {
    let port = listener.local_addr().unwrap().port();
    let dirs = Dirs::new();
    let run = dirs
        .sh(
            policy,
            &format!("bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' && echo connected"),
        )
        .await;
    listener.set_nonblocking(true).unwrap();
    let accepted = listener.accept().is_ok();
    assert_eq!(accepted, run.stdout.contains("connected"), "{run:?}");
    (accepted, run.status)
}

#[tokio::test]
async fn network_false_refuses_tcp_connect() {
    if !landlock_or_skip() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite).with_network(false);
    let (accepted, status) = connects(&policy, &listener).await;
    let SandboxStatus::Enforced { gaps, .. } = status else {
        panic!("not enforced: {status}")
    };
    if gaps.contains(&SandboxGap::Network) {
        eprintln!("skipped: this kernel's Landlock has no TCP rules");
        return;
    }
    assert!(!accepted, "a confined command reached a TCP listener");
}

#[tokio::test]
async fn network_true_allows_tcp_connect() {
    if !landlock_or_skip() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    let (accepted, _) = connects(&policy, &listener).await;
    assert!(accepted);
}

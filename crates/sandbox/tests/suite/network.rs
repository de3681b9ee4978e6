//! `network: false` refuses TCP; `network: true` allows it. Abstract Unix sockets made
//! outside the sandbox are out of reach either way.

use super::support::{Dirs, landlock_or_skip};
use agentctl_core::SandboxMode;
use agentctl_sandbox::{SandboxGap, SandboxPolicy, SandboxStatus};
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

#[tokio::test]
async fn abstract_unix_sockets_made_outside_cannot_be_reached() {
    use std::os::linux::net::SocketAddrExt as _;
    use std::os::unix::net::{SocketAddr, UnixListener};
    if !landlock_or_skip() {
        return;
    }
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !python {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 is missing"
        );
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let name = format!("agentctl-sandbox-test-{}", std::process::id());
    let listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0{name}')\" \
         && echo connected"
    );
    let dirs = Dirs::new();
    let run = dirs
        .sh(&SandboxPolicy::new(SandboxMode::WorkspaceWrite), &script)
        .await;
    let SandboxStatus::Enforced { gaps, .. } = &run.status else {
        panic!("not enforced: {run:?}")
    };
    if gaps.contains(&SandboxGap::Scoping) {
        eprintln!("skipped: this kernel's Landlock has no scoping");
        return;
    }
    assert!(!run.stdout.contains("connected"), "{run:?}");
    assert!(run.stderr.contains("PermissionError"), "{run:?}");
    assert!(listener.accept().is_err());
    // Unconfined, the same client connects.
    let run = dirs.sh(&SandboxPolicy::off(), &script).await;
    assert_eq!(run.lines(), ["connected"], "{run:?}");
}

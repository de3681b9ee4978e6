//! `network: false` leaves nothing (TCP, UDP, DNS); `true` shares the host's network;
//! `{"allow": […]}` reaches the listed hosts through agentctl's proxy and nothing else.
//! Abstract Unix sockets made outside the sandbox are out of reach either way.

use super::support::{Dirs, HELPER, fallback, landlock_or_skip, namespaces_or_skip, ns};
use agentctl_core::{NetworkAccess, SandboxMode};
use agentctl_sandbox::{SandboxGap, SandboxPolicy, SandboxStatus};
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, UdpSocket};

fn policy() -> SandboxPolicy {
    ns(SandboxMode::WorkspaceWrite)
}

fn allow(hosts: &[&str]) -> NetworkAccess {
    NetworkAccess::Allow(hosts.iter().map(|host| host.parse().unwrap()).collect())
}

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
async fn network_false_refuses_tcp_and_udp() {
    if !namespaces_or_skip() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let (accepted, status) = connects(&policy().with_network(false), &listener).await;
    assert!(!accepted, "a confined command reached a TCP listener");
    assert!(status.gaps().is_empty(), "{status}");
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let port = udp.local_addr().unwrap().port();
    let dirs = Dirs::new();
    let run = dirs
        .sh(
            &policy().with_network(false),
            &format!(
                "bash -c 'echo hi > /dev/udp/127.0.0.1/{port}'; \
                 bash -c 'echo q > /dev/udp/192.0.2.1/53' || echo unreachable; \
                 timeout 10 getent hosts example.com || echo no-dns"
            ),
        )
        .await;
    // The datagram went to the namespace's own loopback, never to the host's.
    assert!(udp.recv(&mut [0u8; 16]).is_err(), "{run:?}");
    assert_eq!(run.lines(), ["unreachable", "no-dns"], "{run:?}");
    assert!(run.stderr.contains("Network is unreachable"), "{run:?}");
    // The namespace's own loopback works, for a project's tests that serve locally.
    let run = dirs
        .sh(
            &policy().with_network(false),
            "python3 -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); \
             s.listen(); socket.create_connection(s.getsockname()); print('loopback')\"",
        )
        .await;
    assert_eq!(run.lines(), ["loopback"], "{run:?}");
}

#[tokio::test]
async fn network_false_refuses_tcp_under_landlock_alone() {
    if !landlock_or_skip() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let policy = fallback(SandboxMode::WorkspaceWrite).with_network(false);
    let (accepted, status) = connects(&policy, &listener).await;
    let gaps = status.gaps();
    assert!(gaps.contains(&SandboxGap::Udp), "{status}");
    if gaps.contains(&SandboxGap::Network) {
        eprintln!("skipped: this kernel's Landlock has no TCP rules");
        return;
    }
    assert!(!accepted, "a confined command reached a TCP listener");
}

#[tokio::test]
async fn network_true_allows_tcp_connect() {
    let mut policies = Vec::new();
    if namespaces_or_skip() {
        policies.push(policy());
    }
    if landlock_or_skip() {
        policies.push(fallback(SandboxMode::WorkspaceWrite));
    }
    for policy in policies {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let (accepted, _) = connects(&policy, &listener).await;
        assert!(accepted);
    }
}

/// A one-request-at-a-time HTTP server on the host's loopback that answers `hello <path>`.
fn http_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let read = stream.read(&mut request).unwrap_or(0);
            let request = String::from_utf8_lossy(&request[..read]).into_owned();
            let path = request.split(' ').nth(1).unwrap_or("?").to_owned();
            let body = format!("hello {path}");
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[tokio::test]
async fn an_allow_list_reaches_listed_hosts_through_the_proxy_only() {
    if !namespaces_or_skip() {
        return;
    }
    let port = http_server();
    let dirs = Dirs::new();
    let policy = policy()
        .with_network_access(allow(&["localhost"]))
        .with_helper(HELPER);
    let run = dirs
        .sh(
            &policy,
            &format!(
                "echo \"proxy=$HTTP_PROXY\"; \
                 curl -sS http://localhost:{port}/listed; echo; \
                 curl -sS -o /dev/null -w '%{{http_code}}\\n' http://127.0.0.1:{port}/unlisted; \
                 curl -sS http://127.0.0.1:{port}/unlisted; \
                 curl -sS --noproxy '*' --max-time 10 http://localhost:{port}/direct || echo direct-failed; \
                 bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' || echo tcp-failed"
            ),
        )
        .await;
    assert!(run.status.gaps().is_empty(), "{run:?}");
    let lines = run.lines();
    assert!(lines[0].starts_with("proxy=http://127.0.0.1:"), "{run:?}");
    assert_eq!(
        &lines[1..],
        [
            "hello /listed",
            "403",
            &format!("agentctl sandbox: 127.0.0.1:{port} is not in sandbox.network.allow"),
            "direct-failed",
            "tcp-failed",
        ],
        "{run:?}"
    );
}

#[tokio::test]
async fn an_allow_list_without_a_bridge_or_namespaces_fails_closed() {
    let port = http_server();
    let dirs = Dirs::new();
    let script = format!(
        "curl -sS --max-time 10 http://localhost:{port}/x || echo failed; \
         bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' || echo tcp-failed"
    );
    let mut policies = Vec::new();
    if namespaces_or_skip() {
        policies.push(policy().with_helper("/nonexistent/agentctl-helper"));
    }
    if landlock_or_skip() {
        policies.push(fallback(SandboxMode::WorkspaceWrite));
    }
    for policy in policies {
        let policy = policy.with_network_access(allow(&["localhost"]));
        let run = dirs.sh(&policy, &script).await;
        assert!(
            run.status
                .gaps()
                .iter()
                .any(|gap| matches!(gap, SandboxGap::AllowList { .. })),
            "{run:?}"
        );
        let SandboxStatus::Enforced {
            landlock_abi,
            namespaces,
            ..
        } = run.status
        else {
            panic!("{run:?}")
        };
        if namespaces || landlock_abi.is_some_and(|abi| abi >= 4) {
            assert_eq!(run.lines(), ["failed", "tcp-failed"], "{run:?}");
        }
    }
}

#[tokio::test]
async fn abstract_unix_sockets_made_outside_cannot_be_reached() {
    use std::os::linux::net::SocketAddrExt as _;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let mut policies = Vec::new();
    if namespaces_or_skip() {
        policies.push(policy());
        policies.push(policy().with_network(false));
    }
    if landlock_or_skip() {
        policies.push(fallback(SandboxMode::WorkspaceWrite));
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
    for policy in policies {
        let run = dirs.sh(&policy, &script).await;
        if run.status.gaps().contains(&SandboxGap::Scoping) {
            eprintln!("skipped: this kernel's Landlock has no scoping");
            continue;
        }
        assert!(!run.stdout.contains("connected"), "{run:?}");
        assert!(
            run.stderr.contains("PermissionError") || run.stderr.contains("ConnectionRefused"),
            "{run:?}"
        );
        assert!(listener.accept().is_err());
    }
    // Unconfined, the same client connects.
    let run = dirs.sh(&SandboxPolicy::off(), &script).await;
    assert_eq!(run.lines(), ["connected"], "{run:?}");
}

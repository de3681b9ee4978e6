//! The network bridge, run inside the sandbox's network namespace: listens on
//! `127.0.0.1:<port>`, starts the command with the proxy variables pointing there, forwards
//! each connection to the proxy's Unix socket, and exits with the command's status.
//!
//! The listener is bound before the command starts, so the command never races it.

use super::say;
use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most connections forwarded at once (two threads each); more are refused.
const MAX_CONNECTIONS: usize = 128;
/// The variables that point HTTP clients at the bridge.
pub(crate) const PROXY_VARS: [&str; 5] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
];
/// Variables that would send some hosts around the proxy (where nothing answers).
const NO_PROXY_VARS: [&str; 2] = ["NO_PROXY", "no_proxy"];

/// Runs the bridge to the proxy at `socket` and the command; returns the exit code to leave
/// with.
pub(crate) fn run(socket: &Path, program: &OsStr, args: &[OsString]) -> i32 {
    let listener = match TcpListener::bind("127.0.0.1:0") {
        Ok(listener) => listener,
        Err(error) => {
            say(&format!(
                "agentctl sandbox bridge: cannot listen on 127.0.0.1: {error}"
            ));
            return 2;
        }
    };
    let port = listener.local_addr().map(|addr| addr.port()).unwrap_or(0);
    let url = format!("http://127.0.0.1:{port}");
    let mut command = std::process::Command::new(program);
    command.args(args);
    for name in PROXY_VARS {
        command.env(name, &url);
    }
    for name in NO_PROXY_VARS {
        command.env_remove(name);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            say(&format!(
                "agentctl sandbox: cannot start `{}`: {error}",
                program.to_string_lossy()
            ));
            return 127;
        }
    };
    let socket = Arc::new(socket.to_path_buf());
    std::thread::spawn(move || accept(&listener, &socket));
    match child.wait() {
        Ok(status) => exit_code(status),
        Err(_) => 1,
    }
}

/// The code a shell would report for `status`: the exit code, or 128 plus the signal.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1)
}

fn accept(listener: &TcpListener, socket: &Arc<PathBuf>) {
    let open = Arc::new(AtomicUsize::new(0));
    for client in listener.incoming() {
        let Ok(mut client) = client else { continue };
        if open.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            let _ = client.write_all(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let socket = Arc::clone(socket);
        let open = Arc::clone(&open);
        std::thread::spawn(move || {
            forward(client, &socket);
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

/// Copies `client` ⇄ the proxy until both directions have ended.
fn forward(client: TcpStream, socket: &std::path::Path) {
    let Ok(upstream) = UnixStream::connect(socket) else {
        let mut client = client;
        let _ = client.write_all(
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
    };
    let (Ok(client_reader), Ok(upstream_writer)) = (client.try_clone(), upstream.try_clone())
    else {
        return;
    };
    let up = std::thread::spawn(move || {
        let (mut from, mut to) = (client_reader, upstream_writer);
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Write);
    });
    let (mut from, mut to) = (upstream, client);
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
    let _ = up.join();
}

//! The network allow-list proxy: an HTTP proxy (CONNECT for https, absolute-form requests
//! for http) that agentctl runs on a Unix socket outside the sandbox.
//!
//! A command with `network: {"allow": […]}` runs in a network namespace of its own, where the
//! only way out is the bridge (see the `bridge` module) that forwards `127.0.0.1:<port>` to
//! this socket. The proxy checks the host of each request against the allow-list, resolves and
//! connects itself, and answers anything else with a one-line `403`. One proxy serves every
//! clone of a [`SandboxPolicy`](crate::SandboxPolicy): it is started by the first spawn that
//! needs it and stopped (its task aborted, its socket folder removed) with the last clone.

mod request;

use agentctl_core::NetworkHost;
use request::{Refusal, judge, read_head, show};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, copy_bidirectional};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::JoinSet;

/// Most connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 256;
/// How long a client has to send its request head, and the proxy to connect upstream.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

/// The proxy shared by clones of a policy: started on first use.
#[derive(Clone, Default)]
pub(crate) struct ProxyCell(Arc<Mutex<Option<ProxyServer>>>);

impl std::fmt::Debug for ProxyCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProxyCell")
    }
}

/// A running proxy.
struct ProxyServer {
    /// The folder (mode 0700) holding the socket, removed on drop.
    folder: tempfile::TempDir,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ProxyServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ProxyCell {
    /// The folder holding the socket (`proxy.sock`) of the proxy for `allow`, started on
    /// `runtime` if none runs (or the runtime of the last one has gone).
    pub(crate) fn folder(
        &self,
        allow: &[NetworkHost],
        runtime: &tokio::runtime::Handle,
    ) -> std::io::Result<PathBuf> {
        let mut server = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(running) = server.as_ref().filter(|server| !server.task.is_finished()) {
            return Ok(running.folder.path().to_path_buf());
        }
        let folder = agentctl_private_files::private_temp_dir("agentctl-proxy-")?;
        let listener = std::os::unix::net::UnixListener::bind(socket_in(folder.path()))?;
        listener.set_nonblocking(true)?;
        let _entered = runtime.enter();
        let listener = UnixListener::from_std(listener)?;
        let task = runtime.spawn(serve(listener, allow.into()));
        let path = folder.path().to_path_buf();
        *server = Some(ProxyServer { folder, task });
        Ok(path)
    }
}

/// The socket's path in the proxy's folder.
pub(crate) fn socket_in(folder: &Path) -> PathBuf {
    folder.join("proxy.sock")
}

/// Accepts connections until aborted; aborting drops the set, which aborts every connection.
async fn serve(listener: UnixListener, allow: Arc<[NetworkHost]>) {
    let mut connections = JoinSet::new();
    loop {
        while connections.len() >= MAX_CONNECTIONS {
            connections.join_next().await;
        }
        while connections.try_join_next().is_some() {}
        match listener.accept().await {
            Ok((stream, _)) => {
                let allow = Arc::clone(&allow);
                connections.spawn(async move { handle(stream, &allow).await });
            }
            // Out of descriptors, say: wait a little instead of spinning.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Serves one connection: reads the head, refuses or connects, then copies both ways.
async fn handle(mut client: UnixStream, allow: &[NetworkHost]) {
    let head = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await {
        Ok(Ok(Some(head))) => head,
        Ok(Ok(None)) | Err(_) => return,
        Ok(Err(refusal)) => return refuse(&mut client, &refusal).await,
    };
    let request = match judge(&head, allow) {
        Ok(request) => request,
        Err(refusal) => return refuse(&mut client, &refusal).await,
    };
    let address = (request.host.as_str(), request.port);
    let mut upstream = match tokio::time::timeout(HEAD_TIMEOUT, TcpStream::connect(address)).await {
        Ok(Ok(upstream)) => upstream,
        Ok(Err(error)) => {
            let message = format!(
                "cannot connect to {}: {error}",
                show(&request.host, request.port)
            );
            return refuse(&mut client, &Refusal { code: 502, message }).await;
        }
        Err(_) => {
            let message = format!(
                "{} did not answer within {} s",
                show(&request.host, request.port),
                HEAD_TIMEOUT.as_secs()
            );
            return refuse(&mut client, &Refusal { code: 502, message }).await;
        }
    };
    let opened = if request.tunnel {
        client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await
    } else {
        upstream.write_all(&request.head).await
    };
    if opened.is_err() || upstream.write_all(&request.rest).await.is_err() {
        return;
    }
    // Either side closing ends the exchange; errors (a reset) end it too.
    let _ = copy_bidirectional(&mut client, &mut upstream).await;
}

async fn refuse(client: &mut UnixStream, refusal: &Refusal) {
    let _ = client.write_all(&refusal.response()).await;
    let _ = client.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn exchange(folder: &Path, request: &[u8]) -> String {
        let mut stream = UnixStream::connect(socket_in(folder)).await.unwrap();
        stream.write_all(request).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn the_proxy_tunnels_forwards_and_refuses() {
        let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = upstream.local_addr().unwrap().port();
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = upstream.accept().await.unwrap();
                tokio::spawn(async move {
                    let mut seen = vec![0u8; 4096];
                    let read = stream.read(&mut seen).await.unwrap();
                    let seen = String::from_utf8_lossy(&seen[..read]).into_owned();
                    let line = seen.lines().next().unwrap_or_default().to_owned();
                    let _ = stream.write_all(format!("SEEN {line}").as_bytes()).await;
                });
            }
        });
        let cell = ProxyCell::default();
        let allow: Vec<NetworkHost> = vec!["localhost".parse().unwrap()];
        let runtime = tokio::runtime::Handle::current();
        let folder = cell.folder(&allow, &runtime).unwrap();
        assert_eq!(cell.folder(&allow, &runtime).unwrap(), folder, "one proxy");
        let answer = exchange(
            &folder,
            format!("GET http://localhost:{port}/x HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes(),
        )
        .await;
        assert_eq!(answer, "SEEN GET /x HTTP/1.1");
        let answer = exchange(
            &folder,
            format!("CONNECT localhost:{port} HTTP/1.1\r\n\r\nhello").as_bytes(),
        )
        .await;
        assert_eq!(
            answer,
            "HTTP/1.1 200 Connection established\r\n\r\nSEEN hello"
        );
        let answer = exchange(
            &folder,
            format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n").as_bytes(),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 403 Forbidden\r\n"), "{answer}");
        assert!(
            answer.ends_with(&format!(
                "\r\n\r\nagentctl sandbox: 127.0.0.1:{port} is not in sandbox.network.allow\n"
            )),
            "{answer}"
        );
        let answer = exchange(&folder, b"CONNECT localhost:1 HTTP/1.1\r\n\r\n").await;
        assert!(
            answer.starts_with("HTTP/1.1 502 Bad Gateway\r\n"),
            "{answer}"
        );
        drop(cell);
        tokio::task::yield_now().await;
        assert!(!folder.exists(), "the socket folder goes with the proxy");
    }
}

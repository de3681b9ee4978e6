//! Providers share the process's HTTP client and its connections, never each other's keys or
//! headers: a server that counts the connections it accepts and records each request's head.

#![expect(
    clippy::unwrap_used,
    reason = "the test server's helpers: a panic is a test failure"
)]

use super::common::{Deltas, request};
use agentctl_core::{ModelProvider, ModelRef, ProviderConfig, ProviderKind, Settings};
use agentctl_providers::{Env, ProviderOptions, build_provider, http_clients_built};
use agentctl_test_support::openai;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A keep-alive HTTP/1.1 server answering every request with the same text, counting
/// connections and keeping each request's head.
struct CountingServer {
    base_url: String,
    connections: Arc<AtomicUsize>,
    heads: Arc<Mutex<Vec<String>>>,
}

impl CountingServer {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (counted, kept) = (Arc::clone(&connections), Arc::clone(&heads));
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(serve(stream, Arc::clone(&kept)));
            }
        });
        Self {
            base_url,
            connections,
            heads,
        }
    }

    /// The value of each `name` header of each request, in order (lowercased names).
    fn headers(&self, name: &str) -> Vec<Vec<String>> {
        let prefix = format!("{name}:");
        self.heads
            .lock()
            .unwrap()
            .iter()
            .map(|head| {
                head.lines()
                    .filter(|line| line.to_ascii_lowercase().starts_with(&prefix))
                    .map(|line| line[prefix.len()..].trim().to_owned())
                    .collect()
            })
            .collect()
    }
}

async fn serve(mut stream: TcpStream, heads: Arc<Mutex<Vec<String>>>) {
    let body = openai::text_response("ok").to_string();
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let (head_end, length) = loop {
            if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
                let length = head
                    .lines()
                    .find_map(|line| {
                        line.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0usize);
                heads.lock().unwrap().push(head);
                break (end + 4, length);
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
        };
        while buffer.len() < head_end + length {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
        }
        buffer.drain(..head_end + length);
        if stream.write_all(reply.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// `count` providers at `base_url`, each with a key (`sk-tenant-N`) and an `x-tenant: N` header
/// of its own, built as separate conversations would build them.
fn tenants(base_url: &str, count: usize) -> Vec<Arc<dyn ModelProvider>> {
    let env: Vec<(String, String)> = (0..count)
        .map(|n| (format!("TENANT_{n}_KEY"), format!("sk-tenant-{n}")))
        .collect();
    let options = ProviderOptions {
        env: Env::from_pairs(env),
        request_timeout: Duration::from_secs(30),
        ..ProviderOptions::default()
    };
    (0..count)
        .map(|n| {
            let mut settings = Settings::default();
            settings.providers.insert(
                format!("tenant{n}"),
                ProviderConfig {
                    kind: ProviderKind::Openai,
                    base_url: Some(base_url.to_owned()),
                    api_key_env: Some(format!("TENANT_{n}_KEY")),
                    headers: BTreeMap::from([("x-tenant".to_owned(), n.to_string())]),
                },
            );
            let model = ModelRef {
                provider: format!("tenant{n}"),
                model: "test-model".into(),
            };
            build_provider(&model, &settings, &options).unwrap()
        })
        .collect()
}

#[tokio::test]
async fn providers_share_connections_and_never_each_others_keys() {
    let server = CountingServer::start().await;
    let providers = tenants(&server.base_url, 20);
    let built = http_clients_built();
    // Each provider in turn, three times round: one connection serves them all.
    let mut order = Vec::new();
    for _ in 0..3 {
        for (n, provider) in providers.iter().enumerate() {
            let deltas = Deltas::default();
            provider
                .complete(&request("hi", false), &deltas.sink())
                .await
                .unwrap();
            order.push(n);
        }
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
    let keys = server.headers("authorization");
    let tenant_headers = server.headers("x-tenant");
    for (index, n) in order.iter().enumerate() {
        assert_eq!(
            keys[index],
            [format!("Bearer sk-tenant-{n}")],
            "request {index}"
        );
        assert_eq!(tenant_headers[index], [n.to_string()], "request {index}");
    }
    // The same configuration again, as the next conversation builds its providers: no new
    // client (tests running beside this one may build clients of other configurations, so
    // this only holds when none did; the count never shrinks).
    let again = tenants(&server.base_url, 20);
    assert!(http_clients_built() >= built);
    let deltas = Deltas::default();
    again[7]
        .complete(&request("hi", false), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
    assert_eq!(
        server.headers("authorization").last().unwrap(),
        &["Bearer sk-tenant-7"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_providers_reuse_a_bounded_number_of_connections() {
    const WORKERS: usize = 10;
    let server = CountingServer::start().await;
    let providers = tenants(&server.base_url, WORKERS);
    let workers: Vec<_> = (0..WORKERS)
        .map(|worker| {
            let providers = providers.clone();
            tokio::spawn(async move {
                for call in 0..20 {
                    let deltas = Deltas::default();
                    providers[(worker + call) % providers.len()]
                        .complete(&request("hi", false), &deltas.sink())
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.unwrap();
    }
    // A connection goes back to the pool from a task of its own once its answer is read, so a
    // worker that starts its next call at once may find none idle and open one more (a bare
    // reqwest client does the same): 10–18 connections in 15 runs here. Bounded by the
    // workers, never one per call or per provider.
    let connections = server.connections.load(Ordering::SeqCst);
    assert!(
        connections <= 3 * WORKERS,
        "{connections} connections for {WORKERS} workers"
    );
    let keys = server.headers("authorization");
    let tenants = server.headers("x-tenant");
    assert_eq!(keys.len(), WORKERS * 20);
    for (key, tenant) in keys.iter().zip(&tenants) {
        assert_eq!(tenant.len(), 1);
        assert_eq!(key, &[format!("Bearer sk-tenant-{}", tenant[0])]);
    }
}

//! One live connection to one server: the rmcp client, the child process of a stdio server and
//! the server's tool list, fetched once per connection.

use crate::config::{ServerSpec, TransportSpec};
use crate::error::{McpError, Result};
use crate::process::{self, ChildProcess, LaunchPolicy};
use crate::stdout::{JsonLines, StdoutFault};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use std::future::Future;
use std::path::Path;
use std::sync::Arc;

/// The client half of a connection, as rmcp runs it.
pub(crate) type Client = RunningService<RoleClient, ClientConfig>;

/// A connected, initialised server.
pub(crate) struct Connection {
    pub(crate) spec: Arc<ServerSpec>,
    pub(crate) client: Client,
    child: Option<tokio::sync::Mutex<ChildProcess>>,
    /// The first line a stdio server wrote on stdout that is not JSON-RPC, once it wrote one.
    stdout_fault: Option<StdoutFault>,
    /// Tools the server listed at connection time, after `includeTools` / `excludeTools`.
    pub(crate) tools: Vec<rmcp::model::Tool>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.spec.name)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("agentctl", env!("CARGO_PKG_VERSION")),
    )
}

/// Starts a stdio server and completes the handshake within `timeout`: a line on its stdout
/// that is not JSON-RPC fails it at once, a failed handshake says how the process ended and
/// what it last wrote on stderr.
async fn stdio_handshake(
    spec: &ServerSpec,
    command: &str,
    base_dir: &Path,
    launch: &LaunchPolicy,
    timeout: std::time::Duration,
) -> Result<(Client, ChildProcess, StdoutFault)> {
    let start_error = |message: String| McpError::Start {
        server: spec.name.clone(),
        message,
    };
    let (mut child, stdout, stdin) = process::spawn(&spec.transport, base_dir, launch)
        .map_err(|error| start_error(format!("cannot run `{command}`: {error}")))?;
    // rmcp skips lines that are not JSON; checked here, a banner or a log line on stdout fails
    // the handshake at once instead of swallowing an answer.
    let (stdout, fault) = JsonLines::new(stdout);
    let handshake = tokio::time::timeout(timeout, client_config().serve((stdout, stdin))).await;
    if !matches!(handshake, Ok(Ok(_)))
        && let Some(line) = fault.line()
    {
        return Err(McpError::NotJsonRpc {
            server: spec.name.clone(),
            line,
        });
    }
    match handshake {
        Ok(Ok(client)) => Ok((client, child, fault)),
        Ok(Err(error)) => {
            // Give the stderr reader a moment to collect the server's last words.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let status = child
                .try_exit_status()
                .map(|status| format!(" (process {status})"))
                .unwrap_or_default();
            Err(start_error(with_stderr(
                format!("handshake failed: {error}{status}"),
                &child.stderr_tail(),
            )))
        }
        Err(_) => Err(initialize_timeout(spec, timeout)),
    }
}

/// The server did not finish `initialize` within `timeout`.
fn initialize_timeout(spec: &ServerSpec, timeout: std::time::Duration) -> McpError {
    McpError::Timeout {
        server: spec.name.clone(),
        operation: "initialize".into(),
        millis: millis(timeout),
    }
}

impl Connection {
    /// Starts (stdio) or reaches (HTTP) the server, completes the handshake and lists its tools,
    /// bounded by the server's startup timeout.
    pub(crate) async fn open(
        spec: Arc<ServerSpec>,
        base_dir: &Path,
        launch: &LaunchPolicy,
    ) -> Result<Self> {
        let timeout = spec.startup_timeout();
        let (client, child, stdout_fault) = match &spec.transport {
            TransportSpec::Stdio { command, .. } => {
                let (client, child, fault) =
                    stdio_handshake(&spec, command, base_dir, launch, timeout).await?;
                (client, Some(child), Some(fault))
            }
            TransportSpec::Http { url, headers } => {
                let transport = http_transport(&spec.name, url, headers)?;
                let handshake = tokio::time::timeout(timeout, client_config().serve(transport));
                match handshake.await {
                    Ok(Ok(client)) => (client, None, None),
                    Ok(Err(error)) => {
                        return Err(McpError::Start {
                            server: spec.name.clone(),
                            message: format!("cannot connect to {url}: {error}"),
                        });
                    }
                    Err(_) => return Err(initialize_timeout(&spec, timeout)),
                }
            }
        };
        let mut connection = Connection {
            spec: Arc::clone(&spec),
            client,
            child: child.map(tokio::sync::Mutex::new),
            stdout_fault,
            tools: Vec::new(),
        };
        let has_tools = connection
            .client
            .peer_info()
            .is_none_or(|info| info.capabilities.tools.is_some());
        if has_tools {
            let tools = connection
                .request_within("tools/list", timeout, connection.client.list_all_tools())
                .await?;
            connection.tools = tools
                .into_iter()
                .filter(|tool| spec.exposes(&tool.name))
                .collect();
        }
        Ok(connection)
    }

    /// True while the transport is open and (for stdio) the process is running.
    pub(crate) async fn is_alive(&self) -> bool {
        if self.client.is_closed() {
            return false;
        }
        match &self.child {
            Some(child) => child.lock().await.try_exit_status().is_none(),
            None => true,
        }
    }

    /// Process id of a stdio server.
    pub(crate) async fn pid(&self) -> Option<u32> {
        match &self.child {
            Some(child) => child.lock().await.id(),
            None => None,
        }
    }

    /// Runs one request with the server's timeout, mapping rmcp's errors to [`McpError`].
    pub(crate) async fn request<T>(
        &self,
        operation: &str,
        future: impl Future<Output = std::result::Result<T, ServiceError>>,
    ) -> Result<T> {
        self.request_within(operation, self.spec.timeout, future)
            .await
    }

    /// [`Connection::request`] with an explicit timeout.
    async fn request_within<T>(
        &self,
        operation: &str,
        timeout: std::time::Duration,
        future: impl Future<Output = std::result::Result<T, ServiceError>>,
    ) -> Result<T> {
        let outcome = tokio::time::timeout(timeout, future).await;
        let server = self.spec.name.clone();
        let operation = operation.to_owned();
        // A stray line on stdout closed the transport: that, not its symptom, is the error.
        if !matches!(outcome, Ok(Ok(_)))
            && let Some(line) = self.stdout_fault.as_ref().and_then(StdoutFault::line)
        {
            return Err(McpError::NotJsonRpc { server, line });
        }
        match outcome {
            Err(_) | Ok(Err(ServiceError::Timeout { .. })) => Err(McpError::Timeout {
                server,
                operation,
                millis: millis(timeout),
            }),
            Ok(Ok(value)) => Ok(value),
            Ok(Err(ServiceError::McpError(error))) => Err(McpError::Protocol {
                server,
                operation,
                message: error.message.into_owned(),
            }),
            Ok(Err(error)) => {
                let mut message = error.to_string();
                if let Some(child) = &self.child {
                    // The reader task may still be draining the dead server's stderr.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    let mut child = child.lock().await;
                    if let Some(status) = child.try_exit_status() {
                        message = format!("server process {status}");
                    }
                    message = with_stderr(message, &child.stderr_tail());
                }
                Err(McpError::Disconnected {
                    server,
                    operation,
                    message,
                })
            }
        }
    }

    /// Closes the session and stops the server's process group.
    pub(crate) async fn shutdown(&self) {
        self.client.cancellation_token().cancel();
        if let Some(child) = &self.child {
            child.lock().await.shutdown().await;
        }
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn with_stderr(message: String, stderr: &str) -> String {
    if stderr.trim().is_empty() {
        message
    } else {
        format!("{message}; server stderr:\n{stderr}")
    }
}

fn http_transport(
    server: &str,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<rmcp::transport::StreamableHttpClientTransport<reqwest::Client>> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let invalid = |message: String| McpError::InvalidConfig {
        server: server.to_owned(),
        message,
    };
    let mut map = reqwest::header::HeaderMap::new();
    for (name, value) in headers {
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|error| invalid(format!("header `{name}`: {error}")))?;
        let value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|error| invalid(format!("header `{name}`: {error}")))?;
        map.insert(name, value);
    }
    agentctl_core::install_crypto_provider();
    let client = reqwest::Client::builder()
        .default_headers(map)
        .build()
        .map_err(|error| invalid(format!("cannot build the HTTP client: {error}")))?;
    Ok(rmcp::transport::StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()),
    ))
}

//! An instant, stateless OpenAI-compatible Chat Completions server for benchmarks: keep-alive
//! HTTP/1.1 on `127.0.0.1`, no queue, no checks, no delays — so what a client measures against
//! it is the client's own cost.
//!
//! It answers from the request alone: a call of the `lookup` tool when tools are offered and the
//! last message is not a tool result, else a short text; as SSE (one HTTP chunk per event, text
//! in several deltas, usage last) when the body asks for `"stream":true`. The embedding
//! example, the raw-HTTP floor (`benches/drivers/floor.rs`) and `benches/runtime.rs` all run against
//! this one server.

use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// The text of every final answer.
pub const INSTANT_ANSWER: &str = "The capital of France is Paris.";

/// The arguments of every `lookup` call the server asks for.
pub const INSTANT_LOOKUP_ARGUMENTS: &str = r#"{"key":"capital-of-france"}"#;

/// One request the server answered: the body as received, and whether the answer was the final
/// text (`true`) or a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The request body, byte for byte.
    pub body: Vec<u8>,
    /// True when the server answered with text (the run ends), false for a tool call.
    pub final_answer: bool,
}

/// Called with each exchange, in arrival order (e.g. to record what a client sends).
pub type ExchangeSink = Arc<dyn Fn(&Exchange) + Send + Sync>;

/// An instant server (stateless, keep-alive, no checks) on its own thread, with its own single-threaded tokio runtime (so it
/// never competes for the workers of the runtime under test); stops when dropped.
///
/// ```
/// let server = agentctl_test_support::InstantServer::start().unwrap();
/// assert!(server.base_url().starts_with("http://127.0.0.1:"));
/// ```
pub struct InstantServer {
    address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for InstantServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstantServer")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl InstantServer {
    /// Starts on a free port of `127.0.0.1`.
    pub fn start() -> std::io::Result<Self> {
        Self::bind(SocketAddr::from(([127, 0, 0, 1], 0)), None)
    }

    /// Starts on `address` (port 0 for a free one), handing every exchange to `sink` if given.
    pub fn bind(address: SocketAddr, sink: Option<ExchangeSink>) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(address)?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("instant-server".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = TcpListener::from_std(listener) else {
                        return;
                    };
                    let accept = async {
                        while let Ok((stream, _)) = listener.accept().await {
                            tokio::spawn(serve(stream, sink.clone()));
                        }
                    };
                    tokio::select! {
                        _ = stopped => {}
                        () = accept => {}
                    }
                });
            })?;
        Ok(Self {
            address,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The base URL to configure an OpenAI-compatible provider with (`http://127.0.0.1:PORT/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// Serves until the process ends (for a server process of its own).
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for InstantServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The four answers, built once.
struct Answers {
    text: Vec<u8>,
    tool_call: Vec<u8>,
    text_stream: Vec<u8>,
    tool_call_stream: Vec<u8>,
}

fn answers() -> &'static Answers {
    static ANSWERS: std::sync::OnceLock<Answers> = std::sync::OnceLock::new();
    ANSWERS.get_or_init(|| {
        use crate::openai;
        let usage = serde_json::json!({"prompt_tokens": 20, "completion_tokens": 5});
        let mut text = openai::text_response(INSTANT_ANSWER);
        text["usage"] = usage.clone();
        let mut tool_call =
            openai::tool_calls_response(&[("call_1", "lookup", INSTANT_LOOKUP_ARGUMENTS)]);
        tool_call["usage"] = usage;
        // Word by word, as models stream.
        let mut text_events: Vec<String> = INSTANT_ANSWER
            .split_inclusive(' ')
            .map(openai::text_chunk)
            .collect();
        text_events.extend([
            openai::finish_chunk("stop"),
            openai::usage_chunk(20, 5),
            openai::done(),
        ]);
        let middle = INSTANT_LOOKUP_ARGUMENTS.len() / 2;
        let tool_events = [
            openai::tool_call_chunk(
                0,
                Some("call_1"),
                Some("lookup"),
                &INSTANT_LOOKUP_ARGUMENTS[..middle],
            ),
            openai::tool_call_chunk(0, None, None, &INSTANT_LOOKUP_ARGUMENTS[middle..]),
            openai::finish_chunk("tool_calls"),
            openai::usage_chunk(20, 5),
            openai::done(),
        ];
        Answers {
            text: json_reply(&text.to_string()),
            tool_call: json_reply(&tool_call.to_string()),
            text_stream: sse_reply(&text_events),
            tool_call_stream: sse_reply(&tool_events),
        }
    })
}

fn json_reply(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// One HTTP chunk per event, as streaming APIs send them; all written at once.
fn sse_reply(events: &[String]) -> Vec<u8> {
    let mut reply =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
            .to_vec();
    for event in events {
        reply.extend_from_slice(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes());
    }
    reply.extend_from_slice(b"0\r\n\r\n");
    reply
}

/// Whether the body's last message is a tool result: then the run gets its final text.
fn last_message_is_tool_result(body: &[u8]) -> bool {
    const ROLE: &[u8] = b"\"role\":\"";
    body.windows(ROLE.len())
        .rposition(|window| window == ROLE)
        .is_some_and(|at| body[at + ROLE.len()..].starts_with(b"tool\""))
}

fn contains(body: &[u8], needle: &[u8]) -> bool {
    body.windows(needle.len()).any(|window| window == needle)
}

/// Answers requests on one keep-alive connection until the client closes it.
async fn serve(mut stream: TcpStream, sink: Option<ExchangeSink>) {
    let _ = stream.set_nodelay(true);
    let mut buffer = Vec::with_capacity(16 * 1024);
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let (head_end, length) = loop {
            if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break (end + 4, content_length(&buffer[..end]));
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
        let body = &buffer[head_end..head_end + length];
        let final_answer = last_message_is_tool_result(body) || !contains(body, b"\"tools\":[");
        let stream_answer = contains(body, b"\"stream\":true");
        if let Some(sink) = &sink {
            sink(&Exchange {
                body: body.to_vec(),
                final_answer,
            });
        }
        let answers = answers();
        let reply = match (final_answer, stream_answer) {
            (true, false) => &answers.text,
            (false, false) => &answers.tool_call,
            (true, true) => &answers.text_stream,
            (false, true) => &answers.tool_call_stream,
        };
        buffer.drain(..head_end + length);
        if stream.write_all(reply).await.is_err() {
            return;
        }
    }
}

/// The `content-length` of a request head (0 when absent).
fn content_length(head: &[u8]) -> usize {
    String::from_utf8_lossy(head)
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_role_decides() {
        let tools = br#"{"messages":[{"role":"user","content":"a \"role\":\"tool\""},{"role":"assistant"},{"role":"tool","content":"x"}],"tools":[]}"#;
        assert!(last_message_is_tool_result(tools));
        let user =
            br#"{"messages":[{"role":"system"},{"role":"user","content":"q"}],"tools":[{}]}"#;
        assert!(!last_message_is_tool_result(user));
        assert!(contains(user, b"\"tools\":["));
        assert_eq!(content_length(b"POST / HTTP/1.1\r\nContent-Length: 12"), 12);
        assert_eq!(content_length(b"POST / HTTP/1.1"), 0);
    }
}

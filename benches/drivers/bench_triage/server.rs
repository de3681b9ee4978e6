//! The triage bench's instant server: an OpenAI-compatible Chat Completions endpoint that plays
//! the scenario from each request alone — a `handoff_to_<specialist>` call while handoffs are
//! offered, a `lookup` call while `lookup` is offered and not yet answered, then the answer —
//! with no queue and no delay, like `agentctl_test_support::InstantServer` (which only ever
//! calls `lookup`).
//!
//! It counts the connections it accepted, the requests it answered and the requests it
//! refused, and tells them at `GET /stats` (then closes that connection, so a script can read
//! to the end). `--strict` checks every request against the rules
//! of the real API first (`agentctl_test_support::check_request`, the strict fake's rules) and
//! refuses a broken one with a 400 that says why; the timed runs go without, so that the
//! server's own work weighs the same little on the library path and on the floor.

use agentctl_test_support::{Exchange, ExchangeSink, RecordedRequest, WireFormat, check_request};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The final answer of every scenario.
pub const ANSWER: &str = "Refunds are paid back within 5 working days.";

/// The id of the `lookup` call the server asks for: its result ends the scenario.
const LOOKUP_ID: &str = "call_lookup";

/// What the server counted.
#[derive(Default)]
pub struct Counters {
    connections: AtomicU64,
    requests: AtomicU64,
    rejected: AtomicU64,
}

impl Counters {
    /// The counts as the JSON `GET /stats` answers.
    fn json(&self) -> Value {
        json!({
            "connections": self.connections.load(Ordering::Relaxed),
            "requests": self.requests.load(Ordering::Relaxed),
            "rejected": self.rejected.load(Ordering::Relaxed),
        })
    }
}

/// How the server answers.
#[derive(Clone)]
pub struct Options {
    /// Check every request against the real API's rules (and refuse the broken ones).
    pub strict: bool,
    /// Handed every answered exchange (to record the request bodies for the floor).
    pub sink: Option<ExchangeSink>,
}

/// Serves on `address` until the process ends; calls `ready` with the base URL first.
pub fn serve(
    address: SocketAddr,
    options: Options,
    ready: impl FnOnce(String),
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(address).await?;
        ready(format!("http://{}/v1", listener.local_addr()?));
        let counters = Arc::new(Counters::default());
        loop {
            let (stream, _) = listener.accept().await?;
            counters.connections.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(connection(stream, options.clone(), Arc::clone(&counters)));
        }
    })
}

/// One request as read off the wire.
struct Request<'a> {
    method: &'a str,
    path: &'a str,
    head: &'a [u8],
    body: &'a [u8],
}

/// Answers requests on one keep-alive connection until the client closes it.
async fn connection(mut stream: TcpStream, options: Options, counters: Arc<Counters>) {
    let _ = stream.set_nodelay(true);
    let mut buffer = Vec::with_capacity(16 * 1024);
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let (head_end, length) = loop {
            if let Some(end) = find(&buffer, b"\r\n\r\n") {
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
        let head = &buffer[..head_end];
        let mut words = head.split(|&byte| byte == b' ');
        let method = std::str::from_utf8(words.next().unwrap_or_default()).unwrap_or_default();
        let path = std::str::from_utf8(words.next().unwrap_or_default()).unwrap_or_default();
        let request = Request {
            method,
            path,
            head,
            body: &buffer[head_end..head_end + length],
        };
        let stats = request.method == "GET" && request.path == "/stats";
        let reply = answer(&request, &options, &counters);
        buffer.drain(..head_end + length);
        // The stats are read by scripts too, which read to the end: that connection closes.
        if stream.write_all(&reply).await.is_err() || stats {
            return;
        }
    }
}

/// The reply to one request.
fn answer(request: &Request<'_>, options: &Options, counters: &Counters) -> Vec<u8> {
    if request.method == "GET" && request.path == "/stats" {
        return json_reply(200, &counters.json().to_string());
    }
    counters.requests.fetch_add(1, Ordering::Relaxed);
    if options.strict
        && let Some(refusal) = refusal(request)
    {
        counters.rejected.fetch_add(1, Ordering::Relaxed);
        return refusal;
    }
    let step = step(request.body);
    if let Some(sink) = &options.sink {
        sink(&Exchange {
            body: request.body.to_vec(),
            final_answer: matches!(step, Step::Answer),
        });
    }
    reply(step, contains(request.body, b"\"stream\":true"))
}

/// The 400 a real API would give `request`, if it breaks any of its rules.
fn refusal(request: &Request<'_>) -> Option<Vec<u8>> {
    let mut recorded = RecordedRequest::post(request.path, Value::Null);
    recorded.method = request.method.to_owned();
    recorded.headers = headers(request.head);
    recorded.raw_body = String::from_utf8_lossy(request.body).into_owned();
    let message = match serde_json::from_slice::<Value>(request.body) {
        Ok(body) => {
            recorded.body = body;
            let violations = check_request(WireFormat::OpenAi, &recorded);
            if violations.is_empty() {
                return None;
            }
            let text: Vec<String> = violations
                .iter()
                .map(|violation| format!("{}: {}", violation.at, violation.message))
                .collect();
            text.join("; ")
        }
        Err(error) => format!("the body is not JSON: {error}"),
    };
    eprintln!(
        "bench server: refused request to {}: {message}",
        request.path
    );
    let body = json!({"error": {"message": message, "type": "invalid_request_error"}});
    Some(json_reply(400, &body.to_string()))
}

/// A request head's headers, names lowercased.
fn headers(head: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(head)
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect()
}

/// Where a scenario is, read from the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The triage agent: hand off to billing (`true`) or tech.
    Handoff { billing: bool },
    /// A specialist before its lookup: look up a refund (`true`) or a connection question.
    Lookup { refund: bool },
    /// After the lookup (or with no tools): the answer.
    Answer,
}

/// The step `body` asks for. The body is scanned, not parsed (parsing would make the server's
/// share of the measured time larger): messages come before `tools`, and a quote inside a
/// JSON string is escaped, so `"tools":[` and `"role":"` only match keys.
fn step(body: &[u8]) -> Step {
    let tools_at = rfind(body, b"\"tools\":[");
    let messages = &body[..tools_at.unwrap_or(body.len())];
    let refund = contains(messages, b"refund");
    if let Some(role) = rfind(messages, b"\"role\":\"") {
        let last = &messages[role + b"\"role\":\"".len()..];
        let lookup_result = format!("\"tool_call_id\":\"{LOOKUP_ID}\"");
        if last.starts_with(b"tool\"") && contains(last, lookup_result.as_bytes()) {
            return Step::Answer;
        }
    }
    let Some(tools_at) = tools_at else {
        return Step::Answer;
    };
    let tools = &body[tools_at..];
    if contains(tools, b"\"name\":\"handoff_to_billing\"") {
        Step::Handoff { billing: refund }
    } else if contains(tools, b"\"name\":\"lookup\"") {
        Step::Lookup { refund }
    } else {
        Step::Answer
    }
}

/// The answer to `step`, as JSON or (`stream`) as SSE.
fn reply(step: Step, stream: bool) -> Vec<u8> {
    let (id, name, arguments) = match step {
        Step::Handoff { billing: true } => ("call_handoff", "handoff_to_billing", "{}"),
        Step::Handoff { billing: false } => ("call_handoff", "handoff_to_tech", "{}"),
        Step::Lookup { refund: true } => (LOOKUP_ID, "lookup", r#"{"query":"refund policy"}"#),
        Step::Lookup { refund: false } => (LOOKUP_ID, "lookup", r#"{"query":"connection drops"}"#),
        Step::Answer => return answers(stream).clone(),
    };
    let usage = json!({"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25});
    if !stream {
        let body = json!({
            "id": "chatcmpl-1", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}],
            }}],
            "usage": usage,
        });
        return json_reply(200, &body.to_string());
    }
    use agentctl_test_support::openai;
    sse_reply(&[
        openai::tool_call_chunk(0, Some(id), Some(name), arguments),
        openai::finish_chunk("tool_calls"),
        openai::usage_chunk(20, 5),
        openai::done(),
    ])
}

/// The final answer, built once per mode.
fn answers(stream: bool) -> &'static Vec<u8> {
    static JSON: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    static SSE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    use agentctl_test_support::openai;
    if stream {
        SSE.get_or_init(|| {
            let mut events: Vec<String> = ANSWER
                .split_inclusive(' ')
                .map(openai::text_chunk)
                .collect();
            events.extend([
                openai::finish_chunk("stop"),
                openai::usage_chunk(20, 5),
                openai::done(),
            ]);
            sse_reply(&events)
        })
    } else {
        JSON.get_or_init(|| {
            let mut body = openai::text_response(ANSWER);
            body["usage"] =
                json!({"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25});
            json_reply(200, &body.to_string())
        })
    }
}

fn json_reply(status: u16, body: &str) -> Vec<u8> {
    let reason = if status == 200 { "OK" } else { "Bad Request" };
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
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

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .rposition(|window| window == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
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
    fn the_scenario_is_read_from_the_request() {
        let triage = br#"{"messages":[{"role":"system","content":"x"},{"role":"user","content":"a refund?"}],"tools":[{"type":"function","function":{"name":"handoff_to_billing"}},{"type":"function","function":{"name":"handoff_to_tech"}}]}"#;
        assert_eq!(step(triage), Step::Handoff { billing: true });
        let specialist = br#"{"messages":[{"role":"user","content":"internet"},{"role":"assistant","tool_calls":[{"id":"call_handoff","function":{"name":"handoff_to_billing"}}]},{"role":"tool","content":"ok","tool_call_id":"call_handoff"}],"tools":[{"type":"function","function":{"name":"lookup"}}]}"#;
        assert_eq!(step(specialist), Step::Lookup { refund: false });
        let done = br#"{"messages":[{"role":"user","content":"q"},{"role":"tool","content":"found","tool_call_id":"call_lookup"}],"tools":[{"type":"function","function":{"name":"lookup"}}]}"#;
        assert_eq!(step(done), Step::Answer);
    }
}

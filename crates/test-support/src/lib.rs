//! Test helpers for agentctl: fake model servers speaking the OpenAI, Anthropic and Gemini wire
//! formats on `127.0.0.1:0` (and a fake embeddings server, [`FakeEmbeddings`], and a fake web
//! site, [`FakeWeb`]), builders for their JSON and SSE answers, and in-process fakes
//! (queue and routing providers, tools with a chosen risk and behaviour, agent and answer
//! builders) shared by every crate's tests, [`InstantServer`] (the stateless keep-alive
//! OpenAI-compatible server the benchmarks measure against), and the PostgreSQL test server
//! ([`postgres_url`]). The store backends a store test runs against are
//! `agentctl-store-suite`'s.
//!
//! The servers are strict: each request is checked against the real API's rules first (tool
//! names, schemas, the pairing of tool calls and results, roles, required fields — see
//! [`check_request`]), and one that breaks any is refused with the 400 the real API would give,
//! whose message says what is wrong. A test whose server saw a broken request fails when the
//! server is dropped, so every test against a fake also checks that the requests were valid.
//!
//! ```no_run
//! # async fn demo() {
//! use agentctl_test_support::{FakeServer, openai};
//! let server = FakeServer::openai().await;
//! server.push_sse([openai::text_chunk("Hel"), openai::text_chunk("lo"), openai::finish_chunk("stop"), openai::done()]);
//! // … point a provider at server.base_url(), make the call …
//! let request = server.single_request();
//! assert_eq!(request.path, "/v1/chat/completions");
//! # }
//! ```

mod cassettes;
mod embeddings;
mod fakes;
mod instant;
mod otlp;
mod postgres;
#[cfg(target_os = "linux")]
pub mod process;
mod rules;
mod server;
mod web;
mod wire;

pub use cassettes::cassette_model;
pub use embeddings::{FAKE_DIMENSIONS, FAKE_SYNONYMS, FakeEmbeddings, fake_embedding};
pub use fakes::{
    Behaviour, FakeTool, HangingProvider, LookupArgs, LookupTool, QueueProvider, Rendezvous, Route,
    RoutedProvider, agent, calls, collect, first_user, kinds, text,
};
pub use instant::{
    Exchange, ExchangeSink, INSTANT_ANSWER, INSTANT_LOOKUP_ARGUMENTS, InstantServer,
};
pub use otlp::{OTLP_WAIT, OtlpReceiver, ReceivedRequest, ReceivedSpan};
pub use postgres::{TEST_DATABASE_URL, postgres_url};
pub use rules::{Violation, check_request};
pub use server::FakeServer;
pub use web::FakeWeb;
pub use wire::{BodyPart, RecordedRequest, Reply, WireFormat};

use serde_json::Value;

/// An SSE event with only data: `data: {json}\n\n`.
pub fn sse_data(data: &Value) -> String {
    format!("data: {data}\n\n")
}

/// An SSE event with a name: `event: {name}\ndata: {json}\n\n`.
pub fn sse_event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// OpenAI Chat Completions answers.
pub mod openai {
    use super::sse_data;
    use serde_json::{Value, json};

    /// A non-streamed answer with text.
    pub fn text_response(text: &str) -> Value {
        json!({
            "id": "chatcmpl-1", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        })
    }

    /// A non-streamed answer calling tools: `(id, name, arguments JSON text)`.
    pub fn tool_calls_response(calls: &[(&str, &str, &str)]) -> Value {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, arguments)| {
                json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
            })
            .collect();
        json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls},
                         "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        })
    }

    /// A stream chunk with text.
    pub fn text_chunk(text: &str) -> String {
        sse_data(
            &json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}),
        )
    }

    /// A stream chunk with a piece of tool call `index`; `id` and `name` come with the first piece.
    pub fn tool_call_chunk(
        index: usize,
        id: Option<&str>,
        name: Option<&str>,
        arguments: &str,
    ) -> String {
        let mut call = json!({"index": index, "function": {"arguments": arguments}});
        if let Some(id) = id {
            call["id"] = json!(id);
            call["type"] = json!("function");
        }
        if let Some(name) = name {
            call["function"]["name"] = json!(name);
        }
        sse_data(
            &json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": null}]}),
        )
    }

    /// The chunk carrying `finish_reason`.
    pub fn finish_chunk(reason: &str) -> String {
        sse_data(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}))
    }

    /// The usage chunk sent with `stream_options.include_usage`.
    pub fn usage_chunk(input: u64, output: u64) -> String {
        sse_data(
            &json!({"choices": [], "usage": {"prompt_tokens": input, "completion_tokens": output}}),
        )
    }

    /// `data: [DONE]`.
    pub fn done() -> String {
        "data: [DONE]\n\n".to_owned()
    }
}

/// Anthropic Messages answers.
pub mod anthropic {
    use super::sse_event;
    use serde_json::{Value, json};

    /// A non-streamed answer: optional text, then `(id, name, input)` tool calls.
    pub fn response(text: Option<&str>, calls: &[(&str, &str, Value)]) -> Value {
        let mut content = Vec::new();
        if let Some(text) = text {
            content.push(json!({"type": "text", "text": text}));
        }
        for (id, name, input) in calls {
            content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
        }
        let stop = if calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        };
        json!({"id": "msg_1", "type": "message", "role": "assistant", "content": content,
               "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 5}})
    }

    /// A streamed answer: text in `pieces`, then tool calls with their input JSON split in two.
    pub fn stream(pieces: &[&str], calls: &[(&str, &str, &str)]) -> Vec<String> {
        let mut events = vec![sse_event(
            "message_start",
            &json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": [],
                    "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        )];
        let mut index = 0;
        if !pieces.is_empty() {
            events.push(block_start(index, json!({"type": "text", "text": ""})));
            for piece in pieces {
                events.push(block_delta(
                    index,
                    json!({"type": "text_delta", "text": piece}),
                ));
            }
            events.push(block_stop(index));
            index += 1;
        }
        for (id, name, input) in calls {
            events.push(block_start(
                index,
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            ));
            let middle = input.len() / 2;
            let middle = (middle..=input.len())
                .find(|at| input.is_char_boundary(*at))
                .unwrap_or(input.len());
            for part in [&input[..middle], &input[middle..]] {
                events.push(block_delta(
                    index,
                    json!({"type": "input_json_delta", "partial_json": part}),
                ));
            }
            events.push(block_stop(index));
            index += 1;
        }
        let stop = if calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        };
        events.push(sse_event(
            "message_delta",
            &json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}}),
        ));
        events.push(sse_event("message_stop", &json!({"type": "message_stop"})));
        events
    }

    /// A streamed answer of a model thinking (extended thinking on): a thinking block with
    /// `thought` and its `signature`, then [`stream`]'s text and tool calls after it.
    pub fn thinking_stream(
        thought: &str,
        signature: &str,
        pieces: &[&str],
        calls: &[(&str, &str, &str)],
    ) -> Vec<String> {
        let mut events = stream(pieces, calls);
        // Every block after the thinking one moves up an index.
        for event in &mut events[1..] {
            if let Some(index) = sse_index(event) {
                *event = event.replacen(
                    &format!("\"index\":{index}"),
                    &format!("\"index\":{}", index + 1),
                    1,
                );
            }
        }
        let thinking = [
            block_start(0, json!({"type": "thinking", "thinking": ""})),
            block_delta(0, json!({"type": "thinking_delta", "thinking": thought})),
            block_delta(
                0,
                json!({"type": "signature_delta", "signature": signature}),
            ),
            block_stop(0),
        ];
        events.splice(1..1, thinking);
        events
    }

    /// The `index` of a content block event.
    fn sse_index(event: &str) -> Option<u64> {
        let data = event.lines().find_map(|line| line.strip_prefix("data: "))?;
        serde_json::from_str::<Value>(data)
            .ok()?
            .get("index")?
            .as_u64()
    }

    fn block_start(index: usize, block: Value) -> String {
        sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        )
    }

    fn block_delta(index: usize, delta: Value) -> String {
        sse_event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    }

    fn block_stop(index: usize) -> String {
        sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        )
    }
}

/// Gemini `generateContent` answers.
pub mod gemini {
    use super::sse_data;
    use serde_json::{Value, json};

    /// One answer (or stream chunk): optional text, then `(name, args)` function calls; with
    /// `finish`, the `finishReason` and usage.
    pub fn chunk(text: Option<&str>, calls: &[(&str, Value)], finish: bool) -> Value {
        let mut parts = Vec::new();
        if let Some(text) = text {
            parts.push(json!({"text": text}));
        }
        for (name, args) in calls {
            parts.push(json!({"functionCall": {"name": name, "args": args}}));
        }
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        let mut value = json!({"candidates": [candidate.clone()]});
        if finish {
            candidate["finishReason"] = json!("STOP");
            value = json!({"candidates": [candidate],
                           "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}});
        }
        value
    }

    /// A chunk as an SSE event.
    pub fn sse(chunk: &Value) -> String {
        sse_data(chunk)
    }
}

/// The variable that lets tests skip when something they need is missing (outside CI).
pub const ALLOW_SKIPS_VAR: &str = "AGENTCTL_TEST_ALLOW_SKIPS";

/// Whether something a test needs from the machine is there (`Ok`) — an npm-installed server,
/// `node`, `script`, a kernel feature. When it is not, the test fails with the problem (which
/// says how to install it), so nothing is silently skipped; outside CI, with
/// `AGENTCTL_TEST_ALLOW_SKIPS=1`, it is skipped instead and says so on the terminal (past the
/// test harness's output capture), and the caller returns early.
///
/// ```
/// assert!(agentctl_test_support::requirement(Ok(())));
/// ```
pub fn requirement(check: Result<(), String>) -> bool {
    match check {
        Ok(()) => true,
        Err(problem) => {
            let ci = std::env::var_os("CI").is_some();
            let allowed = std::env::var_os(ALLOW_SKIPS_VAR).is_some_and(|value| value != "0");
            assert!(
                allowed && !ci,
                "{problem}{}",
                if ci {
                    " (CI must provide it)"
                } else {
                    " (or set AGENTCTL_TEST_ALLOW_SKIPS=1 to skip the tests that need it)"
                }
            );
            // Straight to the terminal: `eprintln!` would be captured and never shown.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {problem}");
            false
        }
    }
}

/// Makes a FIFO at `path` (for tests that a FIFO is refused rather than read, which would
/// block).
#[cfg(unix)]
pub fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap_or_else(|error| panic!("cannot run mkfifo: {error}"));
    assert!(status.success(), "mkfifo {} failed", path.display());
}

/// Runs `work` on a thread and returns its result, failing the test after `limit` instead of
/// hanging the suite when it blocks (on a FIFO, a device, a lock).
pub fn or_hang<T: Send + 'static>(
    limit: std::time::Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(work());
    });
    receive
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("still blocked after {limit:?}: it should have refused"))
}

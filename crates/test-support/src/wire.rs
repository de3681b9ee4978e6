//! What crosses the wire of a fake server: the API it imitates, the requests it records and
//! the replies it sends.

use serde_json::Value;
use std::time::Duration;

/// Which API the server imitates: its base URL, the rules requests are checked against and the
/// format of its error answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    /// OpenAI Chat Completions: base URL ends in `/v1`.
    OpenAi,
    /// Anthropic Messages: the client appends `/v1/messages` itself.
    Anthropic,
    /// Gemini: the client appends `/v1beta/models/…` itself.
    Gemini,
}

impl WireFormat {
    /// `OpenAI`, `Anthropic` or `Gemini`.
    pub fn label(self) -> &'static str {
        match self {
            WireFormat::OpenAi => "OpenAI",
            WireFormat::Anthropic => "Anthropic",
            WireFormat::Gemini => "Gemini",
        }
    }
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Path with query string.
    pub path: String,
    /// Headers, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Null` when it is not JSON).
    pub body: Value,
    /// The body as text.
    pub raw_body: String,
}

impl RecordedRequest {
    /// A `POST` of `body` to `path` with an `anthropic-version` header, as a provider would
    /// send it (for checking bodies with [`crate::check_request`]).
    pub fn post(path: &str, body: Value) -> Self {
        Self {
            method: "POST".into(),
            path: path.into(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("anthropic-version".into(), "2023-06-01".into()),
            ],
            raw_body: body.to_string(),
            body,
        }
    }

    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// A canned reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Wait before sending anything (for request timeouts).
    pub delay: Duration,
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Body parts, written one by one.
    pub body: Vec<BodyPart>,
}

/// A piece of a reply body.
#[derive(Debug, Clone)]
pub enum BodyPart {
    /// Bytes, written and flushed as one chunk.
    Bytes(Vec<u8>),
    /// Silence (for idle-stream timeouts).
    Pause(Duration),
}

impl Reply {
    /// A JSON reply.
    pub fn json(status: u16, body: &Value) -> Self {
        Self::raw(status, "application/json", body.to_string())
    }

    /// A reply with any body.
    pub fn raw(status: u16, content_type: &str, body: impl Into<String>) -> Self {
        Self {
            delay: Duration::ZERO,
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: vec![BodyPart::Bytes(body.into().into_bytes())],
        }
    }

    /// An SSE reply; each event string (see [`crate::sse_data`]) is sent as its own chunk.
    pub fn sse(events: impl IntoIterator<Item = String>) -> Self {
        Self {
            delay: Duration::ZERO,
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: events
                .into_iter()
                .map(|event| BodyPart::Bytes(event.into_bytes()))
                .collect(),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits before answering.
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Goes silent for `pause` after the body sent so far, then sends `rest`.
    pub fn then_pause(mut self, pause: Duration, rest: impl IntoIterator<Item = String>) -> Self {
        self.body.push(BodyPart::Pause(pause));
        self.body.extend(
            rest.into_iter()
                .map(|event| BodyPart::Bytes(event.into_bytes())),
        );
        self
    }
}

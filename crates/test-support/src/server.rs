//! A fake model server: a minimal HTTP/1.1 responder on `127.0.0.1:0` that checks each request
//! against the real API's rules, answers from a queue of canned replies, and records every
//! request and every broken rule.

use crate::cassettes::CassetteBook;
use crate::rules::{self, Violation};
use crate::wire::{BodyPart, RecordedRequest, Reply, WireFormat};
use agentctl_core::{ModelRequest, ModelResponse};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

struct State {
    format: WireFormat,
    queue: VecDeque<Reply>,
    requests: Vec<RecordedRequest>,
    violations: Vec<Violation>,
    /// Why broken requests get queued replies instead of a 400, when a test said so.
    lenient: Option<String>,
    /// Cassettes that answer instead of the queue, when the server serves some.
    cassettes: Option<CassetteBook>,
    /// The function that answers instead of the queue, for a routed server.
    route: Option<Arc<crate::fakes::Route>>,
    /// Requests held until enough overlap ([`FakeServer::hold_until_overlapping`]).
    hold: Option<Hold>,
    /// Requests read so far (held or not).
    arrivals: usize,
    /// Requests read and not yet answered, and the most there ever were.
    in_flight: usize,
    max_in_flight: usize,
}

/// Requests `first..first + parties` (numbered from 1 as they arrive), held until all of them
/// wait at once.
struct Hold {
    first: usize,
    parties: usize,
    timeout: Duration,
    waiting: usize,
    /// Bumped each time a full group is released.
    released: tokio::sync::watch::Sender<u64>,
}

/// A fake model API on `127.0.0.1`; stops when dropped.
///
/// Each request is first checked against the rules of the real API (see [`crate::check_request`]):
/// one that breaks any gets the 400 the real API would give, in its error format, with a message
/// saying what is wrong, and leaves the reply queue alone. Every broken rule is recorded
/// ([`FakeServer::violations`]); dropping a server that recorded some fails the test, unless
/// they were taken with [`FakeServer::take_violations`] (a test about refusals) or the test is
/// already failing.
///
/// Replies are used in order, one per accepted request; a request with no reply queued gets a
/// 500 whose body explains that, e.g. `fake server: no response queued for request #3 POST /v1/chat/completions`.
pub struct FakeServer {
    format: WireFormat,
    address: std::net::SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl FakeServer {
    /// Starts a server imitating `format`.
    pub async fn start(format: WireFormat) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|error| {
                panic!("fake server: cannot bind 127.0.0.1:0: {error}");
            });
        let address = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("fake server: {error}"));
        let state = Arc::new(Mutex::new(State {
            format,
            queue: VecDeque::new(),
            requests: Vec::new(),
            violations: Vec::new(),
            lenient: None,
            cassettes: None,
            route: None,
            hold: None,
            arrivals: 0,
            in_flight: 0,
            max_in_flight: 0,
        }));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, Arc::clone(&shared)));
            }
        });
        Self {
            format,
            address,
            state,
            task,
        }
    }

    /// An OpenAI Chat Completions server.
    pub async fn openai() -> Self {
        Self::start(WireFormat::OpenAi).await
    }

    /// An Anthropic Messages server.
    pub async fn anthropic() -> Self {
        Self::start(WireFormat::Anthropic).await
    }

    /// A Gemini server.
    pub async fn gemini() -> Self {
        Self::start(WireFormat::Gemini).await
    }

    /// An OpenAI Chat Completions server answering from cassettes instead of a queue: each
    /// `(model, path)` serves the cassette file at `path` to requests whose `model` is `model`
    /// (see [`crate::cassette_model`] for the usual name), so the agents of a multi-agent
    /// run each replay their own cassette through one server. Requests are checked against
    /// the API's rules first, like any other; one that no cassette turn matches is refused
    /// with a 400 and recorded as a violation saying what was expected and what came. Panics
    /// when a cassette cannot be read.
    pub async fn openai_cassettes(
        cassettes: impl IntoIterator<Item = (String, std::path::PathBuf)>,
    ) -> Self {
        let server = Self::openai().await;
        server.lock().cassettes = Some(CassetteBook::default());
        for (model, path) in cassettes {
            server.add_cassette(&model, &path);
        }
        server
    }

    /// An OpenAI Chat Completions server that answers each accepted request with what `route`
    /// says for it (read back into a [`ModelRequest`], tool names as sent): for runs whose
    /// calls interleave (concurrent sub-agents), where a queue would not do. Requests are
    /// checked against the API's rules first, like any other.
    pub async fn openai_routed(
        route: impl Fn(&ModelRequest) -> ModelResponse + Send + Sync + 'static,
    ) -> Self {
        let server = Self::openai().await;
        server.lock().route = Some(Arc::new(route));
        server
    }

    /// Serves the cassette at `path` to requests for `model` (replacing one served under that
    /// name); the server then answers from cassettes only. Panics when it cannot be read.
    pub fn add_cassette(&self, model: &str, path: &std::path::Path) {
        let mut state = self.lock();
        let added = state
            .cassettes
            .get_or_insert_with(CassetteBook::default)
            .add(model, path);
        if let Err(error) = added {
            drop(state);
            panic!("cassette server: cannot serve {}: {error}", path.display());
        }
    }

    /// Every cassette starts over from its first turn for every client. Without this, each
    /// client (each API key: give each process its own, as the CLI harness does) replays every
    /// cassette from its first turn, as each `scripted:` process would.
    pub fn rewind_cassettes(&self) {
        if let Some(book) = &mut self.lock().cassettes {
            book.rewind();
        }
    }

    /// Whether a cassette is served under `model`.
    pub fn serves_cassette(&self, model: &str) -> bool {
        self.lock()
            .cassettes
            .as_ref()
            .is_some_and(|book| book.serves(model))
    }

    /// The base URL to configure a provider with (`http://127.0.0.1:PORT`, plus `/v1` for OpenAI).
    pub fn base_url(&self) -> String {
        match self.format {
            WireFormat::OpenAi => format!("http://{}/v1", self.address),
            WireFormat::Anthropic | WireFormat::Gemini => format!("http://{}", self.address),
        }
    }

    /// Queues a reply.
    pub fn push(&self, reply: Reply) {
        self.lock().queue.push_back(reply);
    }

    /// Queues a 200 JSON reply.
    pub fn push_json(&self, body: Value) {
        self.push(Reply::json(200, &body));
    }

    /// Queues a 200 SSE reply, one chunk per event.
    pub fn push_sse(&self, events: impl IntoIterator<Item = String>) {
        self.push(Reply::sse(events));
    }

    /// Queues an error status with a JSON error body and an optional `Retry-After` in seconds.
    pub fn push_status(&self, status: u16, retry_after: Option<u64>) {
        let body = serde_json::json!({"error": {"message": format!("fake status {status}"), "type": "fake"}});
        let mut reply = Reply::json(status, &body);
        if let Some(seconds) = retry_after {
            reply = reply.header("retry-after", &seconds.to_string());
        }
        self.push(reply);
    }

    /// Queues a reply that waits `delay` before answering `{}`.
    pub fn push_delay(&self, delay: Duration) {
        self.push(Reply::json(200, &serde_json::json!({})).delayed(delay));
    }

    /// Holds requests number `first` to `first + parties - 1` (counted from 1 as they arrive)
    /// until all of them wait at once, then answers them: a test that calls overlap in time
    /// passes only when the client sends them concurrently. A request still held after
    /// `timeout` gets a 500 saying how many arrived, so a client that sends them one after
    /// another fails instead of hanging.
    pub fn hold_until_overlapping(&self, first: usize, parties: usize, timeout: Duration) {
        let (released, _) = tokio::sync::watch::channel(0);
        self.lock().hold = Some(Hold {
            first,
            parties: parties.max(1),
            timeout,
            waiting: 0,
            released,
        });
    }

    /// The most requests ever in flight at once (read, not yet answered).
    pub fn max_in_flight(&self) -> usize {
        self.lock().max_in_flight
    }

    /// Queues a reply with any status, content type and body (e.g. malformed JSON).
    pub fn push_raw(&self, status: u16, content_type: &str, body: &str) {
        self.push(Reply::raw(status, content_type, body));
    }

    /// Queues one 200 JSON reply per response, in the Chat Completions format (an OpenAI
    /// server): tool calls, text, usage and finish reason as the provider will read them back.
    pub fn push_responses(&self, responses: impl IntoIterator<Item = ModelResponse>) {
        for response in responses {
            self.push_json(crate::cassettes::openai_json(&response));
        }
    }

    /// Every request received so far (by an OpenAI server), read back into the
    /// [`ModelRequest`] the provider sent: system prompt, messages, tools. The wire has no
    /// `is_error` for tool results: they come back `false`. Panics on a body that is not a
    /// Chat Completions request.
    pub fn model_requests(&self) -> Vec<ModelRequest> {
        self.requests()
            .iter()
            .enumerate()
            .map(|(index, request)| {
                crate::cassettes::decode_openai(&request.body, &Default::default())
                    .unwrap_or_else(|error| panic!("fake server: request #{}: {error}", index + 1))
            })
            .collect()
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// The only request received; panics when there were none or several.
    pub fn single_request(&self) -> RecordedRequest {
        let requests = self.requests();
        assert_eq!(
            requests.len(),
            1,
            "fake server: expected exactly one request, got {}",
            requests.len()
        );
        requests
            .into_iter()
            .next()
            .unwrap_or_else(|| unreachable!())
    }

    /// Replies not used yet.
    pub fn pending(&self) -> usize {
        self.lock().queue.len()
    }

    /// Every rule of the real API broken so far, in order.
    pub fn violations(&self) -> Vec<Violation> {
        self.lock().violations.clone()
    }

    /// Every rule broken so far, which the server then forgets: for tests that send broken
    /// requests on purpose and check what they got.
    pub fn take_violations(&self) -> Vec<Violation> {
        std::mem::take(&mut self.lock().violations)
    }

    /// Panics, listing them, when any request broke a rule of the real API.
    pub fn assert_no_violations(&self) {
        let violations = self.violations();
        assert!(
            violations.is_empty(),
            "{}",
            describe(self.format, &violations)
        );
    }

    /// Answers requests that break the real API's rules from the queue like any other, instead
    /// of with a 400; they are still recorded. Only for a test that must get a broken request
    /// past the server on purpose: `why` says which and why (it shows in failure messages).
    pub fn accept_invalid_requests(&self, why: &str) {
        self.lock().lenient = Some(why.to_owned());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
        let violations = self.violations();
        if !violations.is_empty() && !std::thread::panicking() {
            let lenient = match &self.lock().lenient {
                Some(why) => format!(" (invalid requests were accepted: {why})"),
                None => String::new(),
            };
            panic!(
                "{}{lenient}; call take_violations() in a test that breaks rules on purpose",
                describe(self.format, &violations)
            );
        }
    }
}

/// The violations as one message, one per line.
fn describe(format: WireFormat, violations: &[Violation]) -> String {
    let mut text = format!(
        "strict fake {} server: {} request rule(s) broken:",
        format.label(),
        violations.len()
    );
    for violation in violations {
        text.push_str(&format!(
            "\n  request #{} at {}: {}",
            violation.request, violation.at, violation.message
        ));
    }
    text
}

/// Reads one request, records it, and writes the next queued reply (then closes).
async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let held_out = hold(&state).await;
    let reply = {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        state.requests.push(request.clone());
        let number = state.requests.len();
        if let Some(message) = held_out {
            let message = format!("fake server: request #{number}: {message}");
            Reply::json(500, &serde_json::json!({"error": {"message": message}}))
        } else {
            let mut violations = rules::check_request(state.format, &request);
            for violation in &mut violations {
                violation.request = number;
            }
            state.violations.extend(violations.iter().cloned());
            if !violations.is_empty() && state.lenient.is_none() {
                rules::refusal(state.format, &violations)
            } else if let Some(answer) = answer_of(&mut state, &request) {
                answer.unwrap_or_else(|(at, message)| {
                state.violations.push(Violation {
                    request: number,
                    at: at.to_owned(),
                    message: message.clone(),
                });
                let body = serde_json::json!({"error": {"message": message, "type": "invalid_request_error"}});
                Reply::json(400, &body)
            })
            } else {
                state.queue.pop_front().unwrap_or_else(|| {
                    let message = format!(
                        "fake server: no response queued for request #{number} {} {}",
                        request.method, request.path
                    );
                    Reply::json(500, &serde_json::json!({"error": {"message": message}}))
                })
            }
        }
    };
    let mut reply = reply;
    tokio::time::sleep(std::mem::take(&mut reply.delay)).await;
    // No longer in flight once the answer starts: the client cannot send its next request
    // before it has this one, so the count never overstates how many overlapped.
    state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .in_flight -= 1;
    write_reply(&mut stream, reply).await;
}

/// Counts the request in flight and, when the server holds requests, waits until enough
/// overlap; `Some(why)` when they did not in time.
async fn hold(state: &Mutex<State>) -> Option<String> {
    let (mut released, generation, timeout, parties) = {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        state.in_flight += 1;
        state.max_in_flight = state.max_in_flight.max(state.in_flight);
        state.arrivals += 1;
        let number = state.arrivals;
        let hold = state.hold.as_mut()?;
        if number < hold.first || number >= hold.first + hold.parties {
            return None;
        }
        hold.waiting += 1;
        if hold.waiting >= hold.parties {
            hold.waiting = 0;
            hold.released.send_modify(|generation| *generation += 1);
            return None;
        }
        let released = hold.released.subscribe();
        let generation = *released.borrow();
        (released, generation, hold.timeout, hold.parties)
    };
    let wait = released.wait_for(|now| *now != generation);
    if tokio::time::timeout(timeout, wait).await.is_ok() {
        return None;
    }
    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
    let arrived = state.hold.as_ref().map_or(0, |hold| hold.waiting);
    if let Some(hold) = state.hold.as_mut() {
        hold.waiting = hold.waiting.saturating_sub(1);
    }
    Some(format!(
        "held {timeout:?} for {parties} overlapping requests, and only {arrived} arrived: \
         the client sent them one after another"
    ))
}

/// The answer of a routed or cassette server (`None` for a queue): `Err` is where and why none
/// fits, refused with a 400 and recorded as a violation.
fn answer_of(
    state: &mut State,
    request: &RecordedRequest,
) -> Option<Result<Reply, (&'static str, String)>> {
    if let Some(route) = &state.route {
        let decoded = crate::cassettes::decode_openai(&request.body, &Default::default());
        return Some(
            decoded
                .map(|decoded| crate::cassettes::openai_reply(request, &route(&decoded)))
                .map_err(|message| ("body", message)),
        );
    }
    let book = state.cassettes.as_mut()?;
    Some(
        book.answer(request)
            .map_err(|message| ("cassette", message)),
    )
}

/// Writes `reply` (after its delay, part by part) and closes the connection: the plumbing every
/// fake server here answers with.
pub(crate) async fn write_reply(stream: &mut TcpStream, reply: Reply) {
    tokio::time::sleep(reply.delay).await;
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nconnection: close\r\n",
        reply.status,
        reason(reply.status)
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    // Without content-length the body runs to the end of the connection, which suits streams.
    head.push_str("\r\n");
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for part in reply.body {
        match part {
            BodyPart::Bytes(bytes) => {
                if stream.write_all(&bytes).await.is_err() || stream.flush().await.is_err() {
                    return;
                }
                // Let the client see each part as its own chunk.
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            BodyPart::Pause(pause) => tokio::time::sleep(pause).await,
        }
    }
    let _ = stream.shutdown().await;
}

/// A request as read off the wire, body untouched (binary bodies such as protobuf stay intact).
pub(crate) struct RawRequest {
    pub(crate) method: String,
    pub(crate) path: String,
    /// Headers, names lowercased, in order.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl RawRequest {
    /// The value of header `name` (lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

pub(crate) async fn read_request(stream: &mut TcpStream) -> Option<RecordedRequest> {
    let raw = read_raw_request(stream).await?;
    let raw_body = String::from_utf8_lossy(&raw.body).into_owned();
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    Some(RecordedRequest {
        method: raw.method,
        path: raw.path,
        headers: raw.headers,
        body,
        raw_body,
    })
}

/// Reads one request: the head, then `content-length` bytes of body.
pub(crate) async fn read_raw_request(stream: &mut TcpStream) -> Option<RawRequest> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    Some(RawRequest {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

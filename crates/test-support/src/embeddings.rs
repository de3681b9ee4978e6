//! A fake embeddings server: the OpenAI-compatible `POST /v1/embeddings`, Gemini's
//! `POST /v1beta/models/{model}:batchEmbedContents` and Ollama's `POST /api/embed`, all on one
//! port of `127.0.0.1`.
//!
//! Like [`FakeServer`](crate::FakeServer) it is strict: each request is checked against what
//! the real API refuses (a missing or non-string `model`, empty `input`, wrong input types,
//! unknown OpenAI parameters, a Gemini request whose model is not the path's), a broken one
//! gets the 400 the real API would give in its own error format, and dropping a server that
//! saw one fails the test. Accepted requests are answered with [`fake_embedding`] of each
//! text, so similar texts get similar vectors, deterministically, with no queue to keep in
//! step; [`FakeEmbeddings::push_failure`] queues an error answer for the next request.

use crate::rules::Violation;
use crate::server::{read_request, write_reply};
use crate::wire::{RecordedRequest, Reply};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Length of the fake vectors.
pub const FAKE_DIMENSIONS: usize = 256;

/// Words the fake model takes to mean the same (each group counts as its first word), so a
/// test can tell a search by meaning from a search by keyword.
pub const FAKE_SYNONYMS: &[&[&str]] = &[
    &["car", "automobile", "vehicle", "sedan"],
    &["database", "db", "sqlite", "postgres"],
    &["login", "signin", "authentication", "auth"],
];

/// The fake model's vector of `text`: its words (letters and digits, lowercased, synonyms of
/// [`FAKE_SYNONYMS`] merged) hashed into [`FAKE_DIMENSIONS`] buckets, normalised to length 1.
///
/// ```
/// use agentctl_test_support::fake_embedding;
/// let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
/// let car = fake_embedding("repair the car");
/// assert!(cosine(&car, &fake_embedding("the automobile repair")) > 0.99);
/// assert!(cosine(&car, &fake_embedding("bake bread")) < 0.01);
/// ```
pub fn fake_embedding(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; FAKE_DIMENSIONS];
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let word = word.to_lowercase();
        let word = FAKE_SYNONYMS
            .iter()
            .find(|group| group.contains(&word.as_str()))
            .map_or(word.as_str(), |group| group[0]);
        // FNV-1a: stable across runs and platforms.
        let hash = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
        vector[(hash % FAKE_DIMENSIONS as u64) as usize] += 1.0;
    }
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    } else {
        // Real models never answer a zero vector; neither does this one.
        vector[0] = 1.0;
    }
    vector
}

struct State {
    requests: Vec<RecordedRequest>,
    violations: Vec<Violation>,
    failures: VecDeque<Reply>,
}

/// A fake embeddings API on `127.0.0.1`; stops when dropped.
pub struct FakeEmbeddings {
    address: std::net::SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl FakeEmbeddings {
    /// Starts the server.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|error| panic!("fake embeddings: cannot bind 127.0.0.1:0: {error}"));
        let address = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("fake embeddings: {error}"));
        let state = Arc::new(Mutex::new(State {
            requests: Vec::new(),
            violations: Vec::new(),
            failures: VecDeque::new(),
        }));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let state = Arc::clone(&shared);
                tokio::spawn(async move {
                    if let Some(request) = read_request(&mut stream).await {
                        let reply = answer(&state, request);
                        write_reply(&mut stream, reply).await;
                    }
                });
            }
        });
        Self {
            address,
            state,
            task,
        }
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL of an OpenAI-compatible provider (and of the
    /// built-in `ollama` provider, whose native API is at the root).
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// `http://127.0.0.1:PORT`: the base URL of a Gemini provider.
    pub fn gemini_base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Answers the next accepted request with an error `status` and a JSON error body in the
    /// OpenAI shape (which all three clients read).
    pub fn push_failure(&self, status: u16, message: &str) {
        let body = json!({"error": {"message": message, "type": "fake", "code": status}});
        self.lock().failures.push_back(Reply::json(status, &body));
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// Every rule of the real API broken so far.
    pub fn violations(&self) -> Vec<Violation> {
        self.lock().violations.clone()
    }

    /// Every rule broken so far, which the server then forgets (for tests of refusals).
    pub fn take_violations(&self) -> Vec<Violation> {
        std::mem::take(&mut self.lock().violations)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for FakeEmbeddings {
    fn drop(&mut self) {
        self.task.abort();
        let violations = self.violations();
        if !violations.is_empty() && !std::thread::panicking() {
            let list: Vec<String> = violations
                .iter()
                .map(|v| format!("\n  request #{} at {}: {}", v.request, v.at, v.message))
                .collect();
            panic!(
                "strict fake embeddings server: {} request rule(s) broken:{}; call \
                 take_violations() in a test that breaks rules on purpose",
                violations.len(),
                list.concat()
            );
        }
    }
}

/// The API a path belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    OpenAi,
    Gemini,
    Ollama,
}

/// Records `request`, checks it, and picks the reply.
fn answer(state: &Mutex<State>, request: RecordedRequest) -> Reply {
    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
    state.requests.push(request.clone());
    let number = state.requests.len();
    let (api, checked) = check(&request);
    let texts = match checked {
        Ok(texts) => texts,
        Err(problems) => {
            let violations: Vec<Violation> = problems
                .into_iter()
                .map(|(at, message)| Violation {
                    request: number,
                    at,
                    message,
                })
                .collect();
            let reply = refusal(api, &violations);
            state.violations.extend(violations);
            return reply;
        }
    };
    if let Some(failure) = state.failures.pop_front() {
        return failure;
    }
    let vectors: Vec<Vec<f32>> = texts.iter().map(|text| fake_embedding(text)).collect();
    let body = match api {
        Some(Api::OpenAi) => json!({
            "object": "list",
            "data": vectors.iter().enumerate().map(|(index, vector)| {
                json!({"object": "embedding", "index": index, "embedding": vector})
            }).collect::<Vec<_>>(),
            "model": request.body["model"],
            "usage": {"prompt_tokens": texts.len(), "total_tokens": texts.len()},
        }),
        Some(Api::Gemini) => json!({
            "embeddings": vectors.iter().map(|vector| json!({"values": vector})).collect::<Vec<_>>(),
        }),
        Some(Api::Ollama) | None => json!({"model": request.body["model"], "embeddings": vectors}),
    };
    Reply::json(200, &body)
}

type Problems = Vec<(String, String)>;

/// The texts to embed, or what the real API would refuse.
fn check(request: &RecordedRequest) -> (Option<Api>, Result<Vec<String>, Problems>) {
    let path = request.path.split('?').next().unwrap_or_default();
    let api = if path == "/v1/embeddings" {
        Api::OpenAi
    } else if path == "/api/embed" {
        Api::Ollama
    } else if path.starts_with("/v1beta/models/") && path.ends_with(":batchEmbedContents") {
        Api::Gemini
    } else {
        let problem = format!(
            "{} {} is not an embeddings endpoint: POST /v1/embeddings, /api/embed or \
             /v1beta/models/MODEL:batchEmbedContents",
            request.method, request.path
        );
        return (None, Err(vec![("path".into(), problem)]));
    };
    if request.method != "POST" || !request.body.is_object() {
        let problem = "the request body must be a JSON object, sent with POST".to_owned();
        return (Some(api), Err(vec![("body".into(), problem)]));
    }
    let checked = match api {
        Api::OpenAi => check_openai(&request.body),
        Api::Gemini => check_gemini(path, &request.body),
        Api::Ollama => check_ollama(&request.body),
    };
    (Some(api), checked)
}

/// OpenAI's rules: `model` a non-empty string; `input` a non-empty string or a non-empty
/// array (at most 2048) of non-empty strings; `encoding_format` `float` or `base64`;
/// `dimensions` a positive integer; no other parameter.
fn check_openai(body: &Value) -> Result<Vec<String>, Problems> {
    let mut problems = Vec::new();
    model_string(
        body,
        "model",
        "you must provide a model parameter",
        &mut problems,
    );
    let invalid_input = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
    let texts = match body.get("input") {
        None => {
            problems.push((
                "input".into(),
                "Missing required parameter: 'input'.".into(),
            ));
            Vec::new()
        }
        Some(Value::String(text)) if !text.is_empty() => vec![text.clone()],
        Some(Value::Array(items)) if items.len() > 2048 => {
            problems.push((
                "input".into(),
                format!("Invalid 'input': array too long. Expected an array with maximum length 2048, but got an array with length {} instead.", items.len()),
            ));
            Vec::new()
        }
        Some(Value::Array(items))
            if !items.is_empty()
                && items
                    .iter()
                    .all(|item| item.as_str().is_some_and(|t| !t.is_empty())) =>
        {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        }
        Some(_) => {
            problems.push(("input".into(), invalid_input.into()));
            Vec::new()
        }
    };
    if let Some(format) = body.get("encoding_format")
        && !matches!(format.as_str(), Some("float" | "base64"))
    {
        problems.push((
            "encoding_format".into(),
            format!("Invalid value for 'encoding_format': expected one of 'float' or 'base64', got {format}."),
        ));
    }
    if let Some(dimensions) = body.get("dimensions")
        && dimensions.as_u64().is_none_or(|d| d == 0)
    {
        problems.push((
            "dimensions".into(),
            format!("Invalid 'dimensions': expected a positive integer, got {dimensions}."),
        ));
    }
    if let Some(map) = body.as_object() {
        for key in map.keys() {
            if !["model", "input", "encoding_format", "dimensions", "user"].contains(&key.as_str())
            {
                problems.push((
                    key.clone(),
                    format!("Unrecognized request argument supplied: {key}"),
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(texts)
    } else {
        Err(problems)
    }
}

/// Gemini's rules: `requests` a non-empty array (at most 100), each with `model` equal to
/// `models/{the path's model}` and `content.parts` of non-empty `text`s.
fn check_gemini(path: &str, body: &Value) -> Result<Vec<String>, Problems> {
    let mut problems = Vec::new();
    let model = path
        .trim_start_matches("/v1beta/")
        .trim_end_matches(":batchEmbedContents");
    let mut texts = Vec::new();
    match body.get("requests").and_then(Value::as_array) {
        None => problems.push((
            "requests".into(),
            "* BatchEmbedContentsRequest.requests: requests is required".into(),
        )),
        Some(requests) if requests.is_empty() || requests.len() > 100 => problems.push((
            "requests".into(),
            format!("* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch, and at least 1 (got {})", requests.len()),
        )),
        Some(requests) => {
            for (i, request) in requests.iter().enumerate() {
                let at = format!("requests[{i}]");
                if request.get("model").and_then(Value::as_str) != Some(model) {
                    problems.push((
                        format!("{at}.model"),
                        format!("* BatchEmbedContentsRequest.{at}.model: the model of each request must be the model of the URL (`{model}`), got {}", request.get("model").unwrap_or(&Value::Null)),
                    ));
                }
                let parts = request.pointer("/content/parts").and_then(Value::as_array);
                let part_texts: Option<Vec<&str>> = parts.filter(|p| !p.is_empty()).map(|parts| {
                    parts.iter().filter_map(|part| part.get("text").and_then(Value::as_str)).collect()
                });
                match part_texts {
                    Some(found) if found.len() == parts.map_or(0, Vec::len) && found.iter().all(|t| !t.is_empty()) => {
                        texts.push(found.concat());
                    }
                    _ => problems.push((
                        format!("{at}.content.parts"),
                        format!("* BatchEmbedContentsRequest.{at}.content.parts: each part must have non-empty `text`"),
                    )),
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(texts)
    } else {
        Err(problems)
    }
}

/// Ollama's rules: `model` a non-empty string; `input` a string or an array of strings.
fn check_ollama(body: &Value) -> Result<Vec<String>, Problems> {
    let mut problems = Vec::new();
    model_string(body, "model", "model is required", &mut problems);
    let texts = match body.get("input") {
        Some(Value::String(text)) => vec![text.clone()],
        Some(Value::Array(items)) if items.iter().all(Value::is_string) && !items.is_empty() => {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        }
        _ => {
            problems.push(("input".into(), "invalid input type".into()));
            Vec::new()
        }
    };
    if problems.is_empty() {
        Ok(texts)
    } else {
        Err(problems)
    }
}

fn model_string(body: &Value, key: &str, missing: &str, problems: &mut Problems) {
    match body.get(key) {
        Some(Value::String(model)) if !model.is_empty() => {}
        None | Some(Value::Null) => problems.push((key.into(), missing.into())),
        Some(Value::String(_)) => problems.push((key.into(), missing.into())),
        Some(other) => problems.push((
            key.into(),
            format!(
                "Invalid type for '{key}': expected a string, but got {} instead.",
                crate::rules::kind(other)
            ),
        )),
    }
}

/// The 400 in the API's own error format, naming the first problem.
fn refusal(api: Option<Api>, violations: &[Violation]) -> Reply {
    let first = violations
        .first()
        .map_or("(no reason)", |v| v.message.as_str());
    let message = format!("strict fake embeddings server refused the request: {first}");
    let body = match api {
        Some(Api::Gemini) => {
            json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}})
        }
        Some(Api::Ollama) => json!({"error": message}),
        Some(Api::OpenAi) | None => json!({"error": {
            "message": message, "type": "invalid_request_error",
            "param": violations.first().map(|v| v.at.clone()), "code": null,
        }}),
    };
    let status = if api.is_none() { 404 } else { 400 };
    Reply::json(status, &body)
}

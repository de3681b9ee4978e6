//! The HTTP behaviour every wire format shares: a `reqwest::Client` shared by every provider of
//! the same client configuration in the process (`clients.rs`), retries on 429/5xx/connection
//! errors/timeouts, the request and idle-stream time limits, and turning error answers into
//! one-line [`ProviderError`]s that say what to check. API keys and configured headers are the
//! provider's, added to each of its requests and marked sensitive; no error text is built from
//! headers.

use crate::clients::{ClientKey, SharedClient, shared_client};
use crate::options::{ProviderOptions, RetryPolicy};
use crate::retry;
use crate::sse::{SseEvent, SseParser};
use crate::timers::{PooledTimer, within};
use agentctl_core::one_line;
use agentctl_core::{ProviderError, Redactor};
use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, Entry, HOST, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// A provider's connection to its API.
#[derive(Debug)]
pub(crate) struct HttpClient {
    /// The process's client of this configuration, and the timers of its requests.
    shared: Arc<SharedClient>,
    /// The key and the configured headers, sent with every request of this provider (values
    /// marked sensitive).
    headers: HeaderMap,
    provider: String,
    /// Variable the key comes from, for the 401/403 hint.
    key_env: String,
    /// The key and header values sent, masked in every error message.
    secrets: Redactor,
    retry: RetryPolicy,
    request_timeout: Duration,
    idle_timeout: Duration,
}

/// Where a call goes: kept together so every error can name provider, model and URL.
pub(crate) struct Target<'a> {
    pub model: &'a str,
    pub url: Cow<'a, str>,
    /// `url` parsed once by a provider whose URL never changes: parsing it (host, IDNA) for
    /// every request costs more than the rest of building one.
    pub parsed: Option<&'a ParsedUrl>,
}

/// A URL a provider always posts to, parsed once, with the `Host` header it is sent with:
/// set here, the HTTP client does not format one for every request.
#[derive(Debug)]
pub(crate) struct ParsedUrl {
    url: reqwest::Url,
    host: Option<HeaderValue>,
}

impl ParsedUrl {
    /// `url` parsed, or `None` when it does not parse (each request then reports why).
    pub fn parse(url: &str) -> Option<Self> {
        let url = reqwest::Url::parse(url).ok()?;
        let host = url.host_str().and_then(|host| {
            let value = match url.port() {
                // `port()` is `None` for the scheme's default port, as `Host` leaves it out.
                Some(port) => HeaderValue::from_str(&format!("{host}:{port}")),
                None => HeaderValue::from_str(host),
            };
            value.ok()
        });
        Some(Self { url, host })
    }
}

/// `value` as a request body (JSON text).
pub(crate) fn json_body(value: &Value) -> Bytes {
    // Serialising a `Value` cannot fail: its map keys are strings.
    Bytes::from(serde_json::to_vec(value).unwrap_or_default())
}

/// A request body (JSON text) kept in parts, so a part many requests share (the serialised
/// tool specs) is kept once rather than copied into every body a waiting run keeps for its
/// retries; each attempt sends the parts in one buffer.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequestBody {
    parts: Vec<Bytes>,
}

impl RequestBody {
    /// The body made of `parts`, in order.
    pub fn from_parts(parts: impl IntoIterator<Item = Bytes>) -> Self {
        Self {
            parts: parts.into_iter().filter(|part| !part.is_empty()).collect(),
        }
    }

    /// Length in bytes.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.parts.iter().map(Bytes::len).sum()
    }

    /// The whole body in one buffer (tests and recordings).
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts.concat()
    }

    /// The body for one attempt, in one buffer: a body sent as a stream of parts keeps its
    /// connection busy until the HTTP layer has polled the stream's end, often after the
    /// answer is read, so the connection went back to the pool late and the next request
    /// opened another (about 75 connections for 1,000 triage scenarios 50 at a time, against
    /// 51–57 in one buffer and 51 for a bare client). The copy is the HTTP layer's, dropped once written: what a
    /// waiting run keeps for its retries is still the parts.
    fn to_reqwest(&self) -> reqwest::Body {
        match self.parts.as_slice() {
            [] => reqwest::Body::from(Bytes::new()),
            [one] => reqwest::Body::from(one.clone()),
            parts => reqwest::Body::from(parts.concat()),
        }
    }
}

impl From<Bytes> for RequestBody {
    fn from(bytes: Bytes) -> Self {
        Self::from_parts([bytes])
    }
}

const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");

/// The longest streamed event read: a server that sends a line without end, or data lines
/// without the blank line that ends an event, is stopped here rather than held in memory.
const MAX_STREAM_EVENT: usize = 16 << 20;

impl HttpClient {
    /// The provider's client: the process's HTTP client for `options` (built on first use),
    /// with `auth` and `extra` sent with every request (marked sensitive so they never show in
    /// debug output).
    pub fn new(
        provider: &str,
        key_env: &str,
        auth: Vec<(&'static str, String)>,
        extra: &BTreeMap<String, String>,
        options: &ProviderOptions,
    ) -> Result<Self, ProviderError> {
        agentctl_core::install_crypto_provider();
        let config_error = |what: String| {
            ProviderError::Config(format!(
                "{provider}: invalid provider configuration: {what}"
            ))
        };
        // The key and every configured header value: an API that echoes them in an error body
        // (some do, in full) must not put them in our messages.
        // `Bearer KEY` is masked as a whole and the key alone, which is what APIs echo
        // ("Incorrect API key provided: sk-…").
        let secrets = Redactor::new(
            auth.iter()
                .flat_map(|(_, value)| {
                    let bare = value.strip_prefix("Bearer ").map(str::to_owned);
                    std::iter::once(value.clone()).chain(bare)
                })
                .chain(extra.values().cloned()),
        );
        let mut headers = HeaderMap::new();
        for (name, value) in auth {
            let mut value = HeaderValue::from_str(&value).map_err(|_| {
                config_error(format!("the value of {key_env} is not a valid header"))
            })?;
            value.set_sensitive(true);
            headers.insert(HeaderName::from_static(name), value);
        }
        for (name, value) in extra {
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| config_error(format!("bad header name `{name}`")))?;
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| config_error(format!("bad value for header `{name}`")))?;
            value.set_sensitive(true);
            headers.insert(header, value);
        }
        let shared = shared_client(ClientKey::new(options.request_timeout), |connect_timeout| {
            reqwest::Client::builder()
                .connect_timeout(connect_timeout)
                .user_agent(concat!("agentctl/", env!("CARGO_PKG_VERSION")))
                // A model API answers a POST, not a redirect; followed, a redirect would turn
                // it into a GET without the body (301, 302) or keep a `Host` for another
                // server. It is reported, with the URL to check.
                .redirect(reqwest::redirect::Policy::none())
                .build()
        })
        .map_err(|error| config_error(error_chain(&error)))?;
        Ok(Self {
            shared,
            headers,
            provider: provider.to_owned(),
            key_env: key_env.to_owned(),
            secrets,
            retry: options.retry,
            request_timeout: options.request_timeout,
            idle_timeout: options.idle_timeout,
        })
    }

    /// Provider name used in errors.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// Posts `body` and parses the whole answer as JSON, retrying transient failures.
    pub async fn post_json(
        &self,
        target: &Target<'_>,
        body: &Value,
    ) -> Result<Value, ProviderError> {
        let bytes = self.post_bytes(target, json_body(body)).await?;
        self.parse_json(target, &bytes)
    }

    /// Posts `body` (JSON text) and returns the whole answer, retrying transient failures.
    pub async fn post_bytes(
        &self,
        target: &Target<'_>,
        body: impl Into<RequestBody>,
    ) -> Result<Bytes, ProviderError> {
        let body = body.into();
        self.with_retries(|| async {
            let started = Instant::now();
            let mut timer = self.shared.timers.take(started + self.request_timeout);
            let attempt = async {
                let response = self.send(target, &body).await?;
                response
                    .bytes()
                    .await
                    .map_err(|error| self.connection(target, &error))
            };
            within(&mut timer, started + self.request_timeout, attempt)
                .await
                .unwrap_or_else(|| Err(self.timeout(target, self.request_timeout, "request")))
        })
        .await
    }

    /// An answer's bytes as JSON, or the error saying they are not.
    pub fn parse_json(&self, target: &Target<'_>, bytes: &[u8]) -> Result<Value, ProviderError> {
        serde_json::from_slice(bytes).map_err(|error| {
            self.malformed(
                target,
                format!("expected JSON ({error}); body: {}", excerpt(bytes)),
            )
        })
    }

    /// Posts `body` and returns the answer's byte stream once its headers are in.
    async fn post_stream(
        &self,
        target: &Target<'_>,
        body: &RequestBody,
    ) -> Result<ByteStream<'_>, ProviderError> {
        let (response, mut timer) = self
            .with_retries(|| async {
                let started = Instant::now();
                // One timer for the request's limit and then the idle limit, set to the
                // earlier of the two: what follows only ever moves it later (no lock).
                let first = self.request_timeout.min(self.idle_timeout);
                let mut timer = self.shared.timers.take(started + first);
                match within(
                    &mut timer,
                    started + self.request_timeout,
                    self.send(target, body),
                )
                .await
                {
                    Some(response) => Ok((response?, timer)),
                    None => Err(self.timeout(target, self.request_timeout, "request")),
                }
            })
            .await?;
        let now = Instant::now();
        if timer.deadline() > now + self.idle_timeout {
            // The headers took longer than the idle limit.
            timer.reset(now + self.idle_timeout);
        }
        Ok(ByteStream {
            response,
            idle_timeout: self.idle_timeout,
            idle: timer,
            chunk_came: false,
            quiet_since: now,
        })
    }

    async fn with_retries<T, F, Fut>(&self, mut attempt: F) -> Result<T, ProviderError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ProviderError>>,
    {
        let max_attempts = self.retry.max_attempts.max(1);
        let mut number = 1;
        loop {
            match attempt().await {
                Ok(value) => return Ok(value),
                Err(error) if error.is_retryable() && number < max_attempts => {
                    let retry_after = match &error {
                        ProviderError::Status { retry_after, .. } => *retry_after,
                        _ => None,
                    };
                    tokio::time::sleep(retry::delay(&self.retry, number, retry_after)).await;
                    number += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// One attempt up to the response headers; error statuses become [`ProviderError::Status`].
    async fn send(
        &self,
        target: &Target<'_>,
        body: &RequestBody,
    ) -> Result<reqwest::Response, ProviderError> {
        let client = &self.shared.client;
        let request = match target.parsed {
            Some(parsed) => {
                let request = client.post(parsed.url.clone());
                match &parsed.host {
                    Some(host) => request.header(HOST, host.clone()),
                    None => request,
                }
            }
            None => client.post(target.url.as_ref()),
        }
        .header(CONTENT_TYPE, APPLICATION_JSON);
        let mut request = request
            // A whole body: the HTTP layer states its length.
            .body(body.to_reqwest())
            .build()
            .map_err(|error| self.connection(target, &error))?;
        // The provider's key and headers, where the request set none (as a client's default
        // headers would be added): the client is shared, they are not.
        let headers = request.headers_mut();
        for (name, value) in &self.headers {
            if let Entry::Vacant(entry) = headers.entry(name) {
                entry.insert(value.clone());
            }
        }
        let response = client
            .execute(request)
            .await
            .map_err(|error| self.connection(target, &error))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| retry::parse_retry_after(value, SystemTime::now()));
        // Boxed: this rare path would otherwise double the size of every request's future.
        let bytes = Box::pin(response.bytes()).await.unwrap_or_default();
        let status = status.as_u16();
        let hint = match status {
            401 | 403 => format!(" — check {}", self.key_env),
            404 => " — check the model name and base URL".to_owned(),
            300..=399 => " — the API redirected the request; check the base URL".to_owned(),
            _ => String::new(),
        };
        Err(ProviderError::Status {
            provider: self.provider.clone(),
            model: target.model.to_owned(),
            status,
            message: self.secrets.redact(&error_message(&bytes)).into_owned(),
            hint,
            retry_after,
        })
    }

    fn connection(&self, target: &Target<'_>, error: &reqwest::Error) -> ProviderError {
        ProviderError::Connection {
            provider: self.provider.clone(),
            model: target.model.to_owned(),
            url: self.secrets.redact(&target.url).into_owned(),
            message: self.secrets.redact(&error_chain(error)).into_owned(),
        }
    }

    fn timeout(&self, target: &Target<'_>, after: Duration, what: &'static str) -> ProviderError {
        ProviderError::Timeout {
            provider: self.provider.clone(),
            model: target.model.to_owned(),
            after,
            what,
        }
    }

    /// A [`ProviderError::Malformed`] for this provider and model.
    pub fn malformed(&self, target: &Target<'_>, message: String) -> ProviderError {
        ProviderError::Malformed {
            provider: self.provider.clone(),
            model: target.model.to_owned(),
            message: self.secrets.redact(&message).into_owned(),
        }
    }

    /// Reads the next chunk of a stream, enforcing the idle limit.
    async fn next_chunk(
        &self,
        target: &Target<'_>,
        stream: &mut ByteStream<'_>,
    ) -> Result<Option<Bytes>, ProviderError> {
        // One timer per stream, moved only when it fires: resetting it at every chunk would
        // take the timer driver's lock once per delta, which costs concurrent streams more
        // than reading the chunks does; and a chunk only notes that it came, without reading
        // the clock.
        loop {
            tokio::select! {
                biased;
                chunk = stream.response.chunk() => {
                    stream.chunk_came = true;
                    return chunk.map_err(|error| self.connection(target, &error));
                }
                () = stream.idle.elapsed() => {
                    let now = Instant::now();
                    if std::mem::take(&mut stream.chunk_came) {
                        // Chunks came since the last check: the quiet time counts from now
                        // (at most one check late), and the next check is a quarter of the
                        // limit away.
                        stream.quiet_since = now;
                        stream.idle.reset(now + stream.idle_timeout / 4);
                        continue;
                    }
                    let deadline = stream.quiet_since + stream.idle_timeout;
                    if deadline <= now {
                        return Err(self.timeout(target, stream.idle_timeout, "idle stream"));
                    }
                    stream.idle.reset(deadline);
                }
            }
        }
    }
}

impl HttpClient {
    /// Posts `body` expecting an SSE answer and hands each event to `handle` until the stream
    /// ends or `handle` returns `Ok(true)` (done).
    pub async fn post_sse(
        &self,
        target: &Target<'_>,
        body: impl Into<RequestBody>,
        mut handle: impl FnMut(SseEvent<'_>) -> Result<bool, ProviderError>,
    ) -> Result<(), ProviderError> {
        let body = body.into();
        let mut stream = self.post_stream(target, &body).await?;
        let mut parser = SseParser::new();
        loop {
            let chunk = self.next_chunk(target, &mut stream).await?;
            match &chunk {
                Some(bytes) => parser.push(bytes),
                None => parser.finish(),
            }
            while let Some(event) = parser.next_event() {
                if handle(event)? {
                    return Ok(());
                }
            }
            if parser.pending_bytes() > MAX_STREAM_EVENT {
                return Err(self.malformed(
                    target,
                    format!(
                        "a stream event longer than {} MiB; the stream was stopped",
                        MAX_STREAM_EVENT >> 20
                    ),
                ));
            }
            if chunk.is_none() {
                return Ok(());
            }
        }
    }
}

/// An answer being streamed.
pub(crate) struct ByteStream<'a> {
    response: reqwest::Response,
    idle_timeout: Duration,
    /// The idle limit's timer. It fires `idle_timeout` after [`quiet_since`](Self::quiet_since)
    /// while no chunk comes, and every quarter of that while chunks come: a stream is stopped
    /// after `idle_timeout` to `1.25 × idle_timeout` without a chunk.
    idle: PooledTimer<'a>,
    /// A chunk came since the timer last fired.
    chunk_came: bool,
    /// When the timer last found that chunks had come (or when the headers came): the stream
    /// has been quiet since then at the most.
    quiet_since: Instant,
}

/// A transport error with its causes, on one line, without the URL (the caller adds it).
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(&format!(" for url ({url})"), "");
    }
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    one_line(&text, 300)
}

/// The API's own error message (`{"error": {"message": …}}` in all three formats), else the body.
fn error_message(body: &[u8]) -> String {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        let error = value.get("error").unwrap_or(&value);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| error.as_str());
        if let Some(message) = message {
            return one_line(message, 300);
        }
    }
    if body.is_empty() {
        "(empty body)".to_owned()
    } else {
        excerpt(body)
    }
}

/// The start of a body, on one line.
pub(crate) fn excerpt(body: &[u8]) -> String {
    one_line(&String::from_utf8_lossy(body), 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_come_from_the_json_body() {
        let body = br#"{"error":{"message":"Incorrect API key\nprovided","type":"auth"}}"#;
        assert_eq!(error_message(body), "Incorrect API key provided");
        assert_eq!(error_message(b"<html>\n oops</html>"), "<html> oops</html>");
        assert_eq!(error_message(b""), "(empty body)");
        assert_eq!(one_line("aé b", 2), "aé…");
    }
}

//! The request and idle-stream time limits, over HTTP against the OpenAI-compatible fake
//! server. Both limits share one pooled timer per request: each must still hold on its own.

use super::common::{Deltas, check_display, options, request};
use super::openai::setup;
use agentctl_core::ProviderError;
use agentctl_providers::RetryPolicy;
use agentctl_test_support::{Reply, openai};
use std::time::{Duration, Instant};

#[tokio::test]
async fn request_timeout() {
    let mut options = options();
    options.request_timeout = Duration::from_millis(200);
    options.retry = RetryPolicy::none();
    let (server, provider) = setup(&options).await;
    server.push_delay(Duration::from_secs(5));
    let error = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ProviderError::Timeout {
                what: "request",
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        check_display(&error),
        "openai: model `test-model` timed out after 200ms (request)"
    );
}

#[tokio::test]
async fn idle_stream_timeout() {
    let mut options = options();
    options.idle_timeout = Duration::from_millis(200);
    let (server, provider) = setup(&options).await;
    server.push(
        Reply::sse([openai::text_chunk("partial")])
            .then_pause(Duration::from_secs(5), [openai::done()]),
    );
    let deltas = Deltas::default();
    let error = provider
        .complete(&request("hi", true), &deltas.sink())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ProviderError::Timeout {
                what: "idle stream",
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(deltas.texts(), ["partial"]);
    // Once the stream has begun nothing is retried: deltas were already shown.
    assert_eq!(server.requests().len(), 1);
}

/// Runs a streamed call expected to time out: which limit stopped it, and after how long.
async fn timed_out(provider: &dyn agentctl_core::ModelProvider) -> (&'static str, Duration) {
    let started = Instant::now();
    match provider.complete(&request("hi", true), &|_| {}).await {
        Err(ProviderError::Timeout { what, .. }) => (what, started.elapsed()),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

/// An SSE answer streaming the text chunks `0` to `last`, `pause` apart, then `[DONE]` after
/// `before_done`.
fn counting(last: u32, pause: Duration, before_done: Duration) -> Reply {
    let mut reply = Reply::sse([openai::text_chunk("0")]);
    for piece in 1..=last {
        reply = reply.then_pause(pause, [openai::text_chunk(&piece.to_string())]);
    }
    reply.then_pause(before_done, [openai::done()])
}

#[tokio::test]
async fn a_stream_whose_headers_are_late_times_out_as_a_request() {
    let mut options = options();
    options.request_timeout = Duration::from_millis(300);
    options.idle_timeout = Duration::from_millis(100);
    options.retry = RetryPolicy::none();
    let (server, provider) = setup(&options).await;
    server.push(counting(0, Duration::ZERO, Duration::ZERO).delayed(Duration::from_secs(5)));
    let (what, waited) = timed_out(provider.as_ref()).await;
    assert_eq!(what, "request");
    // Not at the idle limit (waiting for headers is not idle time), not much after the
    // request's.
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
}

#[tokio::test]
async fn headers_slower_than_the_idle_limit_are_waited_for_within_the_request_limit() {
    let mut options = options();
    options.request_timeout = Duration::from_secs(5);
    options.idle_timeout = Duration::from_millis(100);
    let (server, provider) = setup(&options).await;
    server.push(counting(0, Duration::ZERO, Duration::ZERO).delayed(Duration::from_millis(300)));
    let response = provider
        .complete(&request("hi", true), &|_| {})
        .await
        .unwrap();
    assert_eq!(response.text.as_deref(), Some("0"));
}

#[tokio::test]
async fn a_stream_that_keeps_coming_outlasts_its_idle_limit() {
    let mut options = options();
    options.idle_timeout = Duration::from_millis(150);
    let (server, provider) = setup(&options).await;
    // 480 ms in all, never 150 ms without a chunk.
    let pause = Duration::from_millis(80);
    server.push(counting(5, pause, pause));
    let deltas = Deltas::default();
    let response = provider
        .complete(&request("hi", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(response.text.as_deref(), Some("012345"));
    assert_eq!(deltas.texts(), ["0", "1", "2", "3", "4", "5"]);
}

#[tokio::test]
async fn a_stream_that_goes_silent_after_chunks_stops_at_its_idle_limit() {
    let mut options = options();
    options.idle_timeout = Duration::from_millis(200);
    let (server, provider) = setup(&options).await;
    // Chunks for 300 ms (checks see them), then silence.
    server.push(counting(
        3,
        Duration::from_millis(100),
        Duration::from_secs(10),
    ));
    let (what, waited) = timed_out(provider.as_ref()).await;
    assert_eq!(what, "idle stream");
    // The last chunk came at about 300 ms: stopped no sooner than 200 ms after it (the idle
    // limit counts from the last chunk, not from the start), and by the idle limit rather than
    // the stream's end 10 s later. How soon after the limit is the scheduler's business (a
    // busy machine adds its own delay), so no tighter bound is asserted here.
    assert!(waited >= Duration::from_millis(500), "{waited:?}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
}

#[tokio::test]
async fn a_stream_that_goes_silent_after_slow_headers_stops_at_the_idle_limit() {
    let mut options = options();
    options.request_timeout = Duration::from_secs(5);
    options.idle_timeout = Duration::from_millis(150);
    let (server, provider) = setup(&options).await;
    server.push(
        counting(0, Duration::ZERO, Duration::from_secs(10)).delayed(Duration::from_millis(400)),
    );
    let (what, waited) = timed_out(provider.as_ref()).await;
    assert_eq!(what, "idle stream");
    // Waiting for the headers moved the timer to the request's limit; the idle limit still
    // counts from the first chunk, not from there.
    assert!(waited < Duration::from_secs(3), "{waited:?}");
}

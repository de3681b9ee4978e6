//! The fake servers as a client sees them: refusals in each API's error format, the queue left
//! alone by refused requests, the opt-out, and the check when a server is dropped.

use agentctl_test_support::{FakeServer, WireFormat, openai};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Posts `body` to `path` on `server` and returns the status and the JSON body.
#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
async fn post(server: &FakeServer, path: &str, body: &Value) -> (u16, Value) {
    let address = server
        .base_url()
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut stream = TcpStream::connect(&address).await.unwrap();
    let body = body.to_string();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\nanthropic-version: 2023-06-01\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn chat(tool: &str) -> Value {
    json!({
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": tool, "parameters": {"type": "object"}}}],
    })
}

#[tokio::test]
async fn a_broken_request_gets_the_apis_400_and_leaves_the_queue_alone() {
    let server = FakeServer::openai().await;
    server.push_json(openai::text_response("for the good request"));
    let (status, body) = post(&server, "/v1/chat/completions", &chat("mcp.a.b")).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(body["error"]["param"], "tools[0].function.name");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("strict fake OpenAI server refused request #1: Invalid 'tools[0].function.name': string does not match pattern."),
        "{message}"
    );
    assert_eq!(server.pending(), 1);
    let (status, body) = post(&server, "/v1/chat/completions", &chat("mcp__a__b")).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "for the good request"
    );
    let violations = server.take_violations();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].request, 1);
    assert_eq!(server.requests().len(), 2);
    server.assert_no_violations();
}

#[tokio::test]
async fn several_problems_are_all_reported() {
    let server = FakeServer::openai().await;
    let mut body = chat("a.b");
    body["messages"] = json!([{"role": "tool", "tool_call_id": "x", "content": "y"}]);
    let (_, answer) = post(&server, "/v1/chat/completions", &body).await;
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("(+1 more: Invalid parameter: messages with role 'tool'"),
        "{message}"
    );
    assert_eq!(server.take_violations().len(), 2);
}

#[tokio::test]
async fn each_api_answers_in_its_own_error_format() {
    let server = FakeServer::anthropic().await;
    let (status, body) = post(
        &server,
        "/v1/messages",
        &json!({"model": "c", "messages": []}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_tokens: Field required"),
        "{body}"
    );
    assert_eq!(server.take_violations().len(), 2);

    let server = FakeServer::gemini().await;
    let (status, body) = post(
        &server,
        "/v1beta/models/g:generateContent",
        &json!({"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], 400);
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Please use a valid role: user, model."),
        "{body}"
    );
    server.take_violations();
}

#[tokio::test]
async fn the_opt_out_answers_from_the_queue_but_still_records() {
    let server = FakeServer::start(WireFormat::OpenAi).await;
    server.accept_invalid_requests("this test checks the opt-out itself");
    server.push_json(openai::text_response("answered anyway"));
    let (status, body) = post(&server, "/v1/chat/completions", &chat("a b")).await;
    assert_eq!(status, 200);
    assert_eq!(body["choices"][0]["message"]["content"], "answered anyway");
    assert_eq!(server.violations().len(), 1);
    server.take_violations();
}

#[tokio::test]
async fn dropping_a_server_that_saw_broken_requests_fails_the_test() {
    let server = FakeServer::openai().await;
    post(&server, "/v1/chat/completions", &chat("a.b")).await;
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(server)));
    let panic = dropped.unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.starts_with("strict fake OpenAI server: 1 request rule(s) broken:\n  request #1 at tools[0].function.name: Invalid 'tools[0].function.name'"),
        "{message}"
    );
    assert!(
        message.ends_with("call take_violations() in a test that breaks rules on purpose"),
        "{message}"
    );
}

#[tokio::test]
async fn a_wrong_endpoint_is_refused() {
    let server = FakeServer::anthropic().await;
    let (status, _) = post(&server, "/v1/complete", &json!({"prompt": "x"})).await;
    assert_eq!(status, 400);
    assert_eq!(server.take_violations()[0].at, "path");
}

#[tokio::test]
async fn held_requests_are_answered_together_and_a_lone_one_gets_a_500() {
    let server = FakeServer::openai().await;
    for text in ["one", "two", "three"] {
        server.push_json(openai::text_response(text));
    }
    server.hold_until_overlapping(1, 2, std::time::Duration::from_secs(10));
    let good = chat("lookup");
    let (first, second) = tokio::join!(
        post(&server, "/v1/chat/completions", &good),
        post(&server, "/v1/chat/completions", &good)
    );
    assert_eq!((first.0, second.0), (200, 200));
    assert_eq!(server.max_in_flight(), 2);

    // A group whose second request never comes: the first is refused in time, not hung.
    server.hold_until_overlapping(3, 2, std::time::Duration::from_millis(200));
    let (status, body) = post(&server, "/v1/chat/completions", &good).await;
    assert_eq!(status, 500);
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("only 1 arrived"), "{message}");
    assert_eq!(
        server.pending(),
        1,
        "a refused request leaves the queue alone"
    );
}

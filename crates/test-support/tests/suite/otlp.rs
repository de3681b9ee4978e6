//! The fake OTLP collector as a client sees it: real protobuf accepted and decoded, and what a
//! collector refuses refused with the collector's status.

use agentctl_test_support::OtlpReceiver;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends a raw request and returns the status and the body.
#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
async fn send(receiver: &OtlpReceiver, head: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let address = receiver.endpoint().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&address).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, answer[split + 4..].to_vec())
}

async fn post(receiver: &OtlpReceiver, content_type: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let head = format!(
        "POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    send(receiver, &head, body).await
}

fn request(span_id: Vec<u8>) -> ExportTraceServiceRequest {
    let attribute = KeyValue {
        key: "gen_ai.usage.input_tokens".into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::IntValue(12)),
        }),
        ..Default::default()
    };
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            scope_spans: vec![ScopeSpans {
                spans: vec![Span {
                    trace_id: vec![7; 16],
                    span_id,
                    name: "chat m".into(),
                    kind: 3,
                    attributes: vec![attribute],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

#[tokio::test]
async fn protobuf_spans_are_decoded_and_answered_like_a_collector() {
    let receiver = OtlpReceiver::start().await;
    let body = request(vec![1; 8]).encode_to_vec();
    let (status, answer) = post(&receiver, "application/x-protobuf", &body).await;
    // An empty ExportTraceServiceResponse encodes to no bytes.
    assert_eq!((status, answer), (200, Vec::new()));
    let span = &receiver.wait_for_spans(1).await[0];
    assert_eq!(span.name, "chat m");
    assert_eq!(span.kind, "client");
    assert_eq!(span.trace_id, "07".repeat(16));
    assert_eq!(span.span_id, "01".repeat(8));
    assert_eq!(span.parent_span_id, None);
    assert_eq!(span.int("gen_ai.usage.input_tokens"), Some(12));
    assert_eq!(receiver.span("chat m").span_id, span.span_id);
}

#[tokio::test]
async fn what_a_collector_refuses_is_refused() {
    let receiver = OtlpReceiver::start().await;
    let valid = request(vec![1; 8]).encode_to_vec();
    assert_eq!(post(&receiver, "text/plain", &valid).await.0, 415);
    assert_eq!(
        post(&receiver, "application/x-protobuf", b"\xff\xff\xff")
            .await
            .0,
        400
    );
    assert_eq!(
        post(&receiver, "application/json", b"{not json").await.0,
        400
    );
    let zero_id = request(vec![0; 8]).encode_to_vec();
    assert_eq!(
        post(&receiver, "application/x-protobuf", &zero_id).await.0,
        400
    );
    let (status, _) = send(&receiver, "GET /v1/traces HTTP/1.1\r\nhost: x\r\n\r\n", b"").await;
    assert_eq!(status, 405);
    let head = format!(
        "POST /v1/logs HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\ncontent-length: {}\r\n\r\n",
        valid.len()
    );
    assert_eq!(send(&receiver, &head, &valid).await.0, 404);
    let chunked = "POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n";
    assert_eq!(send(&receiver, chunked, b"").await.0, 411);
    let gzip = format!(
        "POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\ncontent-encoding: gzip\r\ncontent-length: {}\r\n\r\n",
        valid.len()
    );
    assert_eq!(send(&receiver, &gzip, &valid).await.0, 415);
    assert!(receiver.spans().is_empty());
    let statuses: Vec<u16> = receiver.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses.len(), 8);
    assert!(receiver.requests().iter().all(|r| !r.refusal.is_empty()));
}

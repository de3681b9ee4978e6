//! `otlp_json`: valid OTLP JSON (read back with opentelemetry-proto's own deserializer, and
//! taken by a collector's OTLP/HTTP JSON endpoint), ids intact, and the very spans the live
//! exporter sends.

use super::otel::{PROMPT, sample};
use agentctl_core::SpanSink;
use agentctl_test_support::{OTLP_WAIT, OtlpReceiver, ReceivedSpan};
use agentctl_trace::{OtelConfig, OtelSink, otlp_json};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[test]
fn output_reads_back_as_an_export_request_with_ids_intact() {
    let sample = sample();
    let json = otlp_json(&sample.spans, false).unwrap();
    let request: ExportTraceServiceRequest = serde_json::from_value(json.clone()).unwrap();
    let spans = &request.resource_spans[0].scope_spans[0].spans;
    assert_eq!(spans.len(), sample.spans.len());
    for (ours, theirs) in sample.spans.iter().zip(spans) {
        assert_eq!(theirs.trace_id, ours.trace_id.to_bytes());
        assert_eq!(theirs.span_id, ours.span_id.to_bytes());
        assert_eq!(
            theirs.parent_span_id,
            ours.parent_id
                .map(|id| id.to_bytes().to_vec())
                .unwrap_or_default()
        );
        assert_eq!(
            theirs
                .links
                .iter()
                .map(|link| link.span_id.clone())
                .collect::<Vec<_>>(),
            ours.links
                .iter()
                .map(|id| id.to_bytes().to_vec())
                .collect::<Vec<_>>()
        );
        assert_eq!(theirs.start_time_unix_nano, ours.start_unix_nano);
        assert_eq!(theirs.end_time_unix_nano, ours.end_unix_nano());
    }
    // The OTLP JSON rules: hex ids, 64-bit integers as strings, enums as numbers.
    let first = &json["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
    assert_eq!(first["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(first["spanId"], "00f067aa0ba902b7");
    assert_eq!(first["startTimeUnixNano"], "1700000000000000000");
    let run = &json["resourceSpans"][0]["scopeSpans"][0]["spans"][1];
    assert_eq!(run["parentSpanId"], "00f067aa0ba902b7");
    assert_eq!(run["kind"], 1);
    let tokens = run["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pair| pair["key"] == "gen_ai.usage.input_tokens")
        .unwrap();
    assert_eq!(tokens["value"], serde_json::json!({"intValue": "30"}));
    assert!(!json.to_string().contains(PROMPT));
}

#[test]
fn content_follows_the_capture_switch() {
    let spans = sample().spans;
    assert!(
        !otlp_json(&spans, false)
            .unwrap()
            .to_string()
            .contains(PROMPT)
    );
    assert!(
        otlp_json(&spans, true)
            .unwrap()
            .to_string()
            .contains(PROMPT)
    );
    let empty = otlp_json(&[], false).unwrap();
    let request: ExportTraceServiceRequest = serde_json::from_value(empty).unwrap();
    assert!(
        request
            .resource_spans
            .iter()
            .all(|spans| spans.scope_spans.is_empty())
    );
}

#[test]
fn span_shapes_snapshot() {
    let json = otlp_json(&sample().spans, true).unwrap();
    let mut scope = json["resourceSpans"][0]["scopeSpans"][0].clone();
    // The version changes from release to release; the shape is what is reviewed.
    scope["scope"]["version"] = Value::from("[version]");
    insta::assert_json_snapshot!(scope);
}

/// Posts `body` as OTLP JSON to `receiver`, as `curl -H 'content-type: application/json'`
/// would, and returns the status.
#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
async fn post_json(receiver: &OtlpReceiver, body: &str) -> u16 {
    let address = receiver.endpoint().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /v1/traces HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer.split(' ').nth(1).unwrap().parse().unwrap()
}

/// Spans without what differs between two exports of the same trace by design: nothing.
fn sorted(mut spans: Vec<ReceivedSpan>) -> Vec<ReceivedSpan> {
    spans.sort_by(|a, b| a.span_id.cmp(&b.span_id));
    spans
}

#[tokio::test(flavor = "multi_thread")]
async fn the_file_export_and_the_live_exporter_send_the_same_spans() {
    let sample = sample();
    let live = OtlpReceiver::start().await;
    let mut config = OtelConfig::new(live.traces_url()).unwrap();
    config.capture_content = true;
    config.shutdown_timeout = OTLP_WAIT;
    let sink = OtelSink::new(config, Arc::new(|warning| panic!("{warning}"))).unwrap();
    for span in &sample.spans {
        sink.record(span);
    }
    sink.flush();
    let exported = live.wait_for_spans(sample.spans.len()).await;
    sink.shutdown();

    let file = OtlpReceiver::start().await;
    let body = otlp_json(&sample.spans, true).unwrap().to_string();
    assert_eq!(post_json(&file, &body).await, 200);
    let posted = file.wait_for_spans(sample.spans.len()).await;
    assert_eq!(sorted(posted), sorted(exported));
}

//! The OTLP JSON encoding of a trace (`agentctl trace export --format otlp-json`): one
//! `ExportTraceServiceRequest` as a collector's file receiver (`otlpjsonfile`) or an OTLP/HTTP
//! endpoint taking `application/json` reads it, built with the same mapping as the live
//! exporter so a file and a collector show the same spans.

use crate::otel::{resource, span_data};
use agentctl_core::Span;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
use opentelemetry_sdk::trace::SpanData;

/// `spans` as one OTLP JSON trace request: `{"resourceSpans": [{"resource": …, "scopeSpans":
/// [{"scope": {"name": "agentctl", …}, "spans": [{"traceId": "<32 hex>", "spanId": "<16 hex>",
/// "parentSpanId": …, "name": "chat gpt-4o", "kind": 3, "startTimeUnixNano": "<string>", …}]}]}]}`.
/// Names, attributes and the content rule (`capture_content`) are those of
/// [`crate::span_data`]; `service.name` follows `OTEL_SERVICE_NAME` (default `agentctl`).
///
/// Serialising these types cannot fail in practice; the error is passed on rather than hidden.
///
/// ```
/// use agentctl_core::{Span, SpanDetail, SpanId, SpanStatus, TraceId};
///
/// let span = Span {
///     trace_id: TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").unwrap(),
///     span_id: SpanId::from_hex("b7ad6b7169203331").unwrap(),
///     parent_id: None,
///     links: Vec::new(),
///     session_id: Some("s1".into()),
///     agent: Some("reviewer".into()),
///     start_unix_nano: 1_700_000_000_000_000_000,
///     duration_ms: 1200.0,
///     status: SpanStatus::Ok,
///     error: None,
///     detail: SpanDetail::Session { prompt: "Review the diff".into() },
/// };
/// let json = agentctl_trace::otlp_json(&[span], false)?;
/// let otlp = &json["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
/// assert_eq!(otlp["traceId"], "0af7651916cd43dd8448eb211c80319c");
/// assert_eq!(otlp["name"], "session reviewer");
/// assert_eq!(otlp["startTimeUnixNano"], "1700000000000000000");
/// // Content only when asked for: no prompt in the span.
/// assert!(!json.to_string().contains("Review the diff"));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn otlp_json(
    spans: &[Span],
    capture_content: bool,
) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::to_value(request(spans, capture_content))
}

fn request(spans: &[Span], capture_content: bool) -> ExportTraceServiceRequest {
    let data: Vec<SpanData> = spans
        .iter()
        .map(|span| span_data(span, capture_content))
        .collect();
    let resource = ResourceAttributesWithSchema::from(&resource(None));
    ExportTraceServiceRequest {
        resource_spans: group_spans_by_resource_and_scope(data, &resource),
    }
}

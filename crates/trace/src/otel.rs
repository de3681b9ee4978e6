//! OpenTelemetry export (placeholder until the exporter lands).

use crate::sinks::WarningFn;
use agentctl_core::{Span, SpanSink};

pub struct OtelSink;

impl OtelSink {
    pub fn from_env(_capture: bool, _warn: WarningFn) -> Result<Self, String> {
        Err("not built yet".into())
    }
    pub fn shutdown(&self) {}
}

impl SpanSink for OtelSink {
    fn record(&self, _span: &Span) {}
}

pub fn otlp_json(_spans: &[Span], _capture: bool) -> serde_json::Value {
    serde_json::Value::Null
}

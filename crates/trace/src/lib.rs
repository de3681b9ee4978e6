//! Tracing for agentctl: the spans of a run, built from its events, and the backends that
//! write them.

mod otel;
mod otlp_json;

pub use otel::{
    CAPTURE_CONTENT_VAR, DEFAULT_ENDPOINT, DEFAULT_SHUTDOWN_TIMEOUT, DEFAULT_TIMEOUT,
    ExportWarning, OtelConfig, OtelError, OtelSink, SCOPE_NAME, WarningCallback,
    capture_content_from_env, span_data,
};
pub use otlp_json::otlp_json;

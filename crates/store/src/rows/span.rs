//! The row of a trace span: what recording a span and importing one write.

use super::described;
use crate::schema::RowError;
use crate::schema::{Write, WriteKind};
use agentctl_core::{Redactor, Span};

/// The `trace_spans` row of `span` in `session`, its JSON given (masked by the caller): what
/// recording a span and importing one write.
pub fn span_write(session: &str, span: &Span, json: &str) -> Write {
    let values = vec![
        session.into(),
        span.trace_id.to_string().into(),
        span.span_id.to_string().into(),
        span.parent_id.map(|id| id.to_string()).into(),
        span.kind().as_str().into(),
        i64::try_from(span.start_unix_nano)
            .unwrap_or(i64::MAX)
            .into(),
        json.into(),
    ];
    Write {
        table: described("trace_spans"),
        kind: WriteKind::Upsert,
        columns: SPAN_COLUMNS,
        values,
    }
}

/// `span` as JSON, every secret `redactor` knows masked: the `span` column of its row.
pub fn masked_span(span: &Span, redactor: &Redactor) -> Result<String, RowError> {
    let mut value = serde_json::to_value(span).map_err(|error| RowError {
        table: "trace_spans",
        reason: error.to_string(),
    })?;
    redactor.redact_json(&mut value);
    Ok(value.to_string())
}

/// The columns of a `trace_spans` row.
const SPAN_COLUMNS: &[&str] = &[
    "session_id",
    "trace_id",
    "span_id",
    "parent_id",
    "kind",
    "start_ns",
    "span",
];

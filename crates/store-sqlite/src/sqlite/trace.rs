//! [`TraceLog`] for [`SqliteStore`]: one `trace_spans` row per span, the span as JSON.

use super::write::{Sqlite, ready, require_session};
use super::{Fault, SqliteStore};
use agentctl_core::Span;
use agentctl_store::ops;
use agentctl_store::{Result, TraceLog, masked_span, span_write};

impl TraceLog for SqliteStore {
    fn record_span(&self, session: &str, span: &Span) -> Result<()> {
        // Spans reach the store masked by the trace policy; masking again costs little and
        // keeps the rule "nothing the store writes carries a known secret" true on its own.
        let json = masked_span(span, self.redactor())
            .map_err(|error| Fault::Corrupt(error.table, error.reason))
            .map_err(|fault| super::into_error(fault, self.path()))?;
        let write = span_write(session, span, &json);
        self.write(|tx| ready(ops::record_span(&Sqlite(tx), session, &write)))
    }

    fn for_each_span(&self, session: &str, visit: &mut dyn FnMut(Span)) -> Result<usize> {
        self.with(|conn| {
            require_session(conn, session)?;
            let mut statement = conn.prepare_cached(
                "SELECT span_id, span FROM trace_spans
                 WHERE session_id = ?1 ORDER BY start_ns, span_id",
            )?;
            let mut rows = statement.query([session])?;
            let mut count = 0;
            while let Some(row) = rows.next()? {
                let id: String = row.get(0)?;
                let text: String = row.get(1)?;
                let span = serde_json::from_str(&text).map_err(|error| {
                    Fault::Corrupt("trace_spans", format!("span {id}: {error}"))
                })?;
                visit(span);
                count += 1;
            }
            Ok(count)
        })
    }
}

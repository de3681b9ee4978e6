//! [`TraceLog`] for [`PgStore`]: one `trace_spans` row per span, the span as JSON.

use crate::fault::Fault;
use crate::store::{PgStore, text};
use agentctl_core::Span;
use agentctl_store::ops;
use agentctl_store::{Result, TraceLog, masked_span, span_write};

/// Spans read per round trip: a long trace is read in pages, never whole.
const PAGE: i64 = 256;

impl TraceLog for PgStore {
    fn record_span(&self, session: &str, span: &Span) -> Result<()> {
        // Spans reach the store masked by the trace policy; masking again costs little and
        // keeps the rule "nothing the store writes carries a known secret" true on its own.
        let json = masked_span(span, &self.redactor)
            .map_err(|error| self.error(Fault::Corrupt(error.table, error.reason)))?;
        let write = span_write(session, span, &json);
        let session = session.to_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            ops::record_span(&inner.on(&tx), &session, &write).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn for_each_span(&self, session: &str, visit: &mut dyn FnMut(Span)) -> Result<usize> {
        let session = text(session).into_owned();
        let mut cursor: Option<(i64, String)> = None;
        let mut count = 0;
        loop {
            let (session, after) = (session.clone(), cursor.clone());
            let page: Vec<(i64, String, String)> = self.call(|inner| async move {
                let client = inner.pool.get().await?;
                if after.is_none() {
                    ops::require_session(&inner.on(&client), &session).await?;
                }
                let (start, id) = after.unwrap_or((i64::MIN, String::new()));
                let rows = client
                    .query(
                        "SELECT start_ns, span_id, span FROM trace_spans
                         WHERE session_id = $1
                           AND (start_ns > $2 OR (start_ns = $2 AND span_id COLLATE \"C\" > $3))
                         ORDER BY start_ns, span_id COLLATE \"C\" LIMIT $4",
                        &[&session, &start, &id, &PAGE],
                    )
                    .await?;
                rows.iter()
                    .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
                    .collect()
            })?;
            let full = i64::try_from(page.len()).unwrap_or(i64::MAX) == PAGE;
            for (start, id, text) in page {
                let span = serde_json::from_str(&text).map_err(|error| {
                    self.error(Fault::Corrupt("trace_spans", format!("span {id}: {error}")))
                })?;
                visit(span);
                count += 1;
                cursor = Some((start, id));
            }
            if !full {
                return Ok(count);
            }
        }
    }
}

//! Trace spans: one `trace_spans` row per span, the span as JSON.

use super::{Statements, execute, now_ms};
use crate::schema::{Sql, Write};

/// Stores a finished span of `session` (`write`, from [`span_write`](crate::span_write))
/// inside a write transaction. The session's time only moves forward: spans finish out of
/// order.
pub async fn record_span<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    write: &Write,
) -> Result<(), S::Fault> {
    store.lock_session(session).await?;
    store.write(write).await?;
    let touch = Sql {
        table: "sessions",
        text:
            "UPDATE sessions SET updated_at = CASE WHEN updated_at > ?2 THEN updated_at ELSE ?2 END
               WHERE id = ?1",
        names: &[],
        values: vec![session.into(), now_ms().into()],
    };
    execute(store, touch).await?;
    Ok(())
}

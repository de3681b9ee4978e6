//! Trace spans in the store: written as they finish, read back in start order one at a time,
//! replaced when written again, masked, gone with their session, refused for a session that
//! does not exist, and a version-4 file gaining the table.

use super::support::temp_store;
use agentctl_core::{Redactor, Span, SpanDetail, SpanId, SpanStatus, TraceId};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use rusqlite::Connection;

fn span(trace: TraceId, start: u64, prompt: &str) -> Span {
    Span {
        trace_id: trace,
        span_id: SpanId::random(),
        parent_id: None,
        links: Vec::new(),
        session_id: None,
        agent: Some("helper".into()),
        start_unix_nano: start,
        duration_ms: 1.5,
        status: SpanStatus::Ok,
        error: None,
        detail: SpanDetail::Session {
            prompt: prompt.into(),
        },
    }
}

fn read(store: &SqliteStore, session: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    store
        .for_each_span(session, &mut |span| spans.push(span))
        .unwrap();
    spans
}

#[test]
fn spans_come_back_in_start_order_and_rewrites_replace() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap().id;
    let trace = TraceId::random();
    let late = span(trace, 30, "late");
    let early = span(trace, 10, "early");
    store.record_span(&session, &late).unwrap();
    store.record_span(&session, &early).unwrap();
    let mut again = early;
    again.duration_ms = 9.0;
    store.record_span(&session, &again).unwrap();
    assert_eq!(read(store, &session), [again, late]);
}

#[test]
fn secrets_are_masked_and_spans_go_with_their_session() {
    let temp = temp_store();
    let store = SqliteStore::open(&temp.path)
        .unwrap()
        .with_redactor(Redactor::new(["sk-trace-secret-42"]));
    let session = store.create_session(None).unwrap().id;
    store
        .record_span(
            &session,
            &span(TraceId::random(), 1, "key sk-trace-secret-42"),
        )
        .unwrap();
    let stored = read(&store, &session);
    assert_eq!(
        stored[0].detail,
        SpanDetail::Session {
            prompt: "key [REDACTED]".into()
        }
    );
    assert!(store.delete_session(&session).unwrap());
    let conn = Connection::open(&temp.path).unwrap();
    let left: i64 = conn
        .query_row("SELECT COUNT(*) FROM trace_spans", [], |row| row.get(0))
        .unwrap();
    assert_eq!(left, 0);
}

#[test]
fn an_unknown_session_is_refused() {
    let temp = temp_store();
    let error = temp
        .store
        .record_span("nope", &span(TraceId::random(), 1, "x"))
        .unwrap_err();
    assert!(matches!(error, ContextError::SessionNotFound(_)), "{error}");
    let error = temp.store.for_each_span("nope", &mut |_| {}).unwrap_err();
    assert!(matches!(error, ContextError::SessionNotFound(_)), "{error}");
}

#[test]
fn a_version_4_file_gains_the_trace_table() {
    let temp = temp_store();
    let session = temp.store.create_session(Some("old")).unwrap().id;
    drop(temp.store);
    let conn = Connection::open(&temp.path).unwrap();
    super::support::downgrade_to_v5(&conn);
    conn.execute_batch("DROP TABLE trace_spans; PRAGMA user_version = 4;")
        .unwrap();
    drop(conn);
    let store = SqliteStore::open(&temp.path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    store
        .record_span(&session, &span(TraceId::random(), 1, "x"))
        .unwrap();
    assert_eq!(read(&store, &session).len(), 1);
}

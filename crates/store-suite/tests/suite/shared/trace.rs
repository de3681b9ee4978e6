//! Trace spans: start order, rewrites replace, long traces read in pages, unknown sessions.

use agentctl_core::{Span, SpanDetail, SpanId, SpanStatus, TraceId};
use agentctl_store::*;

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

fn read(store: &dyn SessionStore, session: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    let count = store
        .for_each_span(session, &mut |span| spans.push(span))
        .unwrap();
    assert_eq!(count, spans.len());
    spans
}

on_each_backend! {
    fn spans_come_back_in_start_order_and_rewrites_replace(fresh) {
        let store = &*fresh.store;
        let session = store.create_session(None).unwrap().id;
        assert!(read(store, &session).is_empty());
        let trace = TraceId::random();
        let late = span(trace, 30, "late");
        let early = span(trace, 10, "early");
        store.record_span(&session, &late).unwrap();
        store.record_span(&session, &early).unwrap();
        let mut again = early;
        again.duration_ms = 9.0;
        store.record_span(&session, &again).unwrap();
        assert_eq!(read(store, &session), [again, late]);
        assert!(matches!(store.record_span("missing", &span(trace, 1, "x")), Err(ContextError::SessionNotFound(_))));
        assert!(matches!(store.for_each_span("missing", &mut |_| {}), Err(ContextError::SessionNotFound(_))));
    }

    fn a_long_trace_reads_whole_in_order(fresh) {
        let store = &*fresh.store;
        let session = store.create_session(None).unwrap().id;
        let trace = TraceId::random();
        // More than one page, with ties on the start time broken by span id.
        let mut written: Vec<Span> = (0..700u64).map(|n| span(trace, n / 3, &format!("p{n}"))).collect();
        for span in &written {
            store.record_span(&session, span).unwrap();
        }
        written.sort_by_key(|span| (span.start_unix_nano, span.span_id.to_string()));
        assert_eq!(read(store, &session), written);
    }
}

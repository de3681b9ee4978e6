//! Context store and views: appending 100,000 messages to the SQLite session store, building a
//! 1,000-message context, and handing the main history to a shared agent at growing history
//! lengths (which must stay flat: the hand-over shares, it does not copy).
//!
//! Run with `cargo bench --bench context`; figures are in `crates/context/README.md`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_context::{
    ContextScope, HistoryView, MessageLog, NewMessage, ScopedMessage, SessionLog, SqliteStore,
    load_history,
};
use agentctl_core::{ContextMode, Message};
use divan::Bencher;
use std::sync::Arc;

fn main() {
    divan::main();
}

/// A message of typical chat size (~300 bytes).
fn message(i: usize) -> Message {
    Message::assistant(format!(
        "message {i}: {}",
        "lorem ipsum dolor sit amet ".repeat(10)
    ))
}

fn new_messages(scope: &ContextScope, agent: &str, count: usize) -> Vec<NewMessage> {
    (0..count)
        .map(|i| NewMessage::new(scope.clone(), Some(agent), message(i)))
        .collect()
}

/// 100,000 messages into a fresh file-backed store, in turns of 10 messages per transaction
/// (how `record_turn` writes).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn append_100k_messages(bencher: Bencher) {
    let scope = ContextScope::agent("writer");
    let batch = new_messages(&scope, "writer", 10);
    bencher
        .with_inputs(|| {
            let dir = tempfile::tempdir().unwrap();
            let store = SqliteStore::open(&dir.path().join("sessions.db")).unwrap();
            let session = store.create_session(None).unwrap().id;
            (dir, store, session)
        })
        .bench_local_values(|(dir, store, session)| {
            for _ in 0..10_000 {
                store.append_messages(&session, None, &batch).unwrap();
            }
            (dir, store)
        });
}

/// One turn (a single-message transaction, WAL, synchronous=NORMAL) into a populated store.
#[divan::bench]
fn append_one_message(bencher: Bencher) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("sessions.db")).unwrap();
    let session = store.create_session(None).unwrap().id;
    let one = new_messages(&ContextScope::Main, "writer", 1);
    bencher.bench_local(|| store.append_messages(&session, None, &one).unwrap());
}

/// Loading an isolated agent's 1,000-message workspace (among 10,000 other messages) and
/// materialising it as the request history.
#[divan::bench(sample_count = 20)]
fn build_1000_message_context(bencher: Bencher) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("sessions.db")).unwrap();
    let session = store.create_session(None).unwrap().id;
    store
        .append_messages(
            &session,
            None,
            &new_messages(&ContextScope::Main, "other", 10_000),
        )
        .unwrap();
    store
        .append_messages(
            &session,
            None,
            &new_messages(&ContextScope::agent("a"), "a", 1_000),
        )
        .unwrap();
    bencher.bench_local(|| {
        let view = load_history(&store, &session, "a", ContextMode::Isolated, 100).unwrap();
        assert_eq!(view.len(), 1_000);
        view.to_messages()
    });
}

const LENGTHS: &[usize] = &[1_000, 10_000, 100_000];

fn main_history(length: usize) -> Arc<[ScopedMessage]> {
    (0..length)
        .map(|i| ScopedMessage {
            id: i as i64,
            agent: Some(if i % 2 == 0 { "planner" } else { "coder" }.to_owned()),
            message: message(i),
        })
        .collect::<Vec<_>>()
        .into()
}

/// Handing the in-memory main history to a shared agent: an `Arc` clone and a window.
#[divan::bench(args = LENGTHS)]
fn shared_hand_over(bencher: Bencher, length: usize) {
    let main = main_history(length);
    bencher.bench_local(|| HistoryView::shared(&main, "coder", 100, None));
}

/// The same, materialised as the request history (the capped 100 messages, marked).
#[divan::bench(args = LENGTHS)]
fn shared_hand_over_materialised(bencher: Bencher, length: usize) {
    let main = main_history(length);
    bencher.bench_local(|| HistoryView::shared(&main, "coder", 100, None).to_messages());
}

/// Loading a shared agent's view from the store: the last 100 `main` messages by index.
#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 20)]
fn shared_view_from_store(bencher: Bencher, length: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("sessions.db")).unwrap();
    let session = store.create_session(None).unwrap().id;
    let batch = new_messages(&ContextScope::Main, "planner", 1_000);
    for _ in 0..length / 1_000 {
        store.append_messages(&session, None, &batch).unwrap();
    }
    bencher.bench_local(|| {
        load_history(&store, &session, "coder", ContextMode::Shared, 100)
            .unwrap()
            .to_messages()
    });
}

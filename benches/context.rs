//! Context store and views: recording 100,000 messages into the SQLite session store (a real
//! file in WAL mode, one transaction per turn of 10 messages, as the recorder writes), opening
//! a session of 100,000 messages and building the prompt for a 128k-token window, building a
//! 1,000-message context, and handing the main history to a shared agent at growing history
//! lengths (which must stay flat: the hand-over shares, it does not copy).
//!
//! Run with `cargo bench --bench context`; figures are in the README's Performance section.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_context::{
    CompactionPolicy, HistoryView, ScopedMessage, Summarizer, SummaryRequest, compact_scope,
    load_history, load_history_within,
};
use agentctl_core::{ContextMode, Message, ToolCall};
use agentctl_store::{
    ContextScope, MessageLog, NewMessage, NewRun, RunLog, SessionChoice, SessionLog, open_session,
};
use agentctl_store_sqlite::SqliteStore;
use divan::Bencher;
use divan::counter::ItemsCount;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

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

/// 100,000 messages recorded by a run, 10 per turn, each turn one transaction
/// (`RunLog::record_turn`, what the recorder calls), into a fresh file in WAL mode.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn record_100k_messages_in_turns_of_10(bencher: Bencher) {
    let scope = ContextScope::agent("writer");
    let batch = new_messages(&scope, "writer", 10);
    bencher
        .counter(ItemsCount::new(100_000usize))
        .with_inputs(|| {
            let dir = tempfile::tempdir().unwrap();
            let store = SqliteStore::open(&dir.path().join("sessions.db")).unwrap();
            let session = store.create_session(None).unwrap().id;
            let run = store
                .start_run(&session, &NewRun::new("writer", ContextMode::Isolated))
                .unwrap()
                .id;
            (dir, store, run)
        })
        .bench_local_values(|(dir, store, run)| {
            for _ in 0..10_000 {
                store.record_turn(run, &batch, &[]).unwrap();
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

/// The `i`-th message of a working session: a question, a tool call, its result, an answer
/// (about 75 estimated tokens on average).
fn working_message(i: usize) -> Message {
    let call = format!("call_{}", i / 4);
    match i % 4 {
        0 => Message::user(format!(
            "step {i}: look at the parser and tell me what breaks"
        )),
        1 => Message::Assistant {
            content: None,
            tool_calls: vec![ToolCall {
                id: call,
                name: "grep".into(),
                arguments: serde_json::json!({"pattern": "fn parse", "path": "src/"}),
                signature: None,
            }],
        },
        2 => Message::Tool {
            call_id: call,
            name: "grep".into(),
            content: format!(
                "src/parser.rs:{i}: fn parse_expression(&mut self) -> Result<Expr> {{ "
            )
            .repeat(5),
            is_error: false,
        },
        _ => Message::assistant(format!(
            "answer {i}: {}",
            "the parser drops the last token when the input ends early; ".repeat(5)
        )),
    }
}

/// A sessions file holding two sessions of 100,000 messages each: one in an isolated agent's
/// workspace (`agent:a`), one in `main` (what shared agents see). Written once per process.
fn big_sessions() -> &'static (tempfile::TempDir, PathBuf, String, String) {
    static FILE: OnceLock<(tempfile::TempDir, PathBuf, String, String)> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.db");
        let store = SqliteStore::open(&path).unwrap();
        let fill = |scope: ContextScope| {
            let session = store.create_session(None).unwrap().id;
            for turn in 0..100 {
                let batch: Vec<_> = (turn * 1_000..(turn + 1) * 1_000)
                    .map(|i| {
                        // The user asks; agents `a` and `b` take turns answering (a shared
                        // `a` sees `b`'s messages marked).
                        let agent =
                            (i % 4 != 0).then_some(if (i / 4) % 2 == 0 { "a" } else { "b" });
                        NewMessage::new(scope.clone(), agent, working_message(i))
                    })
                    .collect();
                store.append_messages(&session, None, &batch).unwrap();
            }
            session
        };
        let isolated = fill(ContextScope::agent("a"));
        let shared = fill(ContextScope::Main);
        (dir, path, isolated, shared)
    })
}

/// Opening a session of 100,000 messages and building the prompt history for a 128k-token
/// window: open the file, resume the session, load what the window holds (the budget
/// compaction keeps a workspace under, read newest first) and materialise it. `shared` is
/// capped by `sharedContextMaxMessages` (100); `shared_uncapped` only by the window.
#[divan::bench(args = ["isolated", "shared", "shared_uncapped"], sample_count = 30)]
fn open_100k_session_and_build_128k_prompt(bencher: Bencher, mode: &str) {
    let (_dir, path, isolated, shared) = big_sessions();
    let (session, mode, cap) = match mode {
        "isolated" => (isolated, ContextMode::Isolated, 100),
        "shared" => (shared, ContextMode::Shared, 100),
        _ => (shared, ContextMode::Shared, u32::MAX),
    };
    let budget = CompactionPolicy::for_context_window(128_000).budget_tokens;
    bencher.bench_local(|| {
        let store = SqliteStore::open(path).unwrap();
        let info = open_session(&store, &SessionChoice::Resume(session.clone())).unwrap();
        let history = load_history_within(&store, &info.id, "a", mode, cap, budget)
            .unwrap()
            .to_messages();
        assert!(history.len() >= 90);
        history
    });
}

/// Never asked: the scope is under budget.
struct Unused;

#[async_trait::async_trait]
impl Summarizer for Unused {
    async fn summarize(&self, _: SummaryRequest<'_>) -> agentctl_store::Result<String> {
        unreachable!("the scope is under budget")
    }
}

/// The compaction check before every turn on a compacted 100,000-message workspace: a
/// summary up to message 99,000, so what follows fits the 128k window and nothing is
/// summarised. Counts only the rows the budget covers.
#[divan::bench(sample_count = 30)]
fn compaction_check_on_100k_workspace(bencher: Bencher) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("sessions.db")).unwrap();
    let session = store.create_session(None).unwrap().id;
    let scope = ContextScope::agent("a");
    let mut last = 0;
    for turn in 0..100 {
        let batch: Vec<_> = (turn * 1_000..(turn + 1) * 1_000)
            .map(|i| NewMessage::new(scope.clone(), Some("a"), working_message(i)))
            .collect();
        let ids = store.append_messages(&session, None, &batch).unwrap();
        if turn == 98 {
            last = *ids.last().unwrap();
        }
    }
    store
        .save_summary(&session, &scope, last, "what happened before")
        .unwrap();
    let policy = CompactionPolicy::for_context_window(128_000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    bencher.bench_local(|| {
        let written = runtime
            .block_on(compact_scope(&store, &Unused, &session, &scope, &policy))
            .unwrap();
        assert!(written.is_none());
    });
}

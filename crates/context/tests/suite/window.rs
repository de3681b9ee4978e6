//! Loading a history within a token budget (`load_history_within`): the newest messages that
//! fit, read newest first, with the view's rules kept at the window's edges — no orphan tool
//! result first, no call cut from its results, summaries counted, shared marks — and the same
//! history as a whole load when the budget holds everything.

use agentctl_context::*;
use agentctl_core::{ContextMode, Message, ToolCall};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashSet;

/// What one step of a generated session writes.
#[derive(Debug, Clone)]
enum Step {
    /// The user writes `len` characters.
    User(usize),
    /// The agent answers with text.
    Answer(usize),
    /// The agent calls `calls` tools and gets each result (of `len` characters).
    Tools { calls: usize, len: usize },
    /// Another agent writes (seen marked `[other]` by a shared agent).
    Other(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..120usize).prop_map(Step::User),
        (0..200usize).prop_map(Step::Answer),
        (1..4usize, 0..300usize).prop_map(|(calls, len)| Step::Tools { calls, len }),
        (0..120usize).prop_map(Step::Other),
    ]
}

const AGENT: &str = "worker";

fn text(n: usize, len: usize) -> String {
    format!("{n}:{}", "x".repeat(len))
}

/// Writes `steps` into `scope` as `AGENT` (and `other`) would, one turn per step.
fn write(store: &SqliteStore, session: &str, scope: &ContextScope, steps: &[Step]) {
    let mut call_number = 0;
    for (n, step) in steps.iter().enumerate() {
        let new = |agent: Option<&str>, message| NewMessage::new(scope.clone(), agent, message);
        let turn = match step {
            Step::User(len) => vec![new(None, Message::user(text(n, *len)))],
            Step::Answer(len) => vec![new(Some(AGENT), Message::assistant(text(n, *len)))],
            Step::Other(len) => vec![new(Some("other"), Message::assistant(text(n, *len)))],
            Step::Tools { calls, len } => {
                let calls: Vec<ToolCall> = (0..*calls)
                    .map(|_| {
                        call_number += 1;
                        ToolCall {
                            id: format!("call_{call_number}"),
                            name: "grep".into(),
                            arguments: json!({"pattern": "x"}),
                            signature: None,
                        }
                    })
                    .collect();
                let mut turn = vec![new(
                    Some(AGENT),
                    Message::Assistant {
                        content: None,
                        tool_calls: calls.clone(),
                    },
                )];
                turn.extend(calls.iter().map(|call| {
                    new(
                        Some(AGENT),
                        Message::Tool {
                            call_id: call.id.clone(),
                            name: call.name.clone(),
                            content: text(n, *len),
                            is_error: false,
                        },
                    )
                }));
                turn
            }
        };
        store.append_messages(session, None, &turn).unwrap();
    }
}

/// Tokens of the summary as the budget counts them (the text's estimate).
fn summary_tokens(summary: &str) -> u64 {
    (16 + summary.len() as u64).div_ceil(4)
}

/// The window the budget should select, computed from a whole read: the newest stored
/// messages whose estimates fit what the summary leaves (and at most `cap`).
fn expected(
    store: &SqliteStore,
    session: &str,
    scope: &ContextScope,
    mode: ContextMode,
    cap: u32,
    budget: u64,
) -> HistoryView {
    let summary = store.latest_summary(session, scope).unwrap();
    let after = summary.as_ref().map(|summary| summary.until_message_id);
    let stored = store
        .messages(
            session,
            &MessageQuery {
                after_id: after,
                ..MessageQuery::scope(scope.clone())
            },
        )
        .unwrap();
    let room = budget.saturating_sub(
        summary
            .as_ref()
            .map_or(0, |s| summary_tokens(&s.summary_text)),
    );
    let mut start = stored.len();
    let mut used = 0u64;
    while start > 0 {
        let next = used + u64::from(stored[start - 1].token_estimate);
        if next > room {
            break;
        }
        used = next;
        start -= 1;
    }
    if mode == ContextMode::Shared {
        start = start.max(stored.len().saturating_sub(cap as usize));
    }
    let window: std::sync::Arc<[ScopedMessage]> = stored[start..]
        .iter()
        .cloned()
        .map(ScopedMessage::from)
        .collect();
    let summary = summary.map(|summary| std::sync::Arc::from(summary.summary_text.as_str()));
    match mode {
        ContextMode::Shared => HistoryView::shared(&window, AGENT, cap as usize, summary),
        _ => HistoryView::isolated(window, summary),
    }
}

/// The rules every request history keeps: no tool result before (or without) its call, every
/// call answered, nothing over budget.
fn check_window(view: &HistoryView, budget: u64) -> Result<(), TestCaseError> {
    let tokens: u64 = view
        .entries()
        .iter()
        .map(|entry| u64::from(estimate_tokens(&entry.message)))
        .sum();
    // The summary is always shown; the messages get what it leaves.
    let room = budget.saturating_sub(view.summary().map_or(0, summary_tokens));
    prop_assert!(tokens <= room, "{tokens} tokens where {room} were left");
    let messages = view.to_messages();
    let first = usize::from(view.summary().is_some());
    let orphan = matches!(messages.get(first), Some(Message::Tool { .. }));
    prop_assert!(!orphan, "the window starts with a tool result");
    let mut open: HashSet<String> = HashSet::new();
    for message in &messages {
        match message {
            Message::Assistant { tool_calls, .. } => {
                prop_assert!(open.is_empty(), "a call left without its results: {open:?}");
                open.extend(tool_calls.iter().map(|call| call.id.clone()));
            }
            Message::Tool { call_id, .. } => {
                prop_assert!(open.remove(call_id), "result {call_id} without its call");
            }
            Message::User { .. } => {
                prop_assert!(open.is_empty(), "a call left without its results: {open:?}")
            }
        }
    }
    prop_assert!(open.is_empty(), "the last call has no results: {open:?}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_budget_takes_the_newest_messages_that_fit(
        steps in proptest::collection::vec(step(), 0..40),
        budget in 0u64..1_500,
        cap in 1u32..40,
        summarised in proptest::option::of(0usize..40),
    ) {
        let store = SqliteStore::open_in_memory().unwrap();
        let session = store.create_session(None).unwrap().id;
        for (mode, scope) in [
            (ContextMode::Isolated, ContextScope::agent(AGENT)),
            (ContextMode::Shared, ContextScope::Main),
        ] {
            write(&store, &session, &scope, &steps);
            let stored = store.messages(&session, &MessageQuery::scope(scope.clone())).unwrap();
            if let Some(cut) = summarised.filter(|cut| *cut < stored.len()) {
                store.save_summary(&session, &scope, stored[cut].id, "earlier work").unwrap();
            }
            let view = load_history_within(&store, &session, AGENT, mode, cap, budget).unwrap();
            let want = expected(&store, &session, &scope, mode, cap, budget);
            prop_assert_eq!(view.summary(), want.summary());
            prop_assert_eq!(view.entries(), want.entries());
            prop_assert_eq!(view.to_messages(), want.to_messages());
            check_window(&view, budget)?;
            // A budget that holds everything loads what a whole load does.
            let whole = load_history(&store, &session, AGENT, mode, cap).unwrap();
            let roomy = load_history_within(&store, &session, AGENT, mode, cap, u64::MAX).unwrap();
            prop_assert_eq!(roomy.to_messages(), whole.to_messages());
        }
    }
}

fn call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "grep".into(),
        arguments: json!({}),
        signature: None,
    }
}

fn result(id: &str, content: &str) -> Message {
    Message::Tool {
        call_id: id.into(),
        name: "grep".into(),
        content: content.into(),
        is_error: false,
    }
}

#[test]
fn a_window_cut_inside_a_tool_turn_starts_after_its_results() {
    let store = SqliteStore::open_in_memory().unwrap();
    let session = store.create_session(None).unwrap().id;
    let scope = ContextScope::agent(AGENT);
    let turn = [
        Message::user("find it"),
        Message::Assistant {
            content: None,
            tool_calls: vec![call("a"), call("b")],
        },
        result("a", "first hit"),
        result("b", "second hit"),
        Message::assistant("found both"),
    ];
    let new: Vec<_> = turn
        .iter()
        .map(|message| NewMessage::new(scope.clone(), Some(AGENT), message.clone()))
        .collect();
    store.append_messages(&session, None, &new).unwrap();
    let tokens: Vec<u64> = turn.iter().map(|m| u64::from(estimate_tokens(m))).collect();
    // Room for the answer and the second result only: the result goes, its call is not there.
    let budget = tokens[3] + tokens[4];
    let view =
        load_history_within(&store, &session, AGENT, ContextMode::Isolated, 100, budget).unwrap();
    assert_eq!(view.to_messages(), [Message::assistant("found both")]);
    // Room for the call and both results: the whole tool turn.
    let budget = tokens[1..].iter().sum();
    let view =
        load_history_within(&store, &session, AGENT, ContextMode::Isolated, 100, budget).unwrap();
    assert_eq!(view.to_messages(), turn[1..]);
    // One token short of that: the call does not fit, so neither do its results.
    let view = load_history_within(
        &store,
        &session,
        AGENT,
        ContextMode::Isolated,
        100,
        budget - 1,
    )
    .unwrap();
    assert_eq!(view.to_messages(), [Message::assistant("found both")]);
}

#[test]
fn the_summary_counts_against_the_budget_and_is_always_shown() {
    let store = SqliteStore::open_in_memory().unwrap();
    let session = store.create_session(None).unwrap().id;
    let scope = ContextScope::agent(AGENT);
    let notes: Vec<_> = (0..20)
        .map(|i| {
            NewMessage::new(
                scope.clone(),
                Some(AGENT),
                Message::assistant(format!("n{i:02}")),
            )
        })
        .collect();
    let ids = store.append_messages(&session, None, &notes).unwrap();
    store
        .save_summary(&session, &scope, ids[9], "the first ten notes")
        .unwrap();
    // Each note is 5 tokens ((16 + 3) / 4, rounded up); the summary 9.
    let summary = summary_tokens("the first ten notes");
    assert_eq!(summary, 9);
    let view = load_history_within(
        &store,
        &session,
        AGENT,
        ContextMode::Isolated,
        100,
        summary + 3 * 5,
    )
    .unwrap();
    assert_eq!(view.summary(), Some("the first ten notes"));
    let texts: Vec<Message> = view.iter().map(|m| m.into_owned()).collect();
    assert_eq!(
        texts,
        ["n17", "n18", "n19"].map(Message::assistant),
        "the newest that fit after the summary"
    );
    // A budget the summary alone exceeds still shows the summary, and no message.
    let view = load_history_within(&store, &session, AGENT, ContextMode::Isolated, 100, 1).unwrap();
    assert_eq!(view.summary(), Some("the first ten notes"));
    assert_eq!(view.len(), 0);
}

#[test]
fn shared_windows_keep_marks_and_both_limits() {
    let store = SqliteStore::open_in_memory().unwrap();
    let session = store.create_session(None).unwrap().id;
    let main: Vec<_> = (0..30)
        .map(|i| {
            let agent = if i % 2 == 0 { "planner" } else { AGENT };
            NewMessage::new(
                ContextScope::Main,
                Some(agent),
                Message::assistant(format!("m{i:02}")),
            )
        })
        .collect();
    store.append_messages(&session, None, &main).unwrap();
    // 5 tokens each: the budget allows 6, the cap 4.
    let view = load_history_within(&store, &session, AGENT, ContextMode::Shared, 4, 30).unwrap();
    assert_eq!(
        view.to_messages(),
        [
            Message::assistant("[planner] m26"),
            Message::assistant("m27"),
            Message::assistant("[planner] m28"),
            Message::assistant("m29"),
        ]
    );
    // The budget allows 2, the cap 4.
    let view = load_history_within(&store, &session, AGENT, ContextMode::Shared, 4, 10).unwrap();
    assert_eq!(
        view.to_messages(),
        [
            Message::assistant("[planner] m28"),
            Message::assistant("m29")
        ]
    );
}

#[test]
fn scope_tokens_is_exact_up_to_its_limit() {
    let store = SqliteStore::open_in_memory().unwrap();
    let session = store.create_session(None).unwrap().id;
    let scope = ContextScope::agent(AGENT);
    let notes: Vec<_> = (0..100)
        .map(|i| {
            NewMessage::new(
                scope.clone(),
                Some(AGENT),
                Message::assistant(format!("n{i:02}")),
            )
        })
        .collect();
    let ids = store.append_messages(&session, None, &notes).unwrap();
    assert_eq!(
        store.scope_tokens(&session, &scope, None, 10_000).unwrap(),
        500
    );
    assert_eq!(
        store.scope_tokens(&session, &scope, None, 500).unwrap(),
        500
    );
    assert!(store.scope_tokens(&session, &scope, None, 499).unwrap() > 499);
    assert_eq!(
        store
            .scope_tokens(&session, &scope, Some(ids[89]), 1_000)
            .unwrap(),
        50
    );
    assert_eq!(
        store
            .scope_tokens(&session, &ContextScope::Main, None, 1_000)
            .unwrap(),
        0
    );
    assert!(matches!(
        store.scope_tokens("nope", &scope, None, 1),
        Err(ContextError::SessionNotFound(_))
    ));
}

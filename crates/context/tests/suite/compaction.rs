//! Compaction per scope with a cursor; the provider summariser over a scripted model.

use agentctl_context::*;
use agentctl_core::{ContextMode, Message, ToolCall};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use async_trait::async_trait;
use serde_json::json;
use std::sync::Mutex;

/// Records what it was asked and answers with a numbered summary.
#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<(String, Option<String>, usize)>>,
}

#[async_trait]
impl Summarizer for Recorder {
    async fn summarize(&self, request: SummaryRequest<'_>) -> Result<String> {
        let mut calls = self.calls.lock().unwrap();
        calls.push((
            request.scope.to_string(),
            request.previous_summary.map(str::to_owned),
            request.messages.len(),
        ));
        Ok(format!("summary #{}", calls.len()))
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn fill(store: &SqliteStore, session: &str, scope: &ContextScope, agent: &str, n: usize) {
    let messages: Vec<_> = (0..n)
        .map(|i| {
            NewMessage::new(
                scope.clone(),
                Some(agent),
                Message::user(format!("message {i} {}", "x".repeat(60))),
            )
        })
        .collect();
    store.append_messages(session, None, &messages).unwrap();
}

#[test]
fn over_budget_scopes_compact_on_their_own_with_a_cursor() {
    let store = SqliteStore::open_in_memory().unwrap();
    let session = store.create_session(None).unwrap().id;
    let a = ContextScope::agent("a");
    fill(&store, &session, &a, "a", 40);
    fill(&store, &session, &ContextScope::Main, "m", 3);
    let policy = CompactionPolicy {
        budget_tokens: 500,
        keep_recent_tokens: 200,
        force: false,
    };
    let summarizer = Recorder::default();
    let written = block_on(compact_session(&store, &summarizer, &session, &policy)).unwrap();
    assert_eq!(written.len(), 1, "main is under budget");
    assert_eq!(written[0].scope, a);
    let view = load_history(&store, &session, "a", ContextMode::Isolated, 100).unwrap();
    assert_eq!(view.summary(), Some("summary #1"));
    let kept = view.len();
    assert!(kept > 0 && kept < 40);
    assert_eq!(view.entries()[0].id, written[0].until_message_id + 1);
    // Nothing is deleted.
    assert_eq!(
        store
            .messages(&session, &MessageQuery::scope(a.clone()))
            .unwrap()
            .len(),
        40
    );
    // Under budget now: no second summary until the scope grows again.
    assert!(
        block_on(compact_scope(&store, &summarizer, &session, &a, &policy))
            .unwrap()
            .is_none()
    );
    fill(&store, &session, &a, "a", 40);
    let second = block_on(compact_scope(&store, &summarizer, &session, &a, &policy))
        .unwrap()
        .unwrap();
    assert!(second.until_message_id > written[0].until_message_id);
    let calls = summarizer.calls.lock().unwrap().clone();
    assert_eq!(
        calls[1].1.as_deref(),
        Some("summary #1"),
        "the previous summary is folded in"
    );
    // Forced compaction works under budget too.
    let forced = CompactionPolicy {
        force: true,
        ..CompactionPolicy::for_context_window(1_000_000)
    };
    assert!(
        block_on(compact_scope(
            &store,
            &summarizer,
            &session,
            &ContextScope::Main,
            &forced
        ))
        .unwrap()
        .is_some()
    );
}

#[test]
fn the_cut_never_orphans_tool_results() {
    let store = SqliteStore::open_in_memory().unwrap();
    let session = store.create_session(None).unwrap().id;
    let a = ContextScope::agent("a");
    fill(&store, &session, &a, "a", 10);
    let call = ToolCall {
        id: "c".into(),
        name: "grep".into(),
        arguments: json!({}),
        signature: None,
    };
    let result = |i: usize| Message::Tool {
        call_id: "c".into(),
        name: "grep".into(),
        content: format!("r{i} {}", "y".repeat(200)),
        is_error: false,
    };
    store
        .append_messages(
            &session,
            None,
            &[
                NewMessage::new(
                    a.clone(),
                    Some("a"),
                    Message::Assistant {
                        content: None,
                        tool_calls: vec![call],
                    },
                ),
                NewMessage::new(a.clone(), Some("a"), result(1)),
                NewMessage::new(a.clone(), Some("a"), result(2)),
            ],
        )
        .unwrap();
    // Keep about one tool result: the cut must move past both results.
    let policy = CompactionPolicy {
        budget_tokens: 100,
        keep_recent_tokens: 70,
        force: false,
    };
    let summarizer = Recorder::default();
    block_on(compact_scope(&store, &summarizer, &session, &a, &policy))
        .unwrap()
        .unwrap();
    let view = load_history(&store, &session, "a", ContextMode::Isolated, 100).unwrap();
    assert!(
        view.entries()
            .iter()
            .all(|e| !matches!(e.message, Message::Tool { .. }))
    );
}

#[test]
fn provider_summarizer_uses_the_model() {
    let provider = agentctl_test_support::QueueProvider::new(vec![agentctl_test_support::text(
        "The user asked about cats; three facts were found.",
    )]);
    let summarizer = ProviderSummarizer::new(provider.clone(), "script");
    let scope = ContextScope::Main;
    let messages = [
        Message::user("tell me about cats"),
        Message::assistant("cats sleep a lot"),
    ];
    let text = block_on(summarizer.summarize(SummaryRequest {
        scope: &scope,
        previous_summary: None,
        messages: &messages,
    }))
    .unwrap();
    assert_eq!(text, "The user asked about cats; three facts were found.");
    let request = &provider.requests()[0];
    assert_eq!(request.model, "script");
    assert!(format!("{:?}", request.messages).contains("cats sleep a lot"));
}

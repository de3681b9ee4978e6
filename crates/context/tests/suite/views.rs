//! What each mode sees; the isolation property test; constant-time shared hand-over.

use agentctl_context::*;
use agentctl_core::{ContextMode, Message, ToolCall};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use proptest::prelude::*;
use serde_json::json;
use std::sync::Arc;

#[derive(Debug, Clone)]
enum Op {
    /// The user writes to the main history.
    User,
    /// An isolated agent (index into ISOLATED) writes to its scope.
    Isolated(usize),
    /// The shared agent writes to main.
    Shared,
    /// A sub-agent step inside a run (hidden).
    Sub(usize),
}

const ISOLATED: [&str; 3] = ["alpha", "beta", "gamma"];
const SHARED: &str = "sigma";

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::User),
        (0..ISOLATED.len()).prop_map(Op::Isolated),
        Just(Op::Shared),
        (0..ISOLATED.len()).prop_map(Op::Sub),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn isolation_sharing_and_hidden_sub_steps(ops in proptest::collection::vec(op(), 0..60), cap in 1u32..20) {
        let store = SqliteStore::open_in_memory().unwrap();
        let session = store.create_session(None).unwrap().id;
        let mut own: Vec<Vec<String>> = vec![Vec::new(); ISOLATED.len()];
        let mut main: Vec<String> = Vec::new();
        let mut timeline: Vec<String> = Vec::new();
        for (n, op) in ops.iter().enumerate() {
            let text = format!("m{n}");
            let new = match op {
                Op::User => {
                    main.push(text.clone());
                    NewMessage::new(ContextScope::Main, None, Message::user(&text))
                }
                Op::Isolated(i) => {
                    own[*i].push(text.clone());
                    NewMessage::new(ContextScope::agent(ISOLATED[*i]), Some(ISOLATED[*i]), Message::assistant(&text))
                }
                Op::Shared => {
                    main.push(text.clone());
                    NewMessage::new(ContextScope::Main, Some(SHARED), Message::assistant(&text))
                }
                // Even a caller that asks for visibility cannot put a sub-agent step on the timeline.
                Op::Sub(i) => NewMessage {
                    visible: true,
                    ..NewMessage::new(ContextScope::sub(ISOLATED[*i], 7), Some(ISOLATED[*i]), Message::assistant(&text))
                },
            };
            if !matches!(op, Op::Sub(_)) {
                timeline.push(text.clone());
            }
            // Interleave single appends and record_turn-free batches alike.
            store.append_messages(&session, None, &[new]).unwrap();
        }
        for (i, agent) in ISOLATED.iter().enumerate() {
            let view = load_history(&store, &session, agent, ContextMode::Isolated, cap).unwrap();
            let seen: Vec<String> = view.to_messages().iter().map(text_of).collect();
            prop_assert_eq!(&seen, &own[i], "isolated agent {} sees only its own messages", agent);
        }
        let view = load_history(&store, &session, SHARED, ContextMode::Shared, cap).unwrap();
        let seen: Vec<String> = view.entries().iter().map(|e| text_of(&e.message)).collect();
        let expected: Vec<String> = main[main.len().saturating_sub(cap as usize)..].to_vec();
        prop_assert_eq!(seen, expected, "shared agent sees the capped main history");
        for message in view.to_messages() {
            // The shared agent's own messages are not marked; the user's never are.
            prop_assert!(!text_of(&message).starts_with('['));
        }
        let shown: Vec<String> = store
            .messages(&session, &MessageQuery::timeline())
            .unwrap()
            .iter()
            .map(|m| text_of(&m.message))
            .collect();
        prop_assert_eq!(shown, timeline, "sub-agent steps never appear in the timeline");
        prop_assert!(load_history(&store, &session, "alpha", ContextMode::Run, cap).unwrap().is_empty());
    }
}

fn text_of(message: &Message) -> String {
    match message {
        Message::User { content } | Message::Tool { content, .. } => content.clone(),
        Message::Assistant { content, .. } => content.clone().unwrap_or_default(),
    }
}

fn entry(id: i64, agent: Option<&str>, message: Message) -> ScopedMessage {
    ScopedMessage {
        id,
        agent: agent.map(str::to_owned),
        message,
    }
}

#[test]
fn shared_view_marks_other_agents_and_keeps_tool_pairs() {
    let call = ToolCall {
        id: "c1".into(),
        name: "grep".into(),
        arguments: json!({}),
        signature: None,
    };
    let main: Arc<[ScopedMessage]> = vec![
        entry(1, None, Message::user("task")),
        entry(
            2,
            Some("planner"),
            Message::Assistant {
                content: None,
                tool_calls: vec![call.clone()],
            },
        ),
        entry(
            3,
            Some("planner"),
            Message::Tool {
                call_id: "c1".into(),
                name: "grep".into(),
                content: "hit".into(),
                is_error: false,
            },
        ),
        entry(4, Some("coder"), Message::assistant("done")),
        entry(5, Some("planner"), Message::user("check it")),
    ]
    .into();
    let full = HistoryView::shared(&main, "coder", 100, None).to_messages();
    assert_eq!(
        full[1],
        Message::Assistant {
            content: Some("[planner]".into()),
            tool_calls: vec![call]
        }
    );
    assert!(matches!(&full[2], Message::Tool { content, .. } if content == "hit"));
    assert_eq!(full[3], Message::assistant("done"));
    assert_eq!(full[4], Message::user("[planner] check it"));
    // A cap that would start on a tool result skips it rather than orphan it.
    let capped = HistoryView::shared(&main, "coder", 3, Some(Arc::from("earlier")));
    assert_eq!(capped.len(), 2);
    let messages = capped.to_messages();
    assert!(matches!(&messages[0], Message::User { content } if content.contains("earlier")));
    assert_eq!(messages.len(), 3);
}

#[test]
fn unanswered_trailing_tool_call_is_dropped() {
    let call = ToolCall {
        id: "c9".into(),
        name: "bash".into(),
        arguments: json!({}),
        signature: None,
    };
    let own: Arc<[ScopedMessage]> = vec![
        entry(1, None, Message::user("go")),
        entry(
            2,
            Some("a"),
            Message::Assistant {
                content: Some("running".into()),
                tool_calls: vec![call],
            },
        ),
    ]
    .into();
    assert_eq!(
        HistoryView::isolated(own, None).to_messages(),
        [Message::user("go")]
    );
}

#[test]
fn shared_hand_over_does_not_copy() {
    let main: Arc<[ScopedMessage]> = (0..10_000)
        .map(|i| entry(i, Some("x"), Message::assistant(format!("m{i}"))))
        .collect::<Vec<_>>()
        .into();
    let view = HistoryView::shared(&main, "y", 100, None);
    // Same allocation: the view points into the main history.
    assert!(std::ptr::eq(
        view.entries().as_ptr(),
        main[9_900..].as_ptr()
    ));
    assert_eq!(Arc::strong_count(&main), 2);
}

//! Messages, timelines, scopes, summaries, clearing a workspace and masking secrets.

use super::turn;
use agentctl_context::*;
use agentctl_core::{Message, Redactor, ToolCall};
use agentctl_store::*;
use serde_json::json;

on_each_backend! {
    fn message_queries(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        // With a provider's signature (Gemini's), which must come back as it went in.
        let call = ToolCall { id: "c1".into(), name: "grep".into(), arguments: json!({"q": "x"}), signature: Some("c2ln".into()) };
        let ids = store
            .append_messages(&session, None, &[
                NewMessage::new(ContextScope::Main, None, Message::user("one")),
                NewMessage::new(ContextScope::agent("a"), Some("a"), Message::Assistant { content: None, tool_calls: vec![call] }),
                NewMessage::new(ContextScope::agent("a"), Some("a"), Message::Tool { call_id: "c1".into(), name: "grep".into(), content: "found".into(), is_error: false }).hidden(),
                NewMessage::new(ContextScope::Main, None, Message::user("two")).with_source(Source::REPL),
                NewMessage::new(ContextScope::sub("t", 7), Some("t"), Message::user("never shown")),
            ])
            .unwrap();
        assert_eq!(ids.len(), 5);
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
        let all = store.messages(&session, &MessageQuery::default()).unwrap();
        assert_eq!(all.iter().map(|m| m.id).collect::<Vec<_>>(), ids);
        assert_eq!(all[1].role, "assistant");
        assert!(matches!(&all[1].message, Message::Assistant { tool_calls, .. } if tool_calls[0].signature.as_deref() == Some("c2ln")));
        assert_eq!(all[2].role, "tool");
        assert!(all[1].token_estimate > 0);
        assert_eq!(all[0].timeline_scope, MAIN_TIMELINE);
        assert_eq!(all[0].source, Source::CLI);
        assert_eq!(all[3].source, Source::REPL);
        assert!(!all[4].visible, "a sub-agent's message never reaches the timeline");
        let timeline = store.messages(&session, &MessageQuery::timeline()).unwrap();
        assert_eq!(timeline.iter().map(|m| m.id).collect::<Vec<_>>(), [ids[0], ids[1], ids[3]]);
        let last = store.messages(&session, &MessageQuery { last: Some(1), ..MessageQuery::scope(ContextScope::Main) }).unwrap();
        assert_eq!(last[0].message, Message::user("two"));
        let last_two = store.messages(&session, &MessageQuery { last: Some(2), ..MessageQuery::default() }).unwrap();
        assert_eq!(last_two.iter().map(|m| m.id).collect::<Vec<_>>(), [ids[3], ids[4]]);
        let after = store.messages(&session, &MessageQuery { after_id: Some(ids[1]), ..MessageQuery::default() }).unwrap();
        assert_eq!(after.len(), 3);
        assert_eq!(
            store.scopes(&session).unwrap(),
            [ContextScope::Main, ContextScope::agent("a"), ContextScope::sub("t", 7)]
        );
        assert!(matches!(store.messages("missing", &MessageQuery::default()), Err(ContextError::SessionNotFound(_))));
        assert!(matches!(store.scopes("missing"), Err(ContextError::SessionNotFound(_))));
    }

    fn summaries_keep_the_furthest_cursor(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let scope = ContextScope::agent("a");
        assert!(store.latest_summary(&session, &scope).unwrap().is_none());
        let first = store.save_summary(&session, &scope, 10, "up to ten").unwrap();
        assert_eq!((first.until_message_id, first.summary_text.as_str()), (10, "up to ten"));
        let further = store.save_summary(&session, &scope, 20, "up to twenty").unwrap();
        assert_eq!(further.id, first.id, "one row per scope");
        assert_eq!(further.created_at, first.created_at);
        // A summary behind the current cursor (another process compacted further) stays history.
        let behind = store.save_summary(&session, &scope, 15, "up to fifteen").unwrap();
        assert_eq!(behind.until_message_id, 20);
        assert_eq!(behind.summary_text, "up to twenty");
        // Equal cursors: the newer text wins.
        let again = store.save_summary(&session, &scope, 20, "twenty, again").unwrap();
        assert_eq!(again.summary_text, "twenty, again");
        assert_eq!(store.latest_summary(&session, &scope).unwrap().unwrap(), again);
        assert!(store.latest_summary(&session, &ContextScope::Main).unwrap().is_none());
        assert!(matches!(store.save_summary("missing", &scope, 1, "x"), Err(ContextError::SessionNotFound(_))));
    }

    fn views_read_alike(fresh) {
        let store = &*fresh.store;
        let session = store.create_session(None).unwrap().id;
        let shared = store.start_run(&session, &NewRun::new("s", agentctl_core::ContextMode::Shared)).unwrap();
        store.record_turn(shared.id, &[NewMessage::new(ContextScope::Main, None, Message::user("hello"))], &[]).unwrap();
        store.record_turn(shared.id, &turn(&ContextScope::Main, "s", "answer"), &[]).unwrap();
        let isolated = store.start_run(&session, &NewRun::new("i", agentctl_core::ContextMode::Isolated)).unwrap();
        store.record_turn(isolated.id, &turn(&isolated.context_scope, "i", "mine"), &[]).unwrap();
        let history = load_history(store, &session, "i", agentctl_core::ContextMode::Isolated, 100).unwrap();
        assert_eq!(history.len(), 2);
        let shared_view = load_history(store, &session, "s", agentctl_core::ContextMode::Shared, 100).unwrap();
        assert_eq!(shared_view.len(), 3);
    }

    fn clearing_an_agent_empties_its_workspace_only(fresh) {
        let store = &fresh.store;
        let mut sessions = Vec::new();
        for _ in 0..2 {
            let session = store.create_session(None).unwrap().id;
            for agent in ["reviewer", "fixer"] {
                store.append_messages(&session, None, &[
                    NewMessage::new(ContextScope::agent(agent), Some(agent), Message::assistant(format!("{agent} notes"))),
                    NewMessage::new(ContextScope::Main, Some(agent), Message::assistant(format!("{agent} handoff"))),
                ]).unwrap();
                store.save_summary(&session, &ContextScope::agent(agent), 1, "old").unwrap();
                store.save_summary(&session, &ContextScope::agent(agent), 2, "new").unwrap();
            }
            sessions.push(session);
        }
        let cleared = store.clear_agent_context_in(&sessions[0], "reviewer").unwrap();
        assert_eq!((cleared.sessions, cleared.messages, cleared.summaries), (1, 1, 2));
        let cleared = store.clear_agent_context("reviewer").unwrap();
        assert_eq!((cleared.sessions, cleared.messages, cleared.summaries), (1, 1, 2));
        assert_eq!(store.clear_agent_context("reviewer").unwrap(), ClearedContext::default());
        for session in &sessions {
            assert!(store.messages(session, &MessageQuery::scope(ContextScope::agent("reviewer"))).unwrap().is_empty());
            assert!(store.latest_summary(session, &ContextScope::agent("reviewer")).unwrap().is_none());
            assert_eq!(store.messages(session, &MessageQuery::scope(ContextScope::agent("fixer"))).unwrap().len(), 1);
            assert_eq!(store.messages(session, &MessageQuery::scope(ContextScope::Main)).unwrap().len(), 2);
        }
        assert!(matches!(store.clear_agent_context(""), Err(ContextError::InvalidScope(_))));
        assert!(matches!(store.clear_agent_context_in("missing", "reviewer"), Err(ContextError::SessionNotFound(_))));
    }

    fn token_windows_hold_the_newest_that_fit(fresh) {
        // Both stores read the same described query: newest first, stopping at the first
        // message that does not fit, returned oldest first.
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let texts = ["one", "two", "three", "four"].map(|word| word.repeat(40));
        let messages: Vec<_> = texts
            .iter()
            .map(|text| NewMessage::new(ContextScope::Main, None, Message::user(text.as_str())))
            .collect();
        let ids = store.append_messages(&session, None, &messages).unwrap();
        let all = store.messages(&session, &MessageQuery::default()).unwrap();
        let cost: Vec<u64> = all.iter().map(|m| u64::from(m.token_estimate)).collect();
        let window = |max_tokens, last| MessageQuery { max_tokens: Some(max_tokens), last, ..MessageQuery::scope(ContextScope::Main) };
        let read = |query: MessageQuery| store.messages(&session, &query).unwrap().iter().map(|m| m.id).collect::<Vec<_>>();
        assert_eq!(read(window(cost[2] + cost[3], None)), ids[2..]);
        assert_eq!(read(window(cost[2] + cost[3] - 1, None)), ids[3..], "the first that does not fit ends the window");
        assert_eq!(read(window(u64::MAX, Some(3))), ids[1..], "both limits hold");
        assert!(read(window(0, None)).is_empty());
        let after = MessageQuery { after_id: Some(ids[2]), ..window(u64::MAX, None) };
        assert_eq!(read(after), ids[3..]);
    }

    fn scope_tokens_count_newest_first_until_past_the_limit(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let scope = ContextScope::agent("a");
        let messages: Vec<_> = ["one", "two", "three"]
            .map(|word| NewMessage::new(scope.clone(), Some("a"), Message::user(word.repeat(40))))
            .into_iter()
            .chain([NewMessage::new(ContextScope::Main, None, Message::user("elsewhere"))])
            .collect();
        let ids = store.append_messages(&session, None, &messages).unwrap();
        let cost: Vec<u64> = store
            .messages(&session, &MessageQuery::scope(scope.clone()))
            .unwrap()
            .iter()
            .map(|m| u64::from(m.token_estimate))
            .collect();
        let total: u64 = cost.iter().sum();
        assert_eq!(store.scope_tokens(&session, &scope, None, u64::MAX).unwrap(), total, "exact within the limit");
        assert_eq!(store.scope_tokens(&session, &scope, Some(ids[0]), u64::MAX).unwrap(), cost[1] + cost[2]);
        let counted = store.scope_tokens(&session, &scope, None, cost[2]).unwrap();
        assert!(counted > cost[2] && counted <= total, "past the limit: {counted}");
        assert!(matches!(store.scope_tokens("missing", &scope, None, 1), Err(ContextError::SessionNotFound(_))));
    }

    fn hostile_names_are_values_never_sql(fresh) {
        // Names a model or a cloned project chooses reach the store as parameters: quotes,
        // placeholders of either dialect and comments are only text.
        let store = &fresh.store;
        let session = store.create_session(Some("x'); DROP TABLE sessions; --")).unwrap().id;
        let agents = ["a' OR '1'='1", "b?1", "c$1", "d -- e", "e\\' ; DELETE FROM chat_messages"];
        for agent in agents {
            store.append_messages(&session, None, &[
                NewMessage::new(ContextScope::agent(agent), Some(agent), Message::assistant(format!("{agent} notes"))),
            ]).unwrap();
            store.save_summary(&session, &ContextScope::agent(agent), 1, "?1 $2 '").unwrap();
            store.set_session_state(&session, agent, &json!({"k": "?2"}), agent).unwrap();
        }
        let scopes = store.scopes(&session).unwrap();
        assert_eq!(scopes, agents.map(ContextScope::agent));
        let state = store.session_state(&session).unwrap();
        assert_eq!(state.len(), agents.len());
        assert_eq!(state["b?1"], json!({"k": "?2"}));
        let cleared = store.clear_agent_context_in(&session, agents[0]).unwrap();
        assert_eq!((cleared.sessions, cleared.messages, cleared.summaries), (1, 1, 1));
        assert_eq!(store.scopes(&session).unwrap().len(), agents.len() - 1, "only its own workspace went");
        assert!(matches!(store.messages("' OR '1'='1", &MessageQuery::default()), Err(ContextError::SessionNotFound(_))));
        assert_eq!(store.list_sessions().unwrap().len(), 1);
    }
}

#[test]
fn secrets_never_reach_either_store() {
    let secret = "sk-live-shared-suite-0123456789";
    for backend in agentctl_store_suite::backends() {
        let fresh = backend.fresh_with(Redactor::new([secret]));
        let store = &fresh.store;
        let session = store
            .create_session(Some(&format!("title {secret}")))
            .unwrap()
            .id;
        let run = store
            .start_run(
                &session,
                &NewRun::new("a", agentctl_core::ContextMode::Shared),
            )
            .unwrap();
        store
            .record_turn(
                run.id,
                &[NewMessage::new(
                    ContextScope::Main,
                    None,
                    Message::user(format!("key {secret}")),
                )],
                &[NewStep::new("tool_call", json!({"args": secret}))],
            )
            .unwrap();
        store
            .save_summary(&session, &ContextScope::Main, 1, &format!("said {secret}"))
            .unwrap();
        store
            .set_session_state(&session, "task", &json!({"note": secret}), "a")
            .unwrap();
        store
            .write_handoff(
                run.id,
                &HandoffSummary {
                    summary: format!("done {secret}"),
                    files_changed: vec![],
                    open_items: vec![],
                },
            )
            .unwrap();
        let everything = format!(
            "{:?}{:?}{:?}{:?}{:?}",
            store.session(&session).unwrap(),
            store.messages(&session, &MessageQuery::default()).unwrap(),
            store.steps(run.id).unwrap(),
            store.latest_summary(&session, &ContextScope::Main).unwrap(),
            store.session_state(&session).unwrap(),
        );
        assert!(!everything.contains(secret), "{backend:?}: {everything}");
        assert!(everything.contains(Redactor::MASK), "{backend:?}");
    }
}

//! Sessions, mode overrides, and names that are data, never SQL.

use agentctl_core::{ContextMode, Message};
use agentctl_store::*;

on_each_backend! {
    fn sessions_create_list_latest_delete(fresh) {
        let store = &fresh.store;
        assert!(store.latest_session().unwrap().is_none());
        let first = store.create_session(Some("first")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let second = store.create_session(None).unwrap();
        assert_ne!(first.id, second.id);
        assert_eq!(store.session(&first.id).unwrap().title.as_deref(), Some("first"));
        assert_eq!(store.latest_session().unwrap().unwrap().id, second.id);
        // Writing to the first makes it the latest.
        std::thread::sleep(std::time::Duration::from_millis(5));
        store
            .append_messages(&first.id, None, &[NewMessage::new(ContextScope::Main, None, Message::user("hi"))])
            .unwrap();
        assert_eq!(store.latest_session().unwrap().unwrap().id, first.id);
        let list = store.list_sessions().unwrap();
        assert_eq!(list.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [first.id.as_str(), second.id.as_str()]);
        assert_eq!((list[0].message_count, list[0].run_count), (1, 0));
        assert!(store.delete_session(&first.id).unwrap());
        assert!(!store.delete_session(&first.id).unwrap());
        assert!(matches!(store.session(&first.id), Err(ContextError::SessionNotFound(_))));
        assert!(matches!(store.append_messages(&first.id, None, &[]), Err(ContextError::SessionNotFound(_))));
        assert_eq!(store.list_sessions().unwrap().len(), 1);
    }

    fn sessions_written_in_the_same_millisecond_list_newest_first(fresh) {
        let store = &fresh.store;
        let ids: Vec<String> = (0..5).map(|_| store.create_session(None).unwrap().id).collect();
        let listed: Vec<String> = store.list_sessions().unwrap().into_iter().map(|s| s.id).collect();
        let mut expected = ids.clone();
        expected.reverse();
        assert_eq!(listed, expected);
        assert_eq!(store.latest_session().unwrap().unwrap().id, ids[4]);
    }

    fn open_session_new_resume_continue(fresh) {
        let store = &*fresh.store;
        let made = open_session(store, &SessionChoice::NewTitled("t".into())).unwrap();
        assert_eq!(made.title.as_deref(), Some("t"));
        assert_eq!(open_session(store, &SessionChoice::Continue).unwrap().id, made.id);
        assert_eq!(open_session(store, &SessionChoice::Resume(made.id.clone())).unwrap().id, made.id);
        assert!(matches!(
            open_session(store, &SessionChoice::Resume("nope".into())),
            Err(ContextError::SessionNotFound(_))
        ));
    }

    fn mode_overrides_round_trip(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        store.set_mode_override(&session, "a", Some(ContextMode::Shared)).unwrap();
        store.set_mode_override(&session, "a", Some(ContextMode::Run)).unwrap();
        store.set_mode_override(&session, "b", Some(ContextMode::Shared)).unwrap();
        store.set_mode_override(&session, "b", None).unwrap();
        let overrides = store.mode_overrides(&session).unwrap();
        assert_eq!(overrides.into_iter().collect::<Vec<_>>(), [("a".to_owned(), ContextMode::Run)]);
        assert!(matches!(store.set_mode_override("missing", "a", None), Err(ContextError::SessionNotFound(_))));
        assert!(matches!(store.mode_overrides("missing"), Err(ContextError::SessionNotFound(_))));
        let plain = store.create_session(None).unwrap().id;
        assert!(store.mode_overrides(&plain).unwrap().is_empty());
    }

    fn hostile_names_are_data(fresh) {
        let store = &fresh.store;
        // What a model or a user could put where names go: quotes, SQL, NUL, long and odd text.
        let names = [
            "'; DROP TABLE sessions; --",
            "a\"b\\c",
            "robert'); DELETE FROM chat_messages; --",
            "naïve 😀 名前",
            "$1 %s ? :name",
        ];
        let session = store.create_session(Some(names[0])).unwrap().id;
        for name in names {
            store.set_mode_override(&session, name, Some(ContextMode::Run)).unwrap();
            store.set_session_state(&session, name, &serde_json::json!({"v": name}), name).unwrap();
            let run = store.start_run(&session, &NewRun::new(name, ContextMode::Isolated)).unwrap();
            assert_eq!(run.context_scope, ContextScope::agent(name));
            store.record_turn(run.id, &[NewMessage::new(run.context_scope.clone(), Some(name), Message::assistant(name))], &[]).unwrap();
            let mine = store.messages(&session, &MessageQuery::scope(ContextScope::agent(name))).unwrap();
            assert_eq!(mine.len(), 1, "{name}");
            assert_eq!(mine[0].agent.as_deref(), Some(name));
        }
        assert_eq!(store.mode_overrides(&session).unwrap().len(), names.len());
        assert_eq!(store.session_state(&session).unwrap().len(), names.len());
        assert_eq!(store.session(&session).unwrap().title.as_deref(), Some(names[0]));
        assert_eq!(store.list_sessions().unwrap().len(), 1);
        // Lookups by hostile ids find nothing, and break nothing.
        for id in names {
            assert!(matches!(store.session(id), Err(ContextError::SessionNotFound(_))));
        }
        let cleared = store.clear_agent_context(names[2]).unwrap();
        assert_eq!((cleared.sessions, cleared.messages), (1, 1));
        assert_eq!(store.messages(&session, &MessageQuery::default()).unwrap().len(), names.len() - 1);
    }

    fn nul_characters_never_fail_a_write(fresh) {
        let store = &fresh.store;
        // PostgreSQL text cannot hold NUL; SQLite can. Either way the write succeeds and the
        // rows read back under the same names.
        let session = store.create_session(Some("title\0with nul")).unwrap().id;
        let run = store.start_run(&session, &NewRun::new("agent\0x", ContextMode::Isolated)).unwrap();
        store.record_turn(run.id, &[NewMessage::new(run.context_scope.clone(), Some("agent\0x"), Message::assistant("text\0more"))], &[NewStep::new("kind\0x", serde_json::json!({"a": "b\0c"}))]).unwrap();
        store.set_session_state(&session, "key\0x", &serde_json::json!("v\0w"), "agent\0x").unwrap();
        let summary = store.save_summary(&session, &run.context_scope, 1, "summary\0text").unwrap();
        assert!(summary.summary_text.starts_with("summary"));
        let messages = store.messages(&session, &MessageQuery::scope(run.context_scope.clone())).unwrap();
        assert_eq!(messages.len(), 1);
        // The message JSON keeps the NUL escaped: it comes back exactly.
        assert_eq!(messages[0].message, Message::assistant("text\0more"));
        assert_eq!(store.session_state(&session).unwrap().len(), 1);
        assert_eq!(store.steps(run.id).unwrap()[0].content, serde_json::json!({"a": "b\0c"}));
    }
}

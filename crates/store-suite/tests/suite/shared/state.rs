//! Session state: set, replace, delete with `null`, who wrote it, key order, odd values.

use agentctl_store::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;

on_each_backend! {
    fn set_replace_delete_and_entries(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        assert!(store.session_state(&session).unwrap().is_empty());
        store.set_session_state(&session, "task", &json!({"status": "need-review"}), "planner").unwrap();
        store.set_session_state(&session, "fix", &json!({"applied": true}), "fixer").unwrap();
        store.set_session_state(&session, "count", &json!(3), "fixer").unwrap();
        // Byte order, as a BTreeMap sorts: upper case before lower case, `_` between.
        store.set_session_state(&session, "Zed", &json!(1), "x").unwrap();
        store.set_session_state(&session, "_u", &json!(2), "x").unwrap();
        store.set_session_state(&session, "task", &json!({"status": "done"}), "reviewer").unwrap();
        let entries = store.state_entries(&session).unwrap();
        assert_eq!(
            entries.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(),
            ["Zed", "_u", "count", "fix", "task"]
        );
        let task = &entries[4];
        assert_eq!((task.value.clone(), task.updated_by.as_str()), (json!({"status": "done"}), "reviewer"));
        assert!(task.updated_at > 0);
        store.set_session_state(&session, "count", &Value::Null, "fixer").unwrap();
        store.set_session_state(&session, "never-set", &Value::Null, "fixer").unwrap();
        let odd = json!({"s": "é \"quoted\" \\ '; DROP TABLE session_state; --", "n": -1.5, "u": u64::MAX, "l": [null, false], "z": {"b": 1, "a": 2}});
        store.set_session_state(&session, "odd", &odd, "x").unwrap();
        let state = store.session_state(&session).unwrap();
        assert_eq!(
            state,
            BTreeMap::from([
                ("Zed".to_owned(), json!(1)),
                ("_u".to_owned(), json!(2)),
                ("fix".to_owned(), json!({"applied": true})),
                ("odd".to_owned(), odd.clone()),
                ("task".to_owned(), json!({"status": "done"})),
            ])
        );
        // Object keys keep the order they were written in.
        assert_eq!(state["odd"].to_string(), odd.to_string());
        assert!(matches!(store.session_state("missing"), Err(ContextError::SessionNotFound(_))));
        assert!(matches!(store.state_entries("missing"), Err(ContextError::SessionNotFound(_))));
        assert!(matches!(store.set_session_state("missing", "k", &json!(1), "a"), Err(ContextError::SessionNotFound(_))));
        store.delete_session(&session).unwrap();
        let again = store.create_session(None).unwrap().id;
        assert!(store.session_state(&again).unwrap().is_empty());
    }
}

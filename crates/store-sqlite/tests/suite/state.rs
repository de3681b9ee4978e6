//! Session state: set, replace, delete with `null`, who wrote what, secrets masked, the session's
//! deletion taking its state along, an older file migrated, and two connections writing at once.

use super::support::temp_store;
use agentctl_core::Redactor;
use agentctl_store::*;
use agentctl_store_sqlite::*;
use rusqlite::Connection;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Barrier};

#[test]
fn set_replace_delete_and_entries() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap();
    assert!(store.session_state(&session.id).unwrap().is_empty());

    store
        .set_session_state(
            &session.id,
            "task",
            &json!({"status": "need-review"}),
            "planner",
        )
        .unwrap();
    store
        .set_session_state(
            &session.id,
            "fix",
            &json!({"applied": true, "files": ["a.rs"]}),
            "fixer",
        )
        .unwrap();
    store
        .set_session_state(&session.id, "count", &json!(3), "fixer")
        .unwrap();
    let state = store.session_state(&session.id).unwrap();
    assert_eq!(
        state,
        BTreeMap::from([
            ("count".to_owned(), json!(3)),
            (
                "fix".to_owned(),
                json!({"applied": true, "files": ["a.rs"]})
            ),
            ("task".to_owned(), json!({"status": "need-review"})),
        ])
    );

    // Setting replaces the whole value and records the new writer.
    store
        .set_session_state(&session.id, "task", &json!({"status": "done"}), "reviewer")
        .unwrap();
    let entries = store.state_entries(&session.id).unwrap();
    let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["count", "fix", "task"]);
    let task = &entries[2];
    assert_eq!(task.value, json!({"status": "done"}));
    assert_eq!(task.updated_by, "reviewer");
    assert!(task.updated_at > 0);

    // `null` deletes; deleting a key that is not set is fine.
    store
        .set_session_state(&session.id, "count", &Value::Null, "fixer")
        .unwrap();
    store
        .set_session_state(&session.id, "never-set", &Value::Null, "fixer")
        .unwrap();
    let state = store.session_state(&session.id).unwrap();
    assert_eq!(
        state.keys().map(String::as_str).collect::<Vec<_>>(),
        ["fix", "task"]
    );

    // Values of every JSON kind round-trip, unicode and quotes included.
    let odd = json!({"s": "é \"quoted\" \\ '; DROP TABLE session_state; --", "n": -1.5, "u": u64::MAX, "l": [null, false]});
    store
        .set_session_state(&session.id, "odd", &odd, "x")
        .unwrap();
    assert_eq!(store.session_state(&session.id).unwrap()["odd"], odd);
}

#[test]
fn state_is_per_session_and_goes_with_the_session() {
    let temp = temp_store();
    let store = &temp.store;
    let one = store.create_session(None).unwrap();
    let two = store.create_session(None).unwrap();
    store
        .set_session_state(&one.id, "task", &json!({"status": "a"}), "x")
        .unwrap();
    store
        .set_session_state(&two.id, "task", &json!({"status": "b"}), "x")
        .unwrap();
    assert_eq!(store.session_state(&one.id).unwrap()["task"]["status"], "a");
    assert_eq!(store.session_state(&two.id).unwrap()["task"]["status"], "b");

    assert!(store.delete_session(&one.id).unwrap());
    let conn = Connection::open(&temp.path).unwrap();
    let rows: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM session_state WHERE session_id = ?1",
            [&one.id],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(rows, 0, "the session's state is deleted with it");
    assert_eq!(store.session_state(&two.id).unwrap().len(), 1);
}

#[test]
fn unknown_session_is_a_clear_error() {
    let temp = temp_store();
    let error = temp.store.session_state("nope").unwrap_err();
    assert!(matches!(error, ContextError::SessionNotFound(ref id) if id == "nope"));
    let error = temp
        .store
        .set_session_state("nope", "task", &json!({}), "x")
        .unwrap_err();
    assert_eq!(error.to_string(), "no session `nope` in the session store");
}

#[test]
fn secrets_are_masked_on_write() {
    let temp = temp_store();
    let secret = "sk-live-0123456789abcdef";
    let store = SqliteStore::open(&temp.path)
        .unwrap()
        .with_redactor(Redactor::new([secret]));
    let session = store.create_session(None).unwrap();
    store
        .set_session_state(
            &session.id,
            "notes",
            &json!({"token": secret, "list": [format!("key={secret}")], secret: 1}),
            "x",
        )
        .unwrap();
    let state = store.session_state(&session.id).unwrap();
    assert_eq!(
        state["notes"],
        json!({"token": "[REDACTED]", "list": ["key=[REDACTED]"], "[REDACTED]": 1})
    );
    drop(store);
    let raw = std::fs::read(&temp.path).unwrap();
    let wal = std::fs::read(temp.path.with_file_name("sessions.db-wal")).unwrap_or_default();
    let needle = secret.as_bytes();
    for bytes in [raw, wal] {
        assert!(!bytes.windows(needle.len()).any(|w| w == needle));
    }
}

#[test]
fn a_version_2_file_gains_the_state_table() {
    let temp = temp_store();
    let session = temp.store.create_session(Some("old")).unwrap();
    drop(temp.store);
    // Back to what an agentctl before session state left: no table, user_version 2.
    let conn = Connection::open(&temp.path).unwrap();
    super::support::downgrade_to_v5(&conn);
    conn.execute_batch(
        "DROP TABLE trace_spans; DROP TABLE graph_checkpoints; DROP TABLE session_state; \
         PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(conn);
    let store = SqliteStore::open(&temp.path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    store
        .set_session_state(&session.id, "task", &json!({"status": "x"}), "a")
        .unwrap();
    assert_eq!(store.session_state(&session.id).unwrap().len(), 1);
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

/// Two connections (what two processes have) write the same session at once: every key of
/// both lands, and a key both write holds one of their values.
#[test]
fn two_connections_interleave_writes() {
    let temp = temp_store();
    let session = temp.store.create_session(None).unwrap();
    const WRITES: usize = 40;
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = ["left", "right"]
        .into_iter()
        .map(|agent| {
            let barrier = Arc::clone(&barrier);
            let path = temp.path.clone();
            let session = session.id.clone();
            std::thread::spawn(move || {
                let store = SqliteStore::open(&path).unwrap();
                barrier.wait();
                for n in 0..WRITES {
                    store
                        .set_session_state(&session, &format!("{agent}_{n}"), &json!(n), agent)
                        .unwrap();
                    store
                        .set_session_state(&session, "shared", &json!({"by": agent, "n": n}), agent)
                        .unwrap();
                    // Reads between the other's writes see a consistent state.
                    let state = store.session_state(&session).unwrap();
                    assert_eq!(state[&format!("{agent}_{n}")], json!(n));
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let entries = temp.store.state_entries(&session.id).unwrap();
    assert_eq!(entries.len(), 2 * WRITES + 1);
    for agent in ["left", "right"] {
        for n in 0..WRITES {
            let entry = entries
                .iter()
                .find(|e| e.key == format!("{agent}_{n}"))
                .unwrap();
            assert_eq!(
                (entry.value.clone(), entry.updated_by.as_str()),
                (json!(n), agent)
            );
        }
    }
    let shared = entries.iter().find(|e| e.key == "shared").unwrap();
    assert_eq!(shared.value["n"], json!(WRITES - 1));
    assert_eq!(shared.value["by"], json!(shared.updated_by));
    assert_eq!(temp.store.integrity_check().unwrap(), "ok");
}

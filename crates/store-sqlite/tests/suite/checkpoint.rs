//! The log of a file store is checkpointed off the write path: it stays bounded while a run
//! records many turns, and closing the store leaves every message in the database.

use agentctl_core::{ContextMode, Message};
use agentctl_store::*;
use agentctl_store_sqlite::*;

#[test]
fn the_log_stays_bounded_and_closing_keeps_every_turn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let wal = dir.path().join("sessions.db-wal");
    let store = SqliteStore::open(&path).unwrap();
    let session = store.create_session(None).unwrap().id;
    let run = store
        .start_run(&session, &NewRun::new("writer", ContextMode::Isolated))
        .unwrap();
    let turn: Vec<_> = (0..10)
        .map(|i| {
            NewMessage::new(
                run.context_scope.clone(),
                Some("writer"),
                Message::assistant(format!("note {i}: {}", "x".repeat(300))),
            )
        })
        .collect();
    let mut largest = 0;
    for _ in 0..1_000 {
        store.record_turn(run.id, &turn, &[]).unwrap();
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |meta| meta.len()));
    }
    // Unchecked, 1,000 turns of ~12 pages each would leave a log of ~48 MB.
    assert!(largest < 24 << 20, "the log grew to {largest} bytes");
    drop(store);
    assert!(std::fs::metadata(&wal).map_or(0, |meta| meta.len()) == 0);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert_eq!(store.session(&session).unwrap().message_count, 10_000);
    let last = store
        .messages(
            &session,
            &MessageQuery {
                last: Some(1),
                ..MessageQuery::scope(run.context_scope)
            },
        )
        .unwrap();
    assert_eq!(last[0].message, turn[9].message);
}

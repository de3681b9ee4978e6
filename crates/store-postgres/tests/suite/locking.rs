//! Per-session locking: a write waits for whoever holds its session's lock, and only for them.

use super::support::{Sql, scratch};
use agentctl_core::{ContextMode, Message};
use agentctl_store::*;
use agentctl_store_postgres::PgStore;

/// Waits (bounded) until a backend of the database waits for a lock.
fn until_a_writer_waits(sql: &Sql) {
    for _ in 0..400 {
        let waiting = sql.column(
            "SELECT count(*)::text FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
            &[],
        );
        if waiting != ["0"] {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("no writer ever waited for the session's lock");
}

#[test]
fn a_turn_waits_for_the_sessions_lock_and_other_sessions_do_not() {
    let Some(database) = scratch() else { return };
    let store = std::sync::Arc::new(PgStore::connect(database.url()).unwrap());
    let busy = store.create_session(None).unwrap().id;
    let free = store.create_session(None).unwrap().id;
    let run = store
        .start_run(&busy, &NewRun::new("a", ContextMode::Shared))
        .unwrap();
    // Another process's turn in progress: it holds the session's row lock.
    let holder = Sql::connect(database.url());
    holder.batch("BEGIN");
    holder.column("SELECT id FROM sessions WHERE id = $1 FOR UPDATE", &[&busy]);
    let writer = {
        let store = std::sync::Arc::clone(&store);
        std::thread::spawn(move || {
            store.record_turn(
                run.id,
                &[NewMessage::new(
                    ContextScope::Main,
                    None,
                    Message::user("after"),
                )],
                &[],
            )
        })
    };
    let watcher = Sql::connect(database.url());
    until_a_writer_waits(&watcher);
    assert!(!writer.is_finished(), "the turn waited for the lock");
    // Meanwhile another session is written at once.
    store
        .append_messages(
            &free,
            None,
            &[NewMessage::new(
                ContextScope::Main,
                None,
                Message::user("free"),
            )],
        )
        .unwrap();
    holder.batch("COMMIT");
    let ids = writer.join().unwrap().unwrap();
    assert_eq!(ids.len(), 1);
    assert_eq!(
        store
            .messages(&busy, &MessageQuery::default())
            .unwrap()
            .len(),
        1
    );
}

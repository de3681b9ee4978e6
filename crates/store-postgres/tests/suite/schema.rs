//! Migrations: a fresh database opened by many at once is migrated once, a newer schema is
//! refused, and the seed's inspection queries run on the tables as written.

use super::support::{Sql, scratch};
use agentctl_core::{ContextMode, Message};
use agentctl_store::*;
use agentctl_store_postgres::{PG_SCHEMA_VERSION, PgStore};
use std::sync::{Arc, Barrier};

#[test]
fn a_fresh_database_opened_by_many_at_once_is_migrated_once() {
    let Some(database) = scratch() else { return };
    let barrier = Arc::new(Barrier::new(6));
    let openers: Vec<_> = (0..6)
        .map(|_| {
            let (barrier, url) = (Arc::clone(&barrier), database.url().to_owned());
            std::thread::spawn(move || {
                barrier.wait();
                let store = PgStore::connect(&url).unwrap();
                store.create_session(None).unwrap();
                store.schema_version().unwrap()
            })
        })
        .collect();
    for opener in openers {
        assert_eq!(opener.join().unwrap(), PG_SCHEMA_VERSION);
    }
    let sql = Sql::connect(database.url());
    let versions = sql.column(
        "SELECT version::text FROM agentctl_schema_migrations ORDER BY version",
        &[],
    );
    let expected: Vec<String> = (1..=PG_SCHEMA_VERSION).map(|v| v.to_string()).collect();
    assert_eq!(versions, expected);
    assert_eq!(
        sql.column("SELECT count(*)::text FROM sessions", &[]),
        ["6"]
    );
}

#[test]
fn a_database_of_a_newer_agentctl_is_refused() {
    let Some(database) = scratch() else { return };
    drop(PgStore::connect(database.url()).unwrap());
    Sql::connect(database.url()).batch("INSERT INTO agentctl_schema_migrations VALUES (999, 0)");
    let error = PgStore::connect(database.url()).unwrap_err();
    assert!(
        matches!(error, ContextError::SchemaTooNew { found: 999, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("upgrade agentctl"), "{error}");
}

#[test]
fn the_seed_inspection_queries_run_as_written() {
    let Some(database) = scratch() else { return };
    let store = PgStore::connect(database.url()).unwrap();
    let session = store.create_session(None).unwrap().id;
    let run = store
        .start_run(&session, &NewRun::new("helper", ContextMode::Shared))
        .unwrap();
    store
        .record_turn(
            run.id,
            &[NewMessage::new(
                ContextScope::Main,
                None,
                Message::user("hello"),
            )],
            &[],
        )
        .unwrap();
    store
        .save_summary(&session, &ContextScope::Main, 1, "said hello")
        .unwrap();
    let sql = Sql::connect(database.url());
    let visible = sql.column(
        "SELECT role FROM (SELECT id, role, source, created_at, substr(content, 1, 120)
         FROM chat_messages WHERE visible = 1 ORDER BY id DESC LIMIT 20) AS last",
        &[],
    );
    assert_eq!(visible, ["user"]);
    let cursors = sql.column(
        "SELECT scope FROM (SELECT scope, until_message_id, length(summary_text) AS summary_len, updated_at
         FROM chat_context_summaries ORDER BY updated_at DESC) AS cursors",
        &[],
    );
    assert_eq!(cursors, ["main"]);
    let runs = sql.column(
        "SELECT status FROM (SELECT id, source, status, model, started_at, finished_at
         FROM agent_runs ORDER BY id DESC LIMIT 20) AS runs",
        &[],
    );
    assert_eq!(runs, ["running"]);
}

//! A file the v5 store wrote (`tests/fixtures/sessions_v5.sql`) migrates to the latest version
//! with all of its rows: sources filled from what each run was, one current summary per scope
//! with the older ones kept as history, sessions counting their messages and runs, and seed
//! 001's inspection queries answering on it.

use super::inspection::inspect;
use super::support::v5_file;
use agentctl_context::*;
use agentctl_core::{ContextMode, Message, Usage};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use rusqlite::Connection;

#[test]
fn a_version_5_file_is_migrated_with_its_data() {
    let (_dir, path) = v5_file();
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(SCHEMA_VERSION, 9);
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let conn = Connection::open(&path).unwrap();
    let violations: i64 = conn
        .query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(violations, 0);
    let count = |table: &str| -> i64 {
        conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
    };
    for (table, rows) in [
        ("sessions", 2),
        ("chat_messages", 14),
        ("agent_runs", 6),
        ("agent_run_steps", 6),
        ("chat_context_summaries", 3),
        ("chat_context_summary_history", 1),
        ("graph_checkpoints", 2),
        ("session_state", 1),
        ("session_mode_overrides", 1),
    ] {
        assert_eq!(count(table), rows, "{table}");
    }

    let sessions = store.list_sessions().unwrap();
    let first = sessions
        .iter()
        .find(|session| session.title.as_deref() == Some("fix the parser"))
        .unwrap()
        .id
        .clone();
    let second = sessions.iter().find(|s| s.id != first).unwrap().id.clone();
    // Counted once by the migration (v7), then kept by triggers.
    let counts = |id: &str| {
        let info = store.session(id).unwrap();
        (info.message_count, info.run_count)
    };
    assert_eq!(counts(&first), (11, 5));
    assert_eq!(counts(&second), (3, 1));

    // Sources read back from what each run was: a task, a handoff, a graph node, else cli.
    let (messages, summaries, runs) = inspect(&path);
    let sources: Vec<(i64, &str)> = runs.iter().map(|r| (r.id, r.source.as_str())).collect();
    assert_eq!(
        sources,
        [
            (6, "cli"),
            (5, "graph"),
            (4, "handoff"),
            (3, "cli"),
            (2, "task"),
            (1, "cli")
        ]
    );
    assert_eq!(runs[0].finished_at, None);
    assert_eq!(runs[0].status, "running");
    // Messages take their run's source: the task's handoff in main says `task`.
    let visible: Vec<(i64, &str)> = messages.iter().map(|m| (m.id, m.source.as_str())).collect();
    assert_eq!(
        visible,
        [
            (14, "cli"),
            (13, "cli"),
            (12, "cli"),
            (11, "graph"),
            (10, "handoff"),
            (9, "handoff"),
            (8, "cli"),
            (7, "cli"),
            (6, "cli"),
            (5, "task"),
            (1, "cli")
        ]
    );
    let all = store.messages(&first, &MessageQuery::default()).unwrap();
    assert_eq!(all.len(), 11);
    assert_eq!(all[3].source, Source::TASK);
    assert_eq!(all[3].message, Message::assistant("Added 3 tests."));

    // One current summary per scope: the further cursor; the older one kept as history.
    let mut cursors: Vec<(&str, i64)> = summaries
        .iter()
        .map(|s| (s.scope.as_str(), s.until_message_id))
        .collect();
    cursors.sort();
    assert_eq!(
        cursors,
        [("agent:reviewer", 8), ("agent:reviewer", 13), ("main", 3)]
    );
    let reviewer = ContextScope::agent("reviewer");
    let current = store.latest_summary(&first, &reviewer).unwrap().unwrap();
    assert_eq!(
        current.summary_text,
        "Reviewed the parser: two issues, handed to fixer."
    );
    assert_eq!(current.updated_at, 1_795_455_053_637);
    let replaced: (i64, String, i64) = conn
        .query_row(
            "SELECT until_message_id, summary_text, replaced_at FROM chat_context_summary_history",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        replaced,
        (7, "The user asked for a review.".into(), 1_795_455_053_637)
    );
    assert_eq!(
        store
            .latest_summary(&second, &reviewer)
            .unwrap()
            .unwrap()
            .summary_text,
        "Lexer reviewed."
    );

    // Older steps have no token figures; the rest of the file reads as before.
    assert!(
        store
            .steps(1)
            .unwrap()
            .iter()
            .all(|step| step.budget.is_none())
    );
    assert_eq!(store.run(2).unwrap().parent_run_id, Some(1));
    assert_eq!(store.graph_checkpoints(&first, 0).unwrap()[1].run, Some(5));
    assert_eq!(
        store.session_state(&first).unwrap()["task"]["status"],
        "done"
    );
    assert_eq!(
        store.mode_overrides(&first).unwrap()["reviewer"],
        ContextMode::Shared
    );
    let view = load_history(&store, &first, "reviewer", ContextMode::Isolated, 100).unwrap();
    assert_eq!(
        view.summary(),
        Some("Reviewed the parser: two issues, handed to fixer.")
    );

    // And it takes new writes: ids go on, a new summary replaces the current one.
    let run = store
        .start_run(&second, &NewRun::new("reviewer", ContextMode::Isolated))
        .unwrap();
    assert_eq!(run.id, 7);
    let ids = store
        .record_turn(
            run.id,
            &[NewMessage::new(
                reviewer.clone(),
                None,
                Message::user("again"),
            )],
            &[],
        )
        .unwrap();
    assert_eq!(ids, [15]);
    store
        .save_summary(&second, &reviewer, 15, "Lexer reviewed twice.")
        .unwrap();
    assert_eq!(count("chat_context_summaries"), 3);
    assert_eq!(count("chat_context_summary_history"), 2);
    store
        .finish_run(run.id, RunStatus::Completed, Usage::default())
        .unwrap();
    assert_eq!(counts(&second), (4, 2));
}

/// A v6 file (no counts in `sessions`) gains them, counted from its rows; later inserts and
/// deletes of messages and runs keep them equal to a count of the rows.
#[test]
fn a_version_6_file_gains_session_counts_that_stay_true() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let store = SqliteStore::open(&path).unwrap();
    let first = store.create_session(Some("one")).unwrap().id;
    let second = store.create_session(Some("two")).unwrap().id;
    let reviewer = ContextScope::agent("reviewer");
    let run = store
        .start_run(&first, &NewRun::new("reviewer", ContextMode::Isolated))
        .unwrap();
    store
        .record_turn(
            run.id,
            &[
                NewMessage::new(reviewer.clone(), None, Message::user("look")),
                NewMessage::new(reviewer, Some("reviewer"), Message::assistant("ok")),
            ],
            &[],
        )
        .unwrap();
    store
        .append_messages(
            &second,
            None,
            &[NewMessage::new(
                ContextScope::Main,
                None,
                Message::user("hi"),
            )],
        )
        .unwrap();
    drop(store);
    let conn = Connection::open(&path).unwrap();
    super::support::downgrade_to_v6(&conn);
    drop(conn);

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let counts = |id: &str| {
        let info = store.session(id).unwrap();
        (info.message_count, info.run_count)
    };
    assert_eq!(counts(&first), (2, 1));
    assert_eq!(counts(&second), (1, 0));

    // Every write path keeps them: appends, handoffs, clearing a workspace, deleting.
    store
        .write_handoff(
            run.id,
            &HandoffSummary {
                summary: "reviewed".into(),
                files_changed: Vec::new(),
                open_items: Vec::new(),
            },
        )
        .unwrap();
    assert_eq!(counts(&first), (3, 1));
    store.clear_agent_context("reviewer").unwrap();
    assert_eq!(counts(&first), (1, 1));
    let conn = Connection::open(&path).unwrap();
    let rows: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM chat_messages WHERE session_id = ?1",
            [&first],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(rows, 1);
    assert!(store.delete_session(&first).unwrap());
    assert_eq!(counts(&second), (1, 0));
    let listed: Vec<_> = store
        .list_sessions()
        .unwrap()
        .into_iter()
        .map(|info| (info.id, info.message_count, info.run_count))
        .collect();
    assert_eq!(listed, [(second, 1, 0)]);
}

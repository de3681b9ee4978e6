//! Shared helpers: a store in a temporary directory.

use agentctl_store_sqlite::SqliteStore;
use std::path::PathBuf;

/// A file-backed store in a fresh temporary directory.
pub struct TempStore {
    pub store: SqliteStore,
    pub path: PathBuf,
    pub _dir: tempfile::TempDir,
}

pub fn temp_store() -> TempStore {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".agentctl").join("sessions.db");
    TempStore {
        store: SqliteStore::open(&path).unwrap(),
        path,
        _dir: dir,
    }
}

/// Starts this test binary again running only the test `name` (a writer the caller kills),
/// with `env` set to the database `path`; its output is discarded.
pub fn spawn_child_test(name: &str, env: &str, path: &std::path::Path) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(env, path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Takes an up-to-date file back to what schema version 7 left: no marks of copies.
pub fn downgrade_to_v7(conn: &rusqlite::Connection) {
    downgrade_to_v8(conn);
    conn.execute_batch("DROP TABLE session_sync; PRAGMA user_version = 7;")
        .unwrap();
}

/// Takes an up-to-date file back to what schema version 8 left: checkpoints without their
/// `parallel` record.
pub fn downgrade_to_v8(conn: &rusqlite::Connection) {
    conn.execute_batch(
        "ALTER TABLE graph_checkpoints DROP COLUMN parallel; PRAGMA user_version = 8;",
    )
    .unwrap();
}

/// Takes an up-to-date file back to what schema version 6 left: sessions without their
/// message and run counts.
pub fn downgrade_to_v6(conn: &rusqlite::Connection) {
    downgrade_to_v7(conn);
    conn.execute_batch(
        "DROP TRIGGER chat_messages_count_delete;
         DROP TRIGGER agent_runs_count_insert;
         DROP TRIGGER agent_runs_count_delete;
         ALTER TABLE sessions DROP COLUMN message_count;
         ALTER TABLE sessions DROP COLUMN run_count;
         PRAGMA user_version = 6;",
    )
    .unwrap();
}

/// Takes an up-to-date file back to what schema version 5 left — no `source` columns, every
/// summary in `chat_context_summaries`, no step token columns — so a test of an older
/// migration can step further back from there.
pub fn downgrade_to_v5(conn: &rusqlite::Connection) {
    downgrade_to_v6(conn);
    conn.execute_batch(
        "DROP INDEX idx_agent_runs_context_scope_started_at;
         ALTER TABLE agent_runs DROP COLUMN source;
         ALTER TABLE chat_messages DROP COLUMN source;
         ALTER TABLE agent_run_steps DROP COLUMN prompt_token_budget;
         ALTER TABLE agent_run_steps DROP COLUMN estimated_prompt_tokens;
         ALTER TABLE agent_run_steps DROP COLUMN model_context_window;
         DROP INDEX idx_chat_context_summaries_scope;
         INSERT INTO chat_context_summaries
             (session_id, scope, until_message_id, summary_text, created_at, updated_at)
             SELECT session_id, scope, until_message_id, summary_text, created_at, created_at
             FROM chat_context_summary_history;
         ALTER TABLE chat_context_summaries DROP COLUMN updated_at;
         DROP TABLE chat_context_summary_history;
         CREATE INDEX idx_summaries_scope
             ON chat_context_summaries(session_id, scope, until_message_id);
         PRAGMA user_version = 5;",
    )
    .unwrap();
}

/// A `sessions.db` at schema version 5, from the dump of a file the v5 store wrote
/// (`tests/fixtures/sessions_v5.sql`), in a fresh temporary directory.
pub fn v5_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(include_str!("../fixtures/sessions_v5.sql"))
        .unwrap();
    drop(conn);
    (dir, path)
}

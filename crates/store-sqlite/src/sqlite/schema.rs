//! Versioned migrations, applied in order and counted in `PRAGMA user_version`.
//!
//! A migration is never edited once released: add a new one instead. Each runs in its own
//! transaction together with the version bump, so a killed process leaves the old version.

/// The migrations; `MIGRATIONS[i]` takes the schema from version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7, V8, V9];

const V1: &str = r#"
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX idx_sessions_updated ON sessions(updated_at);

CREATE TABLE agent_runs (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    agent_id       TEXT NOT NULL,
    parent_run_id  INTEGER REFERENCES agent_runs(id) ON DELETE CASCADE,
    context_scope  TEXT NOT NULL,
    status         TEXT NOT NULL,
    model          TEXT,
    usage          TEXT,
    started_at     INTEGER NOT NULL,
    finished_at    INTEGER
);
CREATE INDEX idx_agent_runs_session ON agent_runs(session_id, id);
CREATE INDEX idx_agent_runs_parent ON agent_runs(parent_run_id);
CREATE INDEX idx_agent_runs_status ON agent_runs(session_id, status);

CREATE TABLE chat_messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id      TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id          INTEGER REFERENCES agent_runs(id) ON DELETE SET NULL,
    timeline_scope  TEXT NOT NULL,
    context_scope   TEXT NOT NULL,
    agent_id        TEXT,
    role            TEXT NOT NULL,
    content         TEXT NOT NULL,
    visible         INTEGER NOT NULL,
    token_estimate  INTEGER NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX idx_chat_messages_timeline ON chat_messages(session_id, timeline_scope, visible, id);
CREATE INDEX idx_chat_messages_context ON chat_messages(session_id, context_scope, id);
CREATE INDEX idx_chat_messages_run ON chat_messages(run_id);

CREATE TABLE chat_context_summaries (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    scope             TEXT NOT NULL,
    until_message_id  INTEGER NOT NULL,
    summary_text      TEXT NOT NULL,
    created_at        INTEGER NOT NULL
);
CREATE INDEX idx_summaries_scope ON chat_context_summaries(session_id, scope, until_message_id);

CREATE TABLE agent_run_steps (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      INTEGER NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
    step_index  INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    content     TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    UNIQUE (run_id, step_index)
);

CREATE TABLE session_mode_overrides (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    agent_id    TEXT NOT NULL,
    mode        TEXT NOT NULL,
    PRIMARY KEY (session_id, agent_id)
);
"#;

/// Who runs a run: the process (pid, its start time and the boot it started in), so a process
/// resuming a session marks `interrupted` only runs whose process is gone, never the live run
/// of another agentctl working in the same session. Runs written before have no owner and are
/// stale when still `running`, as before.
const V2: &str = r#"
ALTER TABLE agent_runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE agent_runs ADD COLUMN owner_start INTEGER;
ALTER TABLE agent_runs ADD COLUMN owner_boot TEXT;
"#;

/// Session state: the JSON values agents keep with `memory_set` (their declared
/// `memory.session` keys and the shared `task`), read by `when` conditions. One row per key;
/// who wrote it last and when, for `agentctl sessions show`. Deleting the session deletes it.
const V3: &str = r#"
CREATE TABLE session_state (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    updated_at  INTEGER NOT NULL,
    updated_by  TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
) WITHOUT ROWID;
"#;

/// Graph checkpoints: after every node of a graph run, the whole graph state, the node that
/// ran (and its agent run) and the node to run next, one row per `(session, branch, step)`.
/// Branch 0 is the first run of a graph in the session; a fork (time travel) starts a new
/// branch whose first row records the `(parent_branch, parent_step)` it was copied from. The
/// primary key is the index for "the latest checkpoint of a session's branch" (one probe from
/// its end) and for listing a session's branches; the `run_id` index keeps deleting runs from
/// scanning the table. Deleting the session deletes its checkpoints, deleting a run only
/// forgets the link.
const V4: &str = r#"
CREATE TABLE graph_checkpoints (
    session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    branch         INTEGER NOT NULL CHECK (branch >= 0),
    step           INTEGER NOT NULL CHECK (step >= 0),
    graph          TEXT NOT NULL,
    node           TEXT,
    run_id         INTEGER REFERENCES agent_runs(id) ON DELETE SET NULL,
    next_node      TEXT,
    reason         TEXT,
    state          TEXT NOT NULL,
    source         TEXT NOT NULL CHECK (source IN ('input', 'node', 'fork')),
    parent_branch  INTEGER,
    parent_step    INTEGER,
    created_at     INTEGER NOT NULL,
    PRIMARY KEY (session_id, branch, step)
) WITHOUT ROWID;
CREATE INDEX idx_graph_checkpoints_run ON graph_checkpoints(run_id);
"#;

/// Trace spans: every finished span of a traced turn, as JSON, keyed by trace and span id so
/// writing one again replaces it. `agentctl trace export|show` read them back in start order,
/// which the second index serves without sorting. Deleting the session deletes them.
const V5: &str = r#"
CREATE TABLE trace_spans (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    trace_id    TEXT NOT NULL,
    span_id     TEXT NOT NULL,
    parent_id   TEXT,
    kind        TEXT NOT NULL,
    start_ns    INTEGER NOT NULL,
    span        TEXT NOT NULL,
    PRIMARY KEY (session_id, trace_id, span_id)
) WITHOUT ROWID;
CREATE INDEX idx_trace_spans_start ON trace_spans(session_id, start_ns);
"#;

/// What the inspection queries of the context design (seed 001's appendix) read, and the
/// figures it asks to keep per turn:
///
/// * `source` on messages and runs: what wrote or started them (`cli`, `repl`, `mcp`, `task`,
///   `handoff`, `graph`, …). Older rows are filled from what the file shows: a run with a
///   parent in a `sub:` scope is a `task`, one with a parent elsewhere a `handoff`, a graph
///   node's run a `graph`, anything else `cli` (every front end was the command line); a
///   message takes its run's source.
/// * `chat_context_summaries` keeps one current row per `(session, scope)`, updated in place
///   (`updated_at` says when); the summaries it replaced move to
///   `chat_context_summary_history`. `created_at` of the current row becomes the time of the
///   scope's first summary.
/// * `agent_run_steps` keeps each model call's prompt token budget, estimate and context
///   window (NULL for other steps and older rows).
/// * The index `agent_runs(context_scope, started_at DESC)` for "latest runs of a workspace".
const V6: &str = r#"
ALTER TABLE agent_runs ADD COLUMN source TEXT NOT NULL DEFAULT 'cli';
UPDATE agent_runs SET source = 'task'
    WHERE parent_run_id IS NOT NULL AND context_scope LIKE 'sub:%';
UPDATE agent_runs SET source = 'handoff'
    WHERE parent_run_id IS NOT NULL AND context_scope NOT LIKE 'sub:%';
UPDATE agent_runs SET source = 'graph'
    WHERE id IN (SELECT run_id FROM graph_checkpoints WHERE run_id IS NOT NULL);
CREATE INDEX idx_agent_runs_context_scope_started_at ON agent_runs(context_scope, started_at DESC);

ALTER TABLE chat_messages ADD COLUMN source TEXT NOT NULL DEFAULT 'cli';
UPDATE chat_messages
    SET source = (SELECT r.source FROM agent_runs r WHERE r.id = chat_messages.run_id)
    WHERE run_id IN (SELECT id FROM agent_runs);

ALTER TABLE agent_run_steps ADD COLUMN prompt_token_budget INTEGER;
ALTER TABLE agent_run_steps ADD COLUMN estimated_prompt_tokens INTEGER;
ALTER TABLE agent_run_steps ADD COLUMN model_context_window INTEGER;

CREATE TABLE chat_context_summary_history (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    scope             TEXT NOT NULL,
    until_message_id  INTEGER NOT NULL,
    summary_text      TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    replaced_at       INTEGER NOT NULL
);
CREATE INDEX idx_chat_context_summary_history_scope
    ON chat_context_summary_history(session_id, scope, id);

ALTER TABLE chat_context_summaries ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
UPDATE chat_context_summaries SET updated_at = created_at;
-- The current summary of a scope is the one with the furthest cursor, the newest on a tie
-- (what the store read as "latest" before); each other one is history, replaced when the next
-- one in that order was written.
CREATE TEMP TABLE v6_summaries AS
    SELECT id,
        ROW_NUMBER() OVER (scope_rows ORDER BY until_message_id DESC, id DESC) AS position,
        MIN(created_at) OVER scope_rows AS first_at,
        LEAD(created_at) OVER (scope_rows ORDER BY until_message_id, id) AS next_at
    FROM chat_context_summaries
    WINDOW scope_rows AS (PARTITION BY session_id, scope);
INSERT INTO chat_context_summary_history
    (id, session_id, scope, until_message_id, summary_text, created_at, replaced_at)
    SELECT s.id, s.session_id, s.scope, s.until_message_id, s.summary_text, s.created_at,
        v.next_at
    FROM chat_context_summaries s JOIN v6_summaries v ON v.id = s.id
    WHERE v.position > 1
    ORDER BY s.id;
DELETE FROM chat_context_summaries
    WHERE id IN (SELECT id FROM v6_summaries WHERE position > 1);
UPDATE chat_context_summaries
    SET created_at = (SELECT first_at FROM v6_summaries v WHERE v.id = chat_context_summaries.id);
DROP TABLE v6_summaries;
DROP INDEX idx_summaries_scope;
CREATE UNIQUE INDEX idx_chat_context_summaries_scope ON chat_context_summaries(session_id, scope);
"#;

/// Each session counts its messages and runs in its own row, so opening a session
/// (`--session`, `--continue`) and `sessions list` read one row per session instead of
/// counting an index range: a session of 100,000 messages opens in constant time. Existing
/// rows are counted once here. Deletes and new runs are counted by triggers; new messages by
/// the store's one insert path, in the `UPDATE sessions` each turn makes anyway (a trigger
/// per message row would cost every turn one more statement per message).
const V7: &str = r#"
ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN run_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET
    message_count = (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = sessions.id),
    run_count = (SELECT COUNT(*) FROM agent_runs r WHERE r.session_id = sessions.id);
CREATE TRIGGER chat_messages_count_delete AFTER DELETE ON chat_messages BEGIN
    UPDATE sessions SET message_count = message_count - 1 WHERE id = OLD.session_id;
END;
CREATE TRIGGER agent_runs_count_insert AFTER INSERT ON agent_runs BEGIN
    UPDATE sessions SET run_count = run_count + 1 WHERE id = NEW.session_id;
END;
CREATE TRIGGER agent_runs_count_delete AFTER DELETE ON agent_runs BEGIN
    UPDATE sessions SET run_count = run_count - 1 WHERE id = OLD.session_id;
END;
"#;

/// Where a session stood when it was last copied to or from another store
/// (`agentctl sessions migrate`): the fingerprints of this file's copy and of the other
/// store's then, so the next copy tells which side changed. Deleting the session deletes it.
const V8: &str = r#"
CREATE TABLE session_sync (
    session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    mine        TEXT NOT NULL,
    theirs      TEXT NOT NULL,
    marked_at   INTEGER NOT NULL
) WITHOUT ROWID;
"#;

/// Parallel graph branches: while a fan-out's branches run, each checkpoint records every
/// branch's status (pending, running, done) and output as JSON, so a resume re-runs only the
/// branches that had not finished. `NULL` outside a fan-out (and in every row written before).
const V9: &str = r#"
ALTER TABLE graph_checkpoints ADD COLUMN parallel TEXT;
"#;

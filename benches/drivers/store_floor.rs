//! The floor of recording (`benches/triage.sh` runs it): what SQLite alone spends writing the
//! rows agentctl keeps of one triage scenario, with no agentctl code in between — a store file
//! made by `SqliteStore::open` (this build's schema, indexes, triggers and pragmas), then the
//! scenario's rows written with prepared `rusqlite` statements and nothing else: no reads, no
//! savepoints, no serialising, one `sessions` update a scenario.
//!
//! The rows are those `bench_triage --sqlite --one-session` leaves per scenario: two runs
//! (triage, and the specialist it hands off to), each with its prompt, its turns' messages and
//! steps, its status and its handoff summary in the session's main workspace — 2 runs, 9
//! messages, 7 steps.
//!
//! ```sh
//! store_floor [-n N] [-c C] [--turn-rows]
//! ```
//!
//! Writes `-n` scenarios each committed on its own (a sequential client: every scenario's
//! `finish` waits for its commit), then `-n` scenarios committed `-c` at a time (the most
//! that concurrent sessions sharing one store thread can share a commit). `--turn-rows`
//! writes the same content the way a different schema would, for comparison: each turn of a
//! run (its messages and steps) as one JSON row of a table added for the purpose, keyed by run
//! and turn, instead of a row per message and per step. Its last line is machine-readable:
//! `RESULT {"scenarios":…,"sequential_ms_per_scenario":…,"concurrent_ms_per_scenario":…}`.

use agentctl_store::SessionLog as _;
use agentctl_store_sqlite::{SqliteStore, prepare_sqlite};
use anyhow::{Context as _, bail};
use rusqlite::{Connection, params};
use std::time::Instant;

const USAGE: &str = "usage: store_floor [-n N] [-c C] [--turn-rows]";

/// The table `--turn-rows` writes to: not agentctl's schema, a measure of another one.
const TURN_ROWS: &str = "CREATE TABLE run_turns (
    run_id INTEGER NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
    turn INTEGER NOT NULL,
    rows TEXT NOT NULL,
    PRIMARY KEY (run_id, turn)
) WITHOUT ROWID";
const TURN: &str = "INSERT INTO run_turns (run_id, turn, rows) VALUES (?1, ?2, ?3)";

const MESSAGE: &str = "INSERT INTO chat_messages (session_id, run_id, timeline_scope, \
     context_scope, agent_id, role, content, visible, token_estimate, created_at, source) \
     VALUES (?1, ?2, 'main', ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'cli')";
const STEP: &str = "INSERT INTO agent_run_steps (run_id, step_index, kind, content, created_at, \
     prompt_token_budget, estimated_prompt_tokens, model_context_window) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
const RUN: &str = "INSERT INTO agent_runs (session_id, agent_id, parent_run_id, context_scope, \
     status, model, started_at, source) VALUES (?1, ?2, ?3, '', 'running', 'local:gpt-4o-mini', ?4, 'cli')";
const RUN_STARTED: &str = "UPDATE agent_runs SET context_scope = ?1, owner_pid = ?2, \
     owner_start = ?3, owner_boot = ?4 WHERE id = ?5";
const RUN_FINISHED: &str =
    "UPDATE agent_runs SET status = 'completed', usage = ?1, finished_at = ?2 WHERE id = ?3";
const SESSION: &str = "UPDATE sessions SET updated_at = ?1, message_count = message_count + ?2 \
     WHERE id = ?3";

/// A message (role, content) or a step (kind, content) of a turn.
type Row<'a> = (&'a str, &'a str);

/// The rows of one scenario's run, as the store writes them.
struct Run<'a> {
    agent: &'a str,
    prompt: &'a str,
    /// Each turn's messages and steps.
    turns: &'a [(&'a [Row<'a>], &'a [Row<'a>])],
    handoff: &'a str,
}

const TRIAGE: Run<'static> = Run {
    agent: "triage",
    prompt: r#"{"role":"user","content":"I was charged twice: can I get a refund?"}"#,
    turns: &[(
        &[
            (
                "assistant",
                r#"{"role":"assistant","tool_calls":[{"id":"call_handoff","name":"handoff_to_billing","arguments":{}}]}"#,
            ),
            (
                "tool",
                r#"{"role":"tool","call_id":"call_handoff","name":"handoff_to_billing","content":"Handing off to billing: it takes over from here."}"#,
            ),
        ],
        &[
            ("model_call", r#"{"input_tokens":20,"output_tokens":5}"#),
            (
                "tool_decision",
                r#"{"type":"tool_decision","id":"call_handoff","name":"handoff_to_billing","risk":"safe","decision":"allow","reason":"safe is auto-approved","by":"policy"}"#,
            ),
        ],
    )],
    handoff: "Handoff from triage (run 1, completed):\n🔄 Handoff: triage → billing",
};

const BILLING: Run<'static> = Run {
    agent: "billing",
    prompt: r#"{"role":"user","content":"Handoff from `triage`.\n\nThe user's request: I was charged twice: can I get a refund?"}"#,
    turns: &[
        (
            &[
                (
                    "assistant",
                    r#"{"role":"assistant","tool_calls":[{"id":"call_lookup","name":"lookup","arguments":{"query":"refund policy"}}]}"#,
                ),
                (
                    "tool",
                    r#"{"role":"tool","call_id":"call_lookup","name":"lookup","content":"Refunds are paid back within 5 working days."}"#,
                ),
            ],
            &[
                ("model_call", r#"{"input_tokens":20,"output_tokens":5}"#),
                (
                    "tool_decision",
                    r#"{"type":"tool_decision","id":"call_lookup","name":"lookup","risk":"safe","decision":"allow","reason":"safe is auto-approved","by":"policy"}"#,
                ),
            ],
        ),
        (
            &[(
                "assistant",
                r#"{"role":"assistant","content":"Refunds are paid back within 5 working days."}"#,
            )],
            &[("model_call", r#"{"input_tokens":20,"output_tokens":5}"#)],
        ),
    ],
    handoff: "Handoff from billing (run 2, completed):\nRefunds are paid back within 5 working days.",
};

/// When every row says it was written.
const NOW: i64 = 1_795_823_165_346;

/// Inserts the row of a run of `session` (handed off from `parent`); its id.
fn insert_run(
    conn: &Connection,
    session: &str,
    parent: Option<i64>,
    run: &Run<'_>,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(RUN)?
        .execute(params![session, run.agent, parent, NOW])?;
    Ok(conn.last_insert_rowid())
}

/// Writes one run of `session` (handed off from `parent`); its id and the messages written.
fn write_run(
    conn: &Connection,
    session: &str,
    parent: Option<i64>,
    run: &Run<'_>,
) -> rusqlite::Result<(i64, i64)> {
    let id = insert_run(conn, session, parent, run)?;
    let scope = format!("run:{id}");
    conn.prepare_cached(RUN_STARTED)?
        .execute(params![scope, 4242, 6_499_627, "boot", id])?;
    let mut message = conn.prepare_cached(MESSAGE)?;
    let mut step = conn.prepare_cached(STEP)?;
    message.execute(params![
        session,
        id,
        scope,
        None::<&str>,
        "user",
        run.prompt,
        1,
        14,
        NOW
    ])?;
    let (mut messages, mut index) = (1, 0);
    for (said, done) in run.turns {
        for (role, content) in *said {
            message.execute(params![
                session, id, scope, run.agent, role, content, 0, 15, NOW
            ])?;
            messages += 1;
        }
        for (kind, content) in *done {
            step.execute(params![id, index, kind, content, NOW, 123_904, 34, 128_000])?;
            index += 1;
        }
    }
    conn.prepare_cached(RUN_FINISHED)?.execute(params![
        r#"{"inputTokens":40,"outputTokens":10}"#,
        NOW,
        id
    ])?;
    let summary = serde_json::json!({"role": "assistant", "content": run.handoff}).to_string();
    message.execute(params![
        session,
        id,
        "main",
        run.agent,
        "assistant",
        summary,
        1,
        26,
        NOW
    ])?;
    let summary = serde_json::json!({"summary": run.handoff}).to_string();
    step.execute(params![
        id,
        index,
        "handoff",
        summary,
        NOW,
        None::<i64>,
        None::<i64>,
        None::<i64>
    ])?;
    Ok((id, messages + 1))
}

/// [`write_run`] with each turn one row: the prompt, each model turn's messages and steps,
/// and the closing (the handoff summary and its step) as JSON arrays.
fn write_run_in_turn_rows(
    conn: &Connection,
    session: &str,
    parent: Option<i64>,
    run: &Run<'_>,
) -> rusqlite::Result<(i64, i64)> {
    let id = insert_run(conn, session, parent, run)?;
    let mut turn = conn.prepare_cached(TURN)?;
    turn.execute(params![id, 0, format!("[{}]", run.prompt)])?;
    let mut messages = 1;
    for (index, (said, done)) in (1..).zip(run.turns) {
        let rows: Vec<&str> = said
            .iter()
            .chain(*done)
            .map(|(_, content)| *content)
            .collect();
        turn.execute(params![id, index, format!("[{}]", rows.join(","))])?;
        messages += i64::try_from(said.len()).unwrap_or(0);
    }
    conn.prepare_cached(RUN_FINISHED)?.execute(params![
        r#"{"inputTokens":40,"outputTokens":10}"#,
        NOW,
        id
    ])?;
    let closing = serde_json::json!([
        {"role": "assistant", "content": run.handoff},
        {"summary": run.handoff},
    ]);
    let last = i64::try_from(run.turns.len()).unwrap_or(0) + 1;
    turn.execute(params![id, last, closing.to_string()])?;
    Ok((id, messages + 1))
}

fn write_scenario(
    conn: &Connection,
    session: &str,
    clock: i64,
    turn_rows: bool,
) -> rusqlite::Result<()> {
    let write = if turn_rows {
        write_run_in_turn_rows
    } else {
        write_run
    };
    let (triage, mut messages) = write(conn, session, None, &TRIAGE)?;
    messages += write(conn, session, Some(triage), &BILLING)?.1;
    conn.prepare_cached(SESSION)?
        .execute(params![clock, messages, session])?;
    Ok(())
}

/// Milliseconds per scenario writing `scenarios` of them, `per_commit` to a transaction.
fn time(
    conn: &Connection,
    session: &str,
    (scenarios, per_commit): (usize, usize),
    turn_rows: bool,
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let mut written = 0;
    while written < scenarios {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        for _ in 0..per_commit.min(scenarios - written) {
            written += 1;
            write_scenario(conn, session, i64::try_from(written)?, turn_rows)?;
        }
        conn.execute_batch("COMMIT")?;
    }
    Ok(started.elapsed().as_secs_f64() * 1000.0 / scenarios.max(1) as f64)
}

fn main() -> anyhow::Result<()> {
    let (mut scenarios, mut per_commit, mut turn_rows) = (2000_usize, 50_usize, false);
    let mut raw = std::env::args().skip(1);
    while let Some(flag) = raw.next() {
        let mut value = || {
            raw.next()
                .with_context(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "-n" => scenarios = value()?.parse().context("-n takes a number")?,
            "-c" => per_commit = value()?.parse().context("-c takes a number")?,
            "--turn-rows" => turn_rows = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    if per_commit == 0 {
        bail!("-c must be above zero\n{USAGE}");
    }
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("sessions.db");
    let session = SqliteStore::open(&path)?.create_session(Some("floor"))?.id;
    let conn = Connection::open(&path)?;
    prepare_sqlite(&conn)?;
    conn.set_prepared_statement_cache_capacity(32);
    if turn_rows {
        conn.execute_batch(TURN_ROWS)?;
    }
    // Warm up: the statements compiled, the pages in the cache.
    time(&conn, &session, (per_commit, per_commit), turn_rows)?;
    let sequential = time(&conn, &session, (scenarios, 1), turn_rows)?;
    let concurrent = time(&conn, &session, (scenarios, per_commit), turn_rows)?;
    println!("sequential  {scenarios} scenarios, a commit each: {sequential:.3} ms per scenario");
    println!(
        "concurrent  {scenarios} scenarios, {per_commit} a commit: {concurrent:.3} ms per scenario"
    );
    println!(
        "RESULT {}",
        serde_json::json!({
            "scenarios": scenarios,
            "sequential_ms_per_scenario": sequential,
            "concurrent_ms_per_scenario": concurrent,
        })
    );
    Ok(())
}

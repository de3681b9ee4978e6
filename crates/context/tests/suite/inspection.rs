//! Seed 001's inspection queries run as written against `sessions.db`, after a realistic
//! session and after migrating a file the v5 store wrote; the token figures of each model call
//! stored with its step; one summary row per scope with the replaced ones kept.

use super::support::{temp_store, v5_file};
use agentctl_context::*;
use agentctl_core::{ContextMode, Message, RunEvent, ToolCall, Usage};
use rusqlite::Connection;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

// The appendix "附录：常用巡检 SQL" of seed 001, verbatim.

const RECENT_VISIBLE_MESSAGES: &str = "-- 最近 20 条可见聊天消息
SELECT id, role, source, created_at, substr(content, 1, 120)
FROM chat_messages
WHERE visible = 1
ORDER BY id DESC
LIMIT 20;";

const SUMMARY_CURSORS: &str = "-- 各 scope 摘要游标
SELECT scope, until_message_id, length(summary_text) AS summary_len, updated_at
FROM chat_context_summaries
ORDER BY updated_at DESC;";

const RECENT_RUNS: &str = "-- 最近 20 次 agent run
SELECT id, source, status, model, started_at, finished_at
FROM agent_runs
ORDER BY id DESC
LIMIT 20;";

/// A row of the first query.
#[derive(Debug, PartialEq)]
struct MessageRow {
    id: i64,
    role: String,
    source: String,
    created_at: i64,
    content: String,
}

/// A row of the second query.
#[derive(Debug, PartialEq)]
struct SummaryRow {
    scope: String,
    until_message_id: i64,
    summary_len: i64,
    updated_at: i64,
}

/// A row of the third query.
#[derive(Debug, PartialEq)]
struct RunRow {
    id: i64,
    source: String,
    status: String,
    model: Option<String>,
    started_at: i64,
    finished_at: Option<i64>,
}

/// The three queries, run the way a person would: a plain connection to the file.
fn inspect(path: &Path) -> (Vec<MessageRow>, Vec<SummaryRow>, Vec<RunRow>) {
    let conn = Connection::open(path).unwrap();
    let messages = conn
        .prepare(RECENT_VISIBLE_MESSAGES)
        .unwrap()
        .query_map([], |row| {
            Ok(MessageRow {
                id: row.get(0)?,
                role: row.get(1)?,
                source: row.get(2)?,
                created_at: row.get(3)?,
                content: row.get(4)?,
            })
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let summaries = conn
        .prepare(SUMMARY_CURSORS)
        .unwrap()
        .query_map([], |row| {
            Ok(SummaryRow {
                scope: row.get(0)?,
                until_message_id: row.get(1)?,
                summary_len: row.get(2)?,
                updated_at: row.get(3)?,
            })
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let runs = conn
        .prepare(RECENT_RUNS)
        .unwrap()
        .query_map([], |row| {
            Ok(RunRow {
                id: row.get(0)?,
                source: row.get(1)?,
                status: row.get(2)?,
                model: row.get(3)?,
                started_at: row.get(4)?,
                finished_at: row.get(5)?,
            })
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    (messages, summaries, runs)
}

fn request(turn: u32, estimate: u64) -> RunEvent {
    RunEvent::ModelRequest {
        turn,
        message_count: 2,
        tool_count: 3,
        prompt_token_budget: 120_000,
        estimated_prompt_tokens: estimate,
        model_context_window: 128_000,
    }
}

fn budget(estimate: u64) -> Option<PromptBudget> {
    Some(PromptBudget {
        prompt_token_budget: 120_000,
        estimated_prompt_tokens: estimate,
        model_context_window: 128_000,
    })
}

fn usage(input_tokens: u64) -> RunEvent {
    RunEvent::Usage {
        input_tokens,
        output_tokens: 20,
    }
}

fn ending(handoff: Option<&str>) -> RunEnding {
    RunEnding {
        status: RunStatus::Completed,
        answer_visible: true,
        step: None,
        handoff: handoff.map(|summary| HandoffSummary {
            summary: summary.into(),
            files_changed: vec![],
            open_items: vec![],
        }),
    }
}

/// The ids a realistic session leaves.
struct Written {
    session: String,
    reviewer: RunId,
    coordinator: RunId,
}

/// An isolated reviewer in the REPL (one model call, a handoff to main), a shared
/// coordinator from the command line (a tool call, then the answer), a message from an
/// embedder's web front end, and summaries of both workspaces (the reviewer's twice).
fn realistic_session(store: &Arc<SqliteStore>) -> Written {
    let session = store.create_session(Some("review")).unwrap().id;
    let model = Some("openai:gpt-4o".to_owned());

    let run = NewRun {
        model: model.clone(),
        source: Source::REPL,
        ..NewRun::new("reviewer", ContextMode::Isolated)
    };
    let mut recorder = RunRecorder::start(
        store.clone(),
        &session,
        &run,
        "review src/parser.rs",
        vec![],
    )
    .unwrap();
    let reviewer = recorder.run().id;
    recorder.event(&request(1, 1_200));
    recorder.event(&usage(1_180));
    recorder.event(&RunEvent::TurnCommitted {
        turn: 1,
        messages: vec![Message::assistant("Two issues.")],
    });
    assert!(recorder.finish(ending(Some("Two issues found."))).is_none());

    let run = NewRun {
        model,
        ..NewRun::new("coordinator", ContextMode::Shared)
    };
    let mut recorder =
        RunRecorder::start(store.clone(), &session, &run, "summarise", vec![]).unwrap();
    let coordinator = recorder.run().id;
    let call = ToolCall {
        id: "c1".into(),
        name: "read_file".into(),
        arguments: json!({"path": "NOTES.md"}),
    };
    recorder.event(&request(1, 2_000));
    recorder.event(&usage(1_950));
    recorder.event(&RunEvent::TurnCommitted {
        turn: 1,
        messages: vec![
            Message::Assistant {
                content: None,
                tool_calls: vec![call],
            },
            Message::Tool {
                call_id: "c1".into(),
                name: "read_file".into(),
                content: "notes".into(),
                is_error: false,
            },
        ],
    });
    recorder.event(&request(2, 2_600));
    recorder.event(&usage(2_590));
    recorder.event(&RunEvent::TurnCommitted {
        turn: 2,
        messages: vec![Message::assistant("All good.")],
    });
    assert!(recorder.finish(ending(None)).is_none());

    let web = NewMessage::new(ContextScope::Main, None, Message::user("thanks"))
        .with_source(Source::new("web").unwrap());
    store.append_messages(&session, None, &[web]).unwrap();

    let scope = ContextScope::agent("reviewer");
    store.save_summary(&session, &scope, 1, "first").unwrap();
    store.save_summary(&session, &scope, 2, "second").unwrap();
    store
        .save_summary(&session, &ContextScope::Main, 4, "main so far")
        .unwrap();
    Written {
        session,
        reviewer,
        coordinator,
    }
}

#[test]
fn the_seed_queries_read_a_realistic_session() {
    let temp = temp_store();
    let store = Arc::new(temp.store);
    let written = realistic_session(&store);
    let (messages, summaries, runs) = inspect(&temp.path);

    // 1 reviewer prompt, 2 its answer (agent:reviewer), 3 its handoff (main), 4 coordinator
    // prompt, 5–6 its tool call and result (hidden), 7 its answer, 8 the web message.
    let shown: Vec<(i64, &str, &str)> = messages
        .iter()
        .map(|row| (row.id, row.role.as_str(), row.source.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            (8, "user", "web"),
            (7, "assistant", "cli"),
            (4, "user", "cli"),
            (3, "assistant", "repl"),
            (2, "assistant", "repl"),
            (1, "user", "repl"),
        ]
    );
    assert!(messages.iter().all(|row| row.created_at > 0));
    assert_eq!(messages[0].content, r#"{"role":"user","content":"thanks"}"#);
    assert!(
        messages[3]
            .content
            .starts_with(r#"{"role":"assistant","content":"Handoff from reviewer"#)
    );
    assert!(
        messages
            .iter()
            .all(|row| row.content.chars().count() <= 120)
    );

    // One row per scope, newest first; the reviewer's first summary is history.
    assert!(
        summaries
            .windows(2)
            .all(|pair| pair[0].updated_at >= pair[1].updated_at)
    );
    let mut cursors: Vec<(&str, i64, i64)> = summaries
        .iter()
        .map(|row| (row.scope.as_str(), row.until_message_id, row.summary_len))
        .collect();
    cursors.sort();
    assert_eq!(cursors, [("agent:reviewer", 2, 6), ("main", 4, 11)]);
    let latest = store
        .latest_summary(&written.session, &ContextScope::agent("reviewer"))
        .unwrap()
        .unwrap();
    assert_eq!(
        (latest.until_message_id, latest.summary_text.as_str()),
        (2, "second")
    );
    assert!(latest.updated_at >= latest.created_at);
    let history: Vec<(String, i64, String)> = Connection::open(&temp.path)
        .unwrap()
        .prepare(
            "SELECT scope, until_message_id, summary_text FROM chat_context_summary_history
             ORDER BY id",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(history, [("agent:reviewer".into(), 1, "first".into())]);

    let shown: Vec<(i64, &str, &str, Option<&str>)> = runs
        .iter()
        .map(|row| {
            (
                row.id,
                row.source.as_str(),
                row.status.as_str(),
                row.model.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (
                written.coordinator,
                "cli",
                "completed",
                Some("openai:gpt-4o")
            ),
            (written.reviewer, "repl", "completed", Some("openai:gpt-4o")),
        ]
    );
    assert!(
        runs.iter()
            .all(|row| row.finished_at.is_some_and(|end| end >= row.started_at))
    );
    assert_eq!(store.run(written.reviewer).unwrap().source, Source::REPL);
    let stored = store
        .messages(&written.session, &MessageQuery::default())
        .unwrap();
    assert_eq!(stored[7].source.as_str(), "web");
    assert_eq!(stored[4].source, Source::CLI);
}

#[test]
fn each_model_call_keeps_its_token_budget() {
    let temp = temp_store();
    let store = Arc::new(temp.store);
    let written = realistic_session(&store);
    let figures = |run: RunId| -> Vec<(String, Option<PromptBudget>)> {
        store
            .steps(run)
            .unwrap()
            .into_iter()
            .map(|step| (step.kind, step.budget))
            .collect()
    };
    assert_eq!(
        figures(written.reviewer),
        [
            ("model_call".into(), budget(1_200)),
            ("handoff".into(), None)
        ]
    );
    assert_eq!(
        figures(written.coordinator),
        [
            ("model_call".into(), budget(2_000)),
            ("model_call".into(), budget(2_600))
        ]
    );
    // In the file, under the seed's names, next to the usage the provider reported.
    let conn = Connection::open(&temp.path).unwrap();
    let row: (i64, i64, i64, String) = conn
        .query_row(
            "SELECT prompt_token_budget, estimated_prompt_tokens, model_context_window, content
             FROM agent_run_steps WHERE run_id = ?1 AND step_index = 1",
            [written.coordinator],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        row,
        (
            120_000,
            2_600,
            128_000,
            r#"{"input_tokens":2590,"output_tokens":20}"#.into()
        )
    );
    let step = &store.steps(written.coordinator).unwrap()[0];
    let shown = serde_json::to_value(step).unwrap();
    assert_eq!(shown["budget"]["estimated_prompt_tokens"], 2_000);
    assert_eq!(shown["budget"]["model_context_window"], 128_000);
}

#[test]
fn a_model_call_that_never_answered_keeps_its_budget() {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let session = store.create_session(None).unwrap().id;
    let run = NewRun::new("helper", ContextMode::Run);
    let mut recorder = RunRecorder::start(store.clone(), &session, &run, "go", vec![]).unwrap();
    let id = recorder.run().id;
    // The provider fails (or the user cancels) before any usage arrives.
    recorder.event(&request(1, 130_000));
    let cancelled = RunEnding {
        status: RunStatus::Failed,
        ..ending(None)
    };
    assert!(recorder.finish(cancelled).is_none());
    let steps = store.steps(id).unwrap();
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].kind, "model_call");
    assert_eq!(steps[0].content, json!({"completed": false}));
    assert_eq!(steps[0].budget, budget(130_000));
}

#[test]
fn a_step_without_a_budget_and_figures_past_i64_are_stored() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap().id;
    let run = store
        .start_run(&session, &NewRun::new("a", ContextMode::Run))
        .unwrap();
    let huge = PromptBudget {
        prompt_token_budget: u64::MAX,
        estimated_prompt_tokens: 0,
        model_context_window: 1,
    };
    store
        .record_turn(
            run.id,
            &[],
            &[
                NewStep::new("tool_decision", json!({})),
                NewStep::new("model_call", json!({})).with_budget(huge),
            ],
        )
        .unwrap();
    let steps = store.steps(run.id).unwrap();
    assert_eq!(steps[0].budget, None);
    let stored = steps[1].budget.unwrap();
    // Clamped to what SQLite's integers hold rather than wrapped to a negative figure.
    assert_eq!(stored.prompt_token_budget, i64::MAX as u64);
    assert_eq!(stored.model_context_window, 1);
}

#[test]
fn a_version_5_file_is_migrated_with_its_data() {
    let (_dir, path) = v5_file();
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(SCHEMA_VERSION, 6);
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
}

#[test]
fn the_seed_index_serves_latest_runs_of_a_workspace() {
    let temp = temp_store();
    let conn = Connection::open(&temp.path).unwrap();
    let plan: Vec<String> = conn
        .prepare(
            "EXPLAIN QUERY PLAN SELECT id FROM agent_runs WHERE context_scope = 'main'
             ORDER BY started_at DESC LIMIT 20",
        )
        .unwrap()
        .query_map([], |row| row.get::<_, String>(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        plan.iter()
            .any(|step| step.contains("idx_agent_runs_context_scope_started_at")),
        "{plan:?}"
    );
    assert!(
        !plan.iter().any(|step| step.contains("TEMP B-TREE")),
        "{plan:?}"
    );
}

#[test]
fn a_summary_behind_the_current_cursor_goes_to_history() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap().id;
    let scope = ContextScope::agent("a");
    store
        .save_summary(&session, &scope, 10, "up to 10")
        .unwrap();
    // Another process compacted less far, and wrote later: the further cursor stays current.
    let current = store.save_summary(&session, &scope, 5, "up to 5").unwrap();
    assert_eq!(current.until_message_id, 10);
    assert_eq!(
        store
            .latest_summary(&session, &scope)
            .unwrap()
            .unwrap()
            .summary_text,
        "up to 10"
    );
    // An equal cursor: the newer text wins, as before.
    let again = store
        .save_summary(&session, &scope, 10, "up to 10, again")
        .unwrap();
    assert_eq!(again.summary_text, "up to 10, again");
    assert_eq!(again.id, current.id);
    let conn = Connection::open(&temp.path).unwrap();
    let history: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM chat_context_summary_history",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(history, 2);
    // Deleting the session deletes its history too.
    assert!(store.delete_session(&session).unwrap());
    let history: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM chat_context_summary_history",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(history, 0);
}

//! Seed 001's inspection queries run as written against `sessions.db` after a realistic
//! session, and the index the seed asks for. The same queries on a migrated v5 file are in
//! `migration.rs`; the token figures of each model call in `budgets.rs`.

use super::support::temp_store;
use agentctl_core::{ContextMode, Message, RunEvent, ToolCall};
use agentctl_store::*;
use agentctl_store_sqlite::*;
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
pub(super) struct MessageRow {
    pub(super) id: i64,
    pub(super) role: String,
    pub(super) source: String,
    pub(super) created_at: i64,
    pub(super) content: String,
}

/// A row of the second query.
#[derive(Debug, PartialEq)]
pub(super) struct SummaryRow {
    pub(super) scope: String,
    pub(super) until_message_id: i64,
    pub(super) summary_len: i64,
    pub(super) updated_at: i64,
}

/// A row of the third query.
#[derive(Debug, PartialEq)]
pub(super) struct RunRow {
    pub(super) id: i64,
    pub(super) source: String,
    pub(super) status: String,
    pub(super) model: Option<String>,
    pub(super) started_at: i64,
    pub(super) finished_at: Option<i64>,
}

/// The three queries, run the way a person would: a plain connection to the file.
pub(super) fn inspect(path: &Path) -> (Vec<MessageRow>, Vec<SummaryRow>, Vec<RunRow>) {
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

pub(super) fn request(turn: u32, estimate: u64) -> RunEvent {
    RunEvent::ModelRequest {
        turn,
        message_count: 2,
        tool_count: 3,
        prompt_token_budget: 120_000,
        estimated_prompt_tokens: estimate,
        model_context_window: 128_000,
    }
}

pub(super) fn budget(estimate: u64) -> Option<PromptBudget> {
    Some(PromptBudget {
        prompt_token_budget: 120_000,
        estimated_prompt_tokens: estimate,
        model_context_window: 128_000,
    })
}

pub(super) fn usage(input_tokens: u64) -> RunEvent {
    RunEvent::Usage {
        input_tokens,
        output_tokens: 20,
    }
}

pub(super) fn ending(handoff: Option<&str>) -> RunEnding {
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
pub(super) struct Written {
    pub(super) session: String,
    pub(super) reviewer: RunId,
    pub(super) coordinator: RunId,
}

/// An isolated reviewer in the REPL (one model call, a handoff to main), a shared
/// coordinator from the command line (a tool call, then the answer), a message from an
/// embedder's web front end, and summaries of both workspaces (the reviewer's twice).
pub(super) fn realistic_session(store: &Arc<SqliteStore>) -> Written {
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
        signature: None,
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

//! Graph checkpoints: a round trip, refused writes that leave nothing behind, forks that leave
//! the original alone, history through forks of forks, an older file migrated, cascades, and
//! the state checks (object, size, secrets).
//!
//! Several writers at once and a killed writer are in `graph_writers.rs`.

use super::support::temp_store;
use agentctl_core::{ContextMode, Redactor};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use rusqlite::Connection;
use serde_json::{Value, json};

pub(super) fn node<'a>(
    session: &'a str,
    branch: u32,
    step: u32,
    state: &'a Value,
) -> NewCheckpoint<'a> {
    NewCheckpoint {
        session,
        branch,
        step,
        node: "worker",
        run: None,
        next: Some("worker"),
        reason: None,
        state,
        parallel: None,
    }
}

fn run_of(store: &SqliteStore, session: &str, agent: &str) -> RunId {
    store
        .start_run(
            session,
            &NewRun {
                agent: agent.into(),
                mode: ContextMode::Run,
                parent_run_id: None,
                handoff: false,
                model: None,
                source: Source::CLI,
            },
        )
        .unwrap()
        .id
}

/// A branch 0 with steps 0..=`steps`, the state counting the steps.
fn graph_with_steps(store: &SqliteStore, session: &str, steps: u32) {
    store
        .start_graph(session, "loop", &json!({"count": 0}), "worker")
        .unwrap();
    for step in 1..=steps {
        let state = json!({"count": step});
        store
            .write_checkpoint(&node(session, 0, step, &state))
            .unwrap();
    }
}

fn coordinates(rows: &[GraphCheckpoint]) -> Vec<(u32, u32, CheckpointSource)> {
    rows.iter().map(|r| (r.branch, r.step, r.source)).collect()
}

#[test]
fn a_graph_run_round_trips() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap();
    let input = json!({"input": "it crashes"});
    let start = store
        .start_graph(&session.id, "debug-flow", &input, "analyzer")
        .unwrap();
    assert_eq!(
        (start.branch, start.step, start.source, start.parent),
        (0, 0, CheckpointSource::Input, None)
    );
    assert_eq!((start.node.as_deref(), start.run), (None, None));

    let analyzer = run_of(store, &session.id, "analyzer");
    let analysed = json!({"input": "it crashes", "analysis": {"can_auto_fix": true}});
    let written = store
        .write_checkpoint(&NewCheckpoint {
            run: Some(analyzer),
            node: "analyzer",
            next: Some("fixer"),
            ..node(&session.id, 0, 1, &analysed)
        })
        .unwrap();
    let fixer = run_of(store, &session.id, "fixer");
    let fixed = json!({"input": "it crashes", "analysis": {"can_auto_fix": true}, "fix": {"applied": true}});
    let end = store
        .write_checkpoint(&NewCheckpoint {
            run: Some(fixer),
            node: "fixer",
            next: None,
            reason: Some("reached END"),
            ..node(&session.id, 0, 2, &fixed)
        })
        .unwrap();
    assert!(end.is_end());

    let rows = store.graph_checkpoints(&session.id, 0).unwrap();
    assert_eq!(rows, vec![start.clone(), written, end.clone()]);
    assert_eq!(rows[1].run, Some(analyzer));
    assert_eq!(rows[1].state, analysed);
    assert_eq!(rows[2].graph, "debug-flow");
    assert_eq!(
        store.latest_checkpoint(&session.id, 0).unwrap(),
        Some(end.clone())
    );
    assert_eq!(store.graph_history(&session.id, 0).unwrap(), rows);

    let branches = store.graph_branches(&session.id).unwrap();
    assert_eq!(
        branches,
        vec![GraphBranch {
            branch: 0,
            graph: "debug-flow".into(),
            parent: None,
            first_step: 0,
            last_step: 2,
            ended: true,
            end_reason: Some("reached END".into()),
            created_at: start.created_at,
            updated_at: end.created_at,
        }]
    );
    assert!(store.session(&session.id).unwrap().updated_at >= end.created_at);

    // The records as front ends print them.
    let printed = serde_json::to_value(&rows[1]).unwrap();
    assert_eq!(printed["source"], "node");
    assert_eq!(printed["run"], analyzer);
    assert_eq!(printed["next"], "fixer");
    assert_eq!(printed["parent"], Value::Null);
    let fork = store.fork_graph(&session.id, 0, 1).unwrap();
    let printed = serde_json::to_value(&fork).unwrap();
    assert_eq!(printed["source"], "fork");
    assert_eq!(printed["parent"], json!({"branch": 0, "step": 1}));
    let printed = serde_json::to_value(&store.graph_branches(&session.id).unwrap()[1]).unwrap();
    assert_eq!(printed["parent"], json!({"branch": 0, "step": 1}));
    assert_eq!(printed["ended"], false);
}

#[test]
fn unknown_sessions_and_branches() {
    let temp = temp_store();
    let store = &temp.store;
    let error = store.start_graph("nope", "g", &json!({}), "a").unwrap_err();
    assert!(matches!(error, ContextError::SessionNotFound(_)), "{error}");
    assert!(matches!(
        store.graph_branches("nope").unwrap_err(),
        ContextError::SessionNotFound(_)
    ));
    let session = store.create_session(None).unwrap();
    // Reads of a branch that does not exist are empty; writes name what exists.
    assert!(store.graph_checkpoints(&session.id, 3).unwrap().is_empty());
    assert!(store.graph_history(&session.id, 3).unwrap().is_empty());
    assert_eq!(store.latest_checkpoint(&session.id, 3).unwrap(), None);
    assert!(store.graph_branches(&session.id).unwrap().is_empty());
    let state = json!({});
    let error = store
        .write_checkpoint(&node(&session.id, 3, 1, &state))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session {} has no graph branch 3 (it has no graph checkpoints)",
            session.id
        )
    );
    graph_with_steps(store, &session.id, 1);
    store.fork_graph(&session.id, 0, 1).unwrap();
    let error = store.fork_graph(&session.id, 3, 0).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session {} has no graph branch 3 (its branches are 0–1)",
            session.id
        )
    );
}

/// Each refused write leaves the branch, the session's timestamp and the file as they were.
#[test]
fn refused_writes_leave_nothing_behind() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap();
    let other = store.create_session(None).unwrap();
    graph_with_steps(store, &session.id, 2);
    let foreign = run_of(store, &other.id, "elsewhere");
    let before = store.graph_checkpoints(&session.id, 0).unwrap();
    let touched = store.session(&session.id).unwrap().updated_at;
    let state = json!({"count": 3});
    let s = session.id.as_str();

    let gap = store.write_checkpoint(&node(s, 0, 5, &state)).unwrap_err();
    assert!(
        matches!(gap, ContextError::CheckpointGap { last: 2, .. }),
        "{gap}"
    );
    assert!(gap.to_string().contains("its next step is 3"), "{gap}");
    let missing_run = NewCheckpoint {
        run: Some(9_999),
        ..node(s, 0, 3, &state)
    };
    assert!(matches!(
        store.write_checkpoint(&missing_run).unwrap_err(),
        ContextError::RunNotFound(9_999)
    ));
    let foreign_run = NewCheckpoint {
        run: Some(foreign),
        ..node(s, 0, 3, &state)
    };
    let error = store.write_checkpoint(&foreign_run).unwrap_err();
    assert!(
        error
            .to_string()
            .contains(&format!("belongs to session {}", other.id)),
        "{error}"
    );
    assert_eq!(store.graph_checkpoints(s, 0).unwrap(), before);
    assert_eq!(store.session(s).unwrap().updated_at, touched);

    // After an end nothing follows, and the error says why it ended.
    let ended = NewCheckpoint {
        next: None,
        reason: Some("no edge matched from `worker`"),
        ..node(s, 0, 3, &state)
    };
    store.write_checkpoint(&ended).unwrap();
    let error = store.write_checkpoint(&node(s, 0, 4, &state)).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session {s}, graph branch 0 ended at step 3 (no edge matched from `worker`): no step \
             can follow it; fork an earlier step to run the graph again"
        )
    );
    assert_eq!(store.graph_checkpoints(s, 0).unwrap().len(), 4);
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn a_fork_leaves_the_original_readable_and_independent() {
    let temp = temp_store();
    let store = &temp.store;
    let s = store.create_session(None).unwrap().id;
    graph_with_steps(store, &s, 3);
    let original = store.graph_checkpoints(&s, 0).unwrap();

    let fork = store.fork_graph(&s, 0, 1).unwrap();
    assert_eq!(
        (fork.branch, fork.step, fork.source, fork.parent),
        (1, 1, CheckpointSource::Fork, Some((0, 1)))
    );
    assert_eq!((fork.node.as_deref(), fork.run), (None, None));
    assert_eq!(fork.state, original[1].state);
    assert_eq!(fork.next, original[1].next);
    assert_eq!(fork.graph, "loop");

    // The fork re-runs step 2 its own way; the original keeps its step 2 and goes on.
    let other = json!({"count": 2, "changed": true});
    store.write_checkpoint(&node(&s, 1, 2, &other)).unwrap();
    let more = json!({"count": 4});
    store.write_checkpoint(&node(&s, 0, 4, &more)).unwrap();
    let mut expected = original;
    expected.push(store.latest_checkpoint(&s, 0).unwrap().unwrap());
    assert_eq!(store.graph_checkpoints(&s, 0).unwrap(), expected);
    let own = store.graph_checkpoints(&s, 1).unwrap();
    assert_eq!(
        coordinates(&own),
        vec![
            (1, 1, CheckpointSource::Fork),
            (1, 2, CheckpointSource::Node)
        ]
    );
    assert_eq!(own[1].state, other);

    let branches = store.graph_branches(&s).unwrap();
    assert_eq!(branches.len(), 2);
    assert_eq!(
        (
            branches[1].parent,
            branches[1].first_step,
            branches[1].last_step
        ),
        (Some((0, 1)), 1, 2)
    );
    assert!(!branches[0].ended && !branches[1].ended);

    // Forking a step the branch does not have names the steps it has.
    let error = store.fork_graph(&s, 0, 9).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session {s}, graph branch 0 has no checkpoint at step 9: its checkpoints are steps \
             0–4, the latest is 4"
        )
    );
    let error = store.fork_graph(&s, 1, 0).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "session {s}, graph branch 1 has no checkpoint at step 0: its checkpoints are steps \
             1–2 (it was forked from branch 0 at step 1; step 0 is in branch 0's history)"
        )
    );

    // A fork of the step where a graph ended has ended too, with the same reason.
    let done = json!({"count": 5});
    store
        .write_checkpoint(&NewCheckpoint {
            next: None,
            reason: Some("maxSteps (5) reached"),
            ..node(&s, 0, 5, &done)
        })
        .unwrap();
    let late = store.fork_graph(&s, 0, 5).unwrap();
    assert!(late.is_end());
    assert_eq!(late.reason.as_deref(), Some("maxSteps (5) reached"));
    assert!(matches!(
        store
            .write_checkpoint(&node(&s, late.branch, 6, &done))
            .unwrap_err(),
        ContextError::GraphEnded { .. }
    ));
}

#[test]
fn history_reads_through_two_levels_of_forks() {
    let temp = temp_store();
    let store = &temp.store;
    let s = store.create_session(None).unwrap().id;
    graph_with_steps(store, &s, 4);
    let b1 = store.fork_graph(&s, 0, 2).unwrap().branch;
    for step in 3..=4 {
        let state = json!({"count": step, "branch": 1});
        store.write_checkpoint(&node(&s, b1, step, &state)).unwrap();
    }
    let b2 = store.fork_graph(&s, b1, 3).unwrap().branch;
    for step in 4..=5 {
        let state = json!({"count": step, "branch": 2});
        store.write_checkpoint(&node(&s, b2, step, &state)).unwrap();
    }
    assert_eq!((b1, b2), (1, 2));

    use CheckpointSource::{Fork, Input, Node};
    let history = store.graph_history(&s, b2).unwrap();
    assert_eq!(
        coordinates(&history),
        vec![
            (0, 0, Input),
            (0, 1, Node),
            (0, 2, Node),
            (1, 2, Fork),
            (1, 3, Node),
            (2, 3, Fork),
            (2, 4, Node),
            (2, 5, Node),
        ]
    );
    // Skipping the fork markers reads as one straight run.
    let straight: Vec<u32> = history
        .iter()
        .filter(|r| r.source != Fork)
        .map(|r| r.step)
        .collect();
    assert_eq!(straight, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(history.last().unwrap().state["branch"], 2);

    // The middle branch's history stops at its own end; the original's is its own rows.
    assert_eq!(
        coordinates(&store.graph_history(&s, b1).unwrap()),
        vec![
            (0, 0, Input),
            (0, 1, Node),
            (0, 2, Node),
            (1, 2, Fork),
            (1, 3, Node),
            (1, 4, Node),
        ]
    );
    assert_eq!(
        store.graph_history(&s, 0).unwrap(),
        store.graph_checkpoints(&s, 0).unwrap()
    );
}

#[test]
fn a_version_3_file_gains_checkpoints_and_keeps_its_data() {
    let temp = temp_store();
    let session = temp.store.create_session(Some("old")).unwrap();
    let run = run_of(&temp.store, &session.id, "old-agent");
    temp.store
        .record_turn(
            run,
            &[NewMessage::new(
                ContextScope::run(run),
                None,
                agentctl_core::Message::user("hello"),
            )],
            &[],
        )
        .unwrap();
    temp.store
        .set_session_state(&session.id, "task", &json!({"status": "x"}), "a")
        .unwrap();
    drop(temp.store);
    // Back to what an agentctl before graph checkpoints left: no table, user_version 3.
    let conn = Connection::open(&temp.path).unwrap();
    super::support::downgrade_to_v5(&conn);
    conn.execute_batch(
        "DROP TABLE trace_spans; DROP TABLE graph_checkpoints; PRAGMA user_version = 3;",
    )
    .unwrap();
    drop(conn);

    let store = SqliteStore::open(&temp.path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(
        store.session(&session.id).unwrap().title.as_deref(),
        Some("old")
    );
    assert_eq!(store.runs(&session.id).unwrap()[0].id, run);
    assert_eq!(
        store
            .messages(&session.id, &MessageQuery::default())
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        store.session_state(&session.id).unwrap()["task"]["status"],
        "x"
    );
    store
        .start_graph(&session.id, "g", &json!({}), "a")
        .unwrap();
    let state = json!({"a": 1});
    store
        .write_checkpoint(&NewCheckpoint {
            run: Some(run),
            ..node(&session.id, 0, 1, &state)
        })
        .unwrap();
    assert_eq!(store.graph_checkpoints(&session.id, 0).unwrap().len(), 2);
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn deleting_the_session_deletes_its_checkpoints_and_a_run_only_its_link() {
    let temp = temp_store();
    let store = &temp.store;
    let kept = store.create_session(None).unwrap().id;
    graph_with_steps(store, &kept, 2);
    let count = |conn: &Connection, session: &str| -> i64 {
        conn.query_row(
            "SELECT COUNT(*) FROM graph_checkpoints WHERE session_id = ?1",
            [session],
            |row| row.get(0),
        )
        .unwrap()
    };
    let raw = Connection::open(&temp.path).unwrap();
    raw.pragma_update(None, "foreign_keys", "ON").unwrap();

    // Through the store.
    let gone = store.create_session(None).unwrap().id;
    graph_with_steps(store, &gone, 2);
    store.fork_graph(&gone, 0, 1).unwrap();
    assert!(store.delete_session(&gone).unwrap());
    assert_eq!(count(&raw, &gone), 0);

    // By the schema alone: the foreign key cascades.
    let gone = store.create_session(None).unwrap().id;
    let run = run_of(store, &gone, "worker");
    store
        .start_graph(&gone, "loop", &json!({}), "worker")
        .unwrap();
    let state = json!({"count": 1});
    store
        .write_checkpoint(&NewCheckpoint {
            run: Some(run),
            ..node(&gone, 0, 1, &state)
        })
        .unwrap();
    // Deleting the run forgets the link and keeps the checkpoint.
    raw.execute("DELETE FROM agent_runs WHERE id = ?1", [run])
        .unwrap();
    let after = store.latest_checkpoint(&gone, 0).unwrap().unwrap();
    assert_eq!((after.step, after.run), (1, None));
    raw.execute("DELETE FROM sessions WHERE id = ?1", [&gone])
        .unwrap();
    assert_eq!(count(&raw, &gone), 0);

    assert_eq!(count(&raw, &kept), 3);
    assert_eq!(store.graph_checkpoints(&kept, 0).unwrap().len(), 3);
}

#[test]
fn a_state_must_be_an_object() {
    let temp = temp_store();
    let store = &temp.store;
    let s = store.create_session(None).unwrap().id;
    for (bad, kind) in [
        (json!(null), "null"),
        (json!([1, 2]), "an array"),
        (json!("text"), "a string"),
        (json!(3), "a number"),
    ] {
        let error = store.start_graph(&s, "g", &bad, "a").unwrap_err();
        assert!(matches!(error, ContextError::InvalidCheckpoint { .. }));
        assert!(
            error.to_string().ends_with(&format!(
                "the graph state must be a JSON object (keys are node outputs), not {kind}"
            )),
            "{error}"
        );
    }
    assert!(store.graph_branches(&s).unwrap().is_empty());
    graph_with_steps(store, &s, 1);
    let error = store
        .write_checkpoint(&node(&s, 0, 2, &json!(["not", "an", "object"])))
        .unwrap_err();
    assert!(
        matches!(error, ContextError::InvalidCheckpoint { step: 2, .. }),
        "{error}"
    );
    assert_eq!(store.latest_checkpoint(&s, 0).unwrap().unwrap().step, 1);
    // A second graph run's input is refused under the branch number it would have had.
    let error = store.start_graph(&s, "g", &json!(1), "a").unwrap_err();
    let expected = format!("session {s}, graph branch 1, step 0: the graph state");
    assert!(error.to_string().starts_with(&expected), "{error}");
}

#[test]
fn a_state_is_bounded() {
    let temp = temp_store();
    let store = &temp.store;
    let s = store.create_session(None).unwrap().id;
    graph_with_steps(store, &s, 0);
    let big = json!({"analysis": "x".repeat(MAX_CHECKPOINT_STATE_BYTES)});
    let error = store.write_checkpoint(&node(&s, 0, 1, &big)).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("more than the 4 MiB a checkpoint keeps"),
        "{error}"
    );
    assert!(store.start_graph(&s, "g", &big, "a").is_err());
    // A large state below the bound is kept whole.
    let large = json!({"analysis": "y".repeat(MAX_CHECKPOINT_STATE_BYTES / 2)});
    store.write_checkpoint(&node(&s, 0, 1, &large)).unwrap();
    let fork = store.fork_graph(&s, 0, 1).unwrap();
    assert_eq!(fork.state, large);
    assert_eq!(store.graph_branches(&s).unwrap().len(), 2);
}

#[test]
fn secrets_in_the_state_never_reach_the_file() {
    let temp = temp_store();
    let secret = "sk-live-graph-0123456789";
    let store = SqliteStore::open(&temp.path)
        .unwrap()
        .with_redactor(Redactor::new([secret]));
    let s = store.create_session(None).unwrap().id;
    let input = store
        .start_graph(&s, "g", &json!({"input": format!("key {secret}")}), "a")
        .unwrap();
    assert_eq!(input.state, json!({"input": "key [REDACTED]"}));
    let state = json!({"analysis": {"token": secret, secret: [secret]}});
    let written = store
        .write_checkpoint(&NewCheckpoint {
            next: None,
            reason: Some(&format!("guardrail refused {secret}")),
            ..node(&s, 0, 1, &state)
        })
        .unwrap();
    let masked = json!({"analysis": {"token": "[REDACTED]", "[REDACTED]": ["[REDACTED]"]}});
    assert_eq!(written.state, masked);
    let stored = store.latest_checkpoint(&s, 0).unwrap().unwrap();
    assert_eq!(stored, written);
    assert_eq!(
        stored.reason.as_deref(),
        Some("guardrail refused [REDACTED]")
    );
    assert_eq!(store.fork_graph(&s, 0, 1).unwrap().state, masked);
    drop(store);
    let raw = std::fs::read(&temp.path).unwrap();
    let wal = std::fs::read(temp.path.with_file_name("sessions.db-wal")).unwrap_or_default();
    let needle = secret.as_bytes();
    for bytes in [raw, wal] {
        assert!(!bytes.windows(needle.len()).any(|w| w == needle));
    }
}

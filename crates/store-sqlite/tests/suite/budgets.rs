//! Each model call's prompt token budget, estimate and context window, stored with its step;
//! summaries kept one current row per scope.

use super::inspection::{budget, ending, realistic_session, request};
use super::support::temp_store;
use agentctl_core::ContextMode;
use agentctl_store::*;
use agentctl_store_sqlite::*;
use rusqlite::Connection;
use serde_json::json;
use std::sync::Arc;

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

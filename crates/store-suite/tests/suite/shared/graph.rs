//! Graph checkpoints: a round trip, refused writes, forks, history through forks, the state
//! checks, two writers of one step, and deleting a session or a run.

use super::new_run;
use agentctl_core::ContextMode;
use agentctl_store::*;
use serde_json::{Value, json};
use std::sync::{Arc, Barrier};

fn node<'a>(session: &'a str, branch: u32, step: u32, state: &'a Value) -> NewCheckpoint<'a> {
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

fn coordinates(rows: &[GraphCheckpoint]) -> Vec<(u32, u32, CheckpointSource)> {
    rows.iter().map(|r| (r.branch, r.step, r.source)).collect()
}

/// A branch 0 with steps 0..=`steps`, the state counting the steps.
fn graph_with_steps(store: &dyn SessionStore, session: &str, steps: u32) {
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

on_each_backend! {
    fn a_parallel_record_round_trips_and_forks_with_its_checkpoint(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let state = json!({"input": "review"});
        store.start_graph(&session, "review", &state, "intake").unwrap();
        let parallel = json!({"fanout": {"from": "intake", "join": "summary", "branches": [
            {"start": "security", "status": "done", "writes": [["sec", "fine"]]},
            {"start": "perf", "status": "running"}
        ]}});
        let written = store
            .write_checkpoint(&NewCheckpoint { node: "security", next: Some("summary"), parallel: Some(&parallel), ..node(&session, 0, 1, &state) })
            .unwrap();
        assert_eq!(written.parallel.as_ref(), Some(&parallel));
        let latest = store.latest_checkpoint(&session, 0).unwrap().unwrap();
        assert_eq!(latest.parallel.as_ref(), Some(&parallel));
        let fork = store.fork_graph(&session, 0, 1).unwrap();
        assert_eq!(fork.parallel.as_ref(), Some(&parallel), "a fork resumes the same branches");
        // Outside a fan-out the column stays empty.
        let after = store
            .write_checkpoint(&NewCheckpoint { node: "summary", next: None, ..node(&session, 0, 2, &state) })
            .unwrap();
        assert_eq!(after.parallel, None);
        assert_eq!(store.graph_checkpoints(&session, 0).unwrap()[2].parallel, None);
        // Not an object: refused like a state that is not one.
        let refused = store.write_checkpoint(&NewCheckpoint { parallel: Some(&json!([1])), ..node(&session, 0, 3, &state) });
        assert!(matches!(refused, Err(ContextError::InvalidCheckpoint { .. })), "{refused:?}");
    }

    fn a_graph_run_round_trips(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let input = json!({"input": "it crashes"});
        let start = store.start_graph(&session, "debug-flow", &input, "analyzer").unwrap();
        assert_eq!((start.branch, start.step, start.source, start.parent), (0, 0, CheckpointSource::Input, None));
        let analyzer = store.start_run(&session, &new_run("analyzer", ContextMode::Run)).unwrap().id;
        let analysed = json!({"input": "it crashes", "analysis": {"can_auto_fix": true}});
        let written = store
            .write_checkpoint(&NewCheckpoint { run: Some(analyzer), node: "analyzer", next: Some("fixer"), ..node(&session, 0, 1, &analysed) })
            .unwrap();
        let fixed = json!({"fix": {"applied": true}, "analysis": {"can_auto_fix": true}});
        let end = store
            .write_checkpoint(&NewCheckpoint { node: "fixer", next: None, reason: Some("reached END"), ..node(&session, 0, 2, &fixed) })
            .unwrap();
        assert!(end.is_end());
        let rows = store.graph_checkpoints(&session, 0).unwrap();
        assert_eq!(rows, vec![start.clone(), written, end.clone()]);
        assert_eq!(rows[1].run, Some(analyzer));
        // Key order of the state is kept.
        assert_eq!(rows[2].state.to_string(), fixed.to_string());
        assert_eq!(store.latest_checkpoint(&session, 0).unwrap(), Some(end.clone()));
        assert_eq!(store.graph_history(&session, 0).unwrap(), rows);
        assert_eq!(
            store.graph_branches(&session).unwrap(),
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
        assert!(store.session(&session).unwrap().updated_at >= end.created_at);
        // Deleting the run forgets only the link; deleting the session takes every row.
        store.delete_session(&session).unwrap();
        assert!(matches!(store.graph_branches(&session), Err(ContextError::SessionNotFound(_))));
    }

    fn unknown_sessions_branches_and_refused_writes(fresh) {
        let store = &*fresh.store;
        assert!(matches!(store.start_graph("nope", "g", &json!({}), "a"), Err(ContextError::SessionNotFound(_))));
        let s = store.create_session(None).unwrap().id;
        let other = store.create_session(None).unwrap().id;
        assert!(store.graph_checkpoints(&s, 3).unwrap().is_empty());
        assert!(store.graph_history(&s, 3).unwrap().is_empty());
        assert_eq!(store.latest_checkpoint(&s, 3).unwrap(), None);
        let state = json!({"count": 3});
        assert_eq!(
            store.write_checkpoint(&node(&s, 3, 1, &state)).unwrap_err().to_string(),
            format!("session {s} has no graph branch 3 (it has no graph checkpoints)")
        );
        graph_with_steps(store, &s, 2);
        let before = store.graph_checkpoints(&s, 0).unwrap();
        let touched = store.session(&s).unwrap().updated_at;
        let gap = store.write_checkpoint(&node(&s, 0, 5, &state)).unwrap_err();
        assert!(matches!(gap, ContextError::CheckpointGap { last: 2, .. }), "{gap}");
        assert!(matches!(store.write_checkpoint(&node(&s, 0, 2, &state)), Err(ContextError::CheckpointConflict { last: 2, .. })));
        assert!(matches!(
            store.write_checkpoint(&NewCheckpoint { run: Some(9_999), ..node(&s, 0, 3, &state) }),
            Err(ContextError::RunNotFound(9_999))
        ));
        let foreign = store.start_run(&other, &new_run("elsewhere", ContextMode::Run)).unwrap().id;
        let error = store.write_checkpoint(&NewCheckpoint { run: Some(foreign), ..node(&s, 0, 3, &state) }).unwrap_err();
        assert!(error.to_string().contains(&format!("belongs to session {other}")), "{error}");
        let not_object = store.write_checkpoint(&node(&s, 0, 3, &json!([1]))).unwrap_err();
        assert!(not_object.to_string().contains("must be a JSON object"), "{not_object}");
        let huge = json!({"blob": "x".repeat(MAX_CHECKPOINT_STATE_BYTES)});
        assert!(matches!(store.write_checkpoint(&node(&s, 0, 3, &huge)), Err(ContextError::InvalidCheckpoint { .. })));
        assert!(matches!(store.start_graph(&s, "g", &json!("text"), "a"), Err(ContextError::InvalidCheckpoint { step: 0, .. })));
        assert_eq!(store.graph_checkpoints(&s, 0).unwrap(), before);
        assert_eq!(store.session(&s).unwrap().updated_at, touched);
        store
            .write_checkpoint(&NewCheckpoint { next: None, reason: Some("no edge matched from `worker`"), ..node(&s, 0, 3, &state) })
            .unwrap();
        assert_eq!(
            store.write_checkpoint(&node(&s, 0, 4, &state)).unwrap_err().to_string(),
            format!("session {s}, graph branch 0 ended at step 3 (no edge matched from `worker`): no step can follow it; fork an earlier step to run the graph again")
        );
    }

    fn forks_and_history(fresh) {
        let store = &*fresh.store;
        let s = store.create_session(None).unwrap().id;
        graph_with_steps(store, &s, 4);
        let b1 = store.fork_graph(&s, 0, 2).unwrap();
        assert_eq!((b1.branch, b1.step, b1.source, b1.parent), (1, 2, CheckpointSource::Fork, Some((0, 2))));
        for step in 3..=4 {
            let state = json!({"count": step, "branch": 1});
            store.write_checkpoint(&node(&s, 1, step, &state)).unwrap();
        }
        let b2 = store.fork_graph(&s, 1, 3).unwrap().branch;
        let state = json!({"count": 4, "branch": 2});
        store.write_checkpoint(&node(&s, b2, 4, &state)).unwrap();
        use CheckpointSource::{Fork, Input, Node};
        assert_eq!(
            coordinates(&store.graph_history(&s, b2).unwrap()),
            vec![(0, 0, Input), (0, 1, Node), (0, 2, Node), (1, 2, Fork), (1, 3, Node), (2, 3, Fork), (2, 4, Node)]
        );
        assert_eq!(store.graph_checkpoints(&s, 0).unwrap().len(), 5, "the original is untouched");
        let branches = store.graph_branches(&s).unwrap();
        assert_eq!(
            branches.iter().map(|b| (b.branch, b.parent, b.first_step, b.last_step)).collect::<Vec<_>>(),
            [(0, None, 0, 4), (1, Some((0, 2)), 2, 4), (2, Some((1, 3)), 3, 4)]
        );
        assert_eq!(
            store.fork_graph(&s, 0, 9).unwrap_err().to_string(),
            format!("session {s}, graph branch 0 has no checkpoint at step 9: its checkpoints are steps 0–4, the latest is 4")
        );
        assert_eq!(
            store.fork_graph(&s, 1, 0).unwrap_err().to_string(),
            format!("session {s}, graph branch 1 has no checkpoint at step 0: its checkpoints are steps 2–4 (it was forked from branch 0 at step 2; step 0 is in branch 0's history)")
        );
        assert_eq!(
            store.fork_graph(&s, 7, 0).unwrap_err().to_string(),
            format!("session {s} has no graph branch 7 (its branches are 0–2)")
        );
    }

    fn of_two_writers_of_a_step_exactly_one_wins(fresh) {
        let s = fresh.store.create_session(None).unwrap().id;
        fresh.store.start_graph(&s, "race", &json!({}), "worker").unwrap();
        for step in 1..=10u32 {
            let barrier = Arc::new(Barrier::new(2));
            let outcomes: Vec<bool> = (0..2)
                .map(|writer| {
                    let store = fresh.reopen();
                    let (barrier, s) = (Arc::clone(&barrier), s.clone());
                    std::thread::spawn(move || {
                        let state = json!({"writer": writer});
                        barrier.wait();
                        match store.write_checkpoint(&node(&s, 0, step, &state)) {
                            Ok(_) => true,
                            Err(ContextError::CheckpointConflict { .. }) => false,
                            Err(other) => panic!("{other}"),
                        }
                    })
                })
                .collect::<Vec<_>>()
                .into_iter()
                .map(|handle| handle.join().unwrap())
                .collect();
            assert_eq!(outcomes.iter().filter(|won| **won).count(), 1, "step {step}: {outcomes:?}");
        }
        assert_eq!(fresh.store.graph_checkpoints(&s, 0).unwrap().len(), 11);
    }
}

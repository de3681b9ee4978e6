//! Runs: workspaces by mode and parent, steps across turns, handoffs, finishing, stale runs,
//! and several writers on one session at once.

use super::{new_run, text_of, turn};
use agentctl_core::{ContextMode, Message, Usage};
use agentctl_store::*;
use serde_json::json;
use std::sync::{Arc, Barrier};

on_each_backend! {
    fn runs_scopes_steps_and_handoff(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let isolated = store.start_run(&session, &new_run("a", ContextMode::Isolated)).unwrap();
        assert_eq!(isolated.context_scope, ContextScope::agent("a"));
        assert_eq!((isolated.status, isolated.finished_at), (RunStatus::Running, None));
        let shared = store.start_run(&session, &new_run("b", ContextMode::Shared)).unwrap();
        assert_eq!(shared.context_scope, ContextScope::Main);
        let run = store.start_run(&session, &new_run("c", ContextMode::Run)).unwrap();
        assert_eq!(run.context_scope, ContextScope::run(run.id));
        let sub = store
            .start_run(&session, &NewRun { parent_run_id: Some(run.id), source: Source::TASK, ..new_run("d", ContextMode::Isolated) })
            .unwrap();
        assert_eq!(sub.context_scope, ContextScope::sub("d", sub.id));
        let handed = store
            .start_run(&session, &NewRun { parent_run_id: Some(run.id), handoff: true, ..new_run("e", ContextMode::Shared) })
            .unwrap();
        assert_eq!(handed.context_scope, ContextScope::Main);
        assert!(matches!(
            store.start_run(&session, &NewRun { parent_run_id: Some(999_999), ..new_run("f", ContextMode::Run) }),
            Err(ContextError::RunNotFound(999_999))
        ));
        assert!(matches!(store.start_run("missing", &new_run("g", ContextMode::Run)), Err(ContextError::SessionNotFound(_))));

        // Two turns: step indexes continue, messages take the run's source.
        for n in 0..2 {
            store
                .record_turn(sub.id, &turn(&sub.context_scope, "d", &format!("t{n}")), &[
                    NewStep::new("model_call", json!({"n": n})).with_budget(PromptBudget {
                        prompt_token_budget: 1000,
                        estimated_prompt_tokens: 10 + n,
                        model_context_window: 2000,
                    }),
                    NewStep::new("tool_call", json!({"n": n})),
                ])
                .unwrap();
        }
        store.finish_run(sub.id, RunStatus::Completed, Usage { input_tokens: 3, output_tokens: 4 }).unwrap();
        let handoff = HandoffSummary {
            summary: "Tests added.".into(),
            files_changed: vec!["src/lib.rs".into()],
            open_items: vec!["docs".into()],
        };
        let message_id = store.write_handoff(sub.id, &handoff).unwrap();
        let timeline = store.messages(&session, &MessageQuery::timeline()).unwrap();
        assert_eq!(timeline.len(), 1, "the sub-agent's turns are not in the timeline");
        assert_eq!(timeline[0].id, message_id);
        assert_eq!(timeline[0].context_scope, ContextScope::Main);
        assert_eq!(timeline[0].agent.as_deref(), Some("d"));
        assert_eq!(timeline[0].source, Source::TASK);
        assert_eq!(
            text_of(&timeline[0]),
            format!("Handoff from d (run {}, completed):\nTests added.\n\nFiles changed:\n- src/lib.rs\n\nOpen items:\n- docs", sub.id)
        );
        let steps = store.steps(sub.id).unwrap();
        assert_eq!(
            steps.iter().map(|s| (s.step_index, s.kind.as_str())).collect::<Vec<_>>(),
            [(0, "model_call"), (1, "tool_call"), (2, "model_call"), (3, "tool_call"), (4, "handoff")]
        );
        assert_eq!(steps[2].budget.unwrap().estimated_prompt_tokens, 11);
        assert_eq!(steps[1].budget, None);
        assert_eq!(steps[4].content, json!({"summary": "Tests added.", "files_changed": ["src/lib.rs"], "open_items": ["docs"]}));
        let record = store.run(sub.id).unwrap();
        assert_eq!(record.status, RunStatus::Completed);
        assert_eq!(record.usage.output_tokens, 4);
        assert_eq!(record.parent_run_id, Some(run.id));
        assert_eq!(record.source, Source::TASK);
        assert_eq!(record.model.as_deref(), Some("scripted:x"));
        assert!(record.finished_at.is_some());
        let runs = store.runs(&session).unwrap();
        assert_eq!(runs.iter().map(|r| r.agent.as_str()).collect::<Vec<_>>(), ["a", "b", "c", "d", "e"]);
        assert_eq!(store.session(&session).unwrap().run_count, 5);
        // The runs left `running` belong to this process, which is alive: not stale.
        assert_eq!(store.interrupt_stale_runs(&session).unwrap(), 0);
        assert!(matches!(store.run(424_242), Err(ContextError::RunNotFound(_))));
        assert!(matches!(store.record_turn(424_242, &[], &[]), Err(ContextError::RunNotFound(_))));
        assert!(matches!(store.finish_run(424_242, RunStatus::Failed, Usage::default()), Err(ContextError::RunNotFound(_))));
        assert!(store.steps(424_242).unwrap().is_empty());
        assert!(store.delete_session(&session).unwrap());
        assert!(matches!(store.run(sub.id), Err(ContextError::RunNotFound(_))));
    }

    fn opening_and_closing_a_run_write_what_the_separate_calls_write(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let run = store
            .open_run(&session, &new_run("r", ContextMode::Run), &Message::user("go"), &[NewStep::new("task", json!({"n": 0}))])
            .unwrap();
        assert_eq!(run.context_scope, ContextScope::run(run.id));
        let prompt = store.messages(&session, &MessageQuery::scope(run.context_scope.clone())).unwrap();
        assert_eq!(prompt.iter().map(|m| &m.message).collect::<Vec<_>>(), [&Message::user("go")]);
        let closing = RunClosing {
            messages: turn(&run.context_scope, "r", "last"),
            steps: vec![NewStep::new("model_call", json!({"n": 1})), NewStep::new("task_result", json!({}))],
            status: RunStatus::Completed,
            usage: Usage { input_tokens: 5, output_tokens: 6 },
            handoff: Some(HandoffSummary { summary: "Done.".into(), files_changed: vec![], open_items: vec![] }),
        };
        store.close_run(run.id, &closing).unwrap();
        let record = store.run(run.id).unwrap();
        assert_eq!((record.status, record.usage.output_tokens), (RunStatus::Completed, 6));
        assert_eq!(store.messages(&session, &MessageQuery::scope(run.context_scope.clone())).unwrap().len(), 3);
        let main = store.messages(&session, &MessageQuery::scope(ContextScope::Main)).unwrap();
        assert_eq!(main.iter().map(text_of).collect::<Vec<_>>(), [format!("Handoff from r (run {}, completed):\nDone.", run.id)]);
        assert_eq!(
            store.steps(run.id).unwrap().iter().map(|s| (s.step_index, s.kind.as_str())).collect::<Vec<_>>(),
            [(0, "task"), (1, "model_call"), (2, "task_result"), (3, "handoff")]
        );
        // A run closed after a turn of its own numbers its closing steps after that turn's.
        let run = store.open_run(&session, &new_run("s", ContextMode::Run), &Message::user("go"), &[]).unwrap();
        store.record_turn(run.id, &turn(&run.context_scope, "s", "t0"), &[NewStep::new("model_call", json!({"n": 0}))]).unwrap();
        store.close_run(run.id, &RunClosing { messages: vec![], steps: vec![NewStep::new("model_call", json!({"n": 1}))], ..closing.clone() }).unwrap();
        assert_eq!(
            store.steps(run.id).unwrap().iter().map(|s| (s.step_index, s.kind.as_str())).collect::<Vec<_>>(),
            [(0, "model_call"), (1, "model_call"), (2, "handoff")]
        );
        // All or nothing: a run that is not there closes nothing and opens nothing.
        assert!(matches!(store.close_run(424_242, &closing), Err(ContextError::RunNotFound(_))));
        assert!(matches!(
            store.open_run("missing", &new_run("r", ContextMode::Run), &Message::user("go"), &[]),
            Err(ContextError::SessionNotFound(_))
        ));
        assert_eq!(store.runs(&session).unwrap().len(), 2);
    }

    fn a_turn_is_all_or_nothing(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let run = store.start_run(&session, &new_run("a", ContextMode::Shared)).unwrap();
        store.record_turn(run.id, &turn(&ContextScope::Main, "a", "t0"), &[]).unwrap();
        store.delete_session(&session).unwrap();
        // The run went with its session: the turn is refused whole.
        assert!(store.record_turn(run.id, &turn(&ContextScope::Main, "a", "t1"), &[]).is_err());
        assert!(store.list_sessions().unwrap().is_empty());
    }

    fn runs_of_a_closed_store_in_this_process(fresh) {
        let store = &fresh.store;
        let session = store.create_session(None).unwrap().id;
        let other = fresh.reopen();
        let run = other.start_run(&session, &new_run("gone", ContextMode::Run)).unwrap();
        drop(other);
        // The server sees a closed connection go a moment after the client closed it.
        let mut marked = 0;
        for _ in 0..200 {
            marked = store.interrupt_stale_runs(&session).unwrap();
            if marked > 0 || fresh.backend == Backend::Sqlite {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        match fresh.backend {
            // The owner is this process (a pid in `/proc`), which lives on.
            Backend::Sqlite => assert_eq!(marked, 0),
            // The owner is the closed store's connection, which the server saw go.
            Backend::Postgres => {
                assert_eq!(marked, 1);
                assert_eq!(store.run(run.id).unwrap().status, RunStatus::Interrupted);
            }
        }
        // Finishing it still records how it ended.
        store.finish_run(run.id, RunStatus::Completed, Usage::default()).unwrap();
        assert_eq!(store.run(run.id).unwrap().status, RunStatus::Completed);
        assert_eq!(store.interrupt_stale_runs(&session).unwrap(), 0);
    }

    fn concurrent_writers_never_interleave_a_turn(fresh) {
        let session = fresh.store.create_session(None).unwrap().id;
        let (writers, turns) = (4, 15);
        let barrier = Arc::new(Barrier::new(writers));
        let handles: Vec<_> = (0..writers)
            .map(|writer| {
                // Each writer has a store of its own, as a process would.
                let store = fresh.reopen();
                let (barrier, session) = (Arc::clone(&barrier), session.clone());
                std::thread::spawn(move || {
                    let agent = format!("w{writer}");
                    let run = store.start_run(&session, &new_run(&agent, ContextMode::Shared)).unwrap();
                    barrier.wait();
                    for n in 0..turns {
                        let ids = store
                            .record_turn(run.id, &turn(&ContextScope::Main, &agent, &format!("{agent} {n}")), &[NewStep::new("model_call", json!({"n": n}))])
                            .unwrap();
                        assert_eq!(ids.len(), 2);
                    }
                    store.finish_run(run.id, RunStatus::Completed, Usage::default()).unwrap();
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        let messages = fresh.store.messages(&session, &MessageQuery::default()).unwrap();
        assert_eq!(messages.len(), writers * turns * 2);
        // Each turn's two messages are neighbours (nothing of another writer between them),
        // and each writer's turns are in order.
        for pair in messages.chunks(2) {
            assert_eq!(pair[0].run_id, pair[1].run_id, "{pair:?}");
            assert_eq!(format!("{} result", text_of(&pair[0])), text_of(&pair[1]));
        }
        for writer in 0..writers {
            let agent = format!("w{writer}");
            let mine: Vec<String> = messages
                .iter()
                .filter(|m| m.agent.as_deref() == Some(agent.as_str()) && m.role == "assistant")
                .map(text_of)
                .collect();
            assert_eq!(mine, (0..turns).map(|n| format!("{agent} {n}")).collect::<Vec<_>>());
        }
        for run in fresh.store.runs(&session).unwrap() {
            assert_eq!(run.status, RunStatus::Completed);
            let indexes: Vec<i64> = fresh.store.steps(run.id).unwrap().iter().map(|s| s.step_index).collect();
            assert_eq!(indexes, (0..turns as i64).collect::<Vec<_>>());
        }
    }

    fn the_recorder_writes_through_the_trait(fresh) {
        let store: Arc<dyn SessionStore> = fresh.store.clone();
        let session = store.create_session(None).unwrap().id;
        let mut recorder = RunRecorder::start(Arc::clone(&store), &session, &new_run("helper", ContextMode::Shared), "hello", Vec::new()).unwrap();
        recorder.user("more");
        let report = recorder.finish(RunEnding {
            status: RunStatus::Completed,
            answer_visible: true,
            step: None,
            handoff: None,
        });
        assert!(report.is_none(), "{report:?}");
        let messages = store.messages(&session, &MessageQuery::default()).unwrap();
        assert!(messages.iter().any(|m| m.message == Message::user("hello")));
    }
}

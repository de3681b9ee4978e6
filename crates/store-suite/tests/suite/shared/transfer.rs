//! Copying sessions between stores (`agentctl sessions migrate`): every pair of backends, ids
//! renumbered with every reference kept, copies that are idempotent and resumable, and a
//! clash of ids refused.

use super::{new_run, turn};
use agentctl_context::*;
use agentctl_core::{ContextMode, Message, Span, SpanDetail, SpanId, SpanStatus, TraceId};
use agentctl_store::*;
use agentctl_store_suite::{Backend, FreshStore, backends};
use serde_json::{Value, json};

/// A session with a bit of everything: workspaces of every kind, a sub-agent with a parent,
/// steps with budgets, a handoff, summaries, state, overrides, a forked graph and spans.
fn rich_session(store: &dyn SessionStore, title: &str) -> String {
    let session = store.create_session(Some(title)).unwrap().id;
    store
        .set_mode_override(&session, "fixer", Some(ContextMode::Shared))
        .unwrap();
    let lead = store
        .start_run(&session, &new_run("lead", ContextMode::Run))
        .unwrap();
    store
        .record_turn(
            lead.id,
            &[NewMessage::new(
                lead.context_scope.clone(),
                None,
                Message::user("go"),
            )],
            &[],
        )
        .unwrap();
    store
        .record_turn(
            lead.id,
            &turn(&lead.context_scope, "lead", "lead t0"),
            &[
                NewStep::new("model_call", json!({"n": 0})).with_budget(PromptBudget {
                    prompt_token_budget: 100,
                    estimated_prompt_tokens: 42,
                    model_context_window: 200,
                }),
            ],
        )
        .unwrap();
    let sub = store
        .start_run(
            &session,
            &NewRun {
                parent_run_id: Some(lead.id),
                source: Source::TASK,
                ..new_run("tester", ContextMode::Isolated)
            },
        )
        .unwrap();
    store
        .record_turn(
            sub.id,
            &turn(&sub.context_scope, "tester", "sub t0"),
            &[NewStep::new("tool_call", json!({"x": 1}))],
        )
        .unwrap();
    store
        .finish_run(
            sub.id,
            RunStatus::Completed,
            agentctl_core::Usage {
                input_tokens: 5,
                output_tokens: 6,
            },
        )
        .unwrap();
    store
        .write_handoff(
            sub.id,
            &HandoffSummary {
                summary: "tested".into(),
                files_changed: vec!["a.rs".into()],
                open_items: vec![],
            },
        )
        .unwrap();
    let isolated = store
        .start_run(&session, &new_run("reviewer", ContextMode::Isolated))
        .unwrap();
    for n in 0..3 {
        store
            .record_turn(
                isolated.id,
                &turn(&isolated.context_scope, "reviewer", &format!("review {n}")),
                &[],
            )
            .unwrap();
    }
    let reviewed = store
        .messages(
            &session,
            &MessageQuery::scope(isolated.context_scope.clone()),
        )
        .unwrap();
    store
        .save_summary(
            &session,
            &isolated.context_scope,
            reviewed[3].id,
            "first four",
        )
        .unwrap();
    store
        .save_summary(&session, &lead.context_scope, reviewed[1].id, "a start")
        .unwrap();
    store
        .save_summary(&session, &lead.context_scope, i64::MAX - 1, "everything")
        .unwrap();
    store
        .set_session_state(
            &session,
            "task",
            &json!({"status": "done", "by": "tester"}),
            "tester",
        )
        .unwrap();
    store
        .start_graph(&session, "flow", &json!({"input": "x"}), "analyzer")
        .unwrap();
    store
        .write_checkpoint(&NewCheckpoint {
            session: &session,
            branch: 0,
            step: 1,
            node: "analyzer",
            run: Some(lead.id),
            next: None,
            reason: Some("END"),
            state: &json!({"input": "x", "analysis": 1}),
            parallel: None,
        })
        .unwrap();
    store.fork_graph(&session, 0, 0).unwrap();
    let trace = TraceId::random();
    for n in 0..3 {
        store
            .record_span(
                &session,
                &Span {
                    trace_id: trace,
                    span_id: SpanId::random(),
                    parent_id: None,
                    links: Vec::new(),
                    session_id: Some(session.clone()),
                    agent: Some("lead".into()),
                    start_unix_nano: 100 + n,
                    duration_ms: 1.0,
                    status: SpanStatus::Ok,
                    error: None,
                    detail: SpanDetail::Session {
                        prompt: format!("p{n}"),
                    },
                },
            )
            .unwrap();
    }
    store
        .finish_run(
            lead.id,
            RunStatus::Completed,
            agentctl_core::Usage::default(),
        )
        .unwrap();
    session
}

/// The bundle with its store's own ids replaced by positions: what a copy must keep.
fn canonical(bundle: &SessionBundle) -> Value {
    bundle.canonical()
}

#[test]
fn sessions_copy_between_every_pair_of_backends() {
    for from_backend in backends() {
        for to_backend in backends() {
            let from = from_backend.fresh();
            let to = to_backend.fresh();
            // The target already has sessions of its own: ids of both stores overlap.
            let theirs = rich_session(&*to.store, "theirs");
            let first = rich_session(&*from.store, "first");
            let second = from.store.create_session(Some("empty")).unwrap().id;
            let mut heard = Vec::new();
            let report = copy_sessions(&*from.store, &*to.store, &mut |id, outcome| {
                heard.push((id.to_owned(), outcome))
            })
            .unwrap();
            let pair = format!("{from_backend:?} → {to_backend:?}");
            assert_eq!((report.copied, report.skipped), (2, 0), "{pair}");
            assert_eq!(
                heard.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
                [first.as_str(), second.as_str()],
                "oldest first"
            );
            for id in [&first, &second] {
                assert_eq!(
                    canonical(&export_session(&*to.store, id).unwrap()),
                    canonical(&export_session(&*from.store, id).unwrap()),
                    "{pair}: {id}"
                );
            }
            // The listing's counts are the copy's, not zero.
            let count = |store: &dyn SessionStore, id: &str| {
                let info = store
                    .list_sessions()
                    .unwrap()
                    .into_iter()
                    .find(|s| s.id == id);
                info.map(|s| (s.message_count, s.run_count)).unwrap()
            };
            assert_eq!(
                count(&*to.store, &first),
                count(&*from.store, &first),
                "{pair}"
            );
            assert_eq!(
                canonical(&export_session(&*to.store, &theirs).unwrap())["session"][1],
                "theirs"
            );
            // The copy works on: runs, cursors and workspaces are the target's.
            let copied = to.store.runs(&first).unwrap();
            let sub = copied.iter().find(|r| r.agent == "tester").unwrap();
            assert_eq!(
                sub.context_scope,
                ContextScope::sub("tester", sub.id),
                "{pair}"
            );
            assert_eq!(to.store.steps(sub.id).unwrap().len(), 2);
            let view =
                load_history(&*to.store, &first, "reviewer", ContextMode::Isolated, 100).unwrap();
            assert_eq!(view.summary(), Some("first four"));
            assert_eq!(view.len(), 2, "{pair}: the cursor cuts the same messages");
            assert_eq!(
                to.store.interrupt_stale_runs(&first).unwrap(),
                1,
                "{pair}: a copied running run has no live owner"
            );
            // Again: nothing to copy.
            let again = copy_sessions(&*from.store, &*to.store, &mut |_, _| {}).unwrap();
            assert_eq!((again.copied, again.skipped), (0, 2), "{pair}");
            assert_eq!(to.store.list_sessions().unwrap().len(), 3);
        }
    }
}

#[test]
fn an_interrupted_copy_is_finished_by_the_next() {
    for (from, to, _) in pairs() {
        let backend = to.backend;
        let ids: Vec<String> = (0..3)
            .map(|n| rich_session(&*from.store, &format!("s{n}")))
            .collect();
        // The first copy stopped after one session.
        let outcome = to
            .store
            .import_session(&export_session(&*from.store, &ids[0]).unwrap())
            .unwrap();
        assert!(matches!(outcome, ImportOutcome::Copied { .. }));
        let report = copy_sessions(&*from.store, &*to.store, &mut |_, _| {}).unwrap();
        assert_eq!((report.copied, report.skipped), (2, 1), "{backend:?}");
        assert_eq!(to.store.list_sessions().unwrap().len(), 3);
    }
}

#[test]
fn another_session_under_the_same_id_is_refused_whole() {
    for backend in backends() {
        let from = Backend::Sqlite.fresh();
        let to = backend.fresh();
        let id = rich_session(&*from.store, "mine");
        let mut bundle = export_session(&*from.store, &id).unwrap();
        to.store.import_session(&bundle).unwrap();
        bundle.session.created_at += 1;
        bundle.session.title = Some("an impostor".into());
        let error = to.store.import_session(&bundle).unwrap_err();
        assert!(
            matches!(error, ContextError::Transfer { .. }),
            "{backend:?}: {error}"
        );
        assert!(
            error.to_string().contains("delete one of them first"),
            "{error}"
        );
        assert_eq!(
            to.store.session(&id).unwrap().title.as_deref(),
            Some("mine")
        );
        assert_eq!(to.store.runs(&id).unwrap().len(), 3);
    }
}

/// Every (source, target) pair of backends, each with fresh stores.
fn pairs() -> Vec<(FreshStore, FreshStore, String)> {
    let mut pairs = Vec::new();
    for from in backends() {
        for to in backends() {
            pairs.push((from.fresh(), to.fresh(), format!("{from:?} → {to:?}")));
        }
    }
    pairs
}

fn copy(from: &FreshStore, to: &FreshStore) -> (CopyReport, Vec<(String, CopyOutcome)>) {
    let mut heard = Vec::new();
    let report = copy_sessions(&*from.store, &*to.store, &mut |id, outcome| {
        heard.push((id.to_owned(), outcome))
    })
    .unwrap();
    (report, heard)
}

/// Another turn of the session's first run, a new summary (the old one goes to history) and
/// a state value: what a session that keeps being used gains.
fn grow(store: &dyn SessionStore, session: &str, label: &str) {
    let run = store.runs(session).unwrap()[0].clone();
    store
        .record_turn(run.id, &turn(&run.context_scope, &run.agent, label), &[])
        .unwrap();
    let last = store.messages(session, &MessageQuery::default()).unwrap();
    store
        .save_summary(session, &run.context_scope, last.last().unwrap().id, label)
        .unwrap();
    store
        .set_session_state(session, "task", &json!({"status": label}), "lead")
        .unwrap();
}

fn same(from: &FreshStore, to: &FreshStore, id: &str) -> bool {
    canonical(&export_session(&*from.store, id).unwrap())
        == canonical(&export_session(&*to.store, id).unwrap())
}

#[test]
fn a_grown_source_updates_its_copy_and_a_second_run_does_nothing() {
    for (from, to, pair) in pairs() {
        let id = rich_session(&*from.store, "grows");
        let still = rich_session(&*from.store, "still");
        copy(&from, &to);
        grow(&*from.store, &id, "more");
        let messages = from.store.session(&id).unwrap().message_count;
        let (report, heard) = copy(&from, &to);
        assert_eq!(
            (report.copied, report.updated, report.skipped),
            (0, 1, 1),
            "{pair}"
        );
        assert!(report.conflicts.is_empty(), "{pair}");
        assert!(
            heard.contains(&(id.clone(), CopyOutcome::Updated { messages, runs: 3 })),
            "{pair}: {heard:?}"
        );
        assert!(
            heard.contains(&(still.clone(), CopyOutcome::Unchanged)),
            "{pair}"
        );
        assert!(same(&from, &to, &id), "{pair}: the copy is the source's");
        let replaced = to.store.replaced_summaries(&id).unwrap();
        assert_eq!(
            replaced
                .iter()
                .map(|s| s.summary_text.as_str())
                .collect::<Vec<_>>(),
            ["a start", "more"],
            "{pair}: replaced summaries travel"
        );
        // Again: nothing new, nothing written (the target's copy is byte for byte the same).
        let before = export_session(&*to.store, &id).unwrap();
        let (again, _) = copy(&from, &to);
        assert_eq!(
            (again.copied, again.updated, again.skipped),
            (0, 0, 2),
            "{pair}"
        );
        assert_eq!(export_session(&*to.store, &id).unwrap(), before, "{pair}");
        // The other way: the copy grows, and the original (untouched since) takes it.
        grow(&*to.store, &id, "there");
        let (back, _) = copy(&to, &from);
        assert_eq!((back.updated, back.skipped), (1, 1), "{pair}: back");
        assert!(same(&from, &to, &id), "{pair}");
        let (forth, _) = copy(&from, &to);
        assert_eq!((forth.updated, forth.skipped), (0, 2), "{pair}: forth");
    }
}

#[test]
fn a_session_changed_on_both_sides_is_refused_and_named_while_the_rest_is_copied() {
    for (from, to, pair) in pairs() {
        let both = rich_session(&*from.store, "both");
        let grows = rich_session(&*from.store, "grows");
        copy(&from, &to);
        grow(&*from.store, &both, "here");
        grow(&*to.store, &both, "there");
        grow(&*from.store, &grows, "here");
        let fresh = rich_session(&*from.store, "new");
        let theirs = export_session(&*to.store, &both).unwrap();
        let mine = export_session(&*from.store, &both).unwrap();
        let (report, heard) = copy(&from, &to);
        assert_eq!(
            report.conflicts,
            [(both.clone(), Conflict::BothChanged)],
            "{pair}"
        );
        assert!(heard.contains(&(both.clone(), CopyOutcome::Conflict(Conflict::BothChanged))));
        assert_eq!((report.copied, report.updated), (1, 1), "{pair}");
        assert!(
            same(&from, &to, &grows) && same(&from, &to, &fresh),
            "{pair}"
        );
        assert_eq!(
            export_session(&*to.store, &both).unwrap(),
            theirs,
            "{pair}: untouched"
        );
        assert_eq!(export_session(&*from.store, &both).unwrap(), mine, "{pair}");
        // The other way, the same answer.
        let (back, _) = copy(&to, &from);
        assert_eq!(
            back.conflicts,
            [(both.clone(), Conflict::BothChanged)],
            "{pair}"
        );
        // A state change alone counts as a change.
        let quiet = rich_session(&*from.store, "quiet");
        copy(&from, &to);
        to.store
            .set_session_state(&quiet, "task", &json!("theirs"), "lead")
            .unwrap();
        grow(&*from.store, &quiet, "here");
        let (report, _) = copy(&from, &to);
        assert!(
            report
                .conflicts
                .contains(&(quiet.clone(), Conflict::BothChanged)),
            "{pair}"
        );
        // Deleting one side's copy settles it.
        to.store.delete_session(&both).unwrap();
        let (settled, _) = copy(&from, &to);
        assert!(
            !settled.conflicts.iter().any(|(id, _)| *id == both),
            "{pair}"
        );
        assert!(same(&from, &to, &both), "{pair}");
    }
}

#[test]
fn a_copy_without_a_record_is_in_step_when_equal_and_refused_when_not() {
    for (from, to, pair) in pairs() {
        let id = rich_session(&*from.store, "old");
        // As an older agentctl copied it: no mark.
        to.store
            .import_session(&export_session(&*from.store, &id).unwrap())
            .unwrap();
        assert_eq!(to.store.sync_mark(&id).unwrap(), None);
        let (report, _) = copy(&from, &to);
        assert_eq!(report.skipped, 1, "{pair}");
        assert!(
            to.store.sync_mark(&id).unwrap().is_some(),
            "{pair}: recorded now"
        );
        let other = rich_session(&*from.store, "other");
        to.store
            .import_session(&export_session(&*from.store, &other).unwrap())
            .unwrap();
        grow(&*from.store, &other, "more");
        let (report, _) = copy(&from, &to);
        assert_eq!(
            report.conflicts,
            [(other.clone(), Conflict::NoRecord)],
            "{pair}"
        );
    }
}

#[test]
fn a_replace_refuses_a_copy_that_changed_meanwhile() {
    for (from, to, pair) in pairs() {
        let id = rich_session(&*from.store, "s");
        copy(&from, &to);
        let seen = to.store.session(&id).unwrap();
        grow(&*to.store, &id, "meanwhile");
        let grown = export_session(&*to.store, &id).unwrap();
        let bundle = export_session(&*from.store, &id).unwrap();
        let error = to.store.replace_session(&bundle, &seen).unwrap_err();
        assert!(
            matches!(error, ContextError::Transfer { .. }),
            "{pair}: {error}"
        );
        assert!(error.to_string().contains("run the copy again"), "{error}");
        assert_eq!(
            export_session(&*to.store, &id).unwrap(),
            grown,
            "{pair}: untouched"
        );
    }
}

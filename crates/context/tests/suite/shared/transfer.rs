//! Copying sessions between stores (`agentctl sessions migrate`): every pair of backends, ids
//! renumbered with every reference kept, copies that are idempotent and resumable, and a
//! clash of ids refused.

use super::{new_run, turn};
use agentctl_context::*;
use agentctl_core::{ContextMode, Message, Span, SpanDetail, SpanId, SpanStatus, TraceId};
use agentctl_test_support::{Backend, backends};
use serde_json::{Value, json};
use std::collections::HashMap;

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
    let runs: HashMap<RunId, usize> = bundle
        .runs
        .iter()
        .enumerate()
        .map(|(at, run)| (run.id, at))
        .collect();
    let run = |id: Option<RunId>| id.map(|id| runs.get(&id).copied());
    let scope = |scope: &ContextScope| -> String {
        let renumber = |id: &str| {
            id.parse::<RunId>()
                .ok()
                .and_then(|id| runs.get(&id))
                .map_or_else(|| id.to_owned(), |at| format!("#{at}"))
        };
        match scope {
            ContextScope::Run(id) => format!("run:{}", renumber(id)),
            ContextScope::Sub { agent, run } => format!("sub:{agent}:{}", renumber(run)),
            other => other.to_string(),
        }
    };
    let cursor = |until: MessageId| bundle.messages.iter().filter(|m| m.id <= until).count();
    json!({
        "session": [bundle.session.id, bundle.session.title, bundle.session.created_at, bundle.session.updated_at],
        "overrides": bundle.mode_overrides.iter().map(|(a, m)| format!("{a}={m}")).collect::<Vec<_>>(),
        "runs": bundle.runs.iter().map(|r| json!([r.agent, run(r.parent_run_id), scope(&r.context_scope), r.status.as_str(), r.model, r.source.as_str(), r.usage, r.started_at, r.finished_at])).collect::<Vec<_>>(),
        "steps": bundle.steps.iter().map(|s| json!([run(Some(s.run_id)), s.step_index, s.kind, s.content, s.budget, s.created_at])).collect::<Vec<_>>(),
        "messages": bundle.messages.iter().map(|m| json!([run(m.run_id), m.timeline_scope, scope(&m.context_scope), m.agent, m.role, m.visible, m.source.as_str(), m.token_estimate, m.created_at, m.message])).collect::<Vec<_>>(),
        "summaries": bundle.summaries.iter().map(|s| json!([scope(&s.scope), cursor(s.until_message_id), s.summary_text, s.created_at, s.updated_at])).collect::<Vec<_>>(),
        "state": bundle.state,
        "checkpoints": bundle.checkpoints.iter().map(|c| json!([c.branch, c.step, c.graph, c.node, run(c.run), c.next, c.reason, c.state, c.source, c.parent, c.created_at])).collect::<Vec<_>>(),
        "spans": bundle.spans,
    })
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
    for backend in backends() {
        let from = Backend::Sqlite.fresh();
        let to = backend.fresh();
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

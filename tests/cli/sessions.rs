//! `agentctl sessions …` and `agentctl context …` against a session store written through the
//! library, in a temporary project and home.

use super::support::{TestProject, check_shape, text};
use agentctl_core::{ContextMode, Message, ToolCall, Usage};
use agentctl_store::{
    ContextScope, HandoffSummary, MessageLog, NewMessage, NewRun, NewStep, PromptBudget, RunLog,
    RunStatus, SessionLog, Source,
};

/// A project with an isolated `reviewer` and a shared `planner`, and `settings` if given.
fn project(settings: Option<&str>) -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/reviewer.md",
            "---\nname: reviewer\ndescription: Reviews code\ncontextMode: isolated\n---\nReview.\n",
        )
        .write(
            ".agentctl/agents/planner.md",
            "---\nname: planner\ndescription: Plans work\ncontextMode: shared\n---\nPlan.\n",
        );
    if let Some(settings) = settings {
        project.write(".agentctl/settings.json", settings);
    }
    project
}

/// A session with a main exchange, an isolated agent's run and a sub-agent's hidden step
/// followed by its handoff.
fn seed(project: &TestProject) -> String {
    let store = project.store();
    let session = store.create_session(Some("review the parser")).unwrap().id;
    store
        .append_messages(
            &session,
            None,
            &[
                NewMessage::new(ContextScope::Main, None, Message::user("review the parser")),
                NewMessage::new(
                    ContextScope::Main,
                    Some("planner"),
                    Message::assistant("Plan: read, then test."),
                ),
            ],
        )
        .unwrap();
    let run = store
        .start_run(
            &session,
            &NewRun {
                agent: "reviewer".into(),
                mode: ContextMode::Isolated,
                parent_run_id: None,
                handoff: false,
                model: Some("scripted:review.yaml".into()),
                source: Source::CLI,
            },
        )
        .unwrap();
    let call = ToolCall {
        id: "c1".into(),
        name: "read_file".into(),
        arguments: serde_json::json!({"path": "src/parser.rs"}),
        signature: None,
    };
    store
        .record_turn(
            run.id,
            &[
                NewMessage::new(
                    run.context_scope.clone(),
                    Some("reviewer"),
                    Message::Assistant {
                        content: None,
                        tool_calls: vec![call],
                    },
                ),
                NewMessage::new(
                    run.context_scope.clone(),
                    Some("reviewer"),
                    Message::Tool {
                        call_id: "c1".into(),
                        name: "read_file".into(),
                        content: "fn parse() {}".into(),
                        is_error: false,
                    },
                ),
                NewMessage::new(
                    run.context_scope.clone(),
                    Some("reviewer"),
                    Message::assistant("Looks fine."),
                ),
            ],
            &[NewStep {
                kind: "model_call".into(),
                content: serde_json::json!({"input_tokens": 410, "output_tokens": 25}),
                budget: Some(PromptBudget {
                    prompt_token_budget: 120_000,
                    estimated_prompt_tokens: 420,
                    model_context_window: 128_000,
                }),
            }],
        )
        .unwrap();
    let sub = store
        .start_run(
            &session,
            &NewRun {
                agent: "tester".into(),
                mode: ContextMode::Isolated,
                parent_run_id: Some(run.id),
                handoff: false,
                model: None,
                source: Source::CLI,
            },
        )
        .unwrap();
    store
        .record_turn(
            sub.id,
            &[NewMessage::new(
                sub.context_scope.clone(),
                Some("tester"),
                Message::assistant("ran 12 tests"),
            )],
            &[],
        )
        .unwrap();
    store
        .finish_run(
            sub.id,
            RunStatus::Completed,
            Usage {
                input_tokens: 10,
                output_tokens: 5,
            },
        )
        .unwrap();
    store
        .write_handoff(
            sub.id,
            &HandoffSummary {
                summary: "All 12 tests pass.".into(),
                files_changed: vec![],
                open_items: vec!["add a fuzz test".into()],
            },
        )
        .unwrap();
    store
        .finish_run(
            run.id,
            RunStatus::Completed,
            Usage {
                input_tokens: 100,
                output_tokens: 20,
            },
        )
        .unwrap();
    session
}

/// The transcript of a run, with the session's id shown as `[SESSION]`.
fn transcript(project: &TestProject, args: &[&str], session: &str) -> String {
    project.transcript(args).replace(session, "[SESSION]")
}

macro_rules! snapshot {
    ($value:expr) => {
        insta::with_settings!({filters => vec![
            (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "[TIME]"),
            (r#""\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z""#, "[TIME]"),
            (r"\d{8}-\d{6}-[0-9a-f]{4}", "[SESSION]"),
        ]}, {
            insta::assert_snapshot!($value);
        });
    };
}

#[test]
fn sessions_list_and_show() {
    let project = project(None);
    let empty = project.output(&["sessions", "list"]);
    assert_eq!(text(&empty.stdout), "No sessions.\n");
    assert!(
        !project.root.join(".agentctl/sessions.db").exists(),
        "list does not create the store"
    );
    let session = seed(&project);
    snapshot!(transcript(&project, &["sessions", "list"], &session));
    snapshot!(transcript(
        &project,
        &["sessions", "show", &session],
        &session
    ));
    snapshot!(transcript(
        &project,
        &["sessions", "show", &session, "--scope", "agent:reviewer"],
        &session
    ));
    snapshot!(transcript(
        &project,
        &["sessions", "show", &session, "--all", "--format", "json"],
        &session
    ));
    snapshot!(transcript(
        &project,
        &["sessions", "show", "missing"],
        &session
    ));
    // `--all` adds each model call's token figures.
    snapshot!(transcript(
        &project,
        &["sessions", "show", &session, "--all"],
        &session
    ));
}

#[test]
fn sessions_show_json_fields() {
    let project = project(None);
    let session = seed(&project);
    let output = project.output(&["sessions", "show", &session, "--all", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    check_shape("session", &json);
    check_shape(
        "sessions",
        &project.json(&["sessions", "list", "--format", "json"]),
    );
    let messages = json["messages"].as_array().unwrap();
    for key in ["timelineScope", "contextScope", "agent", "role", "visible"] {
        assert!(messages.iter().all(|m| m.get(key).is_some()), "{key}");
    }
    let sub_step = messages
        .iter()
        .find(|m| m["contextScope"].as_str().unwrap().starts_with("sub:"))
        .unwrap();
    assert_eq!(sub_step["visible"], false);
    assert!(messages.iter().all(|m| m["source"] == "cli"));
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs[1]["parentRunId"], runs[0]["runId"]);
    assert!(runs.iter().all(|r| r["source"] == "cli"));
    let call = &json["modelCalls"][0];
    assert_eq!(call["runId"], runs[0]["runId"]);
    assert_eq!(call["estimatedPromptTokens"], 420);
    assert_eq!(call["promptTokenBudget"], 120_000);
    assert_eq!(call["modelContextWindow"], 128_000);
    assert_eq!(call["usage"]["inputTokens"], 410);
}

#[test]
fn sessions_delete() {
    let project = project(None);
    let session = seed(&project);
    snapshot!(transcript(
        &project,
        &["sessions", "delete", &session],
        &session
    ));
    snapshot!(transcript(
        &project,
        &["sessions", "delete", &session, "--yes"],
        &session
    ));
    assert!(project.store().list_sessions().unwrap().is_empty());
}

#[test]
fn context_show_and_override() {
    let project = project(None);
    let session = seed(&project);
    snapshot!(transcript(&project, &["context", "reviewer"], &session));
    snapshot!(transcript(
        &project,
        &["context", "reviewer", "--mode", "shared"],
        &session
    ));
    snapshot!(transcript(&project, &["context", "--all"], &session));
    snapshot!(transcript(
        &project,
        &[
            "context",
            "reviewer",
            "--clear",
            "--session",
            &session,
            "--format",
            "json"
        ],
        &session
    ));
    snapshot!(transcript(&project, &["context", "revewer"], &session));
}

#[test]
fn context_shared_refused_by_settings() {
    let project = project(Some(r#"{"agents": {"allowSharedContext": false}}"#));
    let session = seed(&project);
    snapshot!(transcript(
        &project,
        &["context", "reviewer", "--mode", "shared"],
        &session
    ));
    snapshot!(transcript(&project, &["context", "--all"], &session));
}

#[test]
fn sessions_compact_with_a_scripted_model() {
    let project = project(None);
    project.serve_cassettes();
    let session = seed(&project);
    project.write(
        "summary.yaml",
        "version: 1\nturns:\n  - expect: { lastUserContains: review the parser }\n    response: { text: The user asked for a parser review. }\n  - response: { text: The reviewer read src/parser.rs. }\n",
    );
    snapshot!(transcript(
        &project,
        &[
            "sessions",
            "compact",
            &session,
            "--model",
            "scripted:summary.yaml"
        ],
        &session
    ));
    let shown = project.output(&["sessions", "show", &session]);
    let text = text(&shown.stdout);
    assert!(
        text.contains("[main] up to message 2: The user asked for a parser review."),
        "{text}"
    );
    assert!(
        text.contains("[agent:reviewer] up to message 4: The reviewer read src/parser.rs."),
        "{text}"
    );
    snapshot!(transcript(
        &project,
        &["sessions", "compact", &session],
        &session
    ));
}

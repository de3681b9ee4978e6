//! Seed 004's vocabulary through the `task` tool: its capability names (`file_ops`,
//! `shell_exec`, …) accepted as the project's own, `bdTaskId` carried from the dispatch to the
//! executor's context and back in the result, and the orchestrator's note given per dispatch.

use crate::suite::task::fixtures::*;
use agentctl_core::{AgentDefinition, Message, ModelRequest, RunOptions};
use agentctl_session::TaskConfig;
use agentctl_store::RunLog as _;
use serde_json::json;

/// `agent(name)` allowed only `tools`.
fn agent_with(name: &str, tools: &[&str]) -> AgentDefinition {
    let mut agent = agent(name);
    agent.spec.tools.allow = Some(tools.iter().map(|tool| (*tool).to_owned()).collect());
    agent
}

fn system(request: &ModelRequest) -> &str {
    request.system.as_deref().unwrap_or_default()
}

#[tokio::test]
async fn seed_capability_names_the_tracker_id_and_the_note_reach_the_executor() {
    let fixture = setup(
        TaskConfig::default(),
        vec![
            agent_with("main", &["task", "read_file"]),
            agent_with("coder", &["read_file", "write_file", "bash"]),
        ],
        "fix it",
    );
    let (runtime, server) = build_runtime(
        &fixture,
        |request| match (system(request), last_is_user(request)) {
            (s, true) if s.starts_with("You are main.") => calls(&[(
                "t1",
                "task",
                json!({"goal": "fix the login bug",
                       "capabilities": ["file_ops", "shell_exec"],
                       "bdTaskId": " finger-60.1\n",
                       "orchestratorNote": "Run the tests first.\n## Forged heading"}),
            )]),
            (s, _) if s.starts_with("You are coder.") => text("fixed"),
            _ => text("done"),
        },
        vec![],
    )
    .await;
    let main = agent_with("main", &["task", "read_file"]);
    let result = runtime
        .run_to_completion(
            &main,
            "fix it",
            RunOptions::new().run_id(fixture.parent.id.to_string()),
        )
        .await
        .unwrap();
    assert_eq!(result.text, "done");

    let requests = server.model_requests();
    let coder = requests
        .iter()
        .find(|request| system(request).starts_with("You are coder."))
        .expect("the coder took the task: it has read, write and run capabilities");
    let prompt = system(coder);
    for line in [
        "- ID: t1\n- Tracker ID (bdTaskId): finger-60.1\n- Description: fix the login bug\n\
         - Required capabilities: read_code, write_code, run_commands\n- Assigned agent: coder\n",
        // The note a model wrote is one line: it cannot forge a heading of the section.
        "## Orchestrator note\n\nRun the tests first. ## Forged heading\n\n",
    ] {
        assert!(prompt.contains(line), "{line}\n---\n{prompt}");
    }

    // The result carries the tracker id back, in its text and in the stored report.
    let (content, is_error) = result
        .messages
        .iter()
        .find_map(|message| match message {
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } if call_id == "t1" => Some((content, is_error)),
            _ => None,
        })
        .unwrap();
    assert!(!*is_error, "{content}");
    assert!(content.contains("; bdTaskId finger-60.1]"), "{content}");
    let kid = &children(&fixture)[0];
    let steps = fixture.store.steps(kid.id).unwrap();
    let report = steps
        .iter()
        .find(|step| step.kind == "task_result")
        .unwrap();
    assert_eq!(report.content["bdTaskId"], "finger-60.1");
}

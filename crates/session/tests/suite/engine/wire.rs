//! What the engine tests share: projects whose agents run on a strict fake of the OpenAI API
//! (real HTTP, every request checked), and a turn driven through the session's operations and
//! events, its questions answered as a front end would.

use agentctl_providers::{Env, ProviderOptions, RetryPolicy};
use agentctl_session::{EventMsg, EventStream, Op, Project, RuntimeBuilder, Session, TurnOutcome};
use agentctl_test_support::{FakeServer, openai};
use agentctl_tools::{ApprovalAnswer, ApprovalRequest};
use std::path::Path;

/// Provider options pointing every `openai:` model at `server`, with a test key.
pub fn options(server: &FakeServer, root: &Path) -> ProviderOptions {
    ProviderOptions {
        retry: RetryPolicy::none(),
        env: Env::from_pairs([
            ("OPENAI_API_KEY", "sk-test-strict-fake".to_owned()),
            ("OPENAI_BASE_URL", server.base_url()),
        ]),
        working_dir: Some(root.to_path_buf()),
        ..ProviderOptions::default()
    }
}

/// A project with `agents` (`(name, front matter lines)`, all on `openai:gpt-4o-mini`) and
/// `settings`.
pub fn project(agents: &[(&str, &str)], settings: Option<&str>) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".agentctl/agents")).unwrap();
    for (name, extra) in agents {
        std::fs::write(
            root.join(format!(".agentctl/agents/{name}.md")),
            format!(
                "---\nname: {name}\ndescription: The {name} agent.\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
            ),
        )
        .unwrap();
    }
    if let Some(settings) = settings {
        std::fs::write(root.join(".agentctl/settings.json"), settings).unwrap();
    }
    let project = Project::load_from(Some(&root), &root).unwrap();
    (dir, project)
}

/// The runtime builder of `project`, its models on `server`.
pub fn builder(project: &Project, server: &FakeServer) -> RuntimeBuilder {
    RuntimeBuilder::new(project).provider_options(options(server, project.root()))
}

/// Queues an answer calling `name` with `arguments` (JSON text).
pub fn call(server: &FakeServer, id: &str, name: &str, arguments: &str) {
    server.push_json(openai::tool_calls_response(&[(id, name, arguments)]));
}

/// Queues a text answer.
pub fn answer(server: &FakeServer, text: &str) {
    server.push_json(openai::text_response(text));
}

/// Submits `op` and reads the session's events until its turn ends, answering each question
/// with `answer`; returns the turn's events (the questions among them) and its outcome.
pub async fn drive(
    session: &Session,
    events: &mut EventStream,
    op: Op,
    mut answer: impl FnMut(&ApprovalRequest) -> ApprovalAnswer,
) -> (Vec<EventMsg>, TurnOutcome) {
    let turn = session.submit(op).unwrap();
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        match event.msg {
            EventMsg::TurnFinished(outcome) if event.turn == turn => return (seen, *outcome),
            EventMsg::ApprovalRequested(question) => {
                let call_id = question.call_id.clone();
                let reply = answer(&question);
                seen.push(EventMsg::ApprovalRequested(question));
                session
                    .submit(Op::Approve {
                        call_id,
                        answer: reply,
                    })
                    .unwrap();
            }
            msg => seen.push(msg),
        }
    }
    panic!("the session's events ended before the turn: {seen:?}")
}

/// The questions among `events`.
pub fn questions(events: &[EventMsg]) -> Vec<&ApprovalRequest> {
    events
        .iter()
        .filter_map(|event| match event {
            EventMsg::ApprovalRequested(question) => Some(question),
            _ => None,
        })
        .collect()
}

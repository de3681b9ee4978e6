//! Turns through the session engine: what is stored is what the loop
//! committed, runs take their store run's id, history comes back paired on the next turn,
//! secrets never reach the store or the model, and compaction goes through the runtime's own
//! providers (so a recording captures it).

use super::support;
use agentctl_core::{ContextMode, Message, Redactor, RunEvent};
use agentctl_session::{EventMsg, Notice, Project, Recording, Session};
use agentctl_store::{
    ContextScope, MessageLog as _, MessageQuery, NewMessage, NewRun, RunLog as _, SessionStore,
    Source,
};
use agentctl_store_sqlite::SqliteStore;
use agentctl_test_support::{FakeServer, calls, text};
use serde_json::json;
use std::path::Path;

const SECRET: &str = "sk-live-session-secret-0001";

struct Setup {
    _dir: tempfile::TempDir,
    project: Project,
}

fn setup(model: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".agentctl/agents")).unwrap();
    std::fs::write(
        root.join(".agentctl/agents/reader.md"),
        format!(
            "---\nname: reader\ndescription: Reads notes.\nmodel: {model}\ntools:\n  allow: [read_file]\n---\nYou read notes.\n"
        ),
    )
    .unwrap();
    std::fs::write(root.join("notes.txt"), format!("token={SECRET}\n")).unwrap();
    let project = Project::load_from(Some(&root), &root).unwrap();
    Setup { _dir: dir, project }
}

/// A session whose models are a strict fake of the OpenAI API answering `responses` in
/// order, and the server.
async fn session(
    setup: &Setup,
    responses: Vec<agentctl_core::ModelResponse>,
    recording: Option<Recording>,
) -> (Session, FakeServer) {
    let server = FakeServer::openai().await;
    server.push_responses(responses);
    let mut builder =
        super::engine::wire::builder(&setup.project, &server).redactor(Redactor::new([SECRET]));
    if let Some(recording) = recording {
        builder = builder.record(recording);
    }
    (support::session(&setup.project, builder).await, server)
}

fn store(setup: &Setup) -> SqliteStore {
    SqliteStore::open(&setup.project.store_path()).unwrap()
}

#[tokio::test]
async fn a_turn_stores_what_the_loop_committed_under_its_store_run_id() {
    let setup = setup("openai:gpt-4o-mini");
    let (session, server) = session(
        &setup,
        vec![
            calls(&[("c1", "read_file", json!({"path": "notes.txt"}))]),
            text("The notes hold a token."),
            text("Still a token."),
        ],
        None,
    )
    .await;
    let session_id = session.id().unwrap().to_owned();
    let (events, outcome) =
        support::turn(&session, support::agent("reader"), "Read the notes").await;
    let Some(EventMsg::TurnStarted {
        context: Some(context),
        ..
    }) = events.first()
    else {
        panic!("{events:?}")
    };
    assert_eq!(context.mode, ContextMode::Isolated);
    let runs = support::runs(&events);
    let Some(RunEvent::RunStarted { run_id, .. }) = runs.first() else {
        panic!("{runs:?}")
    };
    let run_id: i64 = run_id.parse().expect("the run takes its store run's id");
    let committed: Vec<Message> = runs
        .iter()
        .filter_map(|event| match event {
            RunEvent::TurnCommitted { messages, .. } => Some(messages.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(outcome.result.unwrap().text, "The notes hold a token.");

    let store = store(&setup);
    let scope = ContextScope::agent("reader");
    let stored: Vec<Message> = store
        .messages(&session_id, &MessageQuery::scope(scope))
        .unwrap()
        .into_iter()
        .map(|stored| stored.message)
        .collect();
    // The prompt, then exactly the committed turns; the secret the tool read is masked in
    // both (the loop masked the tool result before committing it).
    assert_eq!(stored[0], Message::user("Read the notes"));
    assert_eq!(stored[1..], committed[..]);
    let Message::Tool { content, .. } = &stored[2] else {
        panic!("{stored:?}")
    };
    assert!(content.contains("token=[REDACTED]"), "{content}");
    assert_eq!(store.run(run_id).unwrap().agent, "reader");
    // The model was never sent the secret.
    assert!(
        server
            .requests()
            .iter()
            .all(|request| !request.raw_body.contains(SECRET))
    );

    // The next turn carries the first one, paired, before its prompt.
    let (_, second) = support::turn(&session, support::agent("reader"), "And now?").await;
    assert!(second.result.is_ok());
    let last = server.model_requests().pop().unwrap();
    let roles: Vec<&str> = last
        .messages
        .iter()
        .map(|message| match message {
            Message::User { .. } => "user",
            Message::Assistant { .. } => "assistant",
            Message::Tool { .. } => "tool",
        })
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant", "user"]);
    session.shutdown().await;
}

/// Fills the agent's workspace past the model's window (gpt-4: 8,192 tokens).
fn fill(store: &dyn SessionStore, session: &str) {
    let run = store
        .start_run(
            session,
            &NewRun {
                agent: "reader".into(),
                mode: ContextMode::Isolated,
                parent_run_id: None,
                handoff: false,
                model: None,
                source: Source::CLI,
            },
        )
        .unwrap();
    let long = "lorem ipsum ".repeat(1_500);
    let messages: Vec<NewMessage> = (0..6)
        .map(|index| {
            let message = if index % 2 == 0 {
                Message::user(&long)
            } else {
                Message::assistant(long.clone())
            };
            NewMessage::new(ContextScope::agent("reader"), Some("reader"), message)
        })
        .collect();
    store.record_turn(run.id, &messages, &[]).unwrap();
}

#[tokio::test]
async fn compaction_goes_through_the_runtime_providers_and_is_recorded() {
    let setup = setup("openai:gpt-4");
    let recording = Recording::new();
    let (session, server) = session(
        &setup,
        vec![
            text("Summary: the user repeated lorem ipsum."),
            text("Short answer."),
        ],
        Some(recording.clone()),
    )
    .await;
    fill(&store(&setup), session.id().unwrap());
    let (events, outcome) = support::turn(&session, support::agent("reader"), "One more?").await;
    assert!(
        events
            .iter()
            .any(|event| matches!(event, EventMsg::Notice(Notice::Compacted { .. }))),
        "{events:?}"
    );
    assert_eq!(outcome.result.unwrap().text, "Short answer.");
    // Two model calls — the summary and the answer — both through the recording.
    assert_eq!(server.requests().len(), 2);
    let cassette = setup.project.root().join("recorded.yaml");
    recording.save(&cassette).unwrap();
    let yaml = std::fs::read_to_string(&cassette).unwrap();
    assert!(
        yaml.contains("Summary: the user repeated lorem ipsum."),
        "{yaml}"
    );
    assert!(yaml.contains("Short answer."), "{yaml}");
    session.shutdown().await;
}

#[test]
fn a_project_is_found_from_a_subfolder() {
    let setup = setup("openai:gpt-4o-mini");
    let nested = setup.project.root().join("src/deep");
    std::fs::create_dir_all(&nested).unwrap();
    let found = Project::load_from(None, &nested).unwrap();
    assert_eq!(found.root(), setup.project.root());
    assert!(Path::new(&found.store_path()).ends_with(".agentctl/sessions.db"));
}

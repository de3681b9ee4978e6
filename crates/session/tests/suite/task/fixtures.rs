//! Fixtures of the `task` tests: a session with a top-level run, a runtime whose model is a
//! strict fake of the OpenAI API answering by routing (the children's calls interleave), and
//! helpers to call `task` and read the store. Providers, tools and builders are
//! the shared fakes of agentctl-test-support.

use agentctl_core::{
    AgentDefinition, ContextMode, Message, ModelRequest, ModelResponse, Settings, Tool,
    ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use agentctl_providers::BuiltinProviders;
use agentctl_runtime::Runtime;
use agentctl_session::{TaskConfig, TaskTool};
use agentctl_store::{NewMessage, NewRun, RunLog as _, RunRecord, SessionLog as _, Source};
use agentctl_store_sqlite::SqliteStore;
pub use agentctl_test_support::{
    Behaviour, FakeServer, FakeTool, Rendezvous, agent, calls, first_user, text,
};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub fn last(request: &ModelRequest) -> &Message {
    request.messages.last().unwrap()
}

pub fn last_is_user(request: &ModelRequest) -> bool {
    matches!(last(request), Message::User { .. })
}

/// A session with a top-level run of `main` whose prompt is recorded, as the CLI does.
pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub store: Arc<SqliteStore>,
    pub session: String,
    pub parent: RunRecord,
    pub tasks: TaskTool,
}

pub fn setup(config: TaskConfig, agents: Vec<AgentDefinition>, prompt: &str) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join(".agentctl/sessions.db")).unwrap());
    let session = store.create_session(Some("tasks")).unwrap().id;
    let parent = store
        .start_run(
            &session,
            &NewRun {
                agent: "main".into(),
                mode: ContextMode::Isolated,
                parent_run_id: None,
                handoff: false,
                model: None,
                source: Source::CLI,
            },
        )
        .unwrap();
    store
        .record_turn(
            parent.id,
            &[NewMessage::new(
                parent.context_scope.clone(),
                None,
                Message::user(prompt),
            )],
            &[],
        )
        .unwrap();
    let tasks = TaskTool::new(Arc::clone(&store) as _, &session, agents).with_config(config);
    Fixture {
        _dir: dir,
        store,
        session,
        parent,
        tasks,
    }
}

/// A runtime with `task` and `extra` tools whose `openai:` models are a strict fake of the
/// OpenAI API answering with `route`, and the server.
pub async fn build_runtime(
    fixture: &Fixture,
    route: impl Fn(&ModelRequest) -> ModelResponse + Send + Sync + 'static,
    extra: Vec<Arc<dyn Tool>>,
) -> (Runtime, FakeServer) {
    let server = FakeServer::openai_routed(route).await;
    let mut tools = ToolRegistry::new();
    tools.register_typed(fixture.tasks.clone());
    for tool in extra {
        tools.register_arc(tool);
    }
    let options = crate::suite::engine::wire::options(&server, fixture._dir.path());
    let runtime = Runtime::new(Settings::default(), BuiltinProviders::new(options), tools);
    (runtime, server)
}

/// Calls `task` directly as the top-level run of `main` would: under its store run's id.
pub async fn call_task(
    fixture: &Fixture,
    runtime: &Runtime,
    args: Value,
    cancel: CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let run_id = fixture.parent.id.to_string();
    let ctx = ToolContext::new(run_id, "main", "call-1", Path::new("."), cancel)
        .with_sub_agents(Arc::new(runtime.clone()), 0);
    runtime.tools().get("task").unwrap().call(args, &ctx).await
}

/// A safe tool that sleeps (until cancelled).
pub fn sleep(name: &str, duration: std::time::Duration) -> Arc<dyn Tool> {
    FakeTool::new(name, Behaviour::Sleep(duration)).shared()
}

pub fn children(fixture: &Fixture) -> Vec<RunRecord> {
    fixture
        .store
        .runs(&fixture.session)
        .unwrap()
        .into_iter()
        .filter(|run| run.parent_run_id.is_some())
        .collect()
}

pub fn step_kinds(fixture: &Fixture, run: &RunRecord) -> Vec<String> {
    fixture
        .store
        .steps(run.id)
        .unwrap()
        .into_iter()
        .map(|step| step.kind)
        .collect()
}

//! Fixtures of the `task` tests: a routing provider, tools that meet or sleep, a session with
//! a top-level run, and helpers to call `task` and read the store.

use super::super::support::{TempStore, temp_store};
use agentctl_context::{
    NewMessage, NewRun, RunLog as _, RunRecord, SessionLog as _, SqliteStore, TaskConfig, TaskTool,
};
use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, ContextMode, Message, ModelRef, ModelRequest,
    ModelResponse, Scope, Settings, SourceFormat, StopReason, ToolCall, Usage,
};
use agentctl_providers::{DeltaSink, ModelProvider, ProviderError};
use agentctl_runtime::{
    RiskLevel, Runtime, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub type Route = dyn Fn(&ModelRequest) -> ModelResponse + Send + Sync;

/// Answers by looking at the request (children run concurrently, so a queue would not do).
pub struct Routed {
    pub route: Box<Route>,
    pub requests: Mutex<Vec<ModelRequest>>,
}

#[async_trait::async_trait]
impl ModelProvider for Routed {
    fn name(&self) -> &str {
        "routed"
    }
    async fn complete(
        &self,
        request: &ModelRequest,
        _on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        self.requests.lock().unwrap().push(request.clone());
        Ok((self.route)(request))
    }
}

pub fn text(text: &str) -> ModelResponse {
    ModelResponse {
        text: Some(text.into()),
        tool_calls: vec![],
        usage: Usage {
            input_tokens: 10,
            output_tokens: 5,
        },
        stop_reason: StopReason::EndTurn,
    }
}

pub fn calls(calls: &[(&str, &str, Value)]) -> ModelResponse {
    ModelResponse {
        text: None,
        tool_calls: calls
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: (*id).into(),
                name: (*name).into(),
                arguments: arguments.clone(),
            })
            .collect(),
        usage: Usage {
            input_tokens: 20,
            output_tokens: 7,
        },
        stop_reason: StopReason::ToolUse,
    }
}

/// The first user message of a request (the goal block for a child).
pub fn first_user(request: &ModelRequest) -> &str {
    match request.messages.first() {
        Some(Message::User { content }) => content,
        _ => "",
    }
}

pub fn last(request: &ModelRequest) -> &Message {
    request.messages.last().unwrap()
}

pub fn last_is_user(request: &ModelRequest) -> bool {
    matches!(last(request), Message::User { .. })
}

pub fn agent(name: &str) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            model: Some("openai:gpt-4o-mini".into()),
            ..Default::default()
        },
        system_prompt: format!("You are {name}."),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("{name}.md").into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

/// A tool every child calls: passes only when `parties` calls are in flight at once.
pub struct Rendezvous {
    pub barrier: Arc<tokio::sync::Barrier>,
    pub in_flight: Arc<AtomicUsize>,
    pub max_in_flight: Arc<AtomicUsize>,
}

#[async_trait::async_trait]
impl Tool for Rendezvous {
    fn name(&self) -> &str {
        "rendezvous"
    }
    fn description(&self) -> &str {
        "Waits for the other sub-agents."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }
    fn is_mutating(&self) -> bool {
        false
    }
    async fn call(&self, _args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let met = tokio::time::timeout(Duration::from_secs(5), self.barrier.wait()).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        met.map(|_| ToolOutput::text("met"))
            .map_err(|_| ToolError::failed("the sub-agents did not run at the same time"))
    }
}

/// A tool that sleeps (until cancelled).
pub struct Sleep(pub Duration);

#[async_trait::async_trait]
impl Tool for Sleep {
    fn name(&self) -> &str {
        "sleep"
    }
    fn description(&self) -> &str {
        "Sleeps."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }
    fn is_mutating(&self) -> bool {
        false
    }
    async fn call(&self, _args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::select! {
            () = ctx.cancellation().cancelled() => Err(ToolError::Cancelled),
            () = tokio::time::sleep(self.0) => Ok(ToolOutput::text("slept")),
        }
    }
}

/// A session with a top-level run of `main` whose prompt is recorded, as the CLI does.
pub struct Fixture {
    pub _temp: TempStore,
    pub store: Arc<SqliteStore>,
    pub session: String,
    pub parent: RunRecord,
    pub tasks: TaskTool,
}

pub fn setup(config: TaskConfig, agents: Vec<AgentDefinition>, prompt: &str) -> Fixture {
    let temp = temp_store();
    let store = Arc::new(SqliteStore::open(&temp.path).unwrap());
    let session = store.create_session(Some("tasks")).unwrap().id;
    let parent = store
        .start_run(
            &session,
            &NewRun {
                agent: "main".into(),
                mode: ContextMode::Isolated,
                parent_run_id: None,
                model: None,
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
    tasks.set_parent_run(parent.id);
    Fixture {
        _temp: temp,
        store,
        session,
        parent,
        tasks,
    }
}

pub fn build_runtime(
    fixture: &Fixture,
    route: impl Fn(&ModelRequest) -> ModelResponse + Send + Sync + 'static,
    extra: Vec<Arc<dyn Tool>>,
) -> (Runtime, Arc<Routed>) {
    let provider = Arc::new(Routed {
        route: Box::new(route),
        requests: Mutex::default(),
    });
    let mut tools = ToolRegistry::new();
    tools.register_typed(fixture.tasks.clone());
    for tool in extra {
        tools.register_arc(tool);
    }
    let shared = Arc::clone(&provider);
    let runtime = Runtime::new(
        Settings::default(),
        move |_: &ModelRef, _: &Settings| Ok(Arc::clone(&shared) as Arc<dyn ModelProvider>),
        tools,
    );
    (runtime, provider)
}

/// Calls `task` directly as the top-level agent `main` would.
pub async fn call_task(
    runtime: &Runtime,
    args: Value,
    cancel: CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let ctx = ToolContext::new("top", "main", "call-1", Path::new("."), cancel)
        .with_runtime(runtime.clone(), 0);
    runtime.tools().get("task").unwrap().call(args, &ctx).await
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

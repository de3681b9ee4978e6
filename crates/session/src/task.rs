//! The `task` tool: an agent hands a goal to a sub-agent and reads back its result.
//!
//! A call starts a child run through the calling run's [`SubAgentRunner`] (from
//! [`ToolContext::sub_agents`]), so the child shares the tools, the providers and the approval
//! gate: a call of the child that needs approval reaches the same gate, which asks the user or,
//! without a terminal, refuses at once — a child never waits on a question nobody sees.
//!
//! * **Runs.** A run's id is its store run's id (the session runner starts the store run first
//!   and runs the agent under that id), so a call knows its parent from
//!   [`ToolContext::run_id`] alone, and a child runs under its own store run's id in turn.
//! * **Scope.** The child's store run has `parent_run_id` = the caller's store run, so it works
//!   in its own `sub:{agent}:{run}` workspace, never shown in the timeline; every turn of it
//!   (assistant messages, tool results, model-call and tool-decision steps) is recorded there,
//!   one transaction per turn. When it ends, one handoff summary is written to `main`.
//! * **First message.** The goal, a short `context_summary` of the caller's recent turns (read
//!   from the store), the hints, the expected JSON Schema if any, and the resources rendered
//!   through the `@file:` mechanism ([`expand_file_references`](crate::expand_file_references)).
//! * **Depth.** A call from a run at depth ≥ [`TaskConfig::max_depth`] is refused.
//! * **Concurrency.** `task` is not mutating, so several calls of one turn run at once, at most
//!   [`TaskConfig::max_concurrent`] per nesting level (one semaphore per level: a task's own
//!   sub-tasks never wait for a permit their parent holds).
//! * **Budget.** Max turns, max tokens (input + output over all of the child's model calls) and a
//!   timeout, enforced (the child is cancelled) and reported in the result; the caller's
//!   cancellation reaches the child.
//! * **Result.** The child's answer, or with a `schema` the JSON value it answered (bare, or one
//!   ```` ```json ```` block), checked with the guardrails' `JsonSchemaCheck`; a mismatch gets one
//!   repair turn, then an error listing the violations. A budget report line follows.
//! * **Capability pool** (seed 004). The agents a call may name are a [`ResourcePool`]: a task
//!   on one of them (named, or chosen by its `capabilities`) marks it `busy` while it runs and
//!   `available` when it ends (cancelled included); a child run that fails (model or provider
//!   error, or a model that cannot be resolved) or panics leaves it `error` until the next
//!   top-level run dispatches a task. The check and the change happen under one lock. A task
//!   no available agent can take is not started: its result is the seed's STOP report
//!   ([`StopReport::render`](crate::StopReport::render)) and the run emits
//!   [`RunEvent::TaskStopped`](agentctl_core::RunEvent::TaskStopped). The child's system prompt
//!   ends with its task's capability context (pool counts and statuses, the catalog, the
//!   task's id, description and capabilities, the orchestrator's note), built at dispatch.
//!
//! ```
//! use agentctl_store::{SessionLog as _};
//! use agentctl_store_sqlite::SqliteStore;
//! use agentctl_session::{TaskConfig, TaskTool};
//! use agentctl_core::ToolRegistry;
//! use std::sync::Arc;
//!
//! let store = Arc::new(SqliteStore::open_in_memory()?);
//! let session = store.create_session(None)?;
//! // The agents a call may name; the caller's own definition is the default sub-agent.
//! let tasks = TaskTool::new(store, &session.id, Vec::new()).with_config(TaskConfig {
//!     max_concurrent: 2,
//!     ..TaskConfig::default()
//! });
//! let mut tools = ToolRegistry::new();
//! tools.register_typed(tasks.clone());
//! assert!(tools.contains("task"));
//! # Ok::<(), agentctl_store::ContextError>(())
//! ```

mod args;
mod background;
mod child;
mod dispatch;
mod prompt;
mod report;
mod schema;

pub(crate) use prompt::shorten_to;

use crate::capability::{
    CAPABILITY_ALIASES, CAPABILITY_TOOLS, ResourcePool, StopReport, TaskSpec, resolve_capability,
};
use crate::engine::StoreWriter;
use crate::plan::PlanTools;
use agentctl_core::{
    AgentDefinition, RiskLevel, RunEvent, ToolContext, ToolError, ToolOutput, TypedTool,
};
use agentctl_store::{RunId, SessionStore};
use async_trait::async_trait;
use dispatch::PoolState;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::Semaphore;

pub use report::{TaskReport, TaskStatus};

/// Limits of the `task` tool. `Default` gives the documented defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskConfig {
    /// Nesting limit: a run at this depth or deeper cannot start tasks (default 3: the main
    /// agent's children, grandchildren and great-grandchildren may run, no deeper).
    pub max_depth: u32,
    /// Tasks running at once per nesting level (default 4); more wait for a permit.
    pub max_concurrent: usize,
    /// Model turns per task (default 10).
    pub max_turns: u32,
    /// Tokens (input + output over all model calls) per task (default 200,000); the child is
    /// stopped once it has used more.
    pub max_tokens: u64,
    /// Wall time per task, waiting for a permit excluded (default 300 s).
    pub timeout: Duration,
    /// Messages of the caller's workspace summarised into the child's first message (default 6).
    pub summary_messages: usize,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            max_depth: 3,
            max_concurrent: 4,
            max_turns: 10,
            max_tokens: 200_000,
            timeout: Duration::from_secs(300),
            summary_messages: 6,
        }
    }
}

/// Arguments of a `task` call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TaskArgs {
    /// What the sub-agent must achieve, stated so it can work without asking back.
    pub goal: String,
    /// Files, directories or file-name keywords the sub-agent needs; their contents are
    /// attached to its first message. One string or a list.
    #[serde(default, deserialize_with = "args::string_or_list")]
    #[schemars(schema_with = "args::string_or_list_schema")]
    pub resources: Vec<String>,
    /// Hints: what you already know, where to look, what to avoid. One string or a list.
    #[serde(default, deserialize_with = "args::string_or_list")]
    #[schemars(schema_with = "args::string_or_list_schema")]
    pub hints: Vec<String>,
    /// Name of the agent to run; by default a copy of yourself (or, with `capabilities`, the
    /// first available agent that has them all).
    #[serde(default)]
    pub agent: Option<String>,
    /// Capabilities the task needs (`read_code`, `search_code`, `write_code`, `run_commands`,
    /// `web_search`, `web_fetch`, `mcp:<server>`; also `file_ops`, `code_generation`,
    /// `shell_exec`, `report_generation`). When no available agent has them, the task
    /// does not run and you get a STOP report. One string or a list.
    #[serde(
        default,
        alias = "requiredCapabilities",
        alias = "required_capabilities",
        deserialize_with = "args::string_or_list"
    )]
    #[schemars(schema_with = "args::string_or_list_schema")]
    pub capabilities: Vec<String>,
    /// JSON Schema the result must match; the sub-agent then answers with JSON only.
    #[serde(default)]
    pub schema: Option<Value>,
    /// The task's id in an issue tracker (e.g. a beads id such as `finger-60.1`); the
    /// sub-agent sees it and the result carries it back.
    #[serde(default, rename = "bdTaskId", alias = "bd_task_id")]
    pub bd_task_id: Option<String>,
    /// The id of the plan item this task carries out (see `todo_write`): when the task
    /// succeeds, the item is completed and the next one started.
    #[serde(default)]
    pub todo: Option<String>,
    /// A note from you to the agent that takes this task (how to go about it, what to report),
    /// shown in its task context as the orchestrator's note.
    #[serde(default, alias = "orchestratorNote", alias = "orchestrator_note")]
    pub note: Option<String>,
}

/// The `task` tool. Cheap to clone: clones share the store, the permits and the parent run.
///
/// Register it with [`ToolRegistry::register_typed`](agentctl_core::ToolRegistry::register_typed);
/// the runs it is called from must run under their store run's id.
#[derive(Clone)]
pub struct TaskTool {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) session: String,
    pub(crate) agents: Vec<AgentDefinition>,
    pub(crate) default_agent: AgentDefinition,
    pub(crate) config: TaskConfig,
    /// The "Orchestrator note" of every task's capability context.
    pub(crate) orchestrator_note: Option<String>,
    /// The session's plan, whose items a task's success completes.
    pub(crate) plan: Option<PlanTools>,
    /// The agents as executors, with their statuses.
    pub(crate) pool: Arc<Mutex<PoolState>>,
    /// One semaphore per nesting level.
    permits: Vec<Arc<Semaphore>>,
    /// The store thread the tasks' runs are recorded on: the session's, or the store's started
    /// at the first task.
    writer: OnceLock<StoreWriter>,
}

/// What a [`TaskTool`] is built from; the `with_*` methods rebuild it with one part changed.
#[derive(Clone)]
struct Parts {
    agents: Vec<AgentDefinition>,
    default_agent: AgentDefinition,
    config: TaskConfig,
    orchestrator_note: Option<String>,
    plan: Option<PlanTools>,
}

impl std::fmt::Debug for TaskTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskTool")
            .field("session", &self.inner.session)
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl TaskTool {
    /// The tool name.
    pub const NAME: &'static str = "task";

    /// A task tool recording into `session` of `store`, whose calls may name any of `agents`.
    ///
    /// Without an `agent` argument the child is the calling agent's own definition when it is
    /// among `agents` (so pass the main agent too), else
    /// [`general_agent`](TaskTool::general_agent) (or the one set with
    /// [`with_default_agent`](TaskTool::with_default_agent)).
    pub fn new(
        store: Arc<dyn SessionStore>,
        session: impl Into<String>,
        agents: Vec<AgentDefinition>,
    ) -> Self {
        let parts = Parts {
            agents,
            default_agent: prompt::general_agent(),
            config: TaskConfig::default(),
            orchestrator_note: None,
            plan: None,
        };
        Self::build(store, session.into(), parts)
    }

    fn build(store: Arc<dyn SessionStore>, session: String, parts: Parts) -> Self {
        let Parts {
            agents,
            default_agent,
            config,
            orchestrator_note,
            plan,
        } = parts;
        let levels = usize::try_from(config.max_depth.max(1)).unwrap_or(1);
        let permits = (0..levels)
            .map(|_| Arc::new(Semaphore::new(config.max_concurrent.max(1))))
            .collect();
        let pool = ResourcePool::from_agents(&agents);
        Self {
            inner: Arc::new(Inner {
                store,
                session,
                agents,
                default_agent,
                config,
                orchestrator_note,
                plan,
                pool: Arc::new(Mutex::new(PoolState::new(pool))),
                permits,
                writer: OnceLock::new(),
            }),
        }
    }

    /// Rebuilds the tool with one part changed (a fresh pool and fresh permits). While
    /// building, nothing else holds the tool: its parts move instead of being copied.
    fn rebuild(self, change: impl FnOnce(&mut Parts)) -> Self {
        let (store, session, mut parts) = match Arc::try_unwrap(self.inner) {
            Ok(inner) => {
                let parts = Parts {
                    agents: inner.agents,
                    default_agent: inner.default_agent,
                    config: inner.config,
                    orchestrator_note: inner.orchestrator_note,
                    plan: inner.plan,
                };
                (inner.store, inner.session, parts)
            }
            Err(shared) => {
                let parts = Parts {
                    agents: shared.agents.clone(),
                    default_agent: shared.default_agent.clone(),
                    config: shared.config.clone(),
                    orchestrator_note: shared.orchestrator_note.clone(),
                    plan: shared.plan.clone(),
                };
                (Arc::clone(&shared.store), shared.session.clone(), parts)
            }
        };
        change(&mut parts);
        Self::build(store, session, parts)
    }

    /// The same tool with other limits. Call it while building: clones made earlier keep the
    /// old limits.
    pub fn with_config(self, config: TaskConfig) -> Self {
        self.rebuild(|parts| parts.config = config)
    }

    /// The same tool with another default sub-agent (used when a call names none and the
    /// caller is not among the known agents). Call it while building, like
    /// [`with_config`](TaskTool::with_config).
    pub fn with_default_agent(self, agent: AgentDefinition) -> Self {
        self.rebuild(|parts| parts.default_agent = agent)
    }

    /// The same tool whose tasks' capability context carries `note` as its "Orchestrator
    /// note" (settings `agents.orchestratorNote`). Call it while building, like
    /// [`with_config`](TaskTool::with_config).
    pub fn with_orchestrator_note(self, note: Option<String>) -> Self {
        self.rebuild(|parts| parts.orchestrator_note = note)
    }

    /// The same tool completing the item of `plan` a task names (`todo`) when the task
    /// succeeds. Call it while building, like [`with_config`](TaskTool::with_config).
    pub fn with_plan(self, plan: PlanTools) -> Self {
        self.rebuild(|parts| parts.plan = Some(plan))
    }

    /// The pool of executors as it is now: each agent a call may name, with its status.
    pub fn pool(&self) -> ResourcePool {
        dispatch::lock(&self.inner.pool).pool.clone()
    }

    /// The built-in general-purpose sub-agent `general`: a short system prompt, no model of
    /// its own (the settings' `agents.defaultModel`), every tool.
    pub fn general_agent() -> AgentDefinition {
        prompt::general_agent()
    }

    /// The limits in effect.
    pub fn config(&self) -> &TaskConfig {
        &self.inner.config
    }

    /// The same tool, recording its tasks' runs on `writer`'s thread (the session's).
    pub(crate) fn with_writer(self, writer: StoreWriter) -> Self {
        let _ = self.inner.writer.set(writer);
        self
    }

    /// The store and session the tool records into (the memory tools keep state there too).
    pub(crate) fn session_store(&self) -> (&Arc<dyn SessionStore>, &str) {
        (&self.inner.store, &self.inner.session)
    }

    /// The definition a call runs.
    fn child_agent(
        &self,
        requested: Option<&str>,
        caller: &str,
    ) -> Result<AgentDefinition, ToolError> {
        let agents = &self.inner.agents;
        match requested {
            Some(name) => agents
                .iter()
                .find(|agent| agent.name() == name)
                .cloned()
                .ok_or_else(|| {
                    let names: Vec<&str> = agents.iter().map(AgentDefinition::name).collect();
                    ToolError::failed(format!(
                        "no agent named `{name}`; available: {}",
                        if names.is_empty() {
                            "none (omit `agent` to use the default)".to_owned()
                        } else {
                            names.join(", ")
                        }
                    ))
                }),
            None => Ok(agents
                .iter()
                .find(|agent| agent.name() == caller)
                .unwrap_or(&self.inner.default_agent)
                .clone()),
        }
    }
}

impl Inner {
    /// The store thread of the tasks' runs.
    pub(crate) fn writer(&self) -> Result<&StoreWriter, agentctl_store::ContextError> {
        if let Some(writer) = self.writer.get() {
            return Ok(writer);
        }
        let writer = StoreWriter::start(Arc::clone(&self.store))?;
        Ok(self.writer.get_or_init(|| writer))
    }
}

#[async_trait]
impl TypedTool for TaskTool {
    type Args = TaskArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn risk(&self) -> RiskLevel {
        // Starting a sub-agent changes nothing by itself: each of its calls meets the gate.
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        // Several tasks of one turn run at once.
        false
    }

    fn description(&self) -> &str {
        "Hands a self-contained goal to a sub-agent that works in its own context and returns \
         its result (text, or JSON matching `schema`). Give it the resources (files, \
         directories) and hints it needs: it does not see this conversation, only a short \
         summary. Name the `agent`, or the `capabilities` the task needs to let an available \
         agent that has them take it; a busy or failed agent cannot. Several task calls in one \
         turn run at the same time."
    }

    async fn call(&self, args: TaskArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let config = &self.inner.config;
        if ctx.depth() >= config.max_depth {
            return Err(ToolError::failed(format!(
                "task refused: this agent runs at sub-agent depth {} and the limit is {}; do the \
                 work yourself instead of delegating it",
                ctx.depth(),
                config.max_depth
            )));
        }
        if args.goal.trim().is_empty() {
            return Err(ToolError::InvalidArguments {
                tool: Self::NAME.into(),
                message: "`goal` is empty: say what the sub-agent must achieve".into(),
            });
        }
        if let Some(answer) = self.start_in_background(&args, ctx) {
            return answer;
        }
        let runner = ctx.sub_agents().ok_or_else(|| {
            ToolError::failed("the task tool runs only inside an agent run (no sub-agent runner)")
        })?;
        let parent: RunId = ctx.run_id().parse().map_err(|_| {
            ToolError::failed(format!(
                "the task tool runs only in runs recorded in a session (run `{}` has no store run)",
                ctx.run_id()
            ))
        })?;
        let validator = match &args.schema {
            Some(schema) => Some(schema::compile(schema)?),
            None => None,
        };
        let task = task_spec(&args, ctx)?;
        let default_child = self.child_agent(args.agent.as_deref(), ctx.agent())?;
        let assignment = match dispatch::assign(
            &self.inner,
            &task,
            args.note.as_deref(),
            args.agent.as_deref(),
            default_child,
            ctx,
        ) {
            Ok(assignment) => assignment,
            Err(stop) => return Err(stopped(&stop, ctx)),
        };
        let level = usize::try_from(ctx.depth()).unwrap_or(usize::MAX);
        let semaphore = self
            .inner
            .permits
            .get(level)
            .ok_or_else(|| ToolError::failed("task refused: nesting too deep"))?;
        let _permit = tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => return Err(ToolError::Cancelled),
            permit = semaphore.acquire() => permit.map_err(|_| ToolError::Cancelled)?,
        };
        let request = child::ChildRequest {
            args: &args,
            validator: validator.as_ref(),
            agent: &assignment.agent,
            context: &assignment.context,
            lease: assignment.lease,
            parent,
        };
        let outcome = child::run(&self.inner, runner.as_ref(), ctx, request).await;
        if outcome.is_ok()
            && let (Some(plan), Some(todo)) = (&self.inner.plan, &args.todo)
        {
            plan.complete(todo.trim(), ctx).await;
        }
        outcome
    }
}

/// The task of a call: its id (the call's), goal and required capabilities, checked.
fn task_spec(args: &TaskArgs, ctx: &ToolContext) -> Result<TaskSpec, ToolError> {
    let mut required: Vec<String> = Vec::new();
    for capability in &args.capabilities {
        let Some(canonical) = resolve_capability(capability) else {
            let known: Vec<&str> = CAPABILITY_TOOLS
                .iter()
                .chain(CAPABILITY_ALIASES)
                .map(|(name, _)| *name)
                .collect();
            return Err(ToolError::InvalidArguments {
                tool: TaskTool::NAME.into(),
                message: format!(
                    "unknown capability `{}` in `capabilities`; known: {}, mcp:<server>",
                    prompt::shorten_to(capability, 80),
                    known.join(", ")
                ),
            });
        };
        for capability in canonical {
            if !required.iter().any(|known| known == capability) {
                required.push(capability.to_owned());
            }
        }
    }
    Ok(TaskSpec {
        id: ctx.call_id().to_owned(),
        description: args.goal.trim().to_owned(),
        required_capabilities: required,
        // A model wrote it: on one line and short, like the call's id, wherever it is shown.
        bd_task_id: args
            .bd_task_id
            .as_deref()
            .map(|id| prompt::shorten_to(id, 80))
            .filter(|id| !id.is_empty()),
    })
}

/// The STOP report as the call's result, and its event.
fn stopped(stop: &StopReport, ctx: &ToolContext) -> ToolError {
    ctx.emit(RunEvent::TaskStopped {
        id: ctx.call_id().to_owned(),
        task: stop.task.clone(),
        missing_capabilities: stop.missing_capabilities.clone(),
        unavailable_executors: stop.unavailable_executors.clone(),
        reason: stop.reason.clone(),
    });
    ToolError::Failed(stop.render())
}

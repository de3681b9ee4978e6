//! The [`Runtime`]: settings, a provider factory and the tool registry; it starts runs and hands
//! back a [`RunHandle`] (a stream of [`RunEvent`](agentctl_core::RunEvent)s that can be cancelled).

use crate::agent_loop;
use crate::background::BackgroundTasks;
use crate::events;
use crate::events::EventSink;
use crate::handle::{RunFuture, RunHandle};
use crate::run_state::Prepared;
use crate::scope::{RunScope, Toolbox};
use agentctl_core::{
    AgentDefinition, ApprovalPolicy, CallGate, ContextMode, DEFAULT_MAX_TURNS, EffortPlan,
    GuardrailFactory, Message, ModelCatalogue, ModelProvider, ModelRef, ModelRequest,
    ProviderFactory, Redactor, RunError, RunOptions, RunResult, RunStream, Settings,
    SubAgentRunner, ToolFilter, ToolRegistry, ToolSpec, resolve_model,
};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio_util::sync::CancellationToken;

/// Runs agents: resolves their model, offers them the registry's tools (filtered by the
/// agent's allow and deny lists, with the tools its handoffs and memory declare:
/// [`ToolFilter::for_agent`]) and drives the agent loop.
///
/// Cheap to clone; clones share the provider cache.
///
/// ```
/// use agentctl_core::{
///     AgentDefinition, AgentSource, AgentSpec, DeltaSink, ModelProvider, ModelResponse,
///     ProviderError, RunOptions, Settings, StopReason, ToolRegistry,
/// };
/// use agentctl_runtime::Runtime;
/// use std::sync::Arc;
///
/// struct Hello;
/// #[async_trait::async_trait]
/// impl ModelProvider for Hello {
///     fn name(&self) -> &str { "hello" }
///     async fn complete(&self, _: &agentctl_core::ModelRequest, _: DeltaSink<'_>)
///         -> Result<ModelResponse, ProviderError> {
///         Ok(ModelResponse { text: Some("Hello!".into()), tool_calls: vec![],
///             usage: Default::default(), stop_reason: StopReason::EndTurn })
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let runtime = Runtime::new(
///     Settings::default(),
///     |_: &_, _: &_| Ok(Arc::new(Hello) as Arc<dyn ModelProvider>),
///     ToolRegistry::new(),
/// );
/// let agent = AgentDefinition {
///     spec: AgentSpec { name: "greeter".into(), model: Some("openai:gpt-4o-mini".into()), ..Default::default() },
///     system_prompt: "Greet the user.".into(),
///     source: AgentSource { format: agentctl_core::SourceFormat::Native, path: "greeter.md".into(),
///         scope: agentctl_core::Scope::Project },
///     extra: Default::default(),
/// };
/// let result = runtime.run_to_completion(&agent, "hi", RunOptions::new()).await.unwrap();
/// assert_eq!(result.text, "Hello!");
/// assert_eq!(result.metadata.model, "openai:gpt-4o-mini");
/// # });
/// ```
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Settings,
    factory: Arc<dyn ProviderFactory>,
    providers: Mutex<HashMap<ModelRef, Arc<dyn ModelProvider>>>,
    /// The tools of runs not given a toolbox of their own ([`RunScope::tools`]).
    tools: Toolbox,
    /// Decides every tool call of runs not given a gate of their own; [`ApprovalPolicy::SafeOnly`]
    /// unless given another.
    gate: Arc<dyn CallGate>,
    redactor: Redactor,
    guardrails: Option<Arc<dyn GuardrailFactory>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("tools", self.inner.tools.tools())
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime with these settings, provider factory and tools.
    pub fn new(
        settings: Settings,
        providers: impl ProviderFactory + 'static,
        tools: ToolRegistry,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                settings,
                factory: Arc::new(providers),
                providers: Mutex::new(HashMap::new()),
                tools: Toolbox::new(tools),
                gate: Arc::new(ApprovalPolicy::SafeOnly),
                redactor: Redactor::default(),
                guardrails: None,
            }),
        }
    }

    /// Puts every tool call of this runtime's runs through `gate` (risk levels, approvals:
    /// `agentctl-tools`' `Gate`, or [`ApprovalPolicy::TrustEverything`] to run every call the
    /// agent's tool lists allow). Without one, a runtime runs calls of `safe` tools only and
    /// refuses the rest with a reason the model reads ([`ApprovalPolicy::SafeOnly`]).
    ///
    /// Call it while building the runtime: clones made earlier keep their own settings.
    pub fn with_gate(self, gate: Arc<dyn CallGate>) -> Self {
        self.rebuilt(|inner| inner.gate = gate)
    }

    /// Masks the secrets `redactor` knows in every tool result and error before the model,
    /// the events or the session see them.
    ///
    /// Call it while building the runtime, like [`with_gate`](Self::with_gate).
    pub fn with_redactor(self, redactor: Redactor) -> Self {
        self.rebuilt(|inner| inner.redactor = redactor)
    }

    /// Checks every run's input and output with its agent's `guardrails:`, compiled by
    /// `factory` (the `agentctl-guardrails` crate). Without a factory, an agent that declares
    /// guardrails cannot run: its runs fail rather than go unchecked.
    ///
    /// Call it while building the runtime, like [`with_gate`](Self::with_gate).
    pub fn with_guardrails(self, factory: Arc<dyn GuardrailFactory>) -> Self {
        self.rebuilt(|inner| inner.guardrails = Some(factory))
    }

    /// The runtime with `change` applied to its parts (a fresh provider cache when it was
    /// shared).
    fn rebuilt(self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => Inner {
                settings: shared.settings.clone(),
                factory: Arc::clone(&shared.factory),
                providers: Mutex::new(HashMap::new()),
                tools: shared.tools.clone(),
                gate: shared.gate.clone(),
                redactor: shared.redactor.clone(),
                guardrails: shared.guardrails.clone(),
            },
        };
        change(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The approval gate ([`ApprovalPolicy::SafeOnly`] unless one was given).
    pub fn gate(&self) -> &Arc<dyn CallGate> {
        &self.inner.gate
    }

    /// The settings runs resolve models and defaults from.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// Every registered tool.
    pub fn tools(&self) -> &ToolRegistry {
        self.inner.tools.tools()
    }

    /// Resolves the model a run of `agent` would use: `options.model`, else the agent's
    /// `model`, else `agents.defaultModel`.
    pub fn resolve_model(
        &self,
        agent: &AgentDefinition,
        options: &RunOptions,
    ) -> Result<ModelRef, RunError> {
        let settings = &self.inner.settings;
        let input = options
            .model
            .as_deref()
            .or(agent.spec.model.as_deref())
            .or(settings.agents.default_model.as_deref())
            .ok_or_else(|| RunError::NoModel {
                agent: agent.name().to_owned(),
            })?;
        resolve_model(input, settings, None).map_err(|source| RunError::Model {
            agent: agent.name().to_owned(),
            source,
        })
    }

    /// Starts a run on the current tokio runtime and returns its event stream.
    ///
    /// Dropping the handle cancels the run. Must be called within a tokio runtime.
    pub fn run(&self, agent: &AgentDefinition, prompt: &str, options: RunOptions) -> RunHandle {
        self.run_in(agent, prompt, options, RunScope::new())
    }

    /// [`run`](Self::run) with the parts `scope` gives (the agent's own tools, the gate of its
    /// turn, the runner of its sub-agents, its resolved model) instead of the runtime's.
    pub fn run_in(
        &self,
        agent: &AgentDefinition,
        prompt: &str,
        options: RunOptions,
        scope: RunScope,
    ) -> RunHandle {
        let cancel = options
            .cancel
            .as_ref()
            .map_or_else(CancellationToken::new, |parent| parent.child_token());
        let run_id = options.run_id.clone().unwrap_or_else(new_run_id);
        let prepared = self.prepare(
            agent,
            prompt,
            options,
            (run_id.clone(), cancel.clone()),
            scope,
        );
        let outbox = events::new_outbox();
        let sink = EventSink::outbox(Arc::clone(&outbox));
        let run: RunFuture = match prepared {
            Ok(prepared) => Box::pin(agent_loop::execute(prepared, sink)),
            Err(error) => {
                let outcome = Err(error);
                agent_loop::report_end(&outcome, &sink);
                Box::pin(std::future::ready(outcome))
            }
        };
        RunHandle::start(run_id, cancel, outbox, run)
    }

    /// Runs to the end on the caller's task (no spawned task, no event channel) and returns
    /// the result.
    pub async fn run_to_completion(
        &self,
        agent: &AgentDefinition,
        prompt: &str,
        options: RunOptions,
    ) -> Result<RunResult, RunError> {
        self.run_to_completion_in(agent, prompt, options, RunScope::new())
            .await
    }

    /// [`run_to_completion`](Self::run_to_completion) with the parts `scope` gives.
    pub async fn run_to_completion_in(
        &self,
        agent: &AgentDefinition,
        prompt: &str,
        options: RunOptions,
        scope: RunScope,
    ) -> Result<RunResult, RunError> {
        let cancel = options.cancel.clone().unwrap_or_default();
        let run_id = options.run_id.clone().unwrap_or_else(new_run_id);
        let prepared = self.prepare(agent, prompt, options, (run_id, cancel), scope)?;
        agent_loop::execute(prepared, EventSink::disabled()).await
    }

    /// The provider serving `model`, built by the runtime's factory once and then reused: work
    /// outside runs (compaction, guardrail checks) goes through the same providers — and the
    /// same recording — as the runs.
    pub fn provider_for(&self, model: &ModelRef) -> Result<Arc<dyn ModelProvider>, RunError> {
        // Built under the lock (never held across an await): runs that start together share
        // one provider — one connection pool — instead of each building its own.
        let mut cache = self
            .inner
            .providers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(provider) = cache.get(model) {
            return Ok(Arc::clone(provider));
        }
        let provider = self.inner.factory.build(model, &self.inner.settings)?;
        cache.insert(model.clone(), Arc::clone(&provider));
        Ok(provider)
    }

    /// Everything a run of `agent` on `prompt` needs, resolved before its first turn.
    fn prepare(
        &self,
        agent: &AgentDefinition,
        prompt: &str,
        mut options: RunOptions,
        (run_id, cancel): (String, CancellationToken),
        scope: RunScope,
    ) -> Result<Prepared, RunError> {
        let name = agent.name();
        let model = scope
            .model
            .map_or_else(|| self.resolve_model(agent, &options), Ok)?;
        let toolbox = scope.tools.unwrap_or_else(|| self.inner.tools.clone());
        let filter = ToolFilter::for_agent(&agent.spec).map_err(|source| RunError::ToolPolicy {
            agent: name.to_owned(),
            source,
        })?;
        let provider = self.provider_in(&model, options.working_dir.as_deref())?;
        let tools = toolbox.tools().filtered(&filter);
        let context_mode = options
            .context_mode
            .or(agent.spec.context_mode)
            .unwrap_or(self.inner.settings.agents.default_context_mode);
        let working_dir: Arc<Path> = match &options.working_dir {
            Some(dir) => Arc::from(dir.as_path()),
            None => Arc::from(Path::new(".")),
        };
        let guardrails = self.guardrails_of(agent, &working_dir)?;
        let mut request = first_request(
            agent,
            prompt,
            &mut options,
            context_mode,
            &model,
            toolbox.specs(&tools),
        );
        let effort = effort_plan(agent, &options, &model);
        request.effort = effort.and_then(EffortPlan::sent);
        let price = ModelCatalogue::builtin().price(&model.provider, &model.model);
        let background = self.background_tasks(&cancel);
        Ok(Prepared {
            background,
            run_id: Arc::from(run_id),
            agent: Arc::from(name),
            // `provider:model`, allocated once at its length (`to_string` grows it per piece).
            model_label: [model.provider.as_str(), ":", model.model.as_str()].concat(),
            model,
            provider,
            effort: effort.filter(|plan| !matches!(plan, EffortPlan::Send(_))),
            context_mode,
            max_turns: options
                .max_turns
                .or(agent.spec.max_turns)
                .unwrap_or(DEFAULT_MAX_TURNS),
            token_budget: options.token_budget.or(agent.spec.max_tokens),
            cost_budget: options.cost_budget.or(agent.spec.max_cost),
            price,
            tools,
            registry: Arc::clone(toolbox.registry()),
            filter,
            gate: scope.gate.unwrap_or_else(|| Arc::clone(&self.inner.gate)),
            hooks: scope.hooks,
            redactor: self.inner.redactor.clone(),
            guardrails,
            prompt: Arc::from(prompt),
            request,
            working_dir,
            cancel,
            sub_agents: scope.sub_agents.unwrap_or_else(|| Arc::new(self.clone())),
            depth: options.depth,
            tool_limits: self.inner.settings.tools.clone(),
            trace: options.trace,
        })
    }

    /// The provider serving `model` in a run whose directory is `working_dir`: a relative
    /// cassette path is the run's file, not the process's (unless the settings name the
    /// provider).
    fn provider_in(
        &self,
        model: &ModelRef,
        working_dir: Option<&Path>,
    ) -> Result<Arc<dyn ModelProvider>, RunError> {
        match working_dir {
            Some(dir) if !self.inner.settings.providers.contains_key(&model.provider) => {
                self.provider_for(&model.located_in(dir))
            }
            _ => self.provider_for(model),
        }
    }

    /// Where a run's background work goes: at most `agents.maxParallel` tasks at once, all
    /// stopped when the run is cancelled.
    fn background_tasks(&self, cancel: &CancellationToken) -> Arc<BackgroundTasks> {
        Arc::new(BackgroundTasks::new(
            cancel,
            usize::try_from(self.inner.settings.agents.max_parallel).unwrap_or(4),
        ))
    }
}

/// How the run's effort (the options' over the agent's) is sent to `model`, when one is asked.
fn effort_plan(
    agent: &AgentDefinition,
    options: &RunOptions,
    model: &ModelRef,
) -> Option<EffortPlan> {
    options
        .effort
        .or(agent.spec.effort)
        .map(|asked| ModelCatalogue::builtin().plan_effort(&model.provider, &model.model, asked))
}

/// The run's first model request: the history (none in `run` mode), the prompt, the agent's
/// system prompt and tools, and the options' sampling settings over the agent's.
fn first_request(
    agent: &AgentDefinition,
    prompt: &str,
    options: &mut RunOptions,
    context_mode: ContextMode,
    model: &ModelRef,
    tools: Arc<[ToolSpec]>,
) -> ModelRequest {
    let mut messages = if context_mode == ContextMode::Run {
        Vec::new()
    } else {
        std::mem::take(&mut options.history)
    };
    messages.push(Message::user(prompt));
    let system = (!agent.system_prompt.trim().is_empty()).then(|| agent.system_prompt.clone());
    ModelRequest {
        model: model.model.clone(),
        system,
        messages,
        tools,
        temperature: options.temperature.or(agent.spec.temperature),
        effort: None,
        max_tokens: options.max_tokens,
        stream: options.stream,
    }
}

impl Runtime {
    /// The compiled guardrails of `agent`'s runs in `working_dir`.
    fn guardrails_of(
        &self,
        agent: &AgentDefinition,
        working_dir: &Path,
    ) -> Result<Option<Arc<dyn agentctl_core::RunGuardrails>>, RunError> {
        if agent.spec.guardrails.is_empty() {
            return Ok(None);
        }
        match &self.inner.guardrails {
            Some(factory) => Ok(factory.guardrails(agent, working_dir)?),
            None => Err(RunError::GuardrailSpec(agentctl_core::GuardrailSpecError {
                agent: agent.name().to_owned(),
                field: "guardrails".into(),
                message: "this runtime checks no guardrails (no factory was given with \
                          Runtime::with_guardrails): the agent's runs would go unchecked"
                    .into(),
            })),
        }
    }
}

fn new_run_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // Sized once: `format!` would grow it step by step.
    let mut id = String::with_capacity(40);
    let _ = write!(id, "run-{millis:x}-{n}");
    id
}

impl SubAgentRunner for Runtime {
    fn resolve_model(
        &self,
        agent: &AgentDefinition,
        options: &RunOptions,
    ) -> Result<ModelRef, RunError> {
        Runtime::resolve_model(self, agent, options)
    }

    fn start(
        &self,
        agent: &AgentDefinition,
        prompt: &str,
        options: RunOptions,
    ) -> Box<dyn RunStream> {
        Box::new(self.run(agent, prompt, options))
    }
}

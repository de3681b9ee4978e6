//! What the loop's steps share: the prepared run and its counters.

use crate::budget::{TokenEstimator, model_context_window};
use agentctl_core::{
    CallGate, ContextMode, EffortPlan, GuardrailPhase, ModelPrice, ModelProvider, ModelRef,
    ModelRequest, Redactor, RunGuardrails, RunHooks, SubAgentRunner, Tool, ToolFilter,
    ToolRegistry, ToolsSettings, TraceContext, Usage,
};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// Everything a run needs, resolved before the first turn.
pub(crate) struct Prepared {
    pub run_id: Arc<str>,
    pub agent: Arc<str>,
    pub model: ModelRef,
    pub model_label: String,
    pub provider: Arc<dyn ModelProvider>,
    /// The run's effort when it is not sent as asked (reported once, at the start).
    pub effort: Option<EffortPlan>,
    pub context_mode: ContextMode,
    pub max_turns: u32,
    /// Token budget of the run (input and output over all model calls).
    pub token_budget: Option<u64>,
    /// Cost budget of the run in US dollars.
    pub cost_budget: Option<f64>,
    /// The model's list price, when the catalogue has one.
    pub price: Option<ModelPrice>,
    /// Tools the agent may use, sorted by name.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Every tool of the runtime: a call of a tool the agent may not use still reaches the
    /// gate, which refuses it with a `tool_decision`.
    pub registry: Arc<ToolRegistry>,
    pub filter: ToolFilter,
    /// Decides every call (the runtime's gate, or its safe-only default).
    pub gate: Arc<dyn CallGate>,
    /// The user's hooks (`PreToolUse`, `PostToolUse`, `Stop`), when the caller gave any.
    pub hooks: Option<Arc<dyn RunHooks>>,
    /// Masks known secrets in tool results and errors.
    pub redactor: Redactor,
    /// The agent's guardrails, if it declares any.
    pub guardrails: Option<Arc<dyn RunGuardrails>>,
    /// The run's prompt, as the input guardrails check it.
    pub prompt: Arc<str>,
    pub request: ModelRequest,
    pub working_dir: Arc<Path>,
    pub cancel: CancellationToken,
    /// Starts sub-agent runs on this run's runtime, for tools that delegate.
    pub sub_agents: Arc<dyn SubAgentRunner>,
    /// Nesting depth ([`RunOptions::depth`](agentctl_core::RunOptions::depth)).
    pub depth: u32,
    /// Time limits of tool calls (`tools.timeoutSeconds`, `tools.timeouts`).
    pub tool_limits: ToolsSettings,
    /// The trace the run belongs to, passed on to its tool calls.
    pub trace: Option<TraceContext>,
    /// Work its tools started in the background, waited for before the run ends.
    pub background: Arc<crate::background::BackgroundTasks>,
}

impl Prepared {
    /// The run's guardrails when one of them checks at `phase`.
    pub(crate) fn covering(&self, phase: GuardrailPhase) -> Option<Arc<dyn RunGuardrails>> {
        self.guardrails
            .as_ref()
            .filter(|rails| rails.covers(phase))
            .cloned()
    }

    /// Whether the run's text deltas are provisional: an output guardrail may still reject them.
    pub(crate) fn text_is_provisional(&self) -> bool {
        self.covering(GuardrailPhase::Output).is_some()
    }
}

/// Counters of one run.
pub(crate) struct LoopState {
    pub(crate) started: Instant,
    pub(crate) turn: u32,
    pub(crate) usage: Usage,
    pub(crate) estimator: TokenEstimator,
    pub(crate) window: u64,
    /// Index of the first message this run added (the prompt).
    pub(crate) first_new: usize,
    /// Repairs asked for by output guardrails so far.
    pub(crate) repairs: u32,
    /// Answers that failed an output guardrail, each with the repair request after it: never
    /// committed, removed once an answer stands.
    pub(crate) set_aside: Vec<Range<usize>>,
    /// Whether a stop hook already made the run go on once (`stop_hook_active`).
    pub(crate) stop_continued: bool,
}

impl LoopState {
    /// The counters of `run` before its first turn: no turn taken, no tokens used, the
    /// estimator holding the system prompt, the tools and the messages so far.
    pub(crate) fn start(run: &Prepared) -> Self {
        let mut estimator = TokenEstimator::new(run.request.system.as_deref(), &run.request.tools);
        for message in &run.request.messages {
            estimator.add(message);
        }
        LoopState {
            started: Instant::now(),
            turn: 0,
            usage: Usage::default(),
            estimator,
            window: model_context_window(&run.model.model),
            first_new: run.request.messages.len().saturating_sub(1),
            repairs: 0,
            set_aside: Vec::new(),
            stop_continued: false,
        }
    }
}

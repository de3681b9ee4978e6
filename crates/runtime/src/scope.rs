//! What one run may borrow from its caller instead of the runtime: the tool set it offers, the
//! approval gate its calls meet, the runner its delegating tools start sub-agents with, and the
//! model already resolved.
//!
//! A session keeps one [`Runtime`](crate::Runtime) (providers, guardrails, redactor) for its
//! whole life and gives each run the parts that belong to the run: an agent's own declared
//! tools ([`Toolbox`]), a gate that routes questions to the turn the run belongs to, and a
//! sub-agent runner that gives each child its own tools in turn.

use crate::specs::SpecCache;
use agentctl_core::{CallGate, ModelRef, RunHooks, SubAgentRunner, Tool, ToolRegistry, ToolSpec};
use std::sync::Arc;

/// A tool set runs offer: a registry, and the specs of the subsets agents' filters let
/// through, built once and shared by every run offering the same subset. Cheap to clone.
///
/// ```
/// use agentctl_core::ToolRegistry;
/// use agentctl_runtime::Toolbox;
///
/// let toolbox = Toolbox::new(ToolRegistry::new());
/// assert!(toolbox.tools().is_empty());
/// ```
#[derive(Clone, Default)]
pub struct Toolbox {
    tools: Arc<ToolRegistry>,
    specs: Arc<SpecCache>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// A toolbox of `tools`.
    pub fn new(tools: ToolRegistry) -> Self {
        Self {
            tools: Arc::new(tools),
            specs: Arc::default(),
        }
    }

    /// Every tool of the box.
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// The registry, shared.
    pub(crate) fn registry(&self) -> &Arc<ToolRegistry> {
        &self.tools
    }

    /// The specs of `tools`, a filtered subset of this box's registry.
    pub(crate) fn specs(&self, tools: &[Arc<dyn Tool>]) -> Arc<[ToolSpec]> {
        self.specs.specs(tools)
    }
}

/// The parts of one run given by its caller; each part left out is the runtime's own.
///
/// ```
/// use agentctl_core::ToolRegistry;
/// use agentctl_runtime::{RunScope, Toolbox};
///
/// let scope = RunScope::new().tools(Toolbox::new(ToolRegistry::new()));
/// assert!(scope.toolbox().is_some());
/// ```
#[derive(Clone, Default)]
pub struct RunScope {
    pub(crate) tools: Option<Toolbox>,
    pub(crate) gate: Option<Arc<dyn CallGate>>,
    pub(crate) sub_agents: Option<Arc<dyn SubAgentRunner>>,
    pub(crate) model: Option<ModelRef>,
    pub(crate) hooks: Option<Arc<dyn RunHooks>>,
}

impl std::fmt::Debug for RunScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunScope")
            .field("tools", &self.tools)
            .field("gate", &self.gate.is_some())
            .field("sub_agents", &self.sub_agents.is_some())
            .field("model", &self.model)
            .field("hooks", &self.hooks.is_some())
            .finish()
    }
}

impl RunScope {
    /// Everything from the runtime.
    pub fn new() -> Self {
        Self::default()
    }

    /// The run offers `toolbox` (filtered by the agent's allow and deny lists) instead of the
    /// runtime's tools.
    pub fn tools(mut self, toolbox: Toolbox) -> Self {
        self.tools = Some(toolbox);
        self
    }

    /// The run's calls meet `gate` instead of the runtime's.
    pub fn gate(mut self, gate: Arc<dyn CallGate>) -> Self {
        self.gate = Some(gate);
        self
    }

    /// Tools that delegate (the `task` tool) start sub-agents with `runner` instead of the
    /// runtime.
    pub fn sub_agents(mut self, runner: Arc<dyn SubAgentRunner>) -> Self {
        self.sub_agents = Some(runner);
        self
    }

    /// The run uses `model`, already resolved, instead of resolving it again.
    pub fn model(mut self, model: ModelRef) -> Self {
        self.model = Some(model);
        self
    }

    /// The run's tool calls and its final answer meet `hooks` (the runtime has none of its
    /// own): `PreToolUse` before the gate, `PostToolUse` after the call, `Stop` at the end.
    pub fn hooks(mut self, hooks: Arc<dyn RunHooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// The toolbox given, if any.
    pub fn toolbox(&self) -> Option<&Toolbox> {
        self.tools.as_ref()
    }
}

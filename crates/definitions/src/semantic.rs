//! The contract semantic checks register through.
//!
//! This crate checks what the file says: syntax, types, names, values in range. Whether a
//! `when:` condition compiles, a graph reaches its end or a guardrail's schema is a schema is
//! known to the crates that run them (routing, guardrails), which implement [`SemanticCheck`];
//! a program assembles them in a [`Checks`] set (`agentctl_session::semantic_checks`) and hands
//! it to [`discover`](super::discover) and [`validate`](super::validate). Their findings are
//! [`Diagnostic`]s located in the agent's file like every other.

use crate::discovery::Discovery;
use crate::error::Diagnostic;
use crate::parse::LoadedAgent;
use crate::report::Check;
use agentctl_core::Settings;
use std::fmt;
use std::sync::Arc;

/// When a [`SemanticCheck`] runs, and what it knows there.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum CheckStage<'a> {
    /// An agent as its file loads (or as a definition given in code is taken in): only the
    /// errors that make it unrunnable whatever the settings and the other agents are kept.
    Load,
    /// After discovery, for an agent that passed [`Load`](Self::Load): what it names among the
    /// other agents (a graph's nodes). An error here makes it invalid too.
    Discovered(&'a Discovery),
    /// `agents validate`: every finding, errors and warnings, with the settings, and the other
    /// agents when they are known.
    Validate {
        /// The merged settings.
        settings: &'a Settings,
        /// The discovered agents, when the agent was validated among them.
        agents: Option<&'a Discovery>,
    },
}

/// Checks of an agent definition that need another crate's engine (CEL, JSON Schema, graphs),
/// implemented by that crate and registered in a [`Checks`] set.
///
/// Every finding is a [`Diagnostic`] located with [`LoadedAgent::diagnostic`], at the field
/// concerned.
pub trait SemanticCheck: Send + Sync {
    /// A short name for debugging output (`routing`, `guardrails`).
    fn name(&self) -> &'static str;

    /// Problems of single field values this check understands (a `when:` that does not
    /// compile): they join the `field values` check, at every stage. None by default.
    fn field_values(&self, agent: &LoadedAgent) -> Vec<Diagnostic> {
        let _ = agent;
        Vec::new()
    }

    /// The check of its own this adds to the report (`guardrails usable`, `graph valid`),
    /// or `None` when `agent` declares nothing it checks or `stage` is not one it acts in.
    fn check(&self, agent: &LoadedAgent, stage: CheckStage<'_>) -> Option<Check>;
}

/// The semantic checks a program runs, in order: their checks follow the syntactic ones in
/// each report, in the order they were added. [`Checks::new`] is the empty set: syntax and
/// fields only.
#[derive(Clone, Default)]
pub struct Checks {
    checks: Vec<Arc<dyn SemanticCheck>>,
}

impl Checks {
    /// No semantic check: agents are checked for syntax and field values only.
    pub fn new() -> Self {
        Self::default()
    }

    /// This set with `check` added after the others.
    #[must_use]
    pub fn with(mut self, check: impl SemanticCheck + 'static) -> Self {
        self.checks.push(Arc::new(check));
        self
    }

    /// The checks, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &dyn SemanticCheck> {
        self.checks.iter().map(|check| &**check)
    }

    /// Every check's field-value problems for `agent`, in order.
    pub(crate) fn field_values(&self, agent: &LoadedAgent) -> Vec<Diagnostic> {
        self.iter()
            .flat_map(|check| check.field_values(agent))
            .collect()
    }

    /// Every check's own check of `agent` at `stage`, in order.
    pub(crate) fn run(&self, agent: &LoadedAgent, stage: CheckStage<'_>) -> Vec<Check> {
        self.iter()
            .filter_map(|check| check.check(agent, stage))
            .collect()
    }
}

impl fmt::Debug for Checks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(SemanticCheck::name))
            .finish()
    }
}

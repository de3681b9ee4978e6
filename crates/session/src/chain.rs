//! The facts of a turn's chain of agents that handoff conditions read: the previous agent's
//! final output as `last`, how many agents have worked on the request as `turn`.

use agentctl_routing::ChainFacts;
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError};

/// The chain facts of a turn, shared by the turn (which moves them on at each handoff) and the
/// handoff tools (which read them when a condition is checked).
#[derive(Debug, Clone)]
pub(crate) struct Chain(Arc<Mutex<(Value, u32)>>);

impl Default for Chain {
    fn default() -> Self {
        Self(Arc::new(Mutex::new((Value::Null, 1))))
    }
}

impl Chain {
    /// A new turn: no previous agent, the first agent working.
    pub(crate) fn start(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = (Value::Null, 1);
    }

    /// A handoff: the agent that handed off said `answer`; the next one takes a step.
    pub(crate) fn advance(&self, answer: &str) {
        let mut facts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        facts.0 = ChainFacts::output(answer);
        facts.1 = facts.1.saturating_add(1);
    }

    pub(crate) fn facts(&self, agent: &str) -> ChainFacts {
        let (last, turn) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        ChainFacts {
            agent: agent.to_owned(),
            last,
            turn,
        }
    }
}

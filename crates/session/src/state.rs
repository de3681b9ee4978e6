//! What handoff conditions read: the session's state (the keys agents set with `memory_set`)
//! and the facts of the turn's chain of agents — the previous agent's final output as `last`,
//! how many agents have worked on the request as `turn`.

use crate::session::SessionHandle;
use agentctl_routing::{ChainFacts, Condition, WhenCheck, condition_variables};
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

    fn facts(&self, agent: &str) -> ChainFacts {
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

/// The check of a handoff's `when` for `agent` in `session`: the condition over the state as
/// it is when the handoff tool is called.
pub(crate) fn when_check(session: &SessionHandle, agent: &str) -> WhenCheck {
    let session = session.clone();
    let agent = agent.to_owned();
    Arc::new(move |when: &str, payload: &Value| {
        let condition = Condition::parse(when).map_err(|error| error.to_string())?;
        let state = session
            .store()
            .session_state(session.id())
            .map_err(|error| format!("the session state cannot be read: {error}"))?;
        let facts = session.chain().facts(&agent);
        let variables = condition_variables(&state, &facts, payload);
        condition
            .evaluate(&variables)
            .map_err(|error| error.to_string())
    })
}

//! What handoff conditions read: the session's state (the keys agents set with `memory_set`)
//! and the facts of the turn's chain of agents — the previous agent's final output as `last`,
//! how many agents have worked on the request as `turn`.

use crate::session::SessionHandle;
use agentctl_routing::{Condition, WhenCheck, condition_variables};
use serde_json::Value;
use std::sync::Arc;

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

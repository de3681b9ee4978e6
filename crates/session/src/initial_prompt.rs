//! Claude Code's `initialPrompt`: when an agent is the front agent of a run or a chat (`run
//! AGENT`, `agents run AGENT`, `chat --agent AGENT`), its initial prompt is sent as the first
//! user turn, before any prompt the user gave. A sub-agent, a handoff target or a graph node
//! never sends it: their first turn is the task they were given.

use agentctl_core::AgentDefinition;

/// The front-matter field, kept in the agent's `extra`.
const FIELD: &str = "initialPrompt";

/// The first prompt a front end sends to `agent` as its front agent: the agent's
/// `initialPrompt` followed (after a blank line) by `given`; `given` alone when the agent has
/// none; `None` when neither has text.
///
/// ```
/// use agentctl_session::{Agent, front_prompt};
///
/// let mut agent = Agent::new("reviewer", "You review.").definition().clone();
/// agent.extra.insert("initialPrompt".into(), "Review the staged changes.".into());
/// assert_eq!(
///     front_prompt(&agent, Some("Focus on tests.")).as_deref(),
///     Some("Review the staged changes.\n\nFocus on tests.")
/// );
/// assert_eq!(front_prompt(&agent, None).as_deref(), Some("Review the staged changes."));
/// ```
pub fn front_prompt(agent: &AgentDefinition, given: Option<&str>) -> Option<String> {
    let initial = agent
        .extra
        .get(FIELD)
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty());
    let given = given.filter(|text| !text.trim().is_empty());
    match (initial, given) {
        (Some(initial), Some(given)) => Some(format!("{initial}\n\n{given}")),
        (Some(initial), None) => Some(initial.to_owned()),
        (None, given) => given.map(str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Agent;

    #[test]
    fn without_an_initial_prompt_the_given_one_goes_alone() {
        let mut agent = Agent::new("a", "A.").definition().clone();
        assert_eq!(front_prompt(&agent, Some("hi")).as_deref(), Some("hi"));
        assert_eq!(front_prompt(&agent, Some("  ")), None);
        // Not text: no initial prompt.
        agent.extra.insert(FIELD.into(), serde_json::json!(["x"]));
        assert_eq!(front_prompt(&agent, None), None);
    }
}

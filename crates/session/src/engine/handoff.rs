//! Handoffs within a turn: when a run finishes by handing off, its target — with its own kit
//! (tools and servers), model, system prompt and context mode — starts on a brief (the user's
//! request, the reason and the payload, and what the target may see of the conversation), in
//! a store run linked to the one that handed off. At most `agents.maxHandoffs` handoffs are
//! made per turn.

use agentctl_core::{HandoffHistory, HandoffRequest, RunError};

/// Whether one more handoff is allowed after `agents` worked on the turn; the error names the
/// chain that would have gone over `limit`.
pub(crate) fn check_limit(
    agents: &[String],
    request: &HandoffRequest,
    limit: u32,
) -> Result<(), RunError> {
    let made = u32::try_from(agents.len()).unwrap_or(u32::MAX);
    if made > limit {
        let mut chain = agents.to_vec();
        chain.push(request.to.clone());
        return Err(RunError::HandoffLimit { limit, chain });
    }
    Ok(())
}

/// The first message of a handoff's target: who handed off and why, the payload, what the
/// handing-off agent concluded (unless the filter says none), and the user's request.
pub(crate) fn brief(
    request: &HandoffRequest,
    answer: &str,
    prompt: &str,
    history: HandoffHistory,
) -> String {
    let mut text = format!("Handoff from `{}`.", request.from);
    if !request.reason.trim().is_empty() {
        text.push_str(&format!("\nReason: {}", request.reason.trim()));
    }
    if !request.payload.is_null() {
        let payload = serde_json::to_string_pretty(&request.payload)
            .unwrap_or_else(|_| request.payload.to_string());
        text.push_str(&format!("\nPayload:\n```json\n{payload}\n```"));
    }
    if history != HandoffHistory::None && !answer.trim().is_empty() {
        text.push_str(&format!(
            "\n`{}` said before handing off:\n{}",
            request.from,
            answer.trim()
        ));
    }
    text.push_str(&format!("\n\nThe user's request: {}", prompt.trim()));
    text
}

//! The typed events a run emits and its final result.
//!
//! A front end renders these: the CLI prints text deltas and dim tool lines, `--format
//! stream-json` prints one event per line. These library types serialise event fields
//! snake_case (`run_id`) and the result camelCase (`tokensUsed`); the CLI prints its own
//! documented shape of them (camelCase throughout, with `sessionId`: `agentctl schema run-event`).

use crate::context_mode::ContextMode;
use crate::conversation::Message;
use crate::decision::{ApprovalHint, DecidedBy, Verdict};
use crate::effort::Effort;
use crate::guardrail::{GuardrailPolicy, GuardrailStage};
use crate::handoff::HandoffRequest;
use crate::risk::RiskLevel;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing that happened during a run, in order.
///
/// A run emits `run_started`, then `guardrail` events for its input guardrails, then per model
/// turn `model_request`, any `text_delta`s, `usage`, and for each requested tool `tool_call`,
/// then per call `tool_decision` (preceded by `approval_requested` when a person is asked) and
/// `tool_result`, then `turn_committed`; a final answer (or a handoff) with output guardrails
/// is followed by their `guardrail` events before it is committed. A tool may emit events of
/// its own between a call's `tool_decision` and its `tool_result` (`task_stopped`). A run ends
/// with exactly one `run_finished` or `run_failed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunEvent {
    /// The run began: the model is resolved and the provider built.
    RunStarted {
        /// Unique id of the run.
        run_id: String,
        /// Agent name.
        agent: String,
        /// Resolved model, `provider:model`.
        model: String,
        /// Context mode in effect.
        context_mode: ContextMode,
    },
    /// A request is about to be sent to the model.
    ModelRequest {
        /// 1-based turn number.
        turn: u32,
        /// Messages in the request (history, prompt, tool results).
        message_count: usize,
        /// Tools offered.
        tool_count: usize,
        /// Tokens the prompt may use: the context window minus the output reserve.
        prompt_token_budget: u64,
        /// Estimated prompt tokens (system, messages and tool specs), calibrated by the usage
        /// the provider reported for earlier turns.
        estimated_prompt_tokens: u64,
        /// The model's context window, from a table by model-name prefix.
        model_context_window: u64,
    },
    /// The run's reasoning effort is not sent as asked: the model catalogue says the model
    /// does not reason (`sent` is `None`) or does not accept the level (`sent` is the nearest
    /// one it does). Once per run, before its first model request.
    EffortAdjusted {
        /// The model, `provider:model`.
        model: String,
        /// The level asked for (the agent's `effort` or the run's option).
        asked: Effort,
        /// The level sent, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sent: Option<Effort>,
    },
    /// More answer text.
    TextDelta {
        /// The new text.
        text: String,
        /// True when the agent has output guardrails: the text may still be rejected or
        /// replaced by a repaired answer. It stands once a `tool_call` follows it in the same
        /// turn, or once the turn's output `guardrail` events have all passed (or only warned);
        /// a failed `repair` check discards it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        provisional: bool,
    },
    /// The model asked for a tool call.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as JSON.
        arguments: Value,
    },
    /// A tool call finished (or was refused); the content is what the model reads.
    ToolResult {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Result or error text.
        content: String,
        /// True when the tool failed, was unknown or was not allowed.
        is_error: bool,
        /// How long the call took.
        duration_ms: u64,
    },
    /// A tool call waits for the user's approval (emitted before the question is asked).
    ApprovalRequested {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Risk of the call.
        risk: RiskLevel,
        /// Why approval is needed.
        reason: String,
    },
    /// The approval gate decided a call (every call that reached a known tool gets one,
    /// before its `tool_result`).
    ToolDecision {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Risk of the call.
        risk: RiskLevel,
        /// `allow` or `deny`.
        decision: Verdict,
        /// Why; for a denial, what the model receives.
        reason: String,
        /// `policy`, `user` or `non_terminal`.
        by: DecidedBy,
        /// For a denial: what would have let the call run, for the front end to word.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<ApprovalHint>,
    },
    /// The loop committed a turn to the conversation: the assistant message and, when it
    /// called tools, every call's result, exactly as the next request will carry them. Front
    /// ends persist these messages (never a reconstruction from deltas); a turn cut short by
    /// cancellation is never committed, so stored history stays paired.
    TurnCommitted {
        /// 1-based turn number.
        turn: u32,
        /// The messages the turn added, in order.
        messages: Vec<Message>,
    },
    /// The agent handed the rest of the run to another agent (after the turn that called the
    /// handoff tool; the run then finishes with [`RunResult::handoff`] set).
    Handoff {
        /// Agent handing off.
        from: String,
        /// Agent receiving the work.
        to: String,
        /// Why, as the model said.
        reason: String,
        /// The data passed along.
        payload: Value,
    },
    /// A guardrail checked the run's input or output. The checks of one text are reported
    /// together, once all of them ran.
    Guardrail {
        /// The guardrail's name.
        name: String,
        /// `input` or `output`.
        stage: GuardrailStage,
        /// Whether the text passed.
        passed: bool,
        /// `reject`, `repair` or `warn`: what a failure does.
        policy: GuardrailPolicy,
        /// Why it failed (empty when it passed).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        errors: Vec<String>,
        /// 0 for the model's first answer, then one more per repair asked for.
        attempt: u32,
    },
    /// A `task` call was not started: no available executor (agent) has a capability it
    /// needs, or the agent it names is busy or failed. The call's `tool_result` carries the
    /// full STOP report the model reads.
    TaskStopped {
        /// Call id of the `task` call.
        id: String,
        /// The task, as its goal describes it.
        task: String,
        /// Required capabilities no available executor has (empty when each exists but no
        /// single available executor has them all, or the named agent is busy).
        missing_capabilities: Vec<String>,
        /// Executors that could have run it but are busy or failed: `name (status)`.
        unavailable_executors: Vec<String>,
        /// One-line explanation.
        reason: String,
    },
    /// The session's plan changed (seed 003's plan mode): the whole todo list after the
    /// change, by `todo_write` or by a `task` that finished one of its items.
    PlanUpdated {
        /// The items, in order.
        items: Vec<PlanItem>,
    },
    /// Token usage of one model call.
    Usage {
        /// Prompt tokens.
        input_tokens: u64,
        /// Completion tokens.
        output_tokens: u64,
    },
    /// The run finished.
    RunFinished {
        /// The result (boxed: it is the largest variant by far, and every event would be as
        /// large as it).
        result: Box<RunResult>,
    },
    /// The run failed or was cancelled.
    RunFailed {
        /// One-line error message.
        error: String,
    },
}

/// One item of a session's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanItem {
    /// Its id, unique in the plan (`1`, `2`, … unless the model names them).
    pub id: String,
    /// What is to be done.
    pub content: String,
    /// Where it stands.
    pub status: PlanStatus,
}

/// Where a plan item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one item at a time).
    InProgress,
    /// Done.
    Completed,
}

/// Tokens used over a whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokensUsed {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
}

/// Facts about a finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunMetadata {
    /// Unique id of the run.
    pub run_id: String,
    /// Agent name.
    pub agent: String,
    /// Resolved model, `provider:model`.
    pub model: String,
    /// Tokens used over all model calls.
    pub tokens_used: TokensUsed,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// Model calls made.
    pub iterations: u32,
    /// Context mode in effect.
    pub context_mode: ContextMode,
    /// What the tokens cost in US dollars, by the model catalogue's list prices (`None` for
    /// a model it has no price for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// The result of a finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// The final answer: the text of the model's last turn.
    pub text: String,
    /// Model, tokens, duration, iterations and context mode.
    pub metadata: RunMetadata,
    /// The agent's conversation after the run (history, prompt, answers and tool results);
    /// pass it as [`RunOptions::history`](crate::RunOptions::history) to continue. Not
    /// serialised.
    #[serde(skip)]
    pub messages: Vec<Message>,
    /// Set when the run ended by handing off: who gets the rest of the work, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<HandoffRequest>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_tagged_snake_case_and_result_is_camel_case() {
        let event = RunEvent::ToolResult {
            id: "c1".into(),
            name: "grep".into(),
            content: "x".into(),
            is_error: false,
            duration_ms: 3,
        };
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"type":"tool_result","id":"c1","name":"grep","content":"x","is_error":false,"duration_ms":3}"#
        );
        let result = RunResult {
            text: "ok".into(),
            metadata: RunMetadata {
                run_id: "r".into(),
                agent: "a".into(),
                model: "openai:gpt-4o".into(),
                tokens_used: TokensUsed {
                    input: 1,
                    output: 2,
                },
                duration_ms: 5,
                iterations: 1,
                context_mode: ContextMode::Isolated,
                cost_usd: None,
            },
            messages: vec![Message::user("hi")],
            handoff: None,
        };
        let json = serde_json::to_value(RunEvent::RunFinished {
            result: Box::new(result),
        })
        .unwrap();
        assert_eq!(json["type"], "run_finished");
        assert_eq!(json["result"]["metadata"]["tokensUsed"]["output"], 2);
        assert_eq!(json["result"]["metadata"]["contextMode"], "isolated");
        assert!(json["result"].get("messages").is_none());
    }
}

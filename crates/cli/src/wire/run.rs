//! A run's JSON: the result of `--format json` and the event lines of `--format stream-json`.

use super::one_of;
use agentctl_core::{
    ApprovalHint, ContextMode, DecidedBy, GuardrailPolicy, GuardrailStage, HandoffHistory,
    HandoffRequest, Message, RiskLevel, RunEvent, RunResult, ToolCall, Verdict,
};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// A run id as the session store numbers it (`#3` in `sessions show`); `None` for a run the
/// store did not record (the runtime's own ids are not numbers).
pub(crate) fn store_run_id(id: &str) -> Option<i64> {
    id.parse().ok()
}

/// What `run`/`chat` print with `--format json`: the session, the agents that worked on the
/// prompt, and the last run's result.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunResultJson<'a> {
    /// The session the run is recorded in (`sessions show ID`).
    pub(crate) session_id: Option<&'a str>,
    /// The agents that worked on the prompt, in order (more than one after handoffs).
    pub(crate) agents: &'a [String],
    /// The last run's result.
    #[serde(flatten)]
    pub(crate) result: RunSummary<'a>,
}

/// One run's result: in the run result, and in a `run_finished` event.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunSummary<'a> {
    /// The store's run id: `#N` in `sessions show`, `runs[].runId` in its JSON.
    run_id: Option<i64>,
    /// The agent of this run.
    agent: &'a str,
    /// `provider:model`.
    model: &'a str,
    /// The context mode the run worked in.
    context_mode: ContextMode,
    /// Tokens over all model calls.
    tokens_used: TokensUsed,
    /// What the tokens cost in US dollars, by the model catalogue's list prices; absent for a
    /// model the catalogue has no price for.
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_usd: Option<f64>,
    /// Wall time, milliseconds.
    duration_ms: u64,
    /// Model calls made.
    iterations: u32,
    /// Set when the run ended by handing off.
    #[serde(skip_serializing_if = "Option::is_none")]
    handoff: Option<Handoff<'a>>,
    /// The final answer.
    text: &'a str,
}

impl<'a> From<&'a RunResult> for RunSummary<'a> {
    fn from(result: &'a RunResult) -> Self {
        let metadata = &result.metadata;
        Self {
            run_id: store_run_id(&metadata.run_id),
            agent: &metadata.agent,
            model: &metadata.model,
            context_mode: metadata.context_mode,
            tokens_used: TokensUsed {
                input: metadata.tokens_used.input,
                output: metadata.tokens_used.output,
            },
            cost_usd: metadata.cost_usd,
            duration_ms: metadata.duration_ms,
            iterations: metadata.iterations,
            handoff: result.handoff.as_ref().map(Handoff::from),
            text: &result.text,
        }
    }
}

/// Tokens used.
#[derive(Debug, Serialize, JsonSchema)]
struct TokensUsed {
    /// Prompt tokens.
    input: u64,
    /// Completion tokens.
    output: u64,
}

/// A handoff request: who gets the rest of the work, and why.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Handoff<'a> {
    from: &'a str,
    to: &'a str,
    reason: &'a str,
    payload: &'a Value,
    /// What the receiving agent sees: `full`, `summary` or `none`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "history_schema")]
    history: Option<HandoffHistory>,
}

impl<'a> From<&'a HandoffRequest> for Handoff<'a> {
    fn from(request: &'a HandoffRequest) -> Self {
        Self {
            from: &request.from,
            to: &request.to,
            reason: &request.reason,
            payload: &request.payload,
            history: request.history,
        }
    }
}

fn history_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["full", "summary", "none"])
}

fn risk_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["safe", "low", "medium", "high", "critical"])
}

fn verdict_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["allow", "deny"])
}

fn decided_by_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["policy", "user", "non_terminal"])
}

fn hint_schema(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({
        "type": "object",
        "properties": {
            "kind": { "type": "string", "enum": ["approve_levels", "ask_a_person"] },
            "levels": { "type": "array", "items": risk_schema(&mut SchemaGenerator::default()) }
        },
        "required": ["kind"]
    })
}

/// One line of `--format stream-json`: the event's `type`, the `sessionId`, then its fields.
#[derive(Debug, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunEventLine<'a> {
    /// The session the run is recorded in.
    pub(crate) session_id: Option<&'a str>,
    /// The event.
    #[serde(flatten)]
    pub(crate) event: WireRunEvent<'a>,
}

impl Serialize for RunEventLine<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        type_first(&self.event, self.session_id, serializer)
    }
}

/// Serialises `event` (an object with a `type`) with `sessionId` right after its `type`, so a
/// reader sees what a line is and whose it is first.
pub(super) fn type_first<S: Serializer>(
    event: &impl Serialize,
    session_id: Option<&str>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let fields = match serde_json::to_value(event).map_err(serde::ser::Error::custom)? {
        Value::Object(fields) => fields,
        other => return other.serialize(serializer),
    };
    let mut line = Map::with_capacity(fields.len() + 1);
    let mut rest = fields.into_iter();
    if let Some((key, value)) = rest.next() {
        line.insert(key, value);
    }
    line.insert("sessionId".into(), session_id.into());
    line.extend(rest);
    line.serialize(serializer)
}

/// A run event in the CLI's casing (the library's [`RunEvent`], field by field).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum WireRunEvent<'a> {
    /// The run began.
    RunStarted {
        /// The store's run id (`#N` in `sessions show`).
        run_id: Option<i64>,
        agent: &'a str,
        model: &'a str,
        context_mode: ContextMode,
    },
    /// A request is about to be sent to the model.
    ModelRequest {
        turn: u32,
        message_count: usize,
        tool_count: usize,
        prompt_token_budget: u64,
        estimated_prompt_tokens: u64,
        model_context_window: u64,
    },
    /// More answer text; `provisional` while output guardrails may still reject it.
    TextDelta {
        text: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        provisional: bool,
    },
    /// The model asked for a tool call.
    ToolCall {
        id: &'a str,
        name: &'a str,
        arguments: &'a Value,
    },
    /// A tool call finished (or was refused).
    ToolResult {
        id: &'a str,
        name: &'a str,
        content: &'a str,
        is_error: bool,
        duration_ms: u64,
    },
    /// A call waits for the user's approval.
    ApprovalRequested {
        id: &'a str,
        name: &'a str,
        #[schemars(schema_with = "risk_schema")]
        risk: RiskLevel,
        reason: &'a str,
    },
    /// The approval gate decided a call.
    ToolDecision {
        id: &'a str,
        name: &'a str,
        #[schemars(schema_with = "risk_schema")]
        risk: RiskLevel,
        #[schemars(schema_with = "verdict_schema")]
        decision: Verdict,
        reason: &'a str,
        #[schemars(schema_with = "decided_by_schema")]
        by: DecidedBy,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schemars(schema_with = "hint_schema")]
        hint: Option<&'a ApprovalHint>,
    },
    /// The loop committed a turn: the messages it added.
    TurnCommitted {
        turn: u32,
        messages: Vec<WireMessage<'a>>,
    },
    /// The agent handed the rest of the run to another agent.
    Handoff {
        from: &'a str,
        to: &'a str,
        reason: &'a str,
        payload: &'a Value,
    },
    /// A guardrail checked the run's input or output.
    Guardrail {
        name: &'a str,
        stage: GuardrailStage,
        passed: bool,
        policy: GuardrailPolicy,
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        errors: &'a [String],
        attempt: u32,
    },
    /// A `task` call was not started.
    TaskStopped {
        id: &'a str,
        task: &'a str,
        missing_capabilities: &'a [String],
        unavailable_executors: &'a [String],
        reason: &'a str,
    },
    /// Token usage of one model call.
    Usage {
        input_tokens: u64,
        output_tokens: u64,
    },
    /// The run finished.
    RunFinished { result: RunSummary<'a> },
    /// The run failed or was cancelled.
    RunFailed { error: &'a str },
    /// An event this version of the CLI does not know yet: its `type` and fields as the
    /// library names them.
    #[serde(untagged)]
    Other(Value),
}

impl<'a> From<&'a RunEvent> for WireRunEvent<'a> {
    // Kept whole: one arm per run event, a field-for-field mapping to the wire shape.
    fn from(event: &'a RunEvent) -> Self {
        match event {
            RunEvent::RunStarted {
                run_id,
                agent,
                model,
                context_mode,
            } => Self::RunStarted {
                run_id: store_run_id(run_id),
                agent,
                model,
                context_mode: *context_mode,
            },
            RunEvent::ModelRequest {
                turn,
                message_count,
                tool_count,
                prompt_token_budget,
                estimated_prompt_tokens,
                model_context_window,
            } => Self::ModelRequest {
                turn: *turn,
                message_count: *message_count,
                tool_count: *tool_count,
                prompt_token_budget: *prompt_token_budget,
                estimated_prompt_tokens: *estimated_prompt_tokens,
                model_context_window: *model_context_window,
            },
            RunEvent::TextDelta { text, provisional } => Self::TextDelta {
                text,
                provisional: *provisional,
            },
            RunEvent::ToolCall {
                id,
                name,
                arguments,
            } => Self::ToolCall {
                id,
                name,
                arguments,
            },
            RunEvent::ToolResult {
                id,
                name,
                content,
                is_error,
                duration_ms,
            } => Self::ToolResult {
                id,
                name,
                content,
                is_error: *is_error,
                duration_ms: *duration_ms,
            },
            RunEvent::ApprovalRequested {
                id,
                name,
                risk,
                reason,
            } => Self::ApprovalRequested {
                id,
                name,
                risk: *risk,
                reason,
            },
            RunEvent::ToolDecision {
                id,
                name,
                risk,
                decision,
                reason,
                by,
                hint,
            } => Self::ToolDecision {
                id,
                name,
                risk: *risk,
                decision: *decision,
                reason,
                by: *by,
                hint: hint.as_ref(),
            },
            RunEvent::TurnCommitted { turn, messages } => Self::TurnCommitted {
                turn: *turn,
                messages: messages.iter().map(WireMessage::from).collect(),
            },
            RunEvent::Handoff {
                from,
                to,
                reason,
                payload,
            } => Self::Handoff {
                from,
                to,
                reason,
                payload,
            },
            RunEvent::Guardrail {
                name,
                stage,
                passed,
                policy,
                errors,
                attempt,
            } => Self::Guardrail {
                name,
                stage: *stage,
                passed: *passed,
                policy: *policy,
                errors,
                attempt: *attempt,
            },
            RunEvent::TaskStopped {
                id,
                task,
                missing_capabilities,
                unavailable_executors,
                reason,
            } => Self::TaskStopped {
                id,
                task,
                missing_capabilities,
                unavailable_executors,
                reason,
            },
            RunEvent::Usage {
                input_tokens,
                output_tokens,
            } => Self::Usage {
                input_tokens: *input_tokens,
                output_tokens: *output_tokens,
            },
            RunEvent::RunFinished { result } => Self::RunFinished {
                result: RunSummary::from(&**result),
            },
            RunEvent::RunFailed { error } => Self::RunFailed { error },
            other => Self::Other(serde_json::to_value(other).unwrap_or(Value::Null)),
        }
    }
}

/// A conversation message in the CLI's casing (`toolCalls`, `callId`, `isError`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(
    tag = "role",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub(crate) enum WireMessage<'a> {
    /// The user's (or an orchestrator's) text.
    User { content: &'a str },
    /// The model's turn: text, tool calls, or both.
    Assistant {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireToolCall<'a>>,
    },
    /// A tool call's result.
    Tool {
        call_id: &'a str,
        name: &'a str,
        content: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl<'a> From<&'a Message> for WireMessage<'a> {
    fn from(message: &'a Message) -> Self {
        match message {
            Message::User { content } => Self::User { content },
            Message::Assistant {
                content,
                tool_calls,
            } => Self::Assistant {
                content: content.as_deref(),
                tool_calls: tool_calls.iter().map(WireToolCall::from).collect(),
            },
            Message::Tool {
                call_id,
                name,
                content,
                is_error,
            } => Self::Tool {
                call_id,
                name,
                content,
                is_error: *is_error,
            },
        }
    }
}

/// A tool call the model asked for.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct WireToolCall<'a> {
    id: &'a str,
    name: &'a str,
    arguments: &'a Value,
}

impl<'a> From<&'a ToolCall> for WireToolCall<'a> {
    fn from(call: &'a ToolCall) -> Self {
        Self {
            id: &call.id,
            name: &call.name,
            arguments: &call.arguments,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::{RunMetadata, TokensUsed as CoreTokens};

    #[test]
    fn lines_are_camel_case_with_type_then_session() {
        let event = RunEvent::ToolResult {
            id: "c1".into(),
            name: "grep".into(),
            content: "x".into(),
            is_error: false,
            duration_ms: 3,
        };
        let line = RunEventLine {
            session_id: Some("s1"),
            event: (&event).into(),
        };
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"type":"tool_result","sessionId":"s1","id":"c1","name":"grep","content":"x","isError":false,"durationMs":3}"#
        );
    }

    #[test]
    fn the_result_is_flat_with_the_store_run_id() {
        let result = RunResult {
            text: "ok".into(),
            metadata: RunMetadata {
                run_id: "7".into(),
                agent: "a".into(),
                model: "openai:gpt-4o".into(),
                tokens_used: CoreTokens {
                    input: 1,
                    output: 2,
                },
                duration_ms: 5,
                iterations: 1,
                context_mode: ContextMode::Isolated,
                cost_usd: None,
            },
            messages: Vec::new(),
            handoff: None,
        };
        let agents = vec!["a".to_owned()];
        let json = serde_json::to_value(RunResultJson {
            session_id: Some("s"),
            agents: &agents,
            result: (&result).into(),
        })
        .unwrap();
        assert_eq!(json["runId"], 7);
        assert_eq!(json["tokensUsed"]["output"], 2);
        assert_eq!(json["contextMode"], "isolated");
        assert_eq!(json["sessionId"], "s");
        assert!(json.get("metadata").is_none());
    }
}

//! Handoffs as tools: each `handoffs:` entry of an agent becomes a `handoff_to_<agent>` tool.
//!
//! A call is checked before anything moves — the target exists, the payload matches the
//! entry's JSON Schema, the `when` condition holds — and each failed check is a tool error the
//! model reads and can correct. A call that passes returns a
//! [`HandoffRequest`](agentctl_core::HandoffRequest): the agent loop finishes the turn and ends
//! the run with it, and the session runner starts the target agent on the rest of the work.

use agentctl_core::{
    Handoff, HandoffRequest, RiskLevel, Tool, ToolContext, ToolError, ToolOutput, handoff_tool_name,
};
use agentctl_guardrails::JsonSchemaCheck;
use async_trait::async_trait;
use serde_json::{Value, json};
use std::sync::Arc;

/// Checks a handoff's `when` condition against the session state for a payload: `Ok(true)`
/// lets it through, `Ok(false)` refuses, `Err` says why it could not be evaluated.
pub type WhenCheck = Arc<dyn Fn(&str, &Value) -> Result<bool, String> + Send + Sync>;

/// One `handoffs:` entry as a tool.
pub struct HandoffTool {
    name: String,
    spec: Handoff,
    description: String,
    parameters: Value,
    validator: Result<Option<JsonSchemaCheck>, String>,
    /// Whether the target agent exists.
    target_known: bool,
    /// Names of the agents that exist, for the error when the target does not.
    agents: Vec<String>,
    when: Option<WhenCheck>,
}

impl std::fmt::Debug for HandoffTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandoffTool")
            .field("name", &self.name)
            .field("to", &self.spec.to)
            .finish_non_exhaustive()
    }
}

impl HandoffTool {
    /// The tool for `spec`. `target` is the target agent's description when it exists (`None`
    /// when no agent of that name was found: calls then fail with the names in `agents`);
    /// `when` evaluates the entry's condition (without it a condition always holds).
    ///
    /// ```
    /// use agentctl_core::Handoff;
    /// use agentctl_routing::HandoffTool;
    /// use agentctl_core::Tool;
    ///
    /// let spec = Handoff { to: "code-fixer".into(), ..Handoff::default() };
    /// let tool = HandoffTool::new(spec, Some("Fixes bugs."), vec!["code-fixer".into()], None);
    /// assert_eq!(tool.name(), "handoff_to_code-fixer");
    /// assert_eq!(tool.parameters()["properties"]["reason"]["type"], "string");
    /// ```
    pub fn new(
        spec: Handoff,
        target: Option<&str>,
        agents: Vec<String>,
        when: Option<WhenCheck>,
    ) -> Self {
        let description = spec.description.clone().unwrap_or_else(|| {
            let what = target.map(str::trim).filter(|text| !text.is_empty());
            match what {
                Some(what) => format!(
                    "Hand the rest of this task to the `{}` agent ({what}). Say why in `reason`.",
                    spec.to
                ),
                None => format!(
                    "Hand the rest of this task to the `{}` agent. Say why in `reason`.",
                    spec.to
                ),
            }
        });
        let schema = spec.payload.as_ref().map(|payload| payload.schema.clone());
        let parameters = match &schema {
            Some(schema) => object_schema(schema.clone()),
            None => default_parameters(),
        };
        let validator = match &schema {
            Some(schema) => JsonSchemaCheck::compile(schema).map(Some),
            None => Ok(None),
        };
        Self {
            name: handoff_tool_name(&spec.to),
            spec,
            description,
            parameters,
            validator,
            target_known: target.is_some(),
            agents,
            when,
        }
    }

    /// The entry.
    pub fn spec(&self) -> &Handoff {
        &self.spec
    }

    fn check_payload(&self, args: &Value) -> Result<(), ToolError> {
        let validator = match &self.validator {
            Ok(Some(validator)) => validator,
            Ok(None) => return Ok(()),
            Err(error) => {
                return Err(ToolError::failed(format!(
                    "the payload schema of this handoff is invalid ({error}); hand off is not possible until the agent file is fixed"
                )));
            }
        };
        let Err(errors) = validator.check_value(args) else {
            return Ok(());
        };
        Err(ToolError::InvalidArguments {
            tool: self.name.clone(),
            message: format!(
                "the payload does not match the handoff's schema: {}; nothing was handed off, call it again with a corrected payload",
                errors.join("; ")
            ),
        })
    }
}

/// `{reason, context}`: the payload of a handoff without a schema of its own.
fn default_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "reason": {"type": "string", "description": "Why the other agent should take over."},
            "context": {"type": "object", "description": "What it needs to know to go on."}
        }
    })
}

/// A payload schema as a tool's parameters: always an object schema, with a `reason` the
/// model may give.
fn object_schema(mut schema: Value) -> Value {
    if let Value::Object(map) = &mut schema {
        map.entry("type").or_insert_with(|| json!("object"));
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            properties.entry("reason").or_insert_with(
                || json!({"type": "string", "description": "Why the other agent should take over."}),
            );
        } else {
            map.insert(
                "properties".into(),
                json!({"reason": {"type": "string", "description": "Why the other agent should take over."}}),
            );
        }
        return schema;
    }
    default_parameters()
}

#[async_trait]
impl Tool for HandoffTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn risk(&self) -> RiskLevel {
        // Handing off changes nothing by itself: the target's own calls meet the gate.
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        // Calls of one reply run in order, so "the first handoff wins" is deterministic.
        true
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let to = &self.spec.to;
        if !self.target_known {
            return Err(ToolError::failed(format!(
                "there is no agent named `{to}` to hand off to (agents: {}); do the work yourself",
                self.agents.join(", ")
            )));
        }
        let args = if args.is_null() { json!({}) } else { args };
        self.check_payload(&args)?;
        if let (Some(when), Some(check)) = (&self.spec.when, &self.when) {
            match check(when, &args) {
                Ok(true) => {}
                Ok(false) => {
                    return Err(ToolError::failed(format!(
                        "handoff to `{to}` refused: its condition `{when}` is false for the session state; nothing was handed off"
                    )));
                }
                Err(why) => {
                    return Err(ToolError::failed(format!(
                        "handoff to `{to}` refused: its condition `{when}` cannot be evaluated ({why}); nothing was handed off"
                    )));
                }
            }
        }
        let reason = args
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let payload = if self.spec.payload.is_some() {
            args
        } else {
            args.get("context").cloned().unwrap_or(Value::Null)
        };
        let request = HandoffRequest {
            from: ctx.agent().to_owned(),
            to: to.clone(),
            reason,
            payload,
            history: self.spec.history,
        };
        Ok(ToolOutput::handoff(
            format!("Handing off to {to}: it takes over from here."),
            request,
        ))
    }
}

//! Our spans as OpenTelemetry spans, named and attributed by the GenAI semantic conventions
//! (Development stability, as of semantic-conventions 1.41): the one mapping both the live
//! exporter and `otlp-json` export use.
//!
//! Our ids, times, parents and links are kept as they are, so the collector's trace is the
//! trace JSONL files and checkpoints speak of. Message content (prompts, answers, tool
//! arguments and results, handoff payloads, guardrail errors) is only written when capture is
//! on; everything else is metadata.

use agentctl_core::{Span, SpanDetail, SpanStatus, Verdict};
use opentelemetry::trace::{
    Event, Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{Array, InstrumentationScope, KeyValue, StringValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};
use serde_json::json;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Attribute names. Our own constants: the `opentelemetry-semantic-conventions` crate's
/// `gen_ai` ones are deprecated and lag the conventions.
mod key {
    pub const OPERATION: &str = "gen_ai.operation.name";
    pub const PROVIDER: &str = "gen_ai.provider.name";
    pub const CONVERSATION: &str = "gen_ai.conversation.id";
    pub const AGENT_NAME: &str = "gen_ai.agent.name";
    pub const AGENT_ID: &str = "gen_ai.agent.id";
    pub const REQUEST_MODEL: &str = "gen_ai.request.model";
    pub const INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
    pub const OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
    pub const TOOL_NAME: &str = "gen_ai.tool.name";
    pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
    pub const TOOL_TYPE: &str = "gen_ai.tool.type";
    pub const TOOL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
    pub const TOOL_RESULT: &str = "gen_ai.tool.call.result";
    pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
    pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
    pub const WORKFLOW_NAME: &str = "gen_ai.workflow.name";
    pub const ERROR_TYPE: &str = "error.type";
    pub const GUARDRAIL_RESULT: &str = "gen_ai.guardrail.result";
    pub const GUARDRAIL_COMPONENT: &str = "gen_ai.guardrail.component.name";
    pub const GUARDRAIL_POLICY_ID: &str = "gen_ai.guardrail.policy.id";
    pub const GUARDRAIL_RESULT_TYPE: &str = "gen_ai.guardrail.result.type";
    pub const GUARDRAIL_RESULT_VALUE: &str = "gen_ai.guardrail.result.value";
    pub const GUARDRAIL_SOURCE: &str = "gen_ai.guardrail.source";
    pub const SERVICE_NAME: &str = "service.name";
    pub const SERVICE_VERSION: &str = "service.version";
}

/// The instrumentation scope of every span agentctl exports.
pub const SCOPE_NAME: &str = "agentctl";

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `span` as the OpenTelemetry SDK's finished-span record, named and attributed by the GenAI
/// semantic conventions: a run is `invoke_agent {agent}`, a model call `chat {model}` (kind
/// CLIENT), a tool call `execute_tool {tool}`, a graph `invoke_workflow {graph}`, a handoff
/// `handoff {agent}` (the model's call of the handoff tool is its own `execute_tool` span); sessions, graph nodes and guardrails get `agentctl.*`
/// attributes (and a guardrail a `gen_ai.guardrail.result` event). Prompts, answers, tool
/// arguments and results are only included when `capture_content` is set.
///
/// The live exporter ([`crate::OtelSink`]) and [`crate::otlp_json`] both use it, so a file
/// export and a collector show the same spans.
pub fn span_data(span: &Span, capture_content: bool) -> SpanData {
    let trace_id = TraceId::from_bytes(span.trace_id.to_bytes());
    let context = |id: agentctl_core::SpanId| {
        SpanContext::new(
            trace_id,
            SpanId::from_bytes(id.to_bytes()),
            TraceFlags::SAMPLED,
            false,
            TraceState::NONE,
        )
    };
    let end_time = at(span.end_unix_nano());
    let mut out = Attributes::default();
    let (name, kind) = describe(span, capture_content, &mut out, end_time);
    if let Some(session) = &span.session_id {
        out.put(key::CONVERSATION, session.clone());
    }
    if let Some(agent) = &span.agent {
        out.put("agentctl.agent", agent.clone());
    }
    out.put("agentctl.span.type", span.kind().as_str());
    let status = match span.status {
        SpanStatus::Ok => Status::Unset,
        SpanStatus::Error => {
            out.put(key::ERROR_TYPE, error_type(&span.detail));
            let tool_error = match &span.detail {
                SpanDetail::Tool { error, .. } => error.clone(),
                _ => None,
            };
            Status::error(span.error.clone().or(tool_error).unwrap_or_default())
        }
    };
    let mut links = SpanLinks::default();
    links.links = span
        .links
        .iter()
        .map(|id| Link::new(context(*id), Vec::new(), 0))
        .collect();
    let mut events = SpanEvents::default();
    events.events = out.events;
    SpanData {
        span_context: context(span.span_id),
        parent_span_id: span
            .parent_id
            .map_or(SpanId::INVALID, |id| SpanId::from_bytes(id.to_bytes())),
        parent_span_is_remote: false,
        span_kind: kind,
        name: name.into(),
        start_time: at(span.start_unix_nano),
        end_time,
        attributes: out.list,
        dropped_attributes_count: 0,
        events,
        links,
        status,
        instrumentation_scope: scope(),
    }
}

/// Sets the span-kind specific name, kind and attributes (and events).
// Kept whole: one arm per span kind, each the OpenTelemetry GenAI mapping of that kind: the table reads best in one place.
fn describe(
    span: &Span,
    capture: bool,
    out: &mut Attributes,
    end_time: SystemTime,
) -> (String, SpanKind) {
    let agent = span.agent.as_deref();
    match &span.detail {
        SpanDetail::Session { prompt } => {
            if capture {
                out.put(key::INPUT_MESSAGES, user_message(prompt));
            }
            let name =
                agent.map_or_else(|| "session".to_owned(), |agent| format!("session {agent}"));
            (name, SpanKind::Internal)
        }
        SpanDetail::Graph { graph, branch } => {
            out.put(key::OPERATION, "invoke_workflow");
            out.put(key::WORKFLOW_NAME, graph.clone());
            out.put("agentctl.graph.name", graph.clone());
            out.int("agentctl.graph.branch", u64::from(*branch));
            (format!("invoke_workflow {graph}"), SpanKind::Internal)
        }
        SpanDetail::Node {
            graph,
            node,
            agent: node_agent,
            step,
        } => {
            out.put("agentctl.graph.name", graph.clone());
            out.put("agentctl.graph.node", node.clone());
            out.put("agentctl.graph.node.agent", node_agent.clone());
            out.int("agentctl.graph.step", u64::from(*step));
            (format!("node {node}"), SpanKind::Internal)
        }
        SpanDetail::Branch {
            graph,
            from,
            branch,
            index,
            of,
        } => {
            out.put("agentctl.graph.name", graph.clone());
            out.put("agentctl.graph.branch.from", from.clone());
            out.put("agentctl.graph.branch.name", branch.clone());
            out.int("agentctl.graph.branch.index", u64::from(*index));
            out.int("agentctl.graph.branch.count", u64::from(*of));
            (format!("branch {branch}"), SpanKind::Internal)
        }
        SpanDetail::Run {
            run_id,
            model,
            context_mode,
            turns,
            tokens,
            depth,
        } => {
            let (provider, model_name) = split_model(model);
            // Operation, provider, model and agent first: samplers read them at creation.
            out.put(key::OPERATION, "invoke_agent");
            out.put(key::PROVIDER, provider);
            out.put(key::REQUEST_MODEL, model_name.to_owned());
            if let Some(agent) = agent {
                out.put(key::AGENT_NAME, agent.to_owned());
            }
            out.put(key::AGENT_ID, run_id.clone());
            out.int(key::INPUT_TOKENS, tokens.input);
            out.int(key::OUTPUT_TOKENS, tokens.output);
            out.put("agentctl.run.id", run_id.clone());
            out.int("agentctl.run.turns", u64::from(*turns));
            out.int("agentctl.run.depth", u64::from(*depth));
            if let Some(mode) = context_mode {
                out.put("agentctl.run.context_mode", mode.as_str());
            }
            let name = agent.map_or_else(
                || "invoke_agent".to_owned(),
                |agent| format!("invoke_agent {agent}"),
            );
            (name, SpanKind::Internal)
        }
        SpanDetail::Llm {
            model,
            turn,
            prompt,
            response,
            tool_calls,
            tokens,
            latency_ms,
        } => {
            let (provider, model_name) = split_model(model);
            out.put(key::OPERATION, "chat");
            out.put(key::PROVIDER, provider);
            out.put(key::REQUEST_MODEL, model_name.to_owned());
            out.int(key::INPUT_TOKENS, tokens.input);
            out.int(key::OUTPUT_TOKENS, tokens.output);
            out.int("agentctl.llm.turn", u64::from(*turn));
            out.put("agentctl.llm.latency_ms", *latency_ms);
            if capture {
                // The first call's prompt is the user's; later ones carry the tool results.
                let role = if *turn <= 1 { "user" } else { "tool" };
                let input = json!([{"role": role, "parts": [{"type": "text", "content": prompt}]}]);
                out.put(key::INPUT_MESSAGES, input.to_string());
                let mut parts = Vec::new();
                if !response.is_empty() {
                    parts.push(json!({"type": "text", "content": response}));
                }
                parts.extend(tool_calls.iter().map(|call| {
                    json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments})
                }));
                let finish = match (span.status, tool_calls.is_empty()) {
                    (SpanStatus::Error, _) => "error",
                    (SpanStatus::Ok, false) => "tool_call",
                    (SpanStatus::Ok, true) => "stop",
                };
                let output =
                    json!([{"role": "assistant", "parts": parts, "finish_reason": finish}]);
                out.put(key::OUTPUT_MESSAGES, output.to_string());
            }
            (format!("chat {model_name}"), SpanKind::Client)
        }
        SpanDetail::Tool {
            name,
            call_id,
            input,
            output,
            latency_ms,
            error: _,
            risk,
            decision,
        } => {
            // The model picks the name, unknown tools included: keep span names short.
            let name = clip(name, MAX_NAME_BYTES);
            out.put(key::OPERATION, "execute_tool");
            out.put(key::TOOL_NAME, name.to_owned());
            out.put(key::TOOL_CALL_ID, clip(call_id, MAX_NAME_BYTES).to_owned());
            out.put(key::TOOL_TYPE, "function");
            out.put("agentctl.tool.latency_ms", *latency_ms);
            if let Some(risk) = risk {
                out.put("agentctl.tool.risk", risk.as_str());
            }
            if let Some(decision) = decision {
                out.put("agentctl.tool.decision", verdict(*decision));
            }
            if capture {
                out.put(key::TOOL_ARGUMENTS, input.to_string());
                out.put(key::TOOL_RESULT, json_text(output));
            }
            (format!("execute_tool {name}"), SpanKind::Internal)
        }
        SpanDetail::Handoff {
            from,
            to,
            reason,
            payload,
        } => {
            // No standard handoff span. The model's call of the handoff tool is already its
            // own `execute_tool handoff_to_…` span; this one is the passing of control (from
            // the call to the target's start), so it is named for what it is, not a second
            // tool call.
            out.put("agentctl.handoff.from", from.clone());
            out.put("agentctl.handoff.to", to.clone());
            out.put("agentctl.handoff.reason", reason.clone());
            if capture {
                out.put("agentctl.handoff.payload", payload.to_string());
            }
            (format!("handoff {to}"), SpanKind::Internal)
        }
        SpanDetail::Guardrail {
            name,
            stage,
            passed,
            policy,
            errors,
            attempt,
        } => {
            out.put("agentctl.guardrail.name", name.clone());
            out.put("agentctl.guardrail.stage", stage.to_string());
            out.put("agentctl.guardrail.passed", *passed);
            out.put("agentctl.guardrail.policy", policy.to_string());
            out.int("agentctl.guardrail.attempt", u64::from(*attempt));
            if capture && !errors.is_empty() {
                // Why a text failed can quote the text.
                let errors: Vec<StringValue> = errors.iter().cloned().map(Into::into).collect();
                out.put(
                    "agentctl.guardrail.errors",
                    Value::Array(Array::String(errors)),
                );
            }
            out.events.push(Event::new(
                key::GUARDRAIL_RESULT,
                end_time,
                vec![
                    KeyValue::new(key::GUARDRAIL_COMPONENT, SCOPE_NAME),
                    KeyValue::new(key::GUARDRAIL_POLICY_ID, name.clone()),
                    KeyValue::new(key::GUARDRAIL_RESULT_TYPE, "passed"),
                    KeyValue::new(key::GUARDRAIL_RESULT_VALUE, passed.to_string()),
                    KeyValue::new(key::GUARDRAIL_SOURCE, stage.to_string()),
                ],
                0,
            ));
            (format!("guardrail {name}"), SpanKind::Internal)
        }
        // `SpanDetail` is non-exhaustive: a kind added later still exports, by its type.
        _ => (span.kind().as_str().to_owned(), SpanKind::Internal),
    }
}

/// `error.type`: low-cardinality, as the conventions ask; the message goes in the status.
fn error_type(detail: &SpanDetail) -> &'static str {
    match detail {
        SpanDetail::Tool {
            decision: Some(Verdict::Deny),
            ..
        } => "denied",
        SpanDetail::Tool { .. } => "tool_error",
        SpanDetail::Guardrail { .. } => "guardrail_failed",
        _ => "_OTHER",
    }
}

fn verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allow => "allow",
        Verdict::Deny => "deny",
    }
}

/// `provider:model` as `(gen_ai.provider.name, model)`: the provider as configured (custom
/// values are allowed), with the well-known name where the conventions have one.
fn split_model(model: &str) -> (String, &str) {
    match model.split_once(':') {
        Some(("gemini", name)) => ("gcp.gemini".to_owned(), name),
        Some((provider, name)) if !provider.is_empty() => (provider.to_owned(), name),
        _ => ("_OTHER".to_owned(), model),
    }
}

/// The longest tool name or call id put in a span name or attribute, in bytes.
const MAX_NAME_BYTES: usize = 128;

/// `text` cut to at most `max` bytes, at a character boundary.
fn clip(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The conventions' message form for a user prompt, as a JSON string.
fn user_message(prompt: &str) -> String {
    json!([{"role": "user", "parts": [{"type": "text", "content": prompt}]}]).to_string()
}

/// A tool result as a JSON string: JSON output as it is, text as a JSON string.
fn json_text(output: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(output) {
        Ok(value) if value.is_object() || value.is_array() => value.to_string(),
        _ => serde_json::Value::String(output.to_owned()).to_string(),
    }
}

fn at(unix_nano: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(unix_nano)
}

fn scope() -> InstrumentationScope {
    static SCOPE: OnceLock<InstrumentationScope> = OnceLock::new();
    SCOPE
        .get_or_init(|| {
            InstrumentationScope::builder(SCOPE_NAME)
                .with_version(VERSION)
                .build()
        })
        .clone()
}

/// The resource every exported span carries: the SDK's detected attributes
/// (`OTEL_RESOURCE_ATTRIBUTES`, `telemetry.sdk.*`), `service.name` (`service_name`, else
/// `OTEL_SERVICE_NAME` or a `service.name` resource attribute, else `agentctl`) and
/// `service.version`.
pub(crate) fn resource(service_name: Option<&str>) -> Resource {
    let detected = Resource::builder().build();
    // The SDK falls back to `unknown_service:<executable>` when nothing names the service.
    let named = detected
        .get(&opentelemetry::Key::from_static_str(key::SERVICE_NAME))
        .is_some_and(|name| !name.as_str().starts_with("unknown_service"));
    let mut builder =
        Resource::builder().with_attribute(KeyValue::new(key::SERVICE_VERSION, VERSION));
    if let Some(name) = service_name {
        builder = builder.with_service_name(name.to_owned());
    } else if !named {
        builder = builder.with_service_name(SCOPE_NAME);
    }
    builder.build()
}

/// The attributes and events of one span, in the order they are set.
#[derive(Default)]
struct Attributes {
    list: Vec<KeyValue>,
    events: Vec<Event>,
}

impl Attributes {
    fn put(&mut self, key: &'static str, value: impl Into<Value>) {
        self.list.push(KeyValue::new(key, value));
    }

    fn int(&mut self, key: &'static str, value: u64) {
        self.put(key, i64::try_from(value).unwrap_or(i64::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::{SpanId, TraceId};

    fn span(detail: SpanDetail) -> Span {
        Span {
            trace_id: TraceId::random(),
            span_id: SpanId::random(),
            parent_id: None,
            links: Vec::new(),
            session_id: None,
            agent: None,
            start_unix_nano: 5,
            duration_ms: 1.5,
            status: SpanStatus::Ok,
            error: None,
            detail,
        }
    }

    fn attribute<'a>(data: &'a SpanData, key: &str) -> Option<&'a Value> {
        data.attributes
            .iter()
            .find(|pair| pair.key.as_str() == key)
            .map(|pair| &pair.value)
    }

    #[test]
    fn graphs_and_nodes_are_workflows_and_their_steps() {
        let graph = span_data(
            &span(SpanDetail::Graph {
                graph: "review".into(),
                branch: 2,
            }),
            false,
        );
        assert_eq!(graph.name, "invoke_workflow review");
        assert_eq!(
            attribute(&graph, key::OPERATION),
            Some(&Value::from("invoke_workflow"))
        );
        assert_eq!(
            attribute(&graph, key::WORKFLOW_NAME),
            Some(&Value::from("review"))
        );
        assert_eq!(attribute(&graph, key::CONVERSATION), None);
        let node = span_data(
            &span(SpanDetail::Node {
                graph: "review".into(),
                node: "lint".into(),
                agent: "linter".into(),
                step: 3,
            }),
            false,
        );
        assert_eq!(node.name, "node lint");
        assert_eq!(
            attribute(&node, "agentctl.graph.step"),
            Some(&Value::I64(3))
        );
        assert_eq!(node.end_time, at(5 + 1_500_000));
        let branch = span_data(
            &span(SpanDetail::Branch {
                graph: "review".into(),
                from: "intake".into(),
                branch: "perf".into(),
                index: 1,
                of: 3,
            }),
            false,
        );
        assert_eq!(branch.name, "branch perf");
        assert_eq!(
            attribute(&branch, "agentctl.graph.branch.index"),
            Some(&Value::I64(1))
        );
        assert_eq!(
            attribute(&branch, "agentctl.graph.branch.from"),
            Some(&Value::from("intake"))
        );
    }

    #[test]
    fn providers_results_and_failures() {
        assert_eq!(
            split_model("ollama:llama3.2:3b"),
            ("ollama".to_owned(), "llama3.2:3b")
        );
        assert_eq!(split_model("gemini:gemini-2.5-pro").0, "gcp.gemini");
        assert_eq!(
            split_model("no-provider"),
            ("_OTHER".to_owned(), "no-provider")
        );
        assert_eq!(clip("ééé", 3), "é");
        assert_eq!(json_text(r#"{"a":1}"#), r#"{"a":1}"#);
        assert_eq!(json_text("42"), r#""42""#);
        assert_eq!(json_text("plain \"text\""), r#""plain \"text\"""#);
        let mut failed = span(SpanDetail::Tool {
            name: "bash".into(),
            call_id: "c".into(),
            input: json!({}),
            output: String::new(),
            latency_ms: 1.0,
            error: Some("exit status 2".into()),
            risk: None,
            decision: None,
        });
        failed.status = SpanStatus::Error;
        let data = span_data(&failed, false);
        assert_eq!(data.status, Status::error("exit status 2"));
        assert_eq!(
            attribute(&data, key::ERROR_TYPE),
            Some(&Value::from("tool_error"))
        );
    }
}

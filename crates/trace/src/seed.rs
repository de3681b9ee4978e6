//! Spans in seed 002's trace-event shape (§4.1.6, `trace export --format seed`): one event per
//! model call, tool call, handoff and guardrail check — `{type, timestamp, agentName, data}` with
//! the seed's field names (`toolName`, `latency_ms`, a numeric millisecond `timestamp`) — and
//! what a span's tokens cost by the model catalogue's list prices.

use agentctl_core::{ModelCatalogue, Span, SpanDetail, SpanTokens};
use serde_json::{Value, json};

/// What a run's or a model call's tokens cost in US dollars, by the catalogue's list price of
/// its model (`None` for other spans, or a model without a price).
///
/// ```
/// use agentctl_core::{SpanDetail, SpanTokens};
/// let call = SpanDetail::Llm {
///     model: "openai:gpt-4o-mini".into(), turn: 1, prompt: String::new(), response: String::new(),
///     tool_calls: Vec::new(), tokens: SpanTokens { input: 1_000_000, output: 0 }, latency_ms: 1.0,
/// };
/// assert!((agentctl_trace::span_cost(&call).unwrap() - 0.15).abs() < 1e-9);
/// ```
pub fn span_cost(detail: &SpanDetail) -> Option<f64> {
    let (model, tokens) = match detail {
        SpanDetail::Run { model, tokens, .. } | SpanDetail::Llm { model, tokens, .. } => {
            (model, tokens)
        }
        _ => return None,
    };
    let (provider, id) = model.split_once(':')?;
    let price = ModelCatalogue::builtin().price(provider, id)?;
    Some(price.cost(tokens.input, tokens.output))
}

/// `span` as seed 002's trace event, for the four kinds the seed has (`llm`, `tool`,
/// `handoff`, `guardrail`); `None` for sessions, graphs, nodes and runs.
pub fn seed_event(span: &Span) -> Option<Value> {
    let data = match &span.detail {
        SpanDetail::Llm {
            model,
            prompt,
            response,
            tokens: SpanTokens { input, output },
            latency_ms,
            ..
        } => {
            let mut data = json!({
                "model": model,
                "prompt": prompt,
                "response": response,
                "tokens": {"input": input, "output": output},
                "latency_ms": latency_ms,
            });
            if let Some(cost) = span_cost(&span.detail) {
                data["costUsd"] = json!(cost);
            }
            data
        }
        SpanDetail::Tool {
            name,
            input,
            output,
            latency_ms,
            error,
            ..
        } => {
            let mut data = json!({
                "toolName": name,
                "input": input,
                "output": output,
                "latency_ms": latency_ms,
            });
            if let Some(error) = error {
                data["error"] = json!(error);
            }
            data
        }
        SpanDetail::Handoff {
            from,
            to,
            reason,
            payload,
        } => json!({"from": from, "to": to, "reason": reason, "payload": payload}),
        SpanDetail::Guardrail {
            name,
            passed,
            policy,
            errors,
            ..
        } => {
            let mut data = json!({"name": name, "passed": passed, "policy": policy});
            if !errors.is_empty() {
                data["errors"] = json!(errors);
            }
            data
        }
        _ => return None,
    };
    Some(json!({
        "type": span.detail.kind().as_str(),
        "timestamp": span.start_unix_nano / 1_000_000,
        "agentName": span.agent.as_deref().unwrap_or_default(),
        "data": data,
    }))
}

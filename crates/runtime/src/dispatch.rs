//! Step 2 of the loop: the tool calls of one model turn — unknown and disallowed calls
//! refused, the rest through the approval gate, run (concurrently when none mutates) under
//! their time limits, their results redacted.

use crate::events::EventSink;
use crate::run_state::Prepared;
use agentctl_core::{
    DecidedBy, Decision, HandoffRequest, Message, PendingCall, RiskLevel, RunEvent, Tool, ToolCall,
    ToolContext, Verdict, not_allowed,
};
use futures_util::future::join_all;
use std::sync::Arc;
use std::time::Instant;

/// Step 2: run the calls, concurrently when none of them mutates, and return the tool
/// messages in call order, with the handoff one of them asked for. When several calls of one
/// reply hand off, the first wins and the others read that they were ignored.
pub(crate) async fn dispatch(
    run: &Prepared,
    calls: &[ToolCall],
    events: &EventSink,
) -> (Vec<Message>, Option<HandoffRequest>) {
    for call in calls {
        events.emit(|| RunEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
    }
    let sequential = calls.len() == 1
        || calls.iter().any(|call| {
            run.registry
                .get(&call.name)
                .is_some_and(|tool| tool.is_mutating())
        });
    let outcomes = if sequential {
        let mut outcomes = Vec::with_capacity(calls.len());
        for call in calls {
            outcomes.push(call_tool(run, call, events).await);
        }
        outcomes
    } else {
        join_all(calls.iter().map(|call| call_tool(run, call, events))).await
    };
    let mut handoff: Option<HandoffRequest> = None;
    let messages = calls
        .iter()
        .zip(outcomes)
        .map(|(call, mut outcome)| {
            if let Some(request) = outcome.handoff.take() {
                match &handoff {
                    None => handoff = Some(request),
                    Some(first) => {
                        outcome.content = format!(
                            "Ignored: this reply already hands off to {}; only the first handoff of a reply is made.",
                            first.to
                        );
                        outcome.is_error = true;
                    }
                }
            }
            events.emit(|| RunEvent::ToolResult {
                id: call.id.clone(),
                name: call.name.clone(),
                content: outcome.content.clone(),
                is_error: outcome.is_error,
                duration_ms: outcome.duration_ms,
            });
            Message::Tool {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: outcome.content,
                is_error: outcome.is_error,
            }
        })
        .collect();
    (messages, handoff)
}

struct Outcome {
    content: String,
    is_error: bool,
    duration_ms: u64,
    handoff: Option<HandoffRequest>,
}

/// Step 3 for one call: report unknown, refuse, or (once the gate allows it) run it.
/// Failures become error results the model reads; they never end the run.
async fn call_tool(run: &Prepared, call: &ToolCall, events: &EventSink) -> Outcome {
    // Time spent waiting for the user's approval is not the tool's.
    let mut started = Instant::now();
    let result = match run.registry.get(&call.name) {
        // A tool the agent may not use is refused as such, registered or not.
        None if !run.filter.allows(&call.name) => {
            let decision = Decision::deny(RiskLevel::Medium, not_allowed(&call.name));
            emit_decision(events, call, &decision);
            Err(not_allowed(&call.name))
        }
        None => Err(unknown_tool(run, &call.name)),
        Some(tool) => match approve(run, call, tool.as_ref(), events).await {
            Some(denial) => Err(denial),
            None => {
                started = Instant::now();
                let ctx = ToolContext::new(
                    Arc::clone(&run.run_id),
                    Arc::clone(&run.agent),
                    call.id.clone(),
                    Arc::clone(&run.working_dir),
                    run.cancel.clone(),
                )
                .with_sub_agents(Arc::clone(&run.sub_agents), run.depth)
                .with_trace(run.trace.as_ref())
                .with_events(events.emitter());
                let limit = run.tool_limits.timeout_for(&call.name);
                // Dropping a call that ran out of time stops it: tools that start processes
                // kill their process groups when dropped.
                match tokio::time::timeout(limit, tool.call(call.arguments.clone(), &ctx)).await {
                    Ok(result) => result.map_err(|error| error.to_string()),
                    Err(_) => Err(format!(
                        "{} did not finish within {} s and was stopped (settings tools.timeoutSeconds, tools.timeouts.{})",
                        call.name,
                        limit.as_secs(),
                        call.name
                    )),
                }
            }
        },
    };
    let duration_ms = started.elapsed().as_millis().try_into().unwrap_or(u64::MAX);
    let (mut content, is_error, handoff) = match result {
        Ok(output) => (output.content, false, output.handoff),
        Err(message) => (message, true, None),
    };
    // A secret a tool read (a key in a file, a server's echo) goes no further.
    run.redactor.redact_string(&mut content);
    Outcome {
        content,
        is_error,
        duration_ms,
        handoff,
    }
}

/// Passes a call through the gate (the runtime's, or its safe-only default); returns the
/// denial the model should read.
async fn approve(
    run: &Prepared,
    call: &ToolCall,
    tool: &dyn Tool,
    events: &EventSink,
) -> Option<String> {
    let pending = PendingCall {
        agent: &run.agent,
        filter: &run.filter,
        call,
        tool,
    };
    let decision = match run.gate.decide(&pending) {
        Decision::Ask { risk, reason } => {
            events.emit(|| RunEvent::ApprovalRequested {
                id: call.id.clone(),
                name: call.name.clone(),
                risk,
                reason: reason.clone(),
            });
            run.gate.ask(&pending, risk, &reason).await
        }
        decision => decision,
    };
    emit_decision(events, call, &decision);
    match decision {
        Decision::Allow { .. } => None,
        Decision::Deny { reason, .. } => Some(reason),
        // A gate that answers "ask" to its own question: refuse rather than run unasked.
        Decision::Ask { risk, reason } => Some(format!(
            "denied: {} needs approval (risk {risk}: {reason}) and was not approved",
            call.name
        )),
    }
}

fn emit_decision(events: &EventSink, call: &ToolCall, decision: &Decision) {
    events.emit(|| {
        let (verdict, by, hint) = match decision {
            Decision::Allow { by, .. } => (Verdict::Allow, *by, None),
            Decision::Deny { by, hint, .. } => (Verdict::Deny, *by, hint.clone()),
            Decision::Ask { .. } => (Verdict::Deny, DecidedBy::Policy, None),
        };
        RunEvent::ToolDecision {
            id: call.id.clone(),
            name: call.name.clone(),
            risk: decision.risk(),
            decision: verdict,
            reason: decision.reason().to_owned(),
            by,
            hint,
        }
    });
}

fn unknown_tool(run: &Prepared, name: &str) -> String {
    if run.tools.is_empty() {
        return format!("Unknown tool: {name}. This agent has no tools.");
    }
    let names: Vec<&str> = run.tools.iter().map(|tool| tool.name()).collect();
    format!(
        "Unknown tool: {name}. Available tools: {}",
        names.join(", ")
    )
}

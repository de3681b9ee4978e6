//! Step 2 of the loop: the tool calls of one model turn — unknown and disallowed calls
//! refused, the rest through the `PreToolUse` hooks and the approval gate, run (concurrently when none mutates) under
//! their time limits, their results redacted.

use crate::events::EventSink;
use crate::run_state::Prepared;
use agentctl_core::{
    ApprovalHint, BeforeTool, DecidedBy, Decision, HandoffRequest, HookCall, HookPermission,
    Message, PendingCall, RiskLevel, RunEvent, Tool, ToolCall, ToolContext, ToolOutput, Verdict,
    not_allowed,
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

/// Step 3 for one call: report unknown, refuse, or (once the hooks and the gate allow it) run
/// it. Failures become error results the model reads; they never end the run.
async fn call_tool(run: &Prepared, call: &ToolCall, events: &EventSink) -> Outcome {
    // Time spent waiting for the user's approval is not the tool's.
    let mut started = Instant::now();
    let mut context = None;
    let result = match run.registry.get(&call.name) {
        // A tool the agent may not use is refused as such, registered or not.
        None if !run.filter.allows(&call.name) => {
            let decision = Decision::deny(RiskLevel::Medium, not_allowed(&call.name));
            emit_decision(events, call, &decision);
            Err(not_allowed(&call.name))
        }
        None => Err(unknown_tool(run, &call.name)),
        Some(tool) => {
            let before = before_hooks(run, call).await;
            context = before.context.clone();
            // A rewritten call is the call: the gate and the tool see only the new input.
            let rewritten = before.input.clone().map(|arguments| ToolCall {
                arguments,
                ..call.clone()
            });
            let call = rewritten.as_ref().unwrap_or(call);
            match approve(run, call, tool.as_ref(), events, &before).await {
                Some(denial) => Err(denial),
                None => {
                    started = Instant::now();
                    let result = run_tool(run, call, tool.as_ref(), events).await;
                    Ok(after_hooks(run, call, result).await)
                }
            }
        }
    };
    let duration_ms = started.elapsed().as_millis().try_into().unwrap_or(u64::MAX);
    let (mut content, is_error, handoff) = match result {
        Ok(Ok(output)) => (output.content, false, output.handoff),
        Ok(Err(message)) | Err(message) => (message, true, None),
    };
    if let Some(context) = context {
        append(&mut content, &context);
    }
    // A secret a tool read (a key in a file, a server's echo) goes no further.
    run.redactor.redact_string(&mut content);
    Outcome {
        content,
        is_error,
        duration_ms,
        handoff,
    }
}

/// Runs an approved call under its time limit.
async fn run_tool(
    run: &Prepared,
    call: &ToolCall,
    tool: &dyn Tool,
    events: &EventSink,
) -> Result<ToolOutput, String> {
    let ctx = ToolContext::new(
        Arc::clone(&run.run_id),
        Arc::clone(&run.agent),
        call.id.clone(),
        Arc::clone(&run.working_dir),
        run.cancel.clone(),
    )
    .with_sub_agents(Arc::clone(&run.sub_agents), run.depth)
    .with_trace(run.trace.as_ref())
    .with_events(events.emitter())
    .with_background(Some(Arc::clone(&run.background) as _));
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

/// What the run's `PreToolUse` hooks say about `call` (nothing without hooks).
async fn before_hooks(run: &Prepared, call: &ToolCall) -> BeforeTool {
    match &run.hooks {
        Some(hooks) => {
            hooks
                .before_tool(&HookCall {
                    agent: &run.agent,
                    depth: run.depth,
                    call,
                })
                .await
        }
        None => BeforeTool::default(),
    }
}

/// The result with what the run's `PostToolUse` hooks add to it.
async fn after_hooks(
    run: &Prepared,
    call: &ToolCall,
    result: Result<ToolOutput, String>,
) -> Result<ToolOutput, String> {
    let Some(hooks) = &run.hooks else {
        return result;
    };
    let hook_call = HookCall {
        agent: &run.agent,
        depth: run.depth,
        call,
    };
    let (text, failed) = match &result {
        Ok(output) => (output.content.as_str(), false),
        Err(message) => (message.as_str(), true),
    };
    let after = hooks.after_tool(&hook_call, text, failed).await;
    let add = |content: &mut String| {
        if let Some(feedback) = &after.feedback {
            append(content, &format!("PostToolUse hook feedback:\n{feedback}"));
        }
        if let Some(context) = &after.context {
            append(content, context);
        }
    };
    match result {
        Ok(mut output) => {
            add(&mut output.content);
            Ok(output)
        }
        Err(mut message) => {
            add(&mut message);
            Err(message)
        }
    }
}

/// Appends a paragraph to a result.
fn append(content: &mut String, text: &str) {
    if !content.is_empty() {
        content.push_str("\n\n");
    }
    content.push_str(text);
}

/// Passes a call through the hooks' decision and the gate (the runtime's, or its safe-only
/// default); returns the denial the model should read. A hook's `deny` (or block) refuses the
/// call; its `ask` asks a person even where the gate would run it; its `allow` answers the
/// gate's question below `high` risk, never a denial.
async fn approve(
    run: &Prepared,
    call: &ToolCall,
    tool: &dyn Tool,
    events: &EventSink,
    before: &BeforeTool,
) -> Option<String> {
    if let Some(denial) = hook_denial(before) {
        let decision = Decision::Deny {
            risk: RiskLevel::Medium,
            reason: denial.clone(),
            by: DecidedBy::Hook,
            hint: None,
        };
        emit_decision(events, call, &decision);
        return Some(denial);
    }
    let pending = PendingCall {
        agent: &run.agent,
        filter: &run.filter,
        call,
        tool,
    };
    let permission = before.permission.as_ref();
    let decision = match (run.gate.decide(&pending), permission) {
        (decision, Some((HookPermission::Allow, why))) if would_ask(&decision) => Decision::Allow {
            risk: decision.risk(),
            reason: format!("allowed by a PreToolUse hook: {why}"),
            by: DecidedBy::Hook,
        },
        (Decision::Allow { risk, reason, .. }, Some((HookPermission::Ask, why))) => {
            let reason = format!("a PreToolUse hook asks: {why} ({reason})");
            ask(run, &pending, events, risk, reason).await
        }
        (Decision::Ask { risk, reason }, _) => ask(run, &pending, events, risk, reason).await,
        (decision, _) => decision,
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

/// Whether the gate's decision is a question a hook's `allow` may answer: one a person would
/// be asked (or was not, since nobody can be asked here) below `high` risk — never a question
/// about a protected path, never a refusal of policy.
fn would_ask(decision: &Decision) -> bool {
    let asked = match decision {
        Decision::Ask { .. } => true,
        Decision::Deny { by, hint, .. } => {
            *by == DecidedBy::NonTerminal && hint.as_ref() != Some(&ApprovalHint::AskAPerson)
        }
        Decision::Allow { .. } => false,
    };
    asked && decision.risk() < RiskLevel::High
}

/// The reason a hook refused the call with: a block (exit code 2, `decision: block`) or
/// `permissionDecision: deny`.
fn hook_denial(before: &BeforeTool) -> Option<String> {
    if let Some(reason) = &before.block {
        return Some(format!("Blocked by a PreToolUse hook: {reason}"));
    }
    match &before.permission {
        Some((HookPermission::Deny, reason)) => {
            Some(format!("Denied by a PreToolUse hook: {reason}"))
        }
        _ => None,
    }
}

/// Asks the gate's person about a call.
async fn ask(
    run: &Prepared,
    pending: &PendingCall<'_>,
    events: &EventSink,
    risk: RiskLevel,
    reason: String,
) -> Decision {
    let call = pending.call;
    events.emit(|| RunEvent::ApprovalRequested {
        id: call.id.clone(),
        name: call.name.clone(),
        risk,
        reason: reason.clone(),
    });
    run.gate.ask(pending, risk, &reason).await
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

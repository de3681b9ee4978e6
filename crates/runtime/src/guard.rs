//! The guardrail steps of the loop.
//!
//! - **Input**, before the first model call: a failing check ends the run before any request
//!   is made.
//! - **Parallel input**, alongside the first model call: the call is dropped (cancelling the
//!   request) if a check fails; until every check has passed, the text the model streams is
//!   held back and nothing it asked for runs — a commit barrier, not just a race.
//! - **Output**, on each final answer or handoff, before it is committed: a `repair` failure
//!   sends the errors back in the same conversation and checks the next answer again. Failed
//!   attempts and the repair requests are never committed and are removed from the run's
//!   messages once an answer stands, so the session, the result and a handoff's payload only
//!   ever hold what passed.

use crate::events::EventSink;
use crate::run_state::{LoopState, Prepared};
use crate::sample::{TextBarrier, sample};
use agentctl_core::{
    GuardrailAction, GuardrailPhase, GuardrailSubject, GuardrailVerdict, Message, ModelResponse,
    RunError, RunEvent,
};
use std::pin::pin;

/// Checks the run's prompt with the input guardrails that run before the model is called.
pub(crate) async fn check_input(run: &Prepared, events: &EventSink) -> Result<(), RunError> {
    let Some(rails) = run.covering(GuardrailPhase::Input) else {
        return Ok(());
    };
    let subject = GuardrailSubject::Input {
        prompt: &run.prompt,
        parallel: false,
    };
    let verdict = rails.check(subject, 0).await;
    settle_input(verdict, events)
}

/// The first model call, with the parallel input guardrails checked alongside it. Returns
/// once both are done; a failing check drops the call.
pub(crate) async fn sample_checked(
    run: &Prepared,
    state: &mut LoopState,
    events: &EventSink,
) -> Result<ModelResponse, RunError> {
    let Some(rails) = run.covering(GuardrailPhase::ParallelInput) else {
        return sample(run, state, events, None).await;
    };
    let barrier = TextBarrier::default();
    let subject = GuardrailSubject::Input {
        prompt: &run.prompt,
        parallel: true,
    };
    let mut checking = pin!(rails.check(subject, 0));
    let mut sampling = pin!(sample(run, state, events, Some(&barrier)));
    let both = async {
        tokio::select! {
            biased;
            verdict = &mut checking => (verdict, None),
            sampled = &mut sampling => ((&mut checking).await, Some(sampled)),
        }
    };
    let (verdict, sampled) = both.await;
    // Returning early drops the model call, which cancels its request.
    settle_input(verdict, events)?;
    barrier.release(events);
    match sampled {
        Some(sampled) => sampled,
        None => sampling.await,
    }
}

/// Reports an input verdict; an input cannot be repaired, so anything but a pass or a warning
/// ends the run.
fn settle_input(verdict: GuardrailVerdict, events: &EventSink) -> Result<(), RunError> {
    report(&verdict, 0, events);
    match verdict.action {
        GuardrailAction::Proceed => Ok(()),
        GuardrailAction::Reject(violation) => Err(RunError::Guardrail(violation)),
        GuardrailAction::Repair { .. } => Err(RunError::Aborted(
            "an input guardrail asked for a repair; only output guardrails can repair".into(),
        )),
        other => Err(RunError::Aborted(format!(
            "unknown guardrail action {other:?}"
        ))),
    }
}

/// What to do with a final answer or handoff after the output guardrails.
pub(crate) enum Checked {
    /// It passed (or no output guardrail applies): commit it and finish.
    Stands,
    /// A repair was asked for: go on sampling.
    Repairing,
}

/// Checks the last `added` messages — a final answer, or a handoff turn — with the output
/// guardrails. On a pass, the failed attempts before it are removed from the conversation;
/// on a repair, the attempt is set aside and the repair request appended.
pub(crate) async fn check_output(
    run: &mut Prepared,
    state: &mut LoopState,
    subject: GuardrailSubject<'_>,
    added: usize,
    events: &EventSink,
) -> Result<Checked, RunError> {
    let Some(rails) = run.covering(GuardrailPhase::Output) else {
        return Ok(Checked::Stands);
    };
    let attempt = state.repairs;
    let verdict = rails.check(subject, attempt).await;
    report(&verdict, attempt, events);
    match verdict.action {
        GuardrailAction::Proceed => {
            let messages = &mut run.request.messages;
            for range in state.set_aside.drain(..).rev() {
                messages.drain(range);
            }
            Ok(Checked::Stands)
        }
        GuardrailAction::Repair { prompt } => {
            let start = run.request.messages.len().saturating_sub(added);
            let request = Message::user(prompt);
            state.estimator.add(&request);
            run.request.messages.push(request);
            state.set_aside.push(start..run.request.messages.len());
            state.repairs += 1;
            Ok(Checked::Repairing)
        }
        GuardrailAction::Reject(violation) => Err(RunError::Guardrail(violation)),
        other => Err(RunError::Aborted(format!(
            "unknown guardrail action {other:?}"
        ))),
    }
}

/// One `guardrail` event per check, after all of them ran: the passes, then the failures
/// (each group in declaration order), so a failure is the last word on the text.
fn report(verdict: &GuardrailVerdict, attempt: u32, events: &EventSink) {
    let (passed, failed): (Vec<_>, Vec<_>) = verdict.checks.iter().partition(|check| check.passed);
    for check in passed.into_iter().chain(failed) {
        events.emit(|| RunEvent::Guardrail {
            name: check.name.clone(),
            stage: check.stage,
            passed: check.passed,
            policy: check.policy,
            errors: check.errors.clone(),
            attempt,
        });
    }
}

//! Step 1 of the loop: one model call, its text streamed as events — through a
//! [`TextBarrier`] while the parallel input guardrails run.

use crate::budget::prompt_token_budget;
use crate::events::EventSink;
use crate::run_state::{LoopState, Prepared};
use agentctl_core::{ModelDelta, ModelResponse, ProviderError, RunError, RunEvent};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Step 1: one model call, streamed into `text_delta` events (held by `barrier` while the
/// parallel input guardrails run).
pub(crate) async fn sample(
    run: &Prepared,
    state: &mut LoopState,
    events: &EventSink,
    barrier: Option<&TextBarrier>,
) -> Result<ModelResponse, RunError> {
    state.turn += 1;
    events.emit(|| RunEvent::ModelRequest {
        turn: state.turn,
        message_count: run.request.messages.len(),
        tool_count: run.request.tools.len(),
        prompt_token_budget: prompt_token_budget(state.window, run.request.max_tokens),
        estimated_prompt_tokens: state.estimator.estimate(),
        model_context_window: state.window,
    });
    let streamed_text = AtomicBool::new(false);
    let provisional = run.text_is_provisional();
    let emit_text = |text: String| {
        let event = || RunEvent::TextDelta { text, provisional };
        match barrier {
            Some(barrier) => barrier.pass(event(), events),
            None => events.emit(event),
        }
    };
    let on_delta = |delta: ModelDelta| {
        if let ModelDelta::Text { text } = delta {
            streamed_text.store(true, Ordering::Relaxed);
            emit_text(text);
        }
    };
    let response = match run.provider.complete(&run.request, &on_delta).await {
        Ok(response) => response,
        Err(ProviderError::Cancelled) => return Err(RunError::Cancelled),
        Err(error) => return Err(error.into()),
    };
    // Providers that do not stream report no deltas: the text still reaches listeners once.
    if !streamed_text.load(Ordering::Relaxed)
        && let Some(text) = response.text.as_ref().filter(|text| !text.is_empty())
    {
        emit_text(text.clone());
    }
    state.usage.add(response.usage);
    state.estimator.calibrate(response.usage.input_tokens);
    events.emit(|| RunEvent::Usage {
        input_tokens: response.usage.input_tokens,
        output_tokens: response.usage.output_tokens,
    });
    Ok(response)
}

/// Holds streamed text back until the parallel input checks have passed.
#[derive(Default)]
pub(crate) struct TextBarrier {
    state: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    released: bool,
    events: Vec<RunEvent>,
}

impl TextBarrier {
    /// Emits `event` now if the barrier is open, else keeps it. Emitting under the lock keeps
    /// held and later text in order.
    pub(crate) fn pass(&self, event: RunEvent, events: &EventSink) {
        let mut held = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if held.released {
            events.emit(|| event);
        } else {
            held.events.push(event);
        }
    }

    /// Emits what was held, in order, and lets later text through.
    pub(crate) fn release(&self, events: &EventSink) {
        let mut held = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        for event in std::mem::take(&mut held.events) {
            events.emit(|| event);
        }
        held.released = true;
    }
}

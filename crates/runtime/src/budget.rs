//! Prompt-size bookkeeping: a context-window table by model name and a cheap token estimate.
//!
//! The estimate is chars/4 over the system prompt, the messages and the tool specs, kept
//! incrementally (each message is measured once, when it is appended) and calibrated by the
//! prompt tokens the provider reports: after the first turn the ratio of reported to estimated
//! tokens scales later estimates.

use agentctl_core::{Message, ToolSpec, json_len};

/// Context window assumed for models missing from the table.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// Output tokens reserved when the run sets no `max_tokens`.
const DEFAULT_OUTPUT_RESERVE: u64 = 4_096;

/// Context windows by model-id prefix; the longest matching prefix wins.
const CONTEXT_WINDOWS: &[(&str, u64)] = &[
    ("claude-", 200_000),
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5", 16_385),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-", 1_048_576),
    ("llama3", 128_000),
    ("qwen", 32_768),
    ("mistral", 32_768),
];

/// The context window of a model id (without the provider prefix), in tokens.
///
/// ```
/// assert_eq!(agentctl_runtime::model_context_window("claude-sonnet-4-5"), 200_000);
/// assert_eq!(agentctl_runtime::model_context_window("gpt-4o-mini"), 128_000);
/// assert_eq!(agentctl_runtime::model_context_window("something-else"), 128_000);
/// ```
pub fn model_context_window(model: &str) -> u64 {
    let model = model.rsplit('/').next().unwrap_or(model);
    CONTEXT_WINDOWS
        .iter()
        .filter(|(prefix, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map_or(DEFAULT_CONTEXT_WINDOW, |(_, window)| *window)
}

/// Tokens the prompt may use: the window minus the output reserve.
pub(crate) fn prompt_token_budget(window: u64, max_tokens: Option<u32>) -> u64 {
    window.saturating_sub(max_tokens.map_or(DEFAULT_OUTPUT_RESERVE, u64::from))
}

/// Per-message framing tokens (role, separators) most chat formats add.
const MESSAGE_OVERHEAD_CHARS: usize = 16;

/// Running prompt-size estimate of one run.
#[derive(Debug, Clone)]
pub(crate) struct TokenEstimator {
    chars: usize,
    /// Reported prompt tokens per estimated token, once a provider reported usage.
    ratio: f64,
}

impl TokenEstimator {
    pub(crate) fn new(system: Option<&str>, tools: &[ToolSpec]) -> Self {
        let mut chars = system.map_or(0, str::len);
        for tool in tools {
            chars += tool.name.len() + tool.description.len() + json_len(&tool.parameters);
        }
        Self { chars, ratio: 1.0 }
    }

    /// Accounts for one more message.
    pub(crate) fn add(&mut self, message: &Message) {
        self.chars += MESSAGE_OVERHEAD_CHARS + message.content_bytes();
    }

    fn raw(&self) -> u64 {
        (self.chars as u64).div_ceil(4)
    }

    /// The current estimate, calibrated.
    pub(crate) fn estimate(&self) -> u64 {
        (self.raw() as f64 * self.ratio).round() as u64
    }

    /// Calibrates with the prompt tokens a provider reported for the current prompt.
    pub(crate) fn calibrate(&mut self, reported_input_tokens: u64) {
        let raw = self.raw();
        if reported_input_tokens > 0 && raw > 0 {
            self.ratio = (reported_input_tokens as f64 / raw as f64).clamp(0.25, 4.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_by_longest_prefix() {
        assert_eq!(model_context_window("gpt-4"), 8_192);
        assert_eq!(model_context_window("gpt-4o-2024-08-06"), 128_000);
        assert_eq!(model_context_window("gpt-4.1-mini"), 1_047_576);
        assert_eq!(model_context_window("gemini-2.5-pro"), 1_048_576);
        assert_eq!(model_context_window("meta/llama3.1-8b"), 128_000);
        assert_eq!(prompt_token_budget(128_000, None), 123_904);
        assert_eq!(prompt_token_budget(128_000, Some(1_000)), 127_000);
    }

    #[test]
    fn estimate_grows_with_messages_and_calibrates() {
        let tools = [ToolSpec {
            name: "grep".into(),
            description: "Search".into(),
            parameters: serde_json::json!({"type": "object"}),
        }];
        let mut estimator = TokenEstimator::new(Some("You review code."), &tools);
        let before = estimator.estimate();
        assert_eq!(before, (16 + 4 + 6 + 17usize).div_ceil(4) as u64);
        estimator.add(&Message::user("x".repeat(400)));
        assert_eq!(estimator.estimate(), before + 104);
        estimator.calibrate(estimator.estimate() * 2);
        assert_eq!(estimator.estimate(), (before + 104) * 2);
    }
}

//! A cheap, deterministic token estimate per message.
//!
//! The same rule as the runtime's prompt budget (`agentctl-runtime`'s `budget.rs`): four bytes of
//! text per token plus a fixed framing cost per message. It is stored with each message, so a
//! scope's size is a sum over rows and never needs the text again. Byte-pair tokenisers average
//! 3.5–4.5 bytes per token on English and code; the runtime calibrates its own estimate against
//! the provider's reported usage, and compaction keeps a reserve for the error.

use agentctl_core::Message;

/// Framing bytes (role, separators) most chat formats add to each message.
const MESSAGE_OVERHEAD_BYTES: usize = 16;

/// Estimated tokens of one message.
///
/// ```
/// use agentctl_core::Message;
/// assert_eq!(agentctl_store::estimate_tokens(&Message::user("abcd".repeat(10))), 14);
/// ```
pub fn estimate_tokens(message: &Message) -> u32 {
    let bytes = MESSAGE_OVERHEAD_BYTES + message.content_bytes();
    u32::try_from(bytes.div_ceil(4)).unwrap_or(u32::MAX)
}

/// Estimated tokens of a plain text (a summary), by the same rule as [`estimate_tokens`].
///
/// ```
/// assert_eq!(agentctl_store::estimate_text_tokens("abcd"), 5);
/// ```
pub fn estimate_text_tokens(text: &str) -> u64 {
    ((MESSAGE_OVERHEAD_BYTES + text.len()) as u64).div_ceil(4)
}

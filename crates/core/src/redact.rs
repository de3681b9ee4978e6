//! Secrets out of everything agentctl writes: a [`Redactor`] replaces each secret value it
//! knows (provider keys, `${VAR}` values of MCP configurations, secret-looking environment
//! variables) by `[REDACTED]` in error messages, tool results, cassettes and session rows.

use crate::conversation::Message;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// Replaces known secret values by [`Redactor::MASK`]. Cheap to clone.
///
/// Values shorter than [`Redactor::MIN_LEN`] are ignored: masking `1` or `yes` everywhere
/// would destroy text without protecting anything.
///
/// ```
/// use agentctl_core::Redactor;
///
/// let redactor = Redactor::new(["sk-live-0123456789", "no"]);
/// assert_eq!(redactor.redact("key=sk-live-0123456789!"), "key=[REDACTED]!");
/// assert_eq!(redactor.redact("no change"), "no change");
/// ```
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, so a secret containing another is masked whole.
    secrets: Arc<[String]>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the values themselves.
        write!(f, "Redactor({} secrets)", self.secrets.len())
    }
}

impl Redactor {
    /// What a secret is replaced by.
    pub const MASK: &'static str = "[REDACTED]";
    /// Shortest value treated as a secret.
    pub const MIN_LEN: usize = 6;

    /// A redactor for these values.
    pub fn new<S: Into<String>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(Into::into)
            .filter(|secret| secret.trim().len() >= Self::MIN_LEN)
            .collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Self {
            secrets: secrets.into(),
        }
    }

    /// The same redactor knowing `more` secrets too.
    pub fn with<S: Into<String>>(&self, more: impl IntoIterator<Item = S>) -> Self {
        Self::new(
            self.secrets
                .iter()
                .cloned()
                .chain(more.into_iter().map(Into::into)),
        )
    }

    /// A redactor knowing the secrets of both.
    pub fn merged(&self, other: &Redactor) -> Self {
        self.with(other.secrets.iter().cloned())
    }

    /// True when it knows no secret.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every known secret masked.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in self.secrets.iter() {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), Self::MASK));
            }
        }
        out
    }

    /// Masks secrets in place in a string.
    pub fn redact_string(&self, text: &mut String) {
        if let Cow::Owned(redacted) = self.redact(text) {
            *text = redacted;
        }
    }

    /// Masks secrets in every string of a JSON value (keys included).
    pub fn redact_json(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => self.redact_string(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact_json(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (mut key, mut item) in entries {
                    self.redact_string(&mut key);
                    self.redact_json(&mut item);
                    map.insert(key, item);
                }
            }
            _ => {}
        }
    }

    /// Masks secrets in a message's text, tool arguments and tool results.
    pub fn redact_message(&self, message: &mut Message) {
        if self.is_empty() {
            return;
        }
        match message {
            Message::User { content } => self.redact_string(content),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if let Some(content) = content {
                    self.redact_string(content);
                }
                for call in tool_calls {
                    self.redact_json(&mut call.arguments);
                }
            }
            Message::Tool { content, .. } => self.redact_string(content),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn longest_secret_wins_and_json_is_walked() {
        let redactor = Redactor::new(["abcdefgh", "abcdefgh-long-secret"]);
        assert_eq!(
            redactor.redact("x abcdefgh-long-secret y abcdefgh"),
            "x [REDACTED] y [REDACTED]"
        );
        let mut value = json!({"k": ["abcdefgh", {"abcdefgh": 1}], "n": 2});
        redactor.redact_json(&mut value);
        assert_eq!(
            value,
            json!({"k": ["[REDACTED]", {"[REDACTED]": 1}], "n": 2})
        );
        assert_eq!(format!("{redactor:?}"), "Redactor(2 secrets)");
        assert!(Redactor::new(["short"]).is_empty());
    }
}

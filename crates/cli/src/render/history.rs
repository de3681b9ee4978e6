//! The conversation so far, one line per message (the REPL's `context`).

use crate::output::terminal_safe;
use agentctl_core::Message;
use std::io::Write;

/// Longest message excerpt `context` prints.
const CONTEXT_EXCERPT: usize = 200;

/// One line per message: role, then an excerpt.
pub(crate) fn print_context(history: &[Message]) {
    let mut out = std::io::stdout().lock();
    if history.is_empty() {
        let _ = writeln!(out, "(no messages yet)");
        return;
    }
    for message in history {
        let _ = writeln!(out, "{}", terminal_safe(&context_line(message)));
    }
}

fn context_line(message: &Message) -> String {
    match message {
        Message::User { content } => format!("user: {}", cut(content)),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut line = format!("assistant: {}", cut(content.as_deref().unwrap_or_default()));
            for call in tool_calls {
                line.push_str(&format!(
                    " [calls {} {}]",
                    call.name,
                    cut(&call.arguments.to_string())
                ));
            }
            line
        }
        Message::Tool {
            name,
            content,
            is_error,
            ..
        } => {
            let status = if *is_error { " (error)" } else { "" };
            format!("tool {name}{status}: {}", cut(content))
        }
    }
}

fn cut(text: &str) -> String {
    let flat = text.replace('\n', " ⏎ ");
    match flat.char_indices().nth(CONTEXT_EXCERPT) {
        Some((end, _)) => format!("{}…", &flat[..end]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_lines_summarise_messages() {
        assert_eq!(
            context_line(&Message::user("hi\nthere")),
            "user: hi ⏎ there"
        );
        let call = Message::Assistant {
            content: None,
            tool_calls: vec![agentctl_core::ToolCall {
                id: "c".into(),
                name: "grep".into(),
                arguments: serde_json::json!({"pattern": "x"}),
                signature: None,
            }],
        };
        assert_eq!(
            context_line(&call),
            "assistant:  [calls grep {\"pattern\":\"x\"}]"
        );
        let tool = Message::Tool {
            call_id: "c".into(),
            name: "grep".into(),
            content: "no".into(),
            is_error: true,
        };
        assert_eq!(context_line(&tool), "tool grep (error): no");
    }
}

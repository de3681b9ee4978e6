//! The interactive session: one prompt per line, the agent keeping its own conversation across
//! turns. `exit` quits, `context` prints the conversation so far.

use super::Ending;
use super::render::render_turn;
use super::signals::stop_signal;
use super::terminal::Frontend;
use crate::args::RunFormat;
use crate::output::terminal_safe;
use agentctl_core::{Message, RunError};
use agentctl_session::Conversation;
use std::io::Write;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Longest message excerpt `context` prints.
const CONTEXT_EXCERPT: usize = 200;

/// Runs the session until `exit`, end of input or a signal at the prompt. Ctrl-C during a
/// turn cancels that turn; SIGTERM and SIGHUP end the session.
pub(super) async fn run(
    conversation: &mut Conversation,
    first: Option<String>,
    frontend: &Frontend,
) -> anyhow::Result<Ending> {
    let mut greeting = format!(
        "Talking to `{}`. Type `exit` to quit, `context` to show the conversation.",
        conversation.agent().name()
    );
    if let Some(id) = conversation.session_id() {
        greeting.push_str(&format!(" Session {id}."));
    }
    say(&greeting);
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut pending = first;
    loop {
        let line = match pending.take() {
            Some(line) => line,
            None => {
                prompt();
                tokio::select! {
                    line = lines.next_line() => match line {
                        Ok(Some(line)) => line,
                        _ => break,
                    },
                    signal = stop_signal() => return Ok(Ending::Signalled(signal)),
                }
            }
        };
        match line.trim() {
            "" => {}
            "exit" | "quit" => break,
            "context" => print_context(&conversation.history()?),
            text => {
                let turn = conversation.turn(text).await?;
                let (outcome, signal) = render_turn(turn, RunFormat::Text, frontend).await;
                if let Some(error) = outcome.save_error {
                    return Ok(Ending::NotSaved(error.to_string()));
                }
                match (outcome.result, signal) {
                    (_, Some(signal)) if signal != 2 => return Ok(Ending::Signalled(signal)),
                    (Ok(_), _) => {}
                    (Err(RunError::Cancelled), _) => say("(cancelled)"),
                    (Err(error), _) => say(&format!("error: {error}")),
                }
            }
        }
    }
    Ok(Ending::Done)
}

fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

fn prompt() {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "> ");
    let _ = err.flush();
}

/// One line per message: role, then an excerpt.
fn print_context(history: &[Message]) {
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

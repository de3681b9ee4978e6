//! The interactive session: one prompt per line, the agent keeping its own conversation across
//! turns. `exit` quits, `context` prints the conversation so far, and `@agent-name PROMPT` runs
//! another agent in the same session (seed 000), `--shared` putting it in the shared context
//! for that turn.

use super::Ending;
use super::render::{context_note, render_turn};
use super::signals::stop_signal;
use super::terminal::Frontend;
use crate::args::RunFormat;
use crate::output::terminal_safe;
use agentctl_context::{SessionChoice, Source};
use agentctl_core::{ContextMode, Message, RunError, RunOptions};
use agentctl_session::{Conversation, SessionRunner, TurnOutcome};
use std::io::Write;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Longest message excerpt `context` prints.
const CONTEXT_EXCERPT: usize = 200;

/// What the session needs besides its conversation: the runner that opens other agents'
/// conversations for `@agent` turns, the terminal, and the invocation's run options.
pub(crate) struct Desk<'a> {
    pub runner: &'a SessionRunner,
    pub frontend: &'a Frontend,
    pub options: &'a RunOptions,
}

/// A line of the session, read.
#[derive(Debug, PartialEq, Eq)]
enum Line<'a> {
    Empty,
    Exit,
    Context,
    /// `@agent-name [--shared|--isolated|--run] PROMPT`.
    Mention {
        agent: &'a str,
        mode: Option<ContextMode>,
        prompt: &'a str,
    },
    Prompt(&'a str),
}

fn read_line(line: &str) -> Line<'_> {
    let line = line.trim();
    match line {
        "" => return Line::Empty,
        "exit" | "quit" => return Line::Exit,
        "context" => return Line::Context,
        _ => {}
    }
    let Some(rest) = line.strip_prefix('@') else {
        return Line::Prompt(line);
    };
    let (agent, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    // `@file:NAME` attaches a file; agent names are kebab-case and hold no `:`.
    if agent.is_empty() || agent.contains(':') {
        return Line::Prompt(line);
    }
    let rest = rest.trim_start();
    let (mode, prompt) = match rest.split_once(char::is_whitespace).unwrap_or((rest, "")) {
        ("--shared", prompt) => (Some(ContextMode::Shared), prompt),
        ("--isolated", prompt) => (Some(ContextMode::Isolated), prompt),
        ("--run", prompt) => (Some(ContextMode::Run), prompt),
        _ => (None, rest),
    };
    Line::Mention {
        agent,
        mode,
        prompt: prompt.trim(),
    }
}

/// Runs the session until `exit`, end of input or a signal at the prompt. Ctrl-C during a
/// turn cancels that turn; SIGTERM and SIGHUP end the session.
pub(super) async fn run(
    desk: &Desk<'_>,
    conversation: &mut Conversation,
    first: Option<String>,
) -> anyhow::Result<Ending> {
    let talking_to = if conversation.resolved_mode().is_none() {
        "Talking to the main conversation".to_owned()
    } else {
        format!("Talking to `{}`", conversation.agent().name())
    };
    let mut greeting = format!(
        "{talking_to}. Type `exit` to quit, `context` to show the conversation, \
         `@agent-name PROMPT` to run an agent."
    );
    if let Some(id) = conversation.session_id() {
        greeting.push_str(&format!(" Session {id}."));
    }
    say(&greeting);
    say(&context_note(conversation));
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
        let outcome = match read_line(&line) {
            Line::Empty => continue,
            Line::Exit => break,
            Line::Context => {
                print_context(&conversation.history()?);
                continue;
            }
            Line::Prompt(text) => {
                let turn = conversation.turn(text).await?;
                render_turn(turn, RunFormat::Text, desk.frontend, None).await
            }
            Line::Mention {
                agent,
                mode,
                prompt,
            } => match mention(desk, conversation.session_id(), agent, mode, prompt).await {
                Ok(Some(outcome)) => outcome,
                Ok(None) => continue,
                Err(error) => {
                    say(&format!("error: {error:#}"));
                    continue;
                }
            },
        };
        let (outcome, signal) = outcome;
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
    Ok(Ending::Done)
}

/// One turn of `agent` in the same session; `None` when there is nothing to run.
async fn mention(
    desk: &Desk<'_>,
    session_id: Option<&str>,
    agent: &str,
    mode: Option<ContextMode>,
    prompt: &str,
) -> anyhow::Result<Option<(TurnOutcome, Option<i32>)>> {
    if prompt.is_empty() {
        say(&format!("`@{agent}` needs a prompt: @{agent} PROMPT"));
        return Ok(None);
    }
    let definition = crate::agents::require(desk.runner, agent)?;
    anyhow::ensure!(
        definition.spec.graph.is_none(),
        "`{agent}` is a graph: run it with `agentctl run {agent} -p PROMPT`"
    );
    let session = match session_id {
        Some(id) => desk
            .runner
            .open_session(SessionChoice::Resume(id.to_owned()), None)?
            .map(|session| session.with_source(Source::REPL)),
        None => None,
    };
    let mut options = desk.options.clone();
    options.context_mode = mode.or(options.context_mode);
    let (mut conversation, warnings) = desk
        .runner
        .conversation(definition, session, options)
        .await?;
    for warning in warnings {
        say(&format!(
            "warning: {}",
            crate::trust_cmd::mcp_warning(&warning)
        ));
    }
    say(&format!("@{agent} · {}", context_note(&conversation)));
    let turn = conversation.turn(prompt).await?;
    Ok(Some(
        render_turn(turn, RunFormat::Text, desk.frontend, None).await,
    ))
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
    fn mentions_name_an_agent_and_files_do_not() {
        assert_eq!(
            read_line("@code-reviewer  review src/a.py "),
            Line::Mention {
                agent: "code-reviewer",
                mode: None,
                prompt: "review src/a.py"
            }
        );
        assert_eq!(
            read_line("@bug-fixer --shared fix it"),
            Line::Mention {
                agent: "bug-fixer",
                mode: Some(ContextMode::Shared),
                prompt: "fix it"
            }
        );
        assert_eq!(
            read_line("@file:src/a.py explain"),
            Line::Prompt("@file:src/a.py explain")
        );
        assert_eq!(read_line("@ hi"), Line::Prompt("@ hi"));
        assert_eq!(
            read_line("@reviewer"),
            Line::Mention {
                agent: "reviewer",
                mode: None,
                prompt: ""
            }
        );
        assert_eq!(read_line("  exit "), Line::Exit);
    }

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

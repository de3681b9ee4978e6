//! The interactive session: one prompt per line, the session's conversation going on across
//! turns (with the agent a handoff left working). `exit` quits, `context` prints the
//! conversation so far, and `@agent-name PROMPT` runs another agent in the same session
//! (seed 000), `--shared` putting it in the shared context for that turn. A line starting
//! with `/` is a command ([`commands`]: `/agents run|context|list`, `/help`, `/clear`,
//! `/exit`), never a prompt: an unknown one is an error listing the commands.

use super::commands::{self, After, say};
use crate::args::RunFormat;
use crate::drive::{Desk, Ending, stop_signal};
use crate::output::terminal_safe;
use crate::render::{ContextLine, Spinner, TurnView, print_context};
use agentctl_core::{ContextMode, RunError};
use agentctl_session::definitions::CommandSet;
use agentctl_session::{Op, Project, SessionError, Target, TurnOptions, TurnOutcome, command_turn};
use std::io::Write;

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

/// What a line of the session led to.
enum Step {
    /// Nothing to show: read the next line.
    Next,
    /// Leave the session.
    Exit,
    /// A turn ran.
    Turned(Box<TurnOutcome>, Option<i32>),
}

/// Runs the session until `exit` (or `/exit`), end of input or a signal at the prompt. Ctrl-C
/// during a turn cancels that turn; SIGTERM and SIGHUP end the session.
pub(super) async fn run(
    desk: &mut Desk,
    project: &Project,
    target: Target,
    first: Option<String>,
    options: TurnOptions,
) -> anyhow::Result<Ending> {
    let talking_to = match &target {
        Target::Agent(name) => format!("Talking to `{name}`"),
        _ => "Talking to the main conversation".to_owned(),
    };
    let mut greeting = format!(
        "{talking_to}. Type `exit` to quit, `context` to show the conversation, \
         `@agent-name PROMPT` to run an agent, `/help` for commands."
    );
    if let Some(id) = desk.session.id() {
        greeting.push_str(&format!(" Session {id}."));
    }
    say(&greeting);
    let commands = project.commands();
    crate::custom_cmd::report(&commands);
    let mut pending = first;
    let mut context = ContextLine::Plain;
    loop {
        let line = match pending.take() {
            Some(line) => line,
            None => {
                prompt();
                tokio::select! {
                    line = desk.input.line() => match line {
                        Some(line) => line,
                        None => break,
                    },
                    signal = stop_signal() => {
                        return Ok(Ending::Signalled(signal, "run cancelled".to_owned()));
                    }
                }
            }
        };
        let read = (line.as_str(), &commands);
        let (outcome, signal) = match step(desk, project, read, &options, &mut context).await? {
            Step::Next => continue,
            Step::Exit => break,
            Step::Turned(outcome, signal) => (*outcome, signal),
        };
        match (outcome.result, signal) {
            (Err(error @ SessionError::NotSaved(_)), _) => {
                return Ok(Ending::Failed(error.to_string()));
            }
            (_, Some(signal)) if signal != 2 => {
                return Ok(Ending::Signalled(signal, "run cancelled".to_owned()));
            }
            (Ok(_), _) => {}
            (Err(SessionError::Run(RunError::Cancelled)), _) => say("(cancelled)"),
            (Err(error), _) => say(&format!("error: {}", crate::advice::with_advice(&error))),
        }
    }
    Ok(Ending::Done)
}

/// Does what `line` says (with the custom commands it may name): a
/// `/`-command, a word of the session, an `@agent` turn or a prompt.
async fn step(
    desk: &mut Desk,
    project: &Project,
    (line, commands): (&str, &CommandSet),
    options: &TurnOptions,
    context: &mut ContextLine,
) -> anyhow::Result<Step> {
    if let Some((command, args)) = crate::custom_cmd::named(commands, line) {
        let (prompt, options) = command_turn(command, args, options.clone());
        let shown = std::mem::replace(context, ContextLine::Hidden);
        let (outcome, signal) = turn(desk, Target::Active, &prompt, options, shown).await?;
        return Ok(Step::Turned(Box::new(outcome), signal));
    }
    let (agent, mode, prompt) = match crate::args::slash::parse(line) {
        Some(Err(error)) => {
            // Never sent to the model: a mistyped command is not a prompt.
            let close = match &error {
                crate::args::slash::SlashError::Unknown(word) => commands.similar(word),
                _ => Vec::new(),
            };
            match close.first() {
                Some(close) => say(&terminal_safe(&format!(
                    "error: {error}; did you mean /{close}?"
                ))),
                None => say(&format!("error: {error}")),
            }
            return Ok(Step::Next);
        }
        Some(Ok(command)) => match commands::execute(desk, project, command, commands).await? {
            After::Next => return Ok(Step::Next),
            After::Exit => return Ok(Step::Exit),
            After::Turn {
                agent,
                prompt,
                mode,
            } => (agent, mode, prompt),
        },
        None => match read_line(line) {
            Line::Empty => return Ok(Step::Next),
            Line::Exit => return Ok(Step::Exit),
            Line::Context => {
                print_context(&desk.session.history(&Target::Active).await?);
                return Ok(Step::Next);
            }
            Line::Prompt(text) => {
                let shown = std::mem::replace(context, ContextLine::Hidden);
                let (outcome, signal) =
                    turn(desk, Target::Active, text, options.clone(), shown).await?;
                return Ok(Step::Turned(Box::new(outcome), signal));
            }
            Line::Mention {
                agent,
                mode,
                prompt,
            } => {
                if prompt.is_empty() {
                    say(&format!("`@{agent}` needs a prompt: @{agent} PROMPT"));
                    return Ok(Step::Next);
                }
                (agent.to_owned(), mode, prompt.to_owned())
            }
        },
    };
    if let Err(error) = crate::lookup::require(&desk.session, &agent) {
        say(&format!("error: {error:#}"));
        return Ok(Step::Next);
    }
    let mut options = options.clone();
    options.context_mode = mode.or(options.context_mode);
    let target = Target::Agent(agent);
    let (outcome, signal) = turn(desk, target, &prompt, options, ContextLine::Mention).await?;
    Ok(Step::Turned(Box::new(outcome), signal))
}

/// One turn of `target`, rendered as text.
async fn turn(
    desk: &mut Desk,
    target: Target,
    prompt: &str,
    options: TurnOptions,
    context: ContextLine,
) -> anyhow::Result<(TurnOutcome, Option<i32>)> {
    let id = desk.session.submit(Op::UserTurn {
        target,
        prompt: prompt.to_owned(),
        options,
    })?;
    let mut view = TurnView::new(RunFormat::Text, Spinner::default(), None).context(context);
    Ok(desk.drive(id, &mut view).await)
}

fn prompt() {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "> ");
    let _ = err.flush();
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
}

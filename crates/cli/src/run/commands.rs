//! The interactive session's `/`-commands (seed 000 §6–7), run on the session the REPL
//! drives: `/agents run` becomes a turn, `/agents context` reads the session's modes and sets
//! one with [`Op::SetContextMode`], `/agents list` lists the project's agents.
//!
//! `/clear` clears the screen only: the conversation and what every agent remembers go on,
//! since forgetting is a separate, explicit act (`agentctl context NAME --clear-history`, or a
//! new session: leave and start `chat`/`run` again without `--continue`).

use crate::args::slash::{COMMANDS, SlashAgents, SlashCommand, SlashRun};
use crate::context_cmd::{ModeReport, changed, render_one, render_table};
use crate::drive::Desk;
use crate::output::terminal_safe;
use agentctl_core::ContextMode;
use agentctl_session::definitions::CommandSet;
use agentctl_session::{Notice, Op, Project};
use std::io::{IsTerminal as _, Write as _};

/// What the session does after a command.
pub(super) enum After {
    /// Reads the next line.
    Next,
    /// Leaves the session.
    Exit,
    /// Runs `agent` on `prompt` (`/agents run`).
    Turn {
        agent: String,
        prompt: String,
        mode: Option<ContextMode>,
    },
}

/// Runs `command`; a command that fails says why and the session goes on.
pub(super) async fn execute(
    desk: &mut Desk,
    project: &Project,
    command: SlashCommand,
    commands: &CommandSet,
) -> anyhow::Result<After> {
    match command {
        SlashCommand::Help => {
            say(&format!(
                "{COMMANDS}{}\nAnything else is a prompt; `@agent-name PROMPT` runs an agent too.",
                crate::custom_cmd::help(commands)
            ));
        }
        SlashCommand::Clear => clear_screen(),
        SlashCommand::Exit => return Ok(After::Exit),
        SlashCommand::Agents(SlashAgents::List) => crate::agents::list_table(project)?,
        SlashCommand::Agents(SlashAgents::Run(SlashRun {
            name,
            words,
            context,
        })) => {
            return Ok(After::Turn {
                agent: name,
                prompt: words.join(" "),
                mode: context.map(ContextMode::from),
            });
        }
        SlashCommand::Agents(SlashAgents::Context(target)) => {
            let mode = target.mode.map(ContextMode::from);
            if let Some(name) = &target.name
                && let Err(error) = crate::lookup::require(&desk.session, name)
            {
                say(&format!("error: {error:#}"));
                return Ok(After::Next);
            }
            match (target.name, mode) {
                (Some(name), Some(mode)) => set_mode(desk, &name, mode).await,
                (Some(name), None) => show(&render_one(&report(desk, &name).await)),
                (None, _) => {
                    let names: Vec<String> = desk
                        .session
                        .discovery()
                        .agents
                        .iter()
                        .map(|agent| agent.name().to_owned())
                        .collect();
                    let mut reports = Vec::with_capacity(names.len());
                    for name in &names {
                        reports.push(report(desk, name).await);
                    }
                    show(&render_table(&reports, desk.session.id()));
                }
            }
        }
    }
    Ok(After::Next)
}

/// `agent`'s mode in this session.
async fn report(desk: &Desk, agent: &str) -> ModeReport {
    let resolved = desk.session.context_mode(agent).await;
    ModeReport::new(
        agent,
        desk.session.id(),
        resolved.map_err(|error| error.to_string()),
    )
}

/// Sets `agent`'s mode for the rest of the session, and says so as seed 000 does.
async fn set_mode(desk: &mut Desk, agent: &str, mode: ContextMode) {
    let op = Op::SetContextMode {
        agent: agent.to_owned(),
        mode: Some(mode),
    };
    let settled = match desk.session.submit(op) {
        Ok(id) => desk.settle(id).await,
        Err(error) => {
            say(&format!("error: {error}"));
            return;
        }
    };
    match settled {
        Some(Notice::ContextModeSet { mode, .. }) => show(&changed(mode)),
        Some(Notice::Failed { message }) => say(&format!("error: {message}")),
        _ => say("error: the session ended before the mode was set"),
    }
}

/// Prints a command's output (names and values come from files: made safe to show).
fn show(text: &str) {
    let _ = std::io::stdout()
        .lock()
        .write_all(terminal_safe(text).as_bytes());
}

/// Clears the terminal (screen and scrollback) the session is drawn on.
fn clear_screen() {
    let mut err = std::io::stderr().lock();
    if err.is_terminal() {
        let _ = err.write_all(b"\x1b[H\x1b[2J\x1b[3J");
        let _ = err.flush();
    }
}

/// Says `text` on the session's screen (stderr).
pub(super) fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

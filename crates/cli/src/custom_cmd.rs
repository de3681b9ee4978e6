//! Custom slash commands as the front ends show and call them: the warnings of their
//! discovery (a built-in shadowing one among them), the `/name args` of an interactive line,
//! `/help`'s list, and `run --command`'s lookup. What a command's turn is
//! ([`command_turn`]) is the session's business.

use crate::output::terminal_safe;
use agentctl_session::definitions::{CommandDef, CommandSet};
use agentctl_session::{BUILTIN_COMMANDS, Project, TurnOptions, command_turn};
use std::io::Write as _;

fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", terminal_safe(text));
}

/// Says what is wrong with the custom commands found: malformed files, collisions, and
/// commands a built-in of the same name shadows.
pub(crate) fn report(commands: &CommandSet) {
    for warning in &commands.warnings {
        say(&format!("warning: {warning}"));
    }
    for command in &commands.commands {
        if BUILTIN_COMMANDS.contains(&command.name.as_str()) {
            say(&format!(
                "warning: the command /{name} of {} is shadowed by the built-in /{name}; \
                 rename its file to use it",
                command.file.display(),
                name = command.name
            ));
        }
    }
}

/// The custom command `line` (`/name args`) names, with its arguments; `None` for a built-in
/// (they win) or a name no command has.
pub(crate) fn named<'a>(
    commands: &'a CommandSet,
    line: &'a str,
) -> Option<(&'a CommandDef, &'a str)> {
    let rest = line.trim().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if BUILTIN_COMMANDS.contains(&name) {
        return None;
    }
    commands.get(name).map(|command| (command, args.trim()))
}

/// The custom commands for `/help`, each with its arguments and description; empty when
/// there are none.
pub(crate) fn help(commands: &CommandSet) -> String {
    let shown: Vec<(String, &str)> = commands
        .commands
        .iter()
        .filter(|command| !BUILTIN_COMMANDS.contains(&command.name.as_str()))
        .map(|command| {
            let call = match &command.argument_hint {
                Some(hint) => format!("/{} {hint}", command.name),
                None => format!("/{}", command.name),
            };
            (call, command.description.as_deref().unwrap_or(""))
        })
        .collect();
    if shown.is_empty() {
        return String::new();
    }
    let width = shown
        .iter()
        .map(|(call, _)| call.chars().count())
        .max()
        .unwrap_or(0)
        .max(56);
    let mut out = String::from(
        "\n\nCustom commands (.agentctl/commands, .claude/commands, .gemini/commands):",
    );
    for (call, description) in shown {
        let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&format!("\n{call:<width$} {description}"));
    }
    terminal_safe(&out).into_owned()
}

/// The turn of `run --command NAME` with `args`: the command's expanded prompt and options
/// over `options`; `main` when the main conversation runs it (it then needs a model).
pub(crate) fn turn(
    project: &Project,
    name: &str,
    args: &str,
    options: TurnOptions,
    main: bool,
) -> anyhow::Result<(String, TurnOptions)> {
    let commands = project.commands();
    let name = name.strip_prefix('/').unwrap_or(name);
    let Some(command) = commands.get(name) else {
        let hint = match commands.similar(name).as_slice() {
            [] => String::new(),
            close => format!("; did you mean {}?", close.join(", ")),
        };
        anyhow::bail!(
            "no command `/{name}` in .agentctl/commands, .claude/commands or .gemini/commands \
             (of the project or your home){hint}"
        );
    };
    let (prompt, options) = command_turn(command, args, options);
    anyhow::ensure!(
        !main || options.model.is_some() || project.settings().agents.default_model.is_some(),
        "the main conversation has no model to run /{name}: pass --model PROVIDER:MODEL, give \
         the command a `model`, set `agents.defaultModel`, or pick an agent with --agent NAME"
    );
    Ok((prompt, options))
}

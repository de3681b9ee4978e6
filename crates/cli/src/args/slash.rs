//! The interactive session's `/`-commands (seed 000 §6–7), parsed by clap as the command line
//! is: `/agents context` takes the same arguments as `agentctl agents context`
//! ([`ModeTarget`]), `/agents run`'s `--context` the same modes as `agentctl agents run`
//! ([`ModeArg`]).

use super::context::{ModeArg, ModeTarget};
use clap::{Args, Parser, Subcommand};

/// The commands, one a line, as `/help` lists them and an unknown command's error names them.
pub(crate) const COMMANDS: &str = "\
/agents run NAME PROMPT [--context isolated|shared|run]   run an agent in this session
/agents context NAME [--mode isolated|shared|run]        show or set an agent's context mode
/agents context --all                                    every agent's context mode
/agents list                                             the agents you can run
/clear                                                   clear the screen (the conversation goes on)
/help                                                    this list
/exit                                                    leave the session";

/// A `/`-command line, without its `/`.
#[derive(Debug, Parser)]
#[command(
    name = "/",
    no_binary_name = true,
    disable_help_subcommand = true,
    disable_version_flag = true
)]
struct Line {
    #[command(subcommand)]
    command: SlashCommand,
}

/// A command of the interactive session.
#[derive(Debug, Subcommand, PartialEq, Eq)]
pub(crate) enum SlashCommand {
    /// Run, inspect and list agents.
    #[command(subcommand)]
    Agents(SlashAgents),
    /// List the commands.
    Help,
    /// Clear the screen; the conversation and its history go on.
    Clear,
    /// Leave the session.
    #[command(alias = "quit")]
    Exit,
}

/// `/agents …`.
#[derive(Debug, Subcommand, PartialEq, Eq)]
pub(crate) enum SlashAgents {
    /// Run an agent on a prompt in this session.
    Run(SlashRun),
    /// Show or set (for this session) an agent's context mode.
    Context(ModeTarget),
    /// List the agents.
    List,
}

/// `/agents run NAME PROMPT [--context MODE]`.
#[derive(Debug, Args, PartialEq, Eq)]
pub(crate) struct SlashRun {
    /// Agent name.
    pub name: String,
    /// The prompt (its words are joined with spaces).
    #[arg(required = true, value_name = "PROMPT")]
    pub words: Vec<String>,
    /// Context mode of this run.
    #[arg(long, value_enum, value_name = "MODE")]
    pub context: Option<ModeArg>,
}

/// Why a `/`-line is not a command.
#[derive(Debug)]
pub(crate) enum SlashError {
    /// `/x` names no command.
    Unknown(String),
    /// A command with bad arguments (or `--help`): clap's text.
    Usage(clap::Error),
    /// An unclosed quote.
    Quote,
}

impl std::fmt::Display for SlashError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SlashError::Unknown(word) => write!(
                f,
                "unknown command `/{word}`: the commands are /agents run, /agents context, \
                 /agents list, /help, /clear, /exit"
            ),
            SlashError::Usage(error) => {
                let text = error.render().to_string();
                f.write_str(text.trim_end())
            }
            SlashError::Quote => f.write_str("unclosed quote: close it, or leave it out"),
        }
    }
}

/// Parses `line`, which starts with `/`; `None` when it does not.
pub(crate) fn parse(line: &str) -> Option<Result<SlashCommand, SlashError>> {
    let rest = line.trim().strip_prefix('/')?;
    let Some(words) = split_words(rest) else {
        return Some(Err(SlashError::Quote));
    };
    let first = words.first().cloned().unwrap_or_default();
    Some(
        Line::try_parse_from(words)
            .map(|line| line.command)
            .map_err(|error| match error.kind() {
                clap::error::ErrorKind::InvalidSubcommand
                | clap::error::ErrorKind::MissingSubcommand
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                    if !matches!(first.as_str(), "agents") =>
                {
                    SlashError::Unknown(first.clone())
                }
                _ => SlashError::Usage(error),
            }),
    )
}

/// Splits a line into words at whitespace; `'…'` and `"…"` keep a word's spaces. `None` for an
/// unclosed quote.
fn split_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    words.extend(word);
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(line: &str) -> SlashCommand {
        parse(line).unwrap().unwrap()
    }

    #[test]
    fn the_seeds_commands_parse() {
        assert_eq!(
            command("/agents run fix-bugs 修复代码 --context shared"),
            SlashCommand::Agents(SlashAgents::Run(SlashRun {
                name: "fix-bugs".into(),
                words: vec!["修复代码".into()],
                context: Some(ModeArg::Shared),
            }))
        );
        assert_eq!(
            command("/agents run code-reviewer 'review src/a.py' now"),
            SlashCommand::Agents(SlashAgents::Run(SlashRun {
                name: "code-reviewer".into(),
                words: vec!["review src/a.py".into(), "now".into()],
                context: None,
            }))
        );
        assert_eq!(
            command("/agents context bug-fixer --mode isolated"),
            SlashCommand::Agents(SlashAgents::Context(ModeTarget {
                name: Some("bug-fixer".into()),
                all: false,
                mode: Some(ModeArg::Isolated),
            }))
        );
        assert_eq!(
            command("/agents context --all"),
            SlashCommand::Agents(SlashAgents::Context(ModeTarget {
                name: None,
                all: true,
                mode: None,
            }))
        );
        assert_eq!(
            command("/agents list"),
            SlashCommand::Agents(SlashAgents::List)
        );
        assert_eq!(command(" /exit "), SlashCommand::Exit);
        assert_eq!(command("/quit"), SlashCommand::Exit);
        assert_eq!(command("/clear"), SlashCommand::Clear);
        assert_eq!(command("/help"), SlashCommand::Help);
        assert!(parse("hello /agents").is_none());
    }

    #[test]
    fn unknown_commands_and_bad_arguments_say_what_is_wrong() {
        let unknown = parse("/compress now").unwrap().unwrap_err().to_string();
        assert!(
            unknown.starts_with("unknown command `/compress`"),
            "{unknown}"
        );
        assert!(!unknown.contains('\n'), "{unknown}");
        assert!(matches!(
            parse("/").unwrap(),
            Err(SlashError::Unknown(word)) if word.is_empty()
        ));
        let missing = parse("/agents run fix-bugs").unwrap().unwrap_err();
        assert!(missing.to_string().contains("PROMPT"), "{missing}");
        let mode = parse("/agents context x --mode both").unwrap().unwrap_err();
        assert!(mode.to_string().contains("both"), "{mode}");
        assert!(matches!(
            parse("/agents run x 'open"),
            Some(Err(SlashError::Quote))
        ));
    }
}

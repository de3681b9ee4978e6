//! `agentctl "PROMPT"`: a quoted prompt in place of a command runs auto-routed.
//!
//! Clap hands an unknown first word to us as an external subcommand. It is a prompt only when
//! it is one argument containing whitespace (`agentctl "There's a bug"`); then the command
//! line is parsed again as `agentctl … run --auto -p PROMPT …`, so every `run` flag may follow
//! the prompt. Anything else (`agentctl agnets list`) is a mistyped command and gets clap's own
//! error, with its "a similar subcommand exists" tip.

use super::{Cli, Command, command};
use clap::FromArgMatches as _;
use clap::error::ErrorKind;
use std::ffi::OsString;

/// Parses the process's arguments; exits with clap's message on an error or for `--help`.
pub(crate) fn parse() -> Cli {
    parse_from(std::env::args_os().collect()).unwrap_or_else(|error| error.exit())
}

/// Parses `argv` (program name first), turning a bare prompt into `run --auto -p PROMPT`.
pub(crate) fn parse_from(argv: Vec<OsString>) -> Result<Cli, clap::Error> {
    let cli = try_parse_from(&argv)?;
    let Command::Prompt(words) = &cli.command else {
        return refuse_idle_project_dir(cli);
    };
    let prompt = words
        .first()
        .and_then(|word| word.to_str())
        .filter(|word| is_prompt(word));
    let (Some(prompt), Some(before)) = (prompt, argv.len().checked_sub(words.len())) else {
        return Err(strict_error(&argv));
    };
    // The external subcommand holds the last arguments: keep the global flags before it.
    let mut rewritten: Vec<OsString> = argv.iter().take(before).cloned().collect();
    rewritten.extend(["run", "--auto", "--prompt", prompt].map(OsString::from));
    rewritten.extend(words.iter().skip(1).cloned());
    let cli = try_parse_from(&rewritten)?;
    match &cli.command {
        Command::Run(args) if args.name.is_none() => Ok(cli),
        Command::Run(args) => Err(command().error(
            ErrorKind::UnknownArgument,
            format!(
                "unexpected argument '{}' after the prompt: quote the whole prompt as one argument",
                args.name.as_deref().unwrap_or_default()
            ),
        )),
        _ => Err(strict_error(&argv)),
    }
}

fn try_parse_from(argv: &[OsString]) -> Result<Cli, clap::Error> {
    Cli::from_arg_matches(&command().try_get_matches_from(argv)?)
}

/// `--project-dir` given to a command that reads no project is a mistake worth saying.
fn refuse_idle_project_dir(cli: Cli) -> Result<Cli, clap::Error> {
    match (cli.command.projectless_name(), &cli.global.project_dir) {
        (Some(name), Some(_)) => {
            Err(command().error(ErrorKind::ArgumentConflict, super::idle_project_dir(name)))
        }
        _ => Ok(cli),
    }
}

/// One argument with a space in it: no command name has one, so it cannot be a typo.
fn is_prompt(word: &str) -> bool {
    word.trim().contains(char::is_whitespace)
}

/// Clap's error for `argv` with external subcommands turned off: "unrecognized subcommand",
/// with a close command name when there is one.
fn strict_error(argv: &[OsString]) -> clap::Error {
    // The derive's value parser for the external subcommand would turn it back on.
    match command()
        .external_subcommand_value_parser(clap::builder::Resettable::Reset)
        .allow_external_subcommands(false)
        .try_get_matches_from(argv)
    {
        Err(error) => error,
        Ok(_) => command().error(
            ErrorKind::InvalidSubcommand,
            "give the prompt as one quoted argument: agentctl \"PROMPT\"",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::RunArgs;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        parse_from(
            std::iter::once("agentctl")
                .chain(args.iter().copied())
                .map(OsString::from)
                .collect(),
        )
    }

    /// The project folder and the `run` arguments `args` parse into.
    fn run_args(args: &[&str]) -> (Option<std::path::PathBuf>, RunArgs) {
        let cli = parse(args).unwrap();
        match cli.command {
            Command::Run(run) => (cli.global.project_dir, run),
            other => panic!("not a run: {other:?}"),
        }
    }

    #[test]
    fn a_quoted_prompt_runs_auto_routed_with_run_flags_and_global_flags() {
        let (project_dir, run) = run_args(&[
            "--project-dir",
            "/p",
            "There's a bug in the login flow",
            "--format",
            "json",
        ]);
        assert_eq!(project_dir.as_deref(), Some("/p".as_ref()));
        assert!(run.auto);
        assert_eq!(run.name, None);
        assert_eq!(
            run.turn.prompt.as_deref(),
            Some("There's a bug in the login flow")
        );
        assert_eq!(run.turn.format, crate::args::RunFormat::Json);
        let (_, run) = run_args(&["fix the tests", "--agent", "test-fixer"]);
        assert_eq!(run.agent.as_deref(), Some("test-fixer"));
    }

    #[test]
    fn a_mistyped_command_is_not_a_prompt() {
        let error = parse(&["agnets", "list"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidSubcommand);
        let message = error.to_string();
        assert!(
            message.contains("unrecognized subcommand 'agnets'"),
            "{message}"
        );
        assert!(message.contains("'agents'"), "{message}");
        // One word is a command name, even when it is not one.
        let error = parse(&["hello"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidSubcommand);
        // Surrounding spaces do not make a word a prompt.
        assert!(parse(&[" agents "]).is_err());
    }

    #[test]
    fn words_after_the_prompt_must_be_flags() {
        let error = parse(&["fix the bug", "now"]).unwrap_err();
        assert!(
            error.to_string().contains("quote the whole prompt"),
            "{error}"
        );
        assert!(parse(&["fix the bug", "-p", "again"]).is_err());
    }

    #[test]
    fn real_commands_are_untouched() {
        let cli = parse(&["agents", "list"]).unwrap();
        assert!(matches!(cli.command, Command::Agents(_)));
        let (_, run) = run_args(&["run", "code-reviewer", "-p", "Review it"]);
        assert!(!run.auto);
        assert_eq!(run.name.as_deref(), Some("code-reviewer"));
    }

    #[test]
    fn project_dir_is_neither_offered_nor_taken_where_it_does_nothing() {
        for args in [
            &["schema", "--project-dir", "/p", "agent"][..],
            &["--project-dir", "/p", "completions", "bash"],
        ] {
            let error = parse(args).unwrap_err();
            assert!(error.to_string().contains("reads no project"), "{error}");
        }
        let error = parse(&["schema", "agent", "--project-dir", "/p"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::UnknownArgument);
        assert!(parse(&["schema", "agent"]).is_ok());
        let mut command = command();
        command.build();
        for name in crate::args::PROJECTLESS {
            let help = command
                .find_subcommand_mut(name)
                .unwrap()
                .render_long_help()
                .to_string();
            assert!(!help.contains("--project-dir"), "{name}: {help}");
        }
        let help = command
            .find_subcommand_mut("sessions")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(help.contains("--project-dir"), "{help}");
    }
}

//! `agentctl completions SHELL`.

use crate::args::{Cli, CompletionsArgs};
use clap::CommandFactory;
use std::process::ExitCode;

pub(crate) fn run(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "agentctl", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

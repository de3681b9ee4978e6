//! `agentctl completions SHELL`.

use crate::args::{Cli, CompletionsArgs};
use clap::CommandFactory;
use std::io::Write as _;
use std::process::ExitCode;

pub(crate) fn run(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    // Generated into memory first: clap_complete panics when its writer fails, and a reader
    // that stops early (`| head -1`) closes the pipe. `main` ends quietly on a broken pipe.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "agentctl", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

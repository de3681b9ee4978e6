//! The `agentctl` command line.
//!
//! `main` parses arguments with clap (the `args` module), builds the command's context (locations and
//! settings), then hands over to one module per command group. Each module turns raw arguments
//! into a typed request, calls the library crates, and renders the result as text or JSON. The
//! commands that run agents (`run`, `chat`, `graph run`/`resume`, `mcp serve`) drive a session
//! of `agentctl-session` — submit operations, render its events — on the process's one tokio
//! runtime (`rt`).

mod advice;
mod agents;
mod approvals;
mod args;
mod completions;
mod config_cmd;
mod context;
mod context_cmd;
mod custom_cmd;
mod drive;
mod graph_cmd;
mod lookup;
mod loosening;
mod mcp_cmd;
mod memory_cmd;
mod output;
mod plugins_cmd;
mod render;
mod route_cmd;
mod rt;
mod run;
mod schema;
mod sessions_cmd;
mod sessions_migrate;
mod skills_cmd;
mod trace_cmd;
mod trust_cmd;
mod wire;

use args::{AgentsCommand, Cli, Command};
use std::process::ExitCode;

/// Runs the command line with the process arguments and returns the exit status.
pub fn main() -> ExitCode {
    // First: the sandbox may have started this executable as its network bridge (which never
    // returns); otherwise it is registered as that bridge for the commands this run starts.
    agentctl_session::sandbox::run_helper_if_requested();
    // Other processes of the user (a command outside the sandbox, a compromised editor
    // plugin) must not read the API keys in agentctl's environment or memory. Failing to
    // say so costs nothing worth stopping for.
    let _ = agentctl_session::sandbox::set_non_dumpable();
    let cli = args::parse();
    let outcome = run(cli);
    // Files made private as stores opened, each said once.
    output::report_tightened();
    match outcome {
        Ok(code) => code,
        // A reader that went away (`| head`) is not a failure worth a message.
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            output::print_error(&error);
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        // The seeds' spellings of `run`, `context`, `graph` and `trace` under `agents`:
        // dispatched here, so `agents` (whose listing the REPL shows) does not lead to `run`.
        Command::Agents(AgentsCommand::Run(args)) => run::run(&cli.global, args),
        Command::Agents(AgentsCommand::Context(args)) => context_cmd::run(&cli.global, args),
        Command::Agents(AgentsCommand::Graph(command)) => graph_cmd::run(&cli.global, command),
        Command::Agents(AgentsCommand::Trace(command)) => trace_cmd::run(&cli.global, command),
        Command::Agents(command) => agents::run(&cli.global, command),
        Command::Config(command) => config_cmd::run(&cli.global, command),
        Command::Schema(command) => schema::run(command),
        Command::Completions(command) => completions::run(command),
        Command::Run(args) => run::run(&cli.global, args),
        Command::Chat(args) => run::chat(&cli.global, args),
        Command::Route(args) => route_cmd::run(&cli.global, &args),
        Command::Mcp(command) => mcp_cmd::run(&cli.global, command),
        Command::Sessions(command) => sessions_cmd::run(&cli.global, command),
        Command::Context(args) => context_cmd::run(&cli.global, args),
        Command::Skills(command) => skills_cmd::run(&cli.global, command),
        Command::Plugins(command) => plugins_cmd::run(&cli.global, command),
        Command::Graph(command) => graph_cmd::run(&cli.global, command),
        Command::Trace(command) => trace_cmd::run(&cli.global, command),
        Command::Memory(command) => memory_cmd::run(&cli.global, command),
        Command::Trust(args) => trust_cmd::run(&cli.global, &args),
        // `args::parse` turns a prompt into `run` and refuses anything else.
        Command::Prompt(_) => {
            anyhow::bail!("give the prompt as one quoted argument: agentctl \"PROMPT\"")
        }
    }
}

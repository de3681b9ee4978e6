//! `agentctl schema`: JSON Schemas of the file formats.

use crate::args::SchemaCommand;
use crate::output::print_json;
use std::process::ExitCode;

pub(crate) fn run(command: SchemaCommand) -> anyhow::Result<ExitCode> {
    let schema = match command {
        SchemaCommand::Agent => agentctl_definitions::agent_schema(),
        SchemaCommand::Settings => agentctl_config::settings_schema(),
    };
    print_json(&schema)?;
    Ok(ExitCode::SUCCESS)
}

//! `agentctl schema`: JSON Schemas of the file formats and of the JSON the commands print.

use crate::args::SchemaCommand;
use crate::output::print_json;
use std::process::ExitCode;

pub(crate) fn run(command: SchemaCommand) -> anyhow::Result<ExitCode> {
    let schema = match command.output_shape() {
        Some(name) => crate::wire::shape(name)
            .map(crate::wire::Shape::schema)
            .ok_or_else(|| anyhow::anyhow!("no JSON shape named `{name}`"))?,
        None => match command {
            SchemaCommand::Settings => agentctl_session::config::settings_schema(),
            _ => agentctl_session::definitions::agent_schema(),
        },
    };
    print_json(&schema)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use crate::args::SchemaCommand;
    use clap::Subcommand as _;

    /// Every output shape has its subcommand, and every subcommand its shape.
    #[test]
    fn subcommands_and_shapes_match() {
        let command = SchemaCommand::augment_subcommands(clap::Command::new("schema"));
        let names: Vec<String> = command
            .get_subcommands()
            .map(|sub| sub.get_name().to_owned())
            .filter(|name| name != "agent" && name != "settings")
            .collect();
        let shapes: Vec<String> = crate::wire::SHAPES
            .iter()
            .map(|shape| shape.name.to_owned())
            .collect();
        assert_eq!(names, shapes);
    }
}

//! `agents validate`.

use super::{discover_agents, display_path, find, located};
use crate::args::{TextFormat, ValidateArgs};
use crate::output::print_json;
use agentctl_session::Project;
use agentctl_session::definitions::{Severity, ValidationReport};
use std::fmt::Write as _;
use std::process::ExitCode;

pub(super) fn run(context: &Project, args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    let discovery = discover_agents(context);
    let settings = &context.settings.settings;
    let checks = context.checks();
    let reports: Vec<ValidationReport> = match &args.name {
        Some(name) => match discovery
            .get(name)
            .or_else(|| discovery.get_invalid(name).map(|invalid| &invalid.agent))
        {
            Some(agent) => vec![discovery.validate(agent, settings, &checks)],
            // A file that fails to load has no name; match it by file stem.
            None => {
                let broken: Vec<ValidationReport> = discovery
                    .errors
                    .iter()
                    .filter(|e| e.path.file_stem().is_some_and(|stem| stem == name.as_str()))
                    .map(ValidationReport::load_failed)
                    .collect();
                if broken.is_empty() {
                    find(&discovery, name)?;
                }
                broken
            }
        },
        None => {
            let mut reports: Vec<ValidationReport> = discovery
                .agents
                .iter()
                .chain(discovery.invalid.iter().map(|invalid| &invalid.agent))
                .chain(discovery.shadowed.iter().map(|s| &s.agent))
                .map(|agent| discovery.validate(agent, settings, &checks))
                .collect();
            reports.extend(discovery.errors.iter().map(ValidationReport::load_failed));
            reports.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.path.cmp(&b.path)));
            reports
        }
    };
    let valid = reports.iter().all(|r| r.valid);
    match args.format {
        TextFormat::Json => print_json(&reports)?,
        TextFormat::Text => print_text(&render(context, &reports, args.name.is_none())?),
    }
    Ok(if valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[expect(clippy::print_stdout, reason = "the report is the command's output")]
fn print_text(text: &str) {
    print!("{text}");
}

/// The checks of each report as `✓`/`!`/`✗` lines with located diagnostics.
pub(super) fn render(
    context: &Project,
    reports: &[ValidationReport],
    summary: bool,
) -> anyhow::Result<String> {
    let locations = &context.locations;
    let mut out = String::new();
    for report in reports {
        writeln!(
            out,
            "{} ({})",
            report.name,
            display_path(&report.path, locations)
        )?;
        if let (Some(format), Some(reason)) = (report.format, &report.format_reason) {
            writeln!(out, "  format: {} ({reason})", format.as_str())?;
        }
        for check in &report.checks {
            let mark = if !check.passed {
                '✗'
            } else if check.has_warnings() {
                '!'
            } else {
                '✓'
            };
            match &check.note {
                Some(note) => writeln!(out, "  {mark} {}: {note}", check.name)?,
                None => writeln!(out, "  {mark} {}", check.name)?,
            }
            for diagnostic in &check.diagnostics {
                let level = match diagnostic.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                writeln!(out, "      {level}: {}", located(diagnostic, locations))?;
            }
        }
        writeln!(
            out,
            "  Validation: {}/{} passed\n",
            report.passed(),
            report.checks.len()
        )?;
    }
    if summary {
        let invalid = reports.iter().filter(|r| !r.valid).count();
        let warnings = reports
            .iter()
            .filter(|r| r.valid && r.diagnostics().next().is_some())
            .count();
        writeln!(
            out,
            "Summary: {} agent file(s), {} valid ({} with warnings), {} invalid",
            reports.len(),
            reports.len() - invalid,
            warnings,
            invalid
        )?;
    }
    Ok(out)
}

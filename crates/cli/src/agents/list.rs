//! `agents list`.

use super::{display_path, located};
use crate::args::{ListArgs, ScopeFilter, TableFormat};
use crate::output::print_json;
use crate::output::terminal_safe;
use agentctl_core::Scope;
use agentctl_definitions::LoadedAgent;
use agentctl_session::Project;
use serde::Serialize;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One row of the listing, as JSON shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Row<'a> {
    name: &'a str,
    title: Option<&'a str>,
    description: Option<&'a str>,
    model: Option<&'a str>,
    scope: Scope,
    format: &'static str,
    path: &'a Path,
    context_mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    shadowed_by: Option<&'a PathBuf>,
    #[serde(skip_serializing_if = "is_zero")]
    warnings: usize,
    /// Why the file cannot run (it failed to load, or its definition has errors), located.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub(super) fn run(context: &Project, args: &ListArgs) -> anyhow::Result<ExitCode> {
    // A listing runs no agent: their prompts are checked, then dropped as each file loads.
    let discovery = agentctl_definitions::discover_summaries(&context.locations);
    let settings = &context.settings.settings;
    let wanted = |scope: Scope| match args.scope {
        ScopeFilter::All => true,
        ScopeFilter::Global => scope == Scope::Global,
        ScopeFilter::Project => scope == Scope::Project,
    };
    let row = |agent: &'_ LoadedAgent, shadowed_by: Option<&'_ PathBuf>| {
        let spec = &agent.definition.spec;
        let source = &agent.definition.source;
        // Rows borrow from `agent`; the closure only builds them.
        (
            source.scope,
            RowData {
                name: spec.name.clone(),
                title: spec.title.clone(),
                description: spec.description.clone(),
                model: spec.model.clone(),
                format: source.format.as_str(),
                path: source.path.clone(),
                context_mode: spec
                    .context_mode
                    .unwrap_or(settings.agents.default_context_mode)
                    .as_str(),
                shadowed_by: shadowed_by.cloned(),
                warnings: agent.warnings.len(),
                error: None,
            },
        )
    };
    let mut rows: Vec<(Scope, RowData)> = discovery.agents.iter().map(|a| row(a, None)).collect();
    // Broken files are listed, marked, with their located error: they never vanish.
    for invalid in &discovery.invalid {
        let (scope, mut data) = row(&invalid.agent, None);
        data.error = invalid
            .errors
            .first()
            .map(|error| located(error, &context.locations));
        rows.push((scope, data));
    }
    for error in &discovery.errors {
        let name = discovery.declared_name(&error.path).map_or_else(
            || {
                error
                    .path
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default()
            },
            str::to_owned,
        );
        let scope = match &context.locations.project_root {
            Some(root) if error.path.starts_with(root) => Scope::Project,
            _ => Scope::Global,
        };
        rows.push((
            scope,
            RowData {
                name,
                title: None,
                description: None,
                model: None,
                format: "broken",
                path: error.path.clone(),
                context_mode: settings.agents.default_context_mode.as_str(),
                shadowed_by: None,
                warnings: 0,
                error: Some(located(&error.to_diagnostic(), &context.locations)),
            },
        ));
    }
    rows.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    if args.all {
        rows.extend(
            discovery
                .shadowed
                .iter()
                .map(|s| row(&s.agent, Some(&s.shadowed_by))),
        );
        rows.sort_by(|a, b| {
            a.1.name
                .cmp(&b.1.name)
                .then(a.1.shadowed_by.is_some().cmp(&b.1.shadowed_by.is_some()))
        });
    }
    rows.retain(|(scope, _)| wanted(*scope));
    match args.format {
        TableFormat::Json => {
            let json: Vec<Row<'_>> = rows
                .iter()
                .map(|(scope, data)| data.as_row(*scope))
                .collect();
            print_json(&json)?;
        }
        TableFormat::Table => {
            // One write for the whole table rather than one per line.
            let mut out = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
            print_table(&mut out, context, &rows, args)?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug)]
struct RowData {
    name: String,
    title: Option<String>,
    description: Option<String>,
    model: Option<String>,
    format: &'static str,
    path: PathBuf,
    context_mode: &'static str,
    shadowed_by: Option<PathBuf>,
    warnings: usize,
    error: Option<String>,
}

impl RowData {
    fn as_row(&self, scope: Scope) -> Row<'_> {
        Row {
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            model: self.model.as_deref(),
            scope,
            format: self.format,
            path: &self.path,
            context_mode: self.context_mode,
            shadowed_by: self.shadowed_by.as_ref(),
            warnings: self.warnings,
            error: self.error.as_deref(),
        }
    }
}

fn print_table(
    out: &mut impl std::io::Write,
    context: &Project,
    rows: &[(Scope, RowData)],
    args: &ListArgs,
) -> std::io::Result<()> {
    let locations = &context.locations;
    if rows.is_empty() {
        writeln!(
            out,
            "No agents found. Create one with `agentctl agents create NAME --description '…'`."
        )?;
        return Ok(());
    }
    for scope in [Scope::Project, Scope::Global] {
        let group: Vec<&RowData> = rows
            .iter()
            .filter(|(s, _)| *s == scope)
            .map(|(_, r)| r)
            .collect();
        if group.is_empty() {
            continue;
        }
        let heading = match scope {
            Scope::Project => "Project agents",
            Scope::Global => "Global agents",
        };
        writeln!(out, "{heading}:")?;
        let table: Vec<[String; 4]> = group
            .iter()
            .map(|r| {
                let mut source = format!("{} {}", r.format, display_path(&r.path, locations));
                if let Some(by) = &r.shadowed_by {
                    source.push_str(&format!(" (shadowed by {})", display_path(by, locations)));
                }
                let name = if r.error.is_some() {
                    format!("✗ {}", r.name)
                } else {
                    r.name.clone()
                };
                [
                    name,
                    r.title.clone().unwrap_or_else(|| "-".to_owned()),
                    match (&r.model, &r.error) {
                        (Some(model), _) => model.clone(),
                        (None, Some(_)) => "-".to_owned(),
                        (None, None) => "(default)".to_owned(),
                    },
                    source,
                ]
            })
            .collect();
        let headers = ["NAME", "TITLE", "MODEL", "SOURCE"];
        let widths: Vec<usize> = (0..3)
            .map(|i| {
                table
                    .iter()
                    .map(|row| row[i].chars().count())
                    .chain([headers[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: [&str; 4]| {
            let mut out = String::from("  ");
            for (i, cell) in cells.iter().enumerate().take(3) {
                out.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
            out.push_str(cells[3]);
            out
        };
        writeln!(out, "{}", line(headers))?;
        for row in &table {
            writeln!(out, "{}", line([&row[0], &row[1], &row[2], &row[3]]))?;
        }
        writeln!(out)?;
    }
    let broken: Vec<&RowData> = rows
        .iter()
        .map(|(_, r)| r)
        .filter(|r| r.error.is_some())
        .collect();
    if !broken.is_empty() {
        writeln!(
            out,
            "✗ cannot run (fix the file, then `agentctl agents validate NAME`):"
        )?;
        for row in &broken {
            writeln!(
                out,
                "  {}",
                terminal_safe(row.error.as_deref().unwrap_or_default())
            )?;
        }
        writeln!(out)?;
    }
    let shadowed = rows.iter().filter(|(_, r)| r.shadowed_by.is_some()).count();
    let effective = rows.len() - shadowed - broken.len();
    let mut summary = format!("{effective} agent(s)");
    if args.all {
        summary.push_str(&format!(", {shadowed} shadowed"));
    }
    if !broken.is_empty() {
        summary.push_str(&format!(", {} broken", broken.len()));
    }
    writeln!(out, "{summary}")
}

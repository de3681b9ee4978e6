//! `agents list`.

use super::{display_path, located};
use crate::args::{ListArgs, ScopeFilter, TableFormat};
use crate::output::print_json;
use crate::output::terminal_safe;
use agentctl_core::{ContextMode, Scope};
use agentctl_session::Project;
use agentctl_session::config::Locations;
use agentctl_session::definitions::LoadedAgent;
use serde::Serialize;
use std::borrow::Cow;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// One row of the listing, borrowed from the discovery it lists; JSON shows it as is.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Row<'d> {
    name: Cow<'d, str>,
    title: Option<&'d str>,
    description: Option<&'d str>,
    model: Option<&'d str>,
    scope: Scope,
    format: &'static str,
    path: &'d Path,
    context_mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    shadowed_by: Option<&'d Path>,
    #[serde(skip_serializing_if = "is_zero")]
    warnings: usize,
    /// Why the file cannot run (it failed to load, or its definition has errors), located.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub(super) fn run(context: &Project, args: &ListArgs) -> anyhow::Result<ExitCode> {
    // A listing runs no agent: their prompts are checked, then dropped as each file loads.
    let discovery = context.discover_summaries();
    let settings = &context.settings.settings;
    let wanted = |scope: Scope| match args.scope {
        ScopeFilter::All => true,
        ScopeFilter::Global => scope == Scope::Global,
        ScopeFilter::Project => scope == Scope::Project,
    };
    let default_mode = settings.agents.default_context_mode;
    let mut rows: Vec<Row<'_>> = discovery
        .agents
        .iter()
        .map(|a| row(a, None, default_mode))
        .collect();
    // Broken files are listed, marked, with their located error: they never vanish.
    for invalid in &discovery.invalid {
        let mut data = row(&invalid.agent, None, default_mode);
        data.error = invalid
            .errors
            .first()
            .map(|error| located(error, &context.locations));
        rows.push(data);
    }
    for error in &discovery.errors {
        let name = discovery.declared_name(&error.path).map_or_else(
            || {
                error
                    .path
                    .file_stem()
                    .map(|stem| stem.to_string_lossy())
                    .unwrap_or_default()
            },
            Cow::Borrowed,
        );
        let scope = match &context.locations.project_root {
            Some(root) if error.path.starts_with(root) => Scope::Project,
            _ => Scope::Global,
        };
        rows.push(Row {
            name,
            title: None,
            description: None,
            model: None,
            scope,
            format: "broken",
            path: &error.path,
            context_mode: default_mode.as_str(),
            shadowed_by: None,
            warnings: 0,
            error: Some(located(&error.to_diagnostic(), &context.locations)),
        });
    }
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    if args.all {
        rows.extend(
            discovery
                .shadowed
                .iter()
                .map(|s| row(&s.agent, Some(s.shadowed_by.as_path()), default_mode)),
        );
        rows.sort_by(|a, b| {
            a.name
                .cmp(&b.name)
                .then(a.shadowed_by.is_some().cmp(&b.shadowed_by.is_some()))
        });
    }
    rows.retain(|row| wanted(row.scope));
    match args.format {
        TableFormat::Json => print_json(&rows)?,
        TableFormat::Table => {
            // One write for the whole table rather than one per line.
            let mut out = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
            print_table(&mut out, context, &rows, args)?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The row of `agent`, borrowed from it.
fn row<'d>(
    agent: &'d LoadedAgent,
    shadowed_by: Option<&'d Path>,
    default_mode: ContextMode,
) -> Row<'d> {
    let spec = &agent.definition.spec;
    let source = &agent.definition.source;
    Row {
        name: Cow::Borrowed(spec.name.as_str()),
        title: spec.title.as_deref(),
        description: spec.description.as_deref(),
        model: spec.model.as_deref(),
        scope: source.scope,
        format: source.format.as_str(),
        path: &source.path,
        context_mode: spec.context_mode.unwrap_or(default_mode).as_str(),
        shadowed_by,
        warnings: agent.warnings.len(),
        error: None,
    }
}

fn print_table(
    out: &mut impl std::io::Write,
    context: &Project,
    rows: &[Row<'_>],
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
        let group: Vec<&Row<'_>> = rows.iter().filter(|r| r.scope == scope).collect();
        if group.is_empty() {
            continue;
        }
        let heading = match scope {
            Scope::Project => "Project agents",
            Scope::Global => "Global agents",
        };
        writeln!(out, "{heading}:")?;
        let table: Vec<Cells<'_>> = group.iter().map(|r| cells(r, locations)).collect();
        let headers = Cells {
            mark: "",
            name: "NAME",
            title: "TITLE",
            model: "MODEL",
            source: Cow::Borrowed("SOURCE"),
        };
        let widths = table.iter().chain([&headers]).fold([0; 3], |widths, row| {
            let [name, title, model] = row.widths();
            [
                widths[0].max(name),
                widths[1].max(title),
                widths[2].max(model),
            ]
        });
        for row in std::iter::once(&headers).chain(&table) {
            row.write(out, widths)?;
        }
        writeln!(out)?;
    }
    let broken: Vec<&Row<'_>> = rows.iter().filter(|r| r.error.is_some()).collect();
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
    let shadowed = rows.iter().filter(|r| r.shadowed_by.is_some()).count();
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

/// The cells of one agent's line: its name, title, model, and where it comes from.
fn cells<'a>(r: &'a Row<'_>, locations: &Locations) -> Cells<'a> {
    let mut source = format!("{} {}", r.format, display_path(r.path, locations));
    if let Some(by) = r.shadowed_by {
        source.push_str(" (shadowed by ");
        source.push_str(&display_path(by, locations));
        source.push(')');
    }
    Cells {
        mark: if r.error.is_some() { "✗ " } else { "" },
        name: &r.name,
        title: r.title.unwrap_or("-"),
        model: match (r.model, &r.error) {
            (Some(model), _) => model,
            (None, Some(_)) => "-",
            (None, None) => "(default)",
        },
        source: Cow::Owned(source),
    }
}

/// The cells of one table line, borrowed from its row.
struct Cells<'r> {
    /// `✗ ` before the name of an agent that cannot run.
    mark: &'static str,
    name: &'r str,
    title: &'r str,
    model: &'r str,
    source: Cow<'r, str>,
}

impl Cells<'_> {
    /// Widths of the padded columns, in characters.
    fn widths(&self) -> [usize; 3] {
        [
            self.mark.chars().count() + self.name.chars().count(),
            self.title.chars().count(),
            self.model.chars().count(),
        ]
    }

    /// The line, its first three columns padded to `widths`, written straight to `out`.
    fn write(&self, out: &mut impl std::io::Write, widths: [usize; 3]) -> std::io::Result<()> {
        let [name, title, model] = self.widths();
        writeln!(
            out,
            "  {}{}{:pad0$}  {}{:pad1$}  {}{:pad2$}  {}",
            self.mark,
            self.name,
            "",
            self.title,
            "",
            self.model,
            "",
            self.source,
            pad0 = widths[0] - name,
            pad1 = widths[1] - title,
            pad2 = widths[2] - model,
        )
    }
}

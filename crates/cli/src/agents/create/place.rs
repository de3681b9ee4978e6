//! Where `agents create` writes: the scope, the folder (where the scope's agents already live,
//! see [`create_target`], or `--dir`), and whether an existing file may be replaced.

use super::super::display_path;
use super::ui::{Question, Ui};
use crate::args::{CreateArgs, CreateScope};
use agentctl_core::Scope;
use agentctl_session::Project;
use agentctl_session::definitions::{
    CreateTarget, Discovery, TargetReason, agent_dirs, create_target,
};
use std::path::{Path, PathBuf};

/// The file `agents create` writes.
pub(super) struct Place {
    /// The agents it joins.
    pub scope: Scope,
    /// The file.
    pub path: PathBuf,
    /// Whether an existing file may be replaced.
    pub replace: bool,
    /// Why that folder, when it is not agentctl's own.
    pub note: Option<String>,
}

/// The scope and file for an agent called `name`, asking on a terminal what no flag says.
pub(super) fn place(
    ui: &Ui,
    args: &CreateArgs,
    context: &Project,
    discovery: &Discovery,
    name: &str,
) -> anyhow::Result<Place> {
    let locations = &context.locations;
    let (scope, dir, note) = match &args.dir {
        Some(dir) => {
            let dir = std::path::absolute(dir)?;
            let scope = match &locations.project_root {
                Some(root) if dir.starts_with(root) => Scope::Project,
                _ => Scope::Global,
            };
            let read = agent_dirs(locations)
                .iter()
                .any(|d| !d.graphs && d.path == dir);
            let note = (!read).then(|| {
                format!(
                    "{}/ is not a folder agentctl reads agents from: `agents list` and `agents run` will not find this agent there",
                    display_path(&dir, locations)
                )
            });
            (scope, dir, note)
        }
        None => {
            let scope = scope(ui, args, context, discovery)?;
            let target = create_target(locations, discovery, scope).ok_or_else(|| {
                anyhow::anyhow!(
                    "not inside a project (no .agentctl, .claude, .gemini or .git folder found): pass --project-dir DIR, --scope global or --dir DIR"
                )
            })?;
            let note = why(&target, scope, context);
            (scope, target.dir, note)
        }
    };
    let path = dir.join(format!("{name}.md"));
    let replace = replaceable(ui, context, &path, name, args.force)?;
    Ok(Place {
        scope,
        path,
        replace,
        note,
    })
}

/// Says why the file goes to a folder other than agentctl's own (`None` for that one).
fn why(target: &CreateTarget, scope: Scope, context: &Project) -> Option<String> {
    let locations = &context.locations;
    let whose = match scope {
        Scope::Project => "the project's",
        Scope::Global => "your global",
    };
    let own = match scope {
        Scope::Project => locations.project_agents_dir(),
        Scope::Global => Some(locations.global_agents_dir()),
    };
    // agentctl's own folder, as before there was a choice, goes without saying.
    if own.as_ref() == Some(&target.dir) {
        return None;
    }
    let shown = |dir: &Path| format!("{}/", display_path(dir, locations));
    match &target.reason {
        TargetReason::Default => None,
        TargetReason::AgentsLiveHere => Some(format!(
            "written to {}, where {whose} agents are (--dir DIR chooses another folder)",
            shown(&target.dir)
        )),
        TargetReason::FirstOfSeveral { others } => Some(format!(
            "written to {}, the first in precedence of the folders holding {whose} agents (also {}; --dir DIR chooses another)",
            shown(&target.dir),
            others
                .iter()
                .map(|d| shown(d))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `--scope`/`--global`, else asked, defaulting to settings `agents.defaultScope` (global
/// when there is no project).
fn scope(
    ui: &Ui,
    args: &CreateArgs,
    context: &Project,
    discovery: &Discovery,
) -> anyhow::Result<Scope> {
    anyhow::ensure!(
        !(args.global && args.scope == Some(CreateScope::Project)),
        "--global and --scope project contradict each other: pass one of them"
    );
    if args.global {
        return Ok(Scope::Global);
    }
    match args.scope {
        Some(CreateScope::Global) => return Ok(Scope::Global),
        Some(CreateScope::Project) => return Ok(Scope::Project),
        None => {}
    }
    let locations = &context.locations;
    let default = context.settings.settings.agents.default_scope;
    let target = |scope| create_target(locations, discovery, scope);
    let (Some(project), Some(global)) = (target(Scope::Project), target(Scope::Global)) else {
        return Ok(if ui.is_terminal() {
            ui.note("Not inside a project: the agent goes to the global folder.")?;
            Scope::Global
        } else {
            default
        });
    };
    if !ui.is_terminal() {
        return Ok(default);
    }
    let items = [
        format!("project ({}/)", display_path(&project.dir, locations)),
        format!("global ({}/)", display_path(&global.dir, locations)),
    ];
    let question = Question {
        prompt: "Scope",
        flag: "--scope project|global",
        what: "scope",
    };
    let index = ui.select(&question, &items, usize::from(default == Scope::Global))?;
    Ok(if index == 1 {
        Scope::Global
    } else {
        Scope::Project
    })
}

/// Whether `path` may be replaced: it does not exist, `--force`, or a yes on the terminal;
/// otherwise an existing file is an error before any other question.
fn replaceable(
    ui: &Ui,
    context: &Project,
    path: &Path,
    name: &str,
    force: bool,
) -> anyhow::Result<bool> {
    if force || !path.exists() {
        return Ok(force);
    }
    let shown = display_path(path, &context.locations);
    let exists = || {
        anyhow::anyhow!(
            "{shown} already exists: pass --force to replace it, or `agentctl agents edit {name}`"
        )
    };
    if !ui.is_terminal() {
        return Err(exists());
    }
    let question = Question {
        prompt: &format!("{shown} already exists. Replace it?"),
        flag: "--force",
        what: "replacement",
    };
    if ui.confirm(&question, false)? {
        Ok(true)
    } else {
        Err(exists())
    }
}

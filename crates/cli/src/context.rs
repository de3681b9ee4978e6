//! What every command needs: the project (locations, resolved settings, root), from the
//! global flags.

use crate::args::GlobalArgs;
use agentctl_session::Project;

/// Resolves locations from the global flags and loads the settings layers; warns once about
/// the project's settings values that were ignored because the project is not trusted.
pub(crate) fn load(global: &GlobalArgs) -> anyhow::Result<Project> {
    let project = load_quiet(global)?;
    crate::loosening::warn_ignored(&project.settings, project.root());
    Ok(project)
}

/// [`load`] without the warning, for the commands that show the ignored values themselves
/// (`config show`, `trust`).
pub(crate) fn load_quiet(global: &GlobalArgs) -> anyhow::Result<Project> {
    let project = Project::load(global.project_dir.as_deref())?;
    crate::output::remember_secrets(agentctl_session::secrets_of(
        project.settings(),
        &[],
        std::env::vars_os(),
    ));
    crate::output::remember_tightened(&project);
    Ok(project)
}

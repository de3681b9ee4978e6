//! Where `agents create` writes a new agent: where the scope's agents already live.
//!
//! The rule: among the agent folders of the scope (not the graph folders), in the precedence
//! order of [`agent_dirs`], the first that holds an agent file — loaded, invalid, shadowed or
//! broken — gets the new agent; when none does, agentctl's own folder (`.agentctl/agents` or
//! `$AGENTCTL_HOME/agents`). So a project that keeps its agents in `.gemini/agents` gets the
//! new one there, and when several folders hold agents the one of highest precedence wins: an
//! agent written there is the one its name runs.

use super::agent_dirs;
use crate::discovery::Discovery;
use agentctl_config::Locations;
use agentctl_core::Scope;
use std::path::{Path, PathBuf};

/// The folder `agents create` writes to in a scope, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateTarget {
    /// The folder.
    pub dir: PathBuf,
    /// Why that folder.
    pub reason: TargetReason,
}

/// Why [`create_target`] chose its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetReason {
    /// No folder of the scope holds an agent yet: agentctl's own folder.
    Default,
    /// The only folder of the scope that holds agents.
    AgentsLiveHere,
    /// Several folders of the scope hold agents: this one comes first in precedence.
    FirstOfSeveral {
        /// The other folders holding agents, in precedence order.
        others: Vec<PathBuf>,
    },
}

/// The folder a new agent of `scope` goes to (see the module documentation for the rule);
/// `None` for [`Scope::Project`] outside a project.
///
/// ```
/// use agentctl_config::Locations;
/// use agentctl_core::Scope;
/// let project = tempfile::tempdir()?;
/// let dir = project.path().join(".gemini/agents");
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("helper.md"), "---\nname: helper\ndescription: Helps\n---\nHelp.\n")?;
/// let home = tempfile::tempdir()?;
/// let locations = Locations {
///     agentctl_home: home.path().join(".agentctl"),
///     user_home: Some(home.path().to_path_buf()),
///     project_root: Some(project.path().to_path_buf()),
/// };
/// let found = agentctl_definitions::discover(&locations, &agentctl_definitions::Checks::new());
/// let target = agentctl_definitions::create_target(&locations, &found, Scope::Project);
/// assert_eq!(target.map(|t| t.dir), Some(dir));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn create_target(
    locations: &Locations,
    discovery: &Discovery,
    scope: Scope,
) -> Option<CreateTarget> {
    let default = match scope {
        Scope::Global => locations.global_agents_dir(),
        Scope::Project => locations.project_agents_dir()?,
    };
    let files = agent_files(discovery);
    let holding: Vec<PathBuf> = agent_dirs(locations)
        .into_iter()
        .filter(|dir| dir.scope == scope && !dir.graphs)
        .filter(|dir| files.iter().any(|file| file.starts_with(&dir.path)))
        .map(|dir| dir.path)
        .collect();
    let mut holding = holding.into_iter();
    Some(match holding.next() {
        None => CreateTarget {
            dir: default,
            reason: TargetReason::Default,
        },
        Some(dir) => {
            let others: Vec<PathBuf> = holding.collect();
            let reason = if others.is_empty() {
                TargetReason::AgentsLiveHere
            } else {
                TargetReason::FirstOfSeveral { others }
            };
            CreateTarget { dir, reason }
        }
    })
}

/// Every agent file discovery saw, whatever became of it.
fn agent_files(discovery: &Discovery) -> Vec<&Path> {
    fn source(agent: &crate::LoadedAgent) -> &Path {
        &agent.definition.source.path
    }
    discovery
        .agents
        .iter()
        .map(source)
        .chain(discovery.invalid.iter().map(|i| source(&i.agent)))
        .chain(discovery.shadowed.iter().map(|s| source(&s.agent)))
        .chain(discovery.errors.iter().map(|e| e.path.as_path()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Checks, discover};

    fn setup(files: &[&str]) -> (tempfile::TempDir, tempfile::TempDir, Locations) {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        for file in files {
            let path = project.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "---\nname: a\ndescription: A\n---\nA.\n").unwrap();
        }
        let locations = Locations {
            agentctl_home: home.path().join(".agentctl"),
            user_home: Some(home.path().to_path_buf()),
            project_root: Some(project.path().to_path_buf()),
        };
        (project, home, locations)
    }

    #[test]
    fn an_empty_project_gets_agentctls_folder() {
        let (project, _home, locations) = setup(&[]);
        let found = discover(&locations, &Checks::new());
        let target = create_target(&locations, &found, Scope::Project).unwrap();
        assert_eq!(target.dir, project.path().join(".agentctl/agents"));
        assert_eq!(target.reason, TargetReason::Default);
        let global = create_target(&locations, &found, Scope::Global).unwrap();
        assert_eq!(global.dir, locations.global_agents_dir());
    }

    #[test]
    fn the_first_folder_holding_agents_wins() {
        let (project, _home, locations) = setup(&[".gemini/agents/a.md", ".claude/agents/x/b.md"]);
        let found = discover(&locations, &Checks::new());
        let target = create_target(&locations, &found, Scope::Project).unwrap();
        assert_eq!(target.dir, project.path().join(".claude/agents"));
        assert_eq!(
            target.reason,
            TargetReason::FirstOfSeveral {
                others: vec![project.path().join(".gemini/agents")]
            }
        );
    }

    #[test]
    fn no_project_no_project_target() {
        let (_project, _home, mut locations) = setup(&[]);
        locations.project_root = None;
        let found = discover(&locations, &Checks::new());
        assert_eq!(create_target(&locations, &found, Scope::Project), None);
    }
}

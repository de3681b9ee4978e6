//! What discovery found: the runnable agents, the invalid ones, the shadowed ones and the files
//! that did not load, with the lookups every front end uses. Finding them is
//! [`discover`](super::discover)'s; this module only holds and answers.

use crate::error::{DefinitionError, Diagnostic};
use crate::parse::LoadedAgent;
use crate::suggest;
use std::collections::HashMap;
use std::path::PathBuf;

/// An agent hidden by another of the same name with higher precedence.
#[derive(Debug, Clone, PartialEq)]
pub struct Shadowed {
    /// The hidden agent.
    pub agent: LoadedAgent,
    /// The file of the agent that wins.
    pub shadowed_by: PathBuf,
}

/// An effective agent whose file loaded but whose definition has errors: it cannot run.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidAgent {
    /// The agent as loaded.
    pub agent: LoadedAgent,
    /// Its errors (an invalid name, a value out of range …), located in its file.
    pub errors: Vec<Diagnostic>,
}

/// Everything [`discover`](super::discover) found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Discovery {
    /// The effective, runnable agents, one per name, sorted by name.
    pub agents: Vec<LoadedAgent>,
    /// Effective agents whose definitions have errors, sorted by name. They still take their
    /// place in precedence (an invalid project agent hides a global one of the same name, so
    /// that fixing the file, not running the other agent, is what happens), but never run.
    pub invalid: Vec<InvalidAgent>,
    /// Agents hidden by an effective (or invalid) one, sorted by name then precedence.
    pub shadowed: Vec<Shadowed>,
    /// Files that could not be loaded, in discovery order.
    pub errors: Vec<DefinitionError>,
    /// Markdown files without front matter in Claude Code or Gemini CLI folders (such
    /// collections often hold a README): not agents, not errors.
    pub skipped: Vec<PathBuf>,
    /// The `name:` written in files that failed to load, where it could be read.
    pub(crate) declared_names: Vec<(PathBuf, String)>,
}

impl Discovery {
    /// The effective agent of that name, if it can run. Use [`Discovery::require`] to learn why
    /// there is none.
    pub fn get(&self, name: &str) -> Option<&LoadedAgent> {
        self.agents.iter().find(|agent| agent.name() == name)
    }

    /// The effective agent of that name whose definition has errors, if that is what the name
    /// finds.
    pub fn get_invalid(&self, name: &str) -> Option<&InvalidAgent> {
        self.invalid
            .iter()
            .find(|invalid| invalid.agent.name() == name)
    }

    /// The `name:` a file that failed to load declares, when it could be read (for listing a
    /// broken file under the name its author meant).
    pub fn declared_name(&self, path: &std::path::Path) -> Option<&str> {
        self.declared_names
            .iter()
            .find(|(declared, _)| declared == path)
            .map(|(_, name)| name.as_str())
    }

    /// Every agent of that name, effective (or invalid) one first, then the shadowed ones.
    pub fn all_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a LoadedAgent> + 'a {
        self.get(name)
            .or_else(|| self.get_invalid(name).map(|invalid| &invalid.agent))
            .into_iter()
            .chain(
                self.shadowed
                    .iter()
                    .map(|s| &s.agent)
                    .filter(move |a| a.name() == name),
            )
    }

    /// Names of effective agents (runnable or invalid) close to `name`, closest first (for
    /// "did you mean").
    pub fn similar_names(&self, name: &str) -> Vec<&str> {
        let invalid = self.invalid.iter().map(|invalid| invalid.agent.name());
        suggest::similar(
            name,
            self.agents.iter().map(LoadedAgent::name).chain(invalid),
        )
    }
}

impl Discovery {
    /// Files `agent` in its place: effective (runnable or invalid) if it is the first of its
    /// name, else shadowed by the one that was.
    pub(crate) fn place(
        &mut self,
        agent: LoadedAgent,
        errors: Vec<Diagnostic>,
        winners: &mut HashMap<String, PathBuf>,
    ) {
        if let Some(winner) = winners.get(agent.name()) {
            let shadowed_by = winner.clone();
            self.shadowed.push(Shadowed { agent, shadowed_by });
            return;
        }
        winners.insert(agent.name().to_owned(), agent.path().to_path_buf());
        if errors.is_empty() {
            self.agents.push(agent);
        } else {
            self.invalid.push(InvalidAgent { agent, errors });
        }
    }
}

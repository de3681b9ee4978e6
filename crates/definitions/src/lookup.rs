//! Finding the agent to run by name, with the reason when there is none.
//!
//! [`Discovery::require`] is the one place every front end (run, `agents show`, `mcp serve`)
//! turns a name into a runnable agent. When the name finds no runnable agent, the error says
//! why, with data the front end words: the located errors of the file that would have defined
//! it, or the names that are close.

use crate::discovery::Discovery;
use crate::error::{DefinitionError, Diagnostic};
use crate::parse::LoadedAgent;
use std::fmt;
use std::path::PathBuf;

/// Why [`Discovery::require`] found no runnable agent of a name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentLookupError {
    /// The agent's file loaded, but its definition has errors (an invalid name, a value out
    /// of range …).
    #[error("{}", Lines(errors))]
    Invalid {
        /// The name looked up.
        name: String,
        /// The agent's file.
        path: PathBuf,
        /// The errors, located in the file.
        errors: Vec<Diagnostic>,
    },
    /// No agent of that name loaded, and files that would define it (by file name or by a
    /// readable `name:`) failed to load.
    #[error("{}", Lines(&errors.iter().map(DefinitionError::to_diagnostic).collect::<Vec<_>>()))]
    Unloadable {
        /// The name looked up.
        name: String,
        /// The files' errors, located.
        errors: Vec<DefinitionError>,
    },
    /// No file defines an agent of that name.
    #[error("no agent named `{name}`{}", DidYouMean(similar))]
    NotFound {
        /// The name looked up.
        name: String,
        /// Names of agents close to it, closest first; may be empty.
        similar: Vec<String>,
    },
}

impl AgentLookupError {
    /// The name that was looked up.
    pub fn name(&self) -> &str {
        match self {
            AgentLookupError::Invalid { name, .. }
            | AgentLookupError::Unloadable { name, .. }
            | AgentLookupError::NotFound { name, .. } => name,
        }
    }

    /// The located problems behind an invalid or unloadable agent (empty for
    /// [`AgentLookupError::NotFound`]), for front ends that render each on its own line.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            AgentLookupError::Invalid { errors, .. } => errors.clone(),
            AgentLookupError::Unloadable { errors, .. } => {
                errors.iter().map(DefinitionError::to_diagnostic).collect()
            }
            AgentLookupError::NotFound { .. } => Vec::new(),
        }
    }
}

/// Located problems, one per line.
struct Lines<'a>(&'a [Diagnostic]);

impl fmt::Display for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, diagnostic) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

/// `; did you mean `a`, `b`?`, or nothing.
struct DidYouMean<'a>(&'a [String]);

impl fmt::Display for DidYouMean<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = self.0.iter().map(|name| format!("`{name}`")).collect();
        write!(f, "; did you mean {}?", names.join(", "))
    }
}

impl Discovery {
    /// The runnable agent called `name`, or why there is none.
    ///
    /// - an agent of that name loaded and its definition is valid: that agent;
    /// - the effective agent of that name has errors: [`AgentLookupError::Invalid`] with them;
    /// - no agent of that name loaded, but a file named after it (`NAME.md`) or declaring
    ///   `name: NAME` failed to load: [`AgentLookupError::Unloadable`] with its error;
    /// - otherwise [`AgentLookupError::NotFound`], with close names if there are any.
    ///
    /// ```
    /// use agentctl_definitions::{AgentLookupError, AgentDir, Checks, discover_in};
    /// use agentctl_core::{Scope, SourceFormat};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let write = |file: &str, text: &str| std::fs::write(dir.path().join(file), text);
    /// write("reviewer.md", "---\nname: reviewer\ndescription: Reviews\n---\nReview.\n")?;
    /// write("hot.md", "---\nname: hot\ndescription: Too hot\ntemperature: 7\n---\nAnswer.\n")?;
    /// let dirs = [AgentDir {
    ///     path: dir.path().to_path_buf(),
    ///     format: SourceFormat::Native,
    ///     scope: Scope::Project,
    ///     recursive: false,
    ///     graphs: false,
    ///     plugin: None,
    /// }];
    /// let found = discover_in(&dirs, &Checks::new());
    /// assert_eq!(found.require("reviewer")?.name(), "reviewer");
    ///
    /// let error = found.require("hot").unwrap_err();
    /// assert!(matches!(error, AgentLookupError::Invalid { .. }));
    /// assert!(error.to_string().ends_with("hot.md:4:1: field `temperature`: temperature 7 is outside 0..=2"));
    ///
    /// let error = found.require("reviwer").unwrap_err();
    /// assert_eq!(error.to_string(), "no agent named `reviwer`; did you mean `reviewer`?");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn require(&self, name: &str) -> Result<&LoadedAgent, AgentLookupError> {
        if let Some(agent) = self.get(name) {
            return Ok(agent);
        }
        if let Some(invalid) = self.get_invalid(name) {
            return Err(AgentLookupError::Invalid {
                name: name.to_owned(),
                path: invalid.agent.path().to_path_buf(),
                errors: invalid.errors.clone(),
            });
        }
        let unloadable: Vec<DefinitionError> = self
            .errors
            .iter()
            .filter(|error| {
                error.path.file_stem().is_some_and(|stem| stem == name)
                    || self
                        .declared_names
                        .iter()
                        .any(|(path, declared)| *path == error.path && declared == name)
            })
            .cloned()
            .collect();
        if !unloadable.is_empty() {
            return Err(AgentLookupError::Unloadable {
                name: name.to_owned(),
                errors: unloadable,
            });
        }
        Err(AgentLookupError::NotFound {
            name: name.to_owned(),
            similar: self
                .similar_names(name)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        })
    }
}

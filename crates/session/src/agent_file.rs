//! Agent files as a front end lists, checks and writes them: discovery without the prompts
//! (a listing), one file loaded and validated with the full set of checks, and writing a
//! file the way `agents create` (or any front end's editor) does — atomically, in a folder
//! made private when it is created, never over a file that appeared meanwhile.

use crate::project::Project;
use agentctl_core::{Scope, SourceFormat};
use agentctl_definitions::{Discovery, ValidationReport, discover_summaries, load_file, validate};
use std::io::Write as _;
use std::path::{Path, PathBuf};

impl Project {
    /// Every agent file of the project and the user, as [`discover`](Self::discover) finds
    /// them, with each prompt checked and then dropped as its file loads: for a listing that
    /// runs no agent.
    pub fn discover_summaries(&self) -> Discovery {
        let mut found = discover_summaries(&self.locations, &self.checks());
        crate::plugins::disarm_agents(&mut found, &self.locations);
        found
    }

    /// Loads the agent file at `path` and validates it with the full set of checks
    /// (`agents validate`'s); a file that does not load gets a report saying why.
    pub fn validate_file(
        &self,
        path: &Path,
        format: SourceFormat,
        scope: Scope,
    ) -> ValidationReport {
        match load_file(path, format, scope) {
            Ok(agent) => validate(&agent, &self.settings.settings, &self.checks()),
            Err(error) => ValidationReport::load_failed(&error),
        }
    }
}

/// Why an agent file was not written. Each names the file or folder concerned; a front end
/// words what to do (for [`AgentFileError::Exists`], how to ask for a replacement).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentFileError {
    /// The path has no parent folder.
    #[error("{} has no folder", .0.display())]
    NoFolder(PathBuf),
    /// The folder could not be created.
    #[error("cannot create {}", dir.display())]
    CreateFolder {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No temporary file could be made in the folder.
    #[error("cannot write in {}", dir.display())]
    WriteIn {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file (or the temporary file beside it) could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file exists and replacing it was not asked for; it is left as it was.
    #[error("{} already exists", .0.display())]
    Exists(PathBuf),
}

/// Writes `text` to `path` through a temporary file in the same folder, then moves it into
/// place: readers see the old file or the new one, never half of one. Without `replace` the
/// move refuses an existing file, so an agent created meanwhile is not overwritten either.
/// A missing folder is created private (`.agentctl/` and `$AGENTCTL_HOME` are).
///
/// # Errors
///
/// [`AgentFileError`] says which step failed and where.
pub fn write_agent_file(path: &Path, text: &str, replace: bool) -> Result<(), AgentFileError> {
    let dir = path
        .parent()
        .ok_or_else(|| AgentFileError::NoFolder(path.to_owned()))?;
    agentctl_private_files::create_private_dir_all(dir).map_err(|source| {
        AgentFileError::CreateFolder {
            dir: dir.to_owned(),
            source,
        }
    })?;
    let mut temp = tempfile::Builder::new()
        .prefix(".agentctl-create-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|source| AgentFileError::WriteIn {
            dir: dir.to_owned(),
            source,
        })?;
    temp.write_all(text.as_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|source| AgentFileError::Write {
            path: temp.path().to_owned(),
            source,
        })?;
    let result = if replace {
        temp.persist(path).map(drop)
    } else {
        temp.persist_noclobber(path).map(drop)
    };
    match result {
        Ok(()) => Ok(()),
        Err(error) if error.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(AgentFileError::Exists(path.to_owned()))
        }
        Err(error) => Err(AgentFileError::Write {
            path: path.to_owned(),
            source: error.error,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_file_is_kept_without_replace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "old").unwrap();
        let error = write_agent_file(&path, "new", false).unwrap_err();
        assert!(matches!(error, AgentFileError::Exists(_)), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        write_agent_file(&path, "new", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }
}

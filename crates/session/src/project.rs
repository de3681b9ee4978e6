//! The project a front end works in: where files live, the resolved settings, the root tools
//! are confined to, the agents found, and the session store.

use crate::error::SessionError;
use crate::secrets::secrets_of;
use agentctl_config::{LoadedSettings, Locations, load_settings};
use agentctl_context::SqliteStore;
use agentctl_core::{Redactor, Settings};
use agentctl_definitions::{Discovery, discover};
use std::path::{Path, PathBuf};

/// Locations, settings and root, resolved once per front-end invocation.
#[derive(Debug)]
pub struct Project {
    /// Where agents, settings and sessions live.
    pub locations: Locations,
    /// The layered settings, with origins and warnings.
    pub settings: LoadedSettings,
    root: PathBuf,
}

impl Project {
    /// Resolves the locations from `project_dir` (a `--project-dir` flag) or the current
    /// directory, and loads the settings layers.
    pub fn load(project_dir: Option<&Path>) -> Result<Self, SessionError> {
        let cwd = std::env::current_dir().map_err(SessionError::CurrentDir)?;
        Self::load_from(project_dir, &cwd)
    }

    /// [`load`](Self::load) with an explicit working directory.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join(".agentctl"))?;
    /// let project = agentctl_session::Project::load_from(None, dir.path())?;
    /// assert_eq!(project.root(), dir.path());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_from(project_dir: Option<&Path>, cwd: &Path) -> Result<Self, SessionError> {
        if let Some(dir) = project_dir
            && !dir.is_dir()
        {
            return Err(SessionError::NoProjectDir(dir.to_path_buf()));
        }
        let locations = Locations::discover(project_dir, cwd);
        let settings = load_settings(&locations)?;
        let root = locations
            .project_root
            .clone()
            .unwrap_or_else(|| cwd.to_path_buf());
        Ok(Self {
            locations,
            settings,
            root,
        })
    }

    /// The merged settings.
    pub fn settings(&self) -> &Settings {
        &self.settings.settings
    }

    /// The folder built-in tools are confined to: the project root, or the working directory
    /// outside any project.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every agent file of the project and the user, with load errors and shadowed agents.
    pub fn discover(&self) -> Discovery {
        discover(&self.locations)
    }

    /// Where the session database is: `<project>/.agentctl/sessions.db`, or
    /// `$AGENTCTL_HOME/sessions.db` outside a project.
    pub fn store_path(&self) -> PathBuf {
        SqliteStore::default_path(
            self.locations.project_root.as_deref(),
            &self.locations.agentctl_home,
        )
    }

    /// Opens the session store; `None` when it does not exist and `create` is false. A new
    /// project store gets a `.agentctl/.gitignore` keeping it out of commits.
    pub fn open_store(&self, create: bool) -> Result<Option<SqliteStore>, SessionError> {
        let path = self.store_path();
        if !create && !path.exists() {
            return Ok(None);
        }
        let secrets = secrets_of(self.settings(), &[], std::env::vars_os());
        open_store_file(&path, secrets).map(Some)
    }
}

/// Opens (creating) the store at `path`, masking `secrets` in what it writes; a project store
/// gets its `.gitignore`.
pub(crate) fn open_store_file(path: &Path, secrets: Redactor) -> Result<SqliteStore, SessionError> {
    let store = SqliteStore::open(path)?.with_redactor(secrets);
    keep_out_of_git(path);
    Ok(store)
}

/// What agentctl writes into a project's `.agentctl/.gitignore`.
const GITIGNORE_HEAD: &str = "# agentctl sessions are personal\n";

/// Sessions and long-term memories are personal: a project's `.agentctl/.gitignore` keeps the
/// databases out of commits (written once; one agentctl wrote before the memory store existed
/// gets its `memory.db*` line; a file of the user's own is left alone; failing to write it is
/// harmless).
fn keep_out_of_git(database: &Path) {
    let Some(dir) = database.parent() else {
        return;
    };
    if dir.file_name().is_none_or(|name| name != ".agentctl") {
        return;
    }
    let ignore = dir.join(".gitignore");
    match std::fs::read_to_string(&ignore) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let _ = std::fs::write(
                ignore,
                format!("{GITIGNORE_HEAD}sessions.db*\nmemory.db*\n"),
            );
        }
        Ok(text)
            if text.starts_with(GITIGNORE_HEAD)
                && !text.lines().any(|line| line.trim() == "memory.db*") =>
        {
            let separator = if text.ends_with('\n') { "" } else { "\n" };
            let _ = std::fs::write(ignore, format!("{text}{separator}memory.db*\n"));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gitignore_keeps_both_databases_out_and_respects_the_users_own() {
        let dir = tempfile::tempdir().unwrap();
        let agentctl = dir.path().join(".agentctl");
        std::fs::create_dir(&agentctl).unwrap();
        let database = agentctl.join("sessions.db");
        let ignore = agentctl.join(".gitignore");
        keep_out_of_git(&database);
        let written = std::fs::read_to_string(&ignore).unwrap();
        assert_eq!(
            written,
            "# agentctl sessions are personal\nsessions.db*\nmemory.db*\n"
        );
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), written);
        // One an older agentctl wrote gets the memory store's line.
        std::fs::write(&ignore, "# agentctl sessions are personal\nsessions.db*\n").unwrap();
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), written);
        // The user's own is theirs.
        std::fs::write(&ignore, "*\n").unwrap();
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "*\n");
    }
}

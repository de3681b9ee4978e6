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

/// Sessions are personal: a project's `.agentctl/.gitignore` keeps the database out of commits
/// (written once, never overwritten; failing to write it is harmless).
fn keep_out_of_git(database: &Path) {
    let Some(dir) = database.parent() else {
        return;
    };
    let ignore = dir.join(".gitignore");
    if dir.file_name().is_some_and(|name| name == ".agentctl") && !ignore.exists() {
        let _ = std::fs::write(ignore, "# agentctl sessions are personal\nsessions.db*\n");
    }
}

//! The project a front end works in: where files live, the resolved settings, the root tools
//! are confined to, the agents found, and the session store.

use crate::current::CurrentSession;
use crate::error::SessionError;
use crate::secrets::{env_policy_of, secrets_of};
use crate::store_location::{
    DATABASE_URL_VAR, MigratableStore, StoreLocation, TightenedFiles, resolve_location,
};
use crate::task::TaskTool;
use agentctl_config::{
    LoadOptions, LoadedSettings, Locations, ProjectTrust, TrustStore, load_settings_with,
};
use agentctl_core::{AgentDefinition, Redactor, RiskLevel, Settings};
use agentctl_definitions::{Discovery, discover};
use agentctl_mcp::{LaunchPolicy, McpManager};
use agentctl_store::SessionStore;
use agentctl_store_sqlite::SqliteStore;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Locations, settings and root, resolved once per front-end invocation.
#[derive(Debug)]
pub struct Project {
    /// Where agents, settings and sessions live.
    pub locations: Locations,
    /// The layered settings, with origins and warnings.
    pub settings: LoadedSettings,
    root: PathBuf,
    /// The working folder: project instructions are read from the root down to it.
    cwd: PathBuf,
    /// Files made private as stores opened, for the front end to report.
    tightened: TightenedFiles,
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
        let mut settings = load_settings_with(&locations, &load_options())?;
        crate::plugins::add_plugin_servers(&locations, &mut settings);
        let root = locations
            .project_root
            .clone()
            .unwrap_or_else(|| cwd.to_path_buf());
        Ok(Self {
            locations,
            settings,
            root,
            cwd: cwd.to_path_buf(),
            tightened: TightenedFiles::default(),
        })
    }

    /// The project instructions (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md` or the names
    /// `context.instructionFiles` gives) from the root down to the working folder, with their
    /// imports: what every agent's system prompt gets unless its file says
    /// `instructions: none`.
    pub fn instructions(&self) -> crate::instructions::Instructions {
        crate::instructions::Instructions::load(
            &self.root,
            &self.cwd,
            &self.settings().context.instruction_files,
        )
    }

    /// The merged settings.
    pub fn settings(&self) -> &Settings {
        &self.settings.settings
    }

    /// Where the user's trust in projects and the hashes of project MCP servers' files are
    /// recorded (`$AGENTCTL_HOME/trust/`).
    pub fn trust_store(&self) -> TrustStore {
        TrustStore::new(&self.locations.agentctl_home)
    }

    /// Whether the user trusts this project to run the commands it declares (its agent
    /// files' hooks): its policy files are trusted as they are, or — with no policy file —
    /// the trust store holds a trust of the project.
    pub fn trusts_own_commands(&self) -> bool {
        match &self.settings.trust {
            ProjectTrust::Trusted(_) => true,
            ProjectTrust::NotNeeded => self.locations.project_root.as_deref().is_none_or(|root| {
                matches!(
                    self.trust_store().project(root),
                    Ok(Some(record)) if record.trusted.is_some()
                )
            }),
            _ => false,
        }
    }

    /// How MCP stdio servers start in this project: the project's own servers (its settings
    /// layer, its agent files) confined and their files trusted on first use, and no server
    /// given a secret agentctl consumes (those of the settings and of `agents`' inline servers).
    pub fn launch_policy(&self, agents: &[AgentDefinition]) -> LaunchPolicy {
        LaunchPolicy {
            env: env_policy_of(self.settings(), agents),
            ..LaunchPolicy::for_project(&self.settings, self.root(), self.trust_store())
        }
    }

    /// The MCP manager of the settings' servers, started as [`launch_policy`](Self::launch_policy)
    /// says. Every front end and runner of the project uses one built here.
    pub fn mcp_manager(&self, agents: &[AgentDefinition]) -> McpManager {
        McpManager::with_launch(
            self.settings().mcp_servers.clone(),
            self.root(),
            self.launch_policy(agents),
        )
        .with_sources(self.server_sources())
    }

    /// The settings file of each configured MCP server (`.mcp.json`, a `settings.json`).
    fn server_sources(&self) -> std::collections::BTreeMap<String, std::path::PathBuf> {
        let entries = self.settings.entries();
        self.settings()
            .mcp_servers
            .keys()
            .filter_map(|name| {
                let prefix = format!("mcpServers.{name}.");
                let entry = entries
                    .iter()
                    .find(|entry| entry.key.starts_with(&prefix))?;
                Some((name.clone(), entry.origin.path()?.to_path_buf()))
            })
            .collect()
    }

    /// The folder built-in tools are confined to: the project root, or the working directory
    /// outside any project.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every agent file of the project and the user, with load errors and shadowed agents,
    /// checked by [`checks`](Self::checks). The agents of a plugin whose code may not run
    /// (not enabled, or a project's not approved) come without their hooks and inline MCP
    /// servers, each taken away with a warning.
    pub fn discover(&self) -> Discovery {
        let mut found = discover(&self.locations, &self.checks());
        crate::plugins::disarm_agents(&mut found, &self.locations);
        found
    }

    /// The project's current session: the one its last conversation used, which the next
    /// `run`/`chat` that names no session continues (`None` before the first, or when the
    /// pointer beside the store is unreadable).
    pub fn current_session(&self) -> Option<String> {
        CurrentSession::beside(&self.store_path()).read()
    }

    /// Where the embedded session database is: `<project>/.agentctl/sessions.db`, or
    /// `$AGENTCTL_HOME/sessions.db` outside a project (traces and long-term memory live
    /// beside it, whichever store holds the sessions).
    pub fn store_path(&self) -> PathBuf {
        SqliteStore::default_path(
            self.locations.project_root.as_deref(),
            &self.locations.agentctl_home,
        )
    }

    /// Which session store to open: `AGENTCTL_DATABASE_URL`, else settings `store.url`, else
    /// the embedded file ([`store_path`](Self::store_path)). Relative paths are relative to
    /// the project root.
    pub fn store_location(&self) -> Result<StoreLocation, SessionError> {
        let from_env = std::env::var(DATABASE_URL_VAR).ok();
        self.store_location_from(from_env.as_deref())
    }

    /// [`store_location`](Self::store_location) with the environment variable's value given.
    pub fn store_location_from(&self, env: Option<&str>) -> Result<StoreLocation, SessionError> {
        Ok(resolve_location(
            self.store_choice(env).as_deref(),
            self.root(),
            &self.store_path(),
        )?)
    }

    /// The store URL as written: the variable's value, else settings `store.url`.
    pub(crate) fn store_choice(&self, env: Option<&str>) -> Option<String> {
        env.filter(|url| !url.trim().is_empty())
            .or(self.settings().store.url.as_deref())
            .map(str::to_owned)
    }

    /// Opens the session store ([`store_location`](Self::store_location)), masking the
    /// project's secrets in what it writes; `None` when it is a SQLite file that does not exist
    /// and `create` is false. A new project store gets a `.agentctl/.gitignore` keeping it out
    /// of commits.
    pub fn open_store(&self, create: bool) -> Result<Option<Arc<dyn SessionStore>>, SessionError> {
        Ok(self
            .open_store_at(&self.store_location()?, create)?
            .map(|store| store as Arc<dyn SessionStore>))
    }

    /// Opens the store at `location` with the project's secrets, as
    /// [`open_store`](Self::open_store) does (for copying sessions between stores).
    pub fn open_store_at(
        &self,
        location: &StoreLocation,
        create: bool,
    ) -> Result<Option<Arc<dyn MigratableStore>>, SessionError> {
        location.open(self.secrets(), create, &self.tightened)
    }

    /// The files agentctl made private as it opened this project's stores (through the
    /// project, its runtime builders or its runners), for the front end to report once.
    pub fn tightened_files(&self) -> &TightenedFiles {
        &self.tightened
    }

    /// The secrets of the settings and the environment, masked in what stores write.
    pub(crate) fn secrets(&self) -> Redactor {
        secrets_of(self.settings(), &[], std::env::vars_os())
    }
}

/// What loading needs to know of the tools: the risk of each built-in one, so that a project
/// `tools.risk` override below it counts as loosening the user's policy.
fn load_options() -> LoadOptions {
    let mut tool_risk: std::collections::BTreeMap<String, RiskLevel> =
        agentctl_tools::builtin_tools()
            .iter()
            .map(|tool| (tool.name().to_owned(), tool.risk()))
            .collect();
    tool_risk.insert(TaskTool::NAME.to_owned(), RiskLevel::Safe);
    LoadOptions { tool_risk }
}

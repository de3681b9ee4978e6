//! Folders outside the project root that `read_file` may read, granted per agent for the
//! life of a session: a skill's folder once the agent has loaded that skill; and the folders
//! `write_file` and `edit_file` may change: an agent's own memory folder (`memory: project`).
//!
//! A grant widens nothing else: the folder becomes a second root for those tools alone, with
//! the same confinement as the project root (`..` never climbs out of it, symbolic links must
//! stay inside it, hard-linked files are refused). A read grant holds for absolute paths
//! inside the folder; a write grant for any path *named* inside it (absolute, or relative to
//! the project root when the folder lies in the project), which is then resolved in the folder
//! alone — a symlink in it that leads out is refused, not followed, even into the project.

use crate::paths::ProjectRoot;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Folders granted for reading, by agent name; clones share the grants.
///
/// ```
/// use agentctl_tools::ReadGrants;
/// let dir = tempfile::tempdir().unwrap();
/// let grants = ReadGrants::default();
/// grants.grant("writer", dir.path()).unwrap();
/// assert_eq!(grants.granted("writer"), [dir.path().canonicalize().unwrap()]);
/// assert!(grants.granted("reviewer").is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReadGrants {
    by_agent: Arc<Mutex<HashMap<String, Vec<Grant>>>>,
}

/// One folder granted to an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Grant {
    /// The canonical folder.
    dir: PathBuf,
    /// Whether `write_file` and `edit_file` may change it too.
    writes: bool,
}

impl ReadGrants {
    /// Lets `agent` read the files of `dir` (canonicalised; it must exist).
    pub fn grant(&self, agent: &str, dir: &Path) -> std::io::Result<()> {
        self.add(agent, dir, false)
    }

    /// Lets `agent` read, write and edit the files of `dir` (canonicalised; it must exist):
    /// its memory folder.
    ///
    /// ```
    /// use agentctl_tools::ReadGrants;
    /// let dir = tempfile::tempdir().unwrap();
    /// let grants = ReadGrants::default();
    /// grants.grant_writes("writer", dir.path()).unwrap();
    /// assert_eq!(grants.writable("writer"), [dir.path().canonicalize().unwrap()]);
    /// assert_eq!(grants.granted("writer"), grants.writable("writer"));
    /// grants.grant("reader", dir.path()).unwrap();
    /// assert!(grants.writable("reader").is_empty());
    /// ```
    pub fn grant_writes(&self, agent: &str, dir: &Path) -> std::io::Result<()> {
        self.add(agent, dir, true)
    }

    fn add(&self, agent: &str, dir: &Path, writes: bool) -> std::io::Result<()> {
        let dir = dir.canonicalize()?;
        let mut map = self.by_agent.lock().unwrap_or_else(PoisonError::into_inner);
        let grants = map.entry(agent.to_owned()).or_default();
        match grants.iter_mut().find(|grant| grant.dir == dir) {
            Some(grant) => grant.writes |= writes,
            None => grants.push(Grant { dir, writes }),
        }
        Ok(())
    }

    fn folders(&self, agent: &str, writes_only: bool) -> Vec<PathBuf> {
        self.by_agent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent)
            .into_iter()
            .flatten()
            .filter(|grant| grant.writes || !writes_only)
            .map(|grant| grant.dir.clone())
            .collect()
    }

    /// The folders granted to `agent` (for reading, and those for writing too).
    pub fn granted(&self, agent: &str) -> Vec<PathBuf> {
        self.folders(agent, false)
    }

    /// The folders `agent` may write.
    pub fn writable(&self, agent: &str) -> Vec<PathBuf> {
        self.folders(agent, true)
    }

    /// The folder granted to `agent` for writing that the path `given` names (absolute, or
    /// relative to the canonical `project` root), with the path spelled absolutely for that
    /// folder's root; `None` when no such folder names it. Only the name is read here: the
    /// caller resolves the path in the folder, where symlinks must stay.
    pub(crate) fn write_root(
        &self,
        agent: &str,
        project: &Path,
        given: &str,
    ) -> Option<(ProjectRoot, String)> {
        if given.is_empty() {
            return None;
        }
        let absolute = if Path::new(given).is_absolute() {
            given.to_owned()
        } else {
            project.join(given).to_str()?.to_owned()
        };
        self.writable(agent).into_iter().find_map(|dir| {
            let root = ProjectRoot::new(&dir).ok()?;
            root.normalise(&absolute).ok()?;
            Some((root, absolute.clone()))
        })
    }

    /// The granted root holding the absolute path `given` and the path resolved inside it;
    /// `None` when no folder granted to `agent` holds it (the caller's own refusal stands).
    pub(crate) fn resolve(&self, agent: &str, given: &str) -> Option<(ProjectRoot, PathBuf)> {
        if !Path::new(given).is_absolute() {
            return None;
        }
        self.granted(agent).into_iter().find_map(|dir| {
            let root = ProjectRoot::new(&dir).ok()?;
            let path = root.resolve(given).ok()?;
            Some((root, path))
        })
    }
}

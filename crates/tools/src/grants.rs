//! Folders outside the project root that `read_file` may read, granted per agent for the
//! life of a session: a skill's folder once the agent has loaded that skill.
//!
//! A grant widens nothing else: the folder becomes a second root for `read_file` alone, with
//! the same confinement as the project root (`..` never climbs out of it, symbolic links must
//! stay inside it, hard-linked files are refused), and only for absolute paths inside it.

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
    by_agent: Arc<Mutex<HashMap<String, Vec<PathBuf>>>>,
}

impl ReadGrants {
    /// Lets `agent` read the files of `dir` (canonicalised; it must exist).
    pub fn grant(&self, agent: &str, dir: &Path) -> std::io::Result<()> {
        let dir = dir.canonicalize()?;
        let mut map = self.by_agent.lock().unwrap_or_else(PoisonError::into_inner);
        let dirs = map.entry(agent.to_owned()).or_default();
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
        Ok(())
    }

    /// The folders granted to `agent`.
    pub fn granted(&self, agent: &str) -> Vec<PathBuf> {
        self.by_agent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent)
            .cloned()
            .unwrap_or_default()
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

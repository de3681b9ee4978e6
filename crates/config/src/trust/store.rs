//! The trust store: which projects the user trusted (with the hashes of their policy files as
//! they were then) and the hashes of project MCP server scripts recorded on first use.
//!
//! One JSON file, `$AGENTCTL_HOME/trust/trusted-projects.json`, in a folder of its own. The
//! folder is `0700` and the file `0600` whatever the umask, since the file decides what runs.
//! Every change is made under an exclusive lock (`trust/lock`), read from disk again under
//! it, and written to a temporary file renamed over the old one, so two agentctl processes
//! recording scripts at once lose neither record, and a crash leaves the old file whole.

use super::scripts::ServerScript;
use crate::input::{InputLimit, read_input_file};
use agentctl_private_files::{
    DIR_MODE, create_private_dir_all, prepare_private_file, write_private,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The store's folder under the agentctl home.
pub const TRUST_DIR: &str = "trust";

/// The store's file in [`TRUST_DIR`].
pub const TRUST_FILE: &str = "trusted-projects.json";

/// The lock file beside it.
const LOCK_FILE: &str = "lock";

/// The version of the file format this agentctl writes.
const VERSION: u32 = 1;

/// Why the trust store could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// The store file was refused or could not be read.
    #[error(transparent)]
    Read(#[from] crate::InputFileError),
    /// The store file is not what this agentctl writes.
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The store was written by a newer agentctl.
    #[error("{path}: format version {found} is newer than this agentctl's ({VERSION})")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version it says.
        found: u32,
    },
    /// A file or folder of the store could not be created, locked or written.
    #[error("{path}: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The project folder cannot be named in the store (it does not exist, or its path is
    /// not UTF-8).
    #[error("{path}: cannot be recorded as a project: {message}")]
    Project {
        /// The folder.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// What the store holds about one project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRecord {
    /// The project's policy files as the user trusted them; `None` while not trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trusted: Option<TrustedFiles>,
    /// Hashes of the files project MCP servers run: server name → file (relative to the
    /// project root) → record.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scripts: BTreeMap<String, BTreeMap<String, ScriptRecord>>,
}

/// The policy files of a trusted project, as they were when trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrustedFiles {
    /// When, in seconds since the Unix epoch.
    pub trusted_at: u64,
    /// SHA-256 (hex) of each policy file that existed, by path relative to the project root
    /// (see [`PROJECT_POLICY_FILES`](super::PROJECT_POLICY_FILES)); a file absent then is not
    /// listed.
    pub files: BTreeMap<String, String>,
}

/// The recorded hash of one file a project MCP server runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptRecord {
    /// SHA-256 of the contents, in hex.
    pub sha256: String,
    /// When it was recorded, in seconds since the Unix epoch.
    pub recorded_at: u64,
}

/// A file a project MCP server runs whose contents differ from the hash recorded for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptChange {
    /// The server (its name in settings, or `name@agent` for an agent's own server).
    pub server: String,
    /// The file, relative to the project root.
    pub file: String,
    /// The hash recorded when it was last approved.
    pub recorded: String,
    /// The hash of the file now.
    pub current: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TrustFile {
    version: u32,
    #[serde(default)]
    projects: BTreeMap<String, ProjectRecord>,
}

/// The trust store of one agentctl home.
///
/// ```
/// let home = tempfile::tempdir()?;
/// let project = tempfile::tempdir()?;
/// let store = agentctl_config::TrustStore::new(home.path());
/// assert_eq!(store.project(project.path())?, None);
/// store.trust_files(project.path(), [(".agentctl/settings.json".to_owned(), "ab12".to_owned())].into())?;
/// assert!(store.project(project.path())?.unwrap().trusted.is_some());
/// assert!(store.revoke(project.path())?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    dir: PathBuf,
}

impl TrustStore {
    /// The store of the agentctl home `agentctl_home`.
    pub fn new(agentctl_home: &Path) -> Self {
        Self {
            dir: agentctl_home.join(TRUST_DIR),
        }
    }

    /// The store's file.
    pub fn path(&self) -> PathBuf {
        self.dir.join(TRUST_FILE)
    }

    /// What the store holds about the project at `root`; `None` when nothing.
    pub fn project(&self, root: &Path) -> Result<Option<ProjectRecord>, TrustError> {
        let key = project_key(root)?;
        Ok(self.read()?.projects.remove(&key))
    }

    /// Records the project's policy files (path → SHA-256) as trusted now, replacing what
    /// was trusted before; recorded scripts are kept.
    pub fn trust_files(
        &self,
        root: &Path,
        files: BTreeMap<String, String>,
    ) -> Result<TrustedFiles, TrustError> {
        let key = project_key(root)?;
        let trusted = TrustedFiles {
            trusted_at: now(),
            files,
        };
        self.update(|store| {
            store.projects.entry(key).or_default().trusted = Some(trusted.clone());
        })?;
        Ok(trusted)
    }

    /// Forgets the project: its trust and its recorded scripts. False when there was nothing.
    pub fn revoke(&self, root: &Path) -> Result<bool, TrustError> {
        let key = project_key(root)?;
        self.update(|store| store.projects.remove(&key).is_some())
    }

    /// Compares a server's scripts with their records. On first use (no record yet for any
    /// changed file) the hashes are recorded and nothing is returned; a file whose hash
    /// differs from its record is returned and nothing is recorded: the server must not start
    /// until [`record_scripts`](Self::record_scripts) approves it again.
    pub fn check_scripts(
        &self,
        root: &Path,
        server: &str,
        scripts: &[ServerScript],
    ) -> Result<Vec<ScriptChange>, TrustError> {
        if scripts.is_empty() {
            return Ok(Vec::new());
        }
        let key = project_key(root)?;
        self.update(|store| {
            let record = store.projects.entry(key).or_default();
            let recorded = record.scripts.entry(server.to_owned()).or_default();
            let changes: Vec<ScriptChange> = scripts
                .iter()
                .filter_map(|script| {
                    let old = recorded.get(&script.relative)?;
                    (old.sha256 != script.sha256).then(|| ScriptChange {
                        server: server.to_owned(),
                        file: script.relative.clone(),
                        recorded: old.sha256.clone(),
                        current: script.sha256.clone(),
                    })
                })
                .collect();
            if changes.is_empty() {
                record_all(recorded, scripts, false);
            }
            changes
        })
    }

    /// Records a server's scripts as they are now (the user approved them).
    pub fn record_scripts(
        &self,
        root: &Path,
        server: &str,
        scripts: &[ServerScript],
    ) -> Result<(), TrustError> {
        let key = project_key(root)?;
        self.update(|store| {
            let record = store.projects.entry(key).or_default();
            record_all(
                record.scripts.entry(server.to_owned()).or_default(),
                scripts,
                true,
            );
        })
    }

    /// Reads the store; a missing file is an empty store.
    fn read(&self) -> Result<TrustFile, TrustError> {
        let path = self.path();
        let text = match read_input_file(&path, InputLimit::TRUST_FILE) {
            Ok(text) => text,
            Err(error) if error.is_not_found() => return Ok(TrustFile::default()),
            Err(error) => return Err(error.into()),
        };
        let file: TrustFile = serde_json::from_str(&text).map_err(|error| TrustError::Parse {
            path: path.clone(),
            line: error.line(),
            column: error.column(),
            message: error.to_string(),
        })?;
        if file.version > VERSION {
            return Err(TrustError::Version {
                path,
                found: file.version,
            });
        }
        Ok(file)
    }

    /// Reads, changes and writes the store under its lock.
    fn update<T>(&self, change: impl FnOnce(&mut TrustFile) -> T) -> Result<T, TrustError> {
        create_private_dir(&self.dir)?;
        let _lock = Lock::take(&self.dir.join(LOCK_FILE))?;
        let before = self.read()?;
        let mut store = before.clone();
        let result = change(&mut store);
        store.version = VERSION;
        store
            .projects
            .retain(|_, record| record != &ProjectRecord::default());
        // A server that starts with its files as recorded changes nothing: no write.
        if store != before {
            self.write(&store)?;
        }
        Ok(result)
    }

    fn write(&self, store: &TrustFile) -> Result<(), TrustError> {
        let path = self.path();
        let fail = |source| TrustError::Write {
            path: path.clone(),
            source,
        };
        let mut text = serde_json::to_string_pretty(store).map_err(|error| fail(error.into()))?;
        text.push('\n');
        write_private(&path, text.as_bytes()).map_err(fail)
    }
}

fn record_all(
    recorded: &mut BTreeMap<String, ScriptRecord>,
    scripts: &[ServerScript],
    replace: bool,
) {
    let at = now();
    for script in scripts {
        if replace || !recorded.contains_key(&script.relative) {
            recorded.insert(
                script.relative.clone(),
                ScriptRecord {
                    sha256: script.sha256.clone(),
                    recorded_at: at,
                },
            );
        }
    }
}

/// How the store names a project: its canonical path.
fn project_key(root: &Path) -> Result<String, TrustError> {
    let fail = |message: String| TrustError::Project {
        path: root.to_path_buf(),
        message,
    };
    let canonical = root
        .canonicalize()
        .map_err(|error| fail(error.to_string()))?;
    canonical
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| fail("the path is not UTF-8".into()))
}

/// Seconds since the Unix epoch (0 if the clock is before it).
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// Creates `dir` (and its parents) private, and makes it `0700` whatever it was: the folder is
/// agentctl's own, and what it holds decides what runs.
fn create_private_dir(dir: &Path) -> Result<(), TrustError> {
    let fail = |source| TrustError::Write {
        path: dir.to_path_buf(),
        source,
    };
    create_private_dir_all(dir).map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE)).map_err(fail)?;
    }
    Ok(())
}

/// An exclusive lock on the store, released on drop (when the file is closed).
struct Lock {
    _file: File,
}

impl Lock {
    fn take(path: &Path) -> Result<Self, TrustError> {
        let fail = |source| TrustError::Write {
            path: path.to_path_buf(),
            source,
        };
        prepare_private_file(path).map_err(fail)?;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(fail)?;
        #[cfg(unix)]
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|error| fail(error.into()))?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(relative: &str, sha256: &str) -> ServerScript {
        ServerScript {
            path: relative.into(),
            relative: relative.into(),
            sha256: sha256.into(),
        }
    }

    #[test]
    fn first_use_records_and_a_change_is_reported_until_approved() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let store = TrustStore::new(home.path());
        let root = project.path();
        assert!(
            store
                .check_scripts(root, "srv", &[script("a.py", "1")])
                .unwrap()
                .is_empty()
        );
        assert!(
            store
                .check_scripts(root, "srv", &[script("a.py", "1")])
                .unwrap()
                .is_empty()
        );
        let changes = store
            .check_scripts(root, "srv", &[script("a.py", "2"), script("b.py", "3")])
            .unwrap();
        assert_eq!(
            changes,
            [ScriptChange {
                server: "srv".into(),
                file: "a.py".into(),
                recorded: "1".into(),
                current: "2".into()
            }]
        );
        let record = store.project(root).unwrap().unwrap();
        assert!(
            !record.scripts["srv"].contains_key("b.py"),
            "nothing recorded on a change"
        );
        store
            .record_scripts(root, "srv", &[script("a.py", "2"), script("b.py", "3")])
            .unwrap();
        assert!(
            store
                .check_scripts(root, "srv", &[script("a.py", "2"), script("b.py", "3")])
                .unwrap()
                .is_empty()
        );
        // Another server's record of the same file is its own.
        assert!(
            store
                .check_scripts(root, "other", &[script("a.py", "9")])
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_broken_or_newer_store_is_an_error_naming_the_file() {
        let home = tempfile::tempdir().unwrap();
        let store = TrustStore::new(home.path());
        std::fs::create_dir_all(home.path().join(TRUST_DIR)).unwrap();
        std::fs::write(store.path(), "{\"version\": 1, \"projects\": [}").unwrap();
        let error = store.project(home.path()).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("{}:1:", store.path().display())),
            "{error}"
        );
        std::fs::write(store.path(), "{\"version\": 7}").unwrap();
        let error = store.project(home.path()).unwrap_err().to_string();
        assert!(
            error.ends_with("format version 7 is newer than this agentctl's (1)"),
            "{error}"
        );
        // Nothing is written over a file that could not be read.
        assert!(store.revoke(home.path()).is_err());
        assert_eq!(
            std::fs::read_to_string(store.path()).unwrap(),
            "{\"version\": 7}"
        );
    }
}

//! Which session store a front end opens: the embedded SQLite file by default, or the one
//! `AGENTCTL_DATABASE_URL` / settings `store.url` name — a PostgreSQL database shared by
//! several machines (`postgres://…`) or another SQLite file (`sqlite://PATH` or a path).

use crate::error::SessionError;
use crate::secrets::url_passwords;
use agentctl_core::Redactor;
use agentctl_memory::{MemoryBackend, MemoryError, MemoryStore};
use agentctl_private_files::Tightened;
use agentctl_store::{ContextError, SessionImport, SessionStore};
use agentctl_store_postgres::{PgStore, is_postgres_url, mask_url};
use agentctl_store_sqlite::SqliteStore;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The environment variable naming the session store; it wins over settings `store.url`.
pub const DATABASE_URL_VAR: &str = "AGENTCTL_DATABASE_URL";

/// Files agentctl made private as it opened its stores — a session database, long-term
/// memory, their WAL and journal files, readable by others until then — kept for the front end
/// to report once ("tightened .agentctl/sessions.db from 0644 to 0600"). Clones share one list:
/// a [`Project`](crate::Project), the runtime builders and runners made from it record into
/// the same one.
#[derive(Debug, Clone, Default)]
pub struct TightenedFiles(Arc<Mutex<Vec<Tightened>>>);

impl TightenedFiles {
    /// Takes the notices recorded so far (a second call returns only newer ones).
    pub fn take(&self) -> Vec<Tightened> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Records `notices`.
    pub(crate) fn record(&self, notices: &[Tightened]) {
        if !notices.is_empty() {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(notices);
        }
    }
}

/// A store that can also take sessions copied from another
/// (`agentctl sessions migrate`): both backends are.
pub trait MigratableStore: SessionStore + SessionImport {}

impl<T: SessionStore + SessionImport + ?Sized> MigratableStore for T {}

/// An empty session store in memory, gone with the last handle: for a session whose tools
/// must see a store (`task`, session memory) while nothing may be written to the project's
/// own (`agents tools` assembles the tool set a run would get this way).
///
/// # Errors
///
/// [`SessionError::Store`] when SQLite cannot open it.
pub fn in_memory_store() -> Result<Arc<dyn SessionStore>, SessionError> {
    Ok(Arc::new(SqliteStore::open_in_memory()?))
}

/// Where sessions are stored.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// A SQLite file (the embedded store).
    Sqlite(PathBuf),
    /// A PostgreSQL database, by URL (which may hold a password: [`Display`](std::fmt::Display)
    /// masks it).
    Postgres(String),
}

impl std::fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreLocation::Sqlite(path) => write!(f, "{}", path.display()),
            StoreLocation::Postgres(url) => f.write_str(&mask_url(url)),
        }
    }
}

impl std::fmt::Debug for StoreLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreLocation::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            StoreLocation::Postgres(url) => {
                f.debug_tuple("Postgres").field(&mask_url(url)).finish()
            }
        }
    }
}

impl StoreLocation {
    /// Reads a store URL: `postgres://…` or `postgresql://…`; `sqlite://PATH` or `sqlite:PATH`;
    /// anything else without a scheme is a SQLite file's path. Relative paths are relative to
    /// `base` (the project root).
    ///
    /// ```
    /// use agentctl_session::StoreLocation;
    /// use std::path::{Path, PathBuf};
    /// let root = Path::new("/work/app");
    /// assert_eq!(StoreLocation::parse("sqlite://.agentctl/team.db", root)?, StoreLocation::Sqlite(PathBuf::from("/work/app/.agentctl/team.db")));
    /// assert_eq!(StoreLocation::parse("sqlite:///srv/sessions.db", root)?, StoreLocation::Sqlite(PathBuf::from("/srv/sessions.db")));
    /// let shared = StoreLocation::parse("postgres://me:pw@db/agents", root)?;
    /// assert_eq!(shared.to_string(), "postgres://me:***@db/agents");
    /// assert!(StoreLocation::parse("mysql://db/agents", root).is_err());
    /// # Ok::<(), agentctl_store::ContextError>(())
    /// ```
    pub fn parse(text: &str, base: &Path) -> Result<Self, ContextError> {
        let text = text.trim();
        if is_postgres_url(text) {
            return Ok(StoreLocation::Postgres(text.to_owned()));
        }
        let invalid = |message: &str| ContextError::Backend {
            store: mask_url(text),
            message: message.to_owned(),
            retryable: false,
        };
        // libpq's `host=… dbname=…` form would otherwise name a SQLite file.
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() > 1 && words.iter().all(|word| word.contains('=')) {
            // Not echoed: the words may hold a password.
            return Err(ContextError::Backend {
                store: format!("{DATABASE_URL_VAR} / store.url"),
                message: "connection settings as `key=value` words are not supported: write \
                          them as a URL, postgres://USER@HOST:PORT/DATABASE?PARAM=VALUE"
                    .into(),
                retryable: false,
            });
        }
        let path = match text.split_once(':') {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("sqlite") => {
                rest.strip_prefix("//").unwrap_or(rest)
            }
            Some((scheme, _))
                if text.contains("://")
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
            {
                return Err(invalid(
                    "not a store URL agentctl knows: use postgres://USER@HOST:PORT/DATABASE, \
                     sqlite://PATH or a path",
                ));
            }
            _ => text,
        };
        if path.is_empty() {
            return Err(invalid("the store URL names no file"));
        }
        Ok(StoreLocation::Sqlite(base.join(path)))
    }

    /// True for a store shared over the network (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        matches!(self, StoreLocation::Postgres(_))
    }

    /// Where agents' long-term memory lives with these sessions: `memory.db` beside a SQLite
    /// session file, or the same PostgreSQL database.
    ///
    /// ```
    /// use agentctl_session::StoreLocation;
    /// let local = StoreLocation::Sqlite("/work/app/.agentctl/sessions.db".into());
    /// assert_eq!(local.memory(), StoreLocation::Sqlite("/work/app/.agentctl/memory.db".into()));
    /// ```
    pub fn memory(&self) -> StoreLocation {
        match self {
            StoreLocation::Sqlite(path) => StoreLocation::Sqlite(MemoryStore::path_beside(path)),
            StoreLocation::Postgres(url) => StoreLocation::Postgres(url.clone()),
        }
    }

    /// Opens this location as a long-term memory store (see [`memory`](Self::memory) for
    /// where a session store keeps it), masking `secrets`; `None` for a SQLite file that does
    /// not exist when `create` is false. A SQLite file that others could read is made private,
    /// with a notice in `tightened`.
    pub fn open_memory(
        &self,
        secrets: Redactor,
        create: bool,
        tightened: &TightenedFiles,
    ) -> Result<Option<Arc<dyn MemoryBackend>>, MemoryError> {
        match self {
            StoreLocation::Sqlite(path) => {
                if !create && !path.exists() {
                    return Ok(None);
                }
                let store = MemoryStore::open(path)?.with_redactor(secrets);
                tightened.record(store.tightened());
                Ok(Some(Arc::new(store)))
            }
            StoreLocation::Postgres(url) => {
                let secrets = secrets.with(url_passwords(url));
                let store = PgStore::connect(url)
                    .map_err(|error| MemoryError::Backend {
                        store: mask_url(url),
                        message: error.to_string(),
                    })?
                    .with_redactor(secrets);
                Ok(Some(Arc::new(store)))
            }
        }
    }

    /// Opens the store, masking `secrets` in what it writes (and the URL's password in its
    /// errors); `None` for a SQLite file that does not exist when `create` is false (a server
    /// database always exists: it is created by whoever runs the server). A project's SQLite
    /// store gets a `.agentctl/.gitignore`; a SQLite file is created private, and one that
    /// others could read is made private, with a notice in `tightened`.
    pub fn open(
        &self,
        secrets: Redactor,
        create: bool,
        tightened: &TightenedFiles,
    ) -> Result<Option<Arc<dyn MigratableStore>>, SessionError> {
        match self {
            StoreLocation::Sqlite(path) => {
                if !create && !path.exists() {
                    return Ok(None);
                }
                let store = SqliteStore::open(path)?.with_redactor(secrets);
                tightened.record(store.tightened());
                crate::gitignore::keep_out_of_git(path);
                Ok(Some(Arc::new(store)))
            }
            StoreLocation::Postgres(url) => {
                let secrets = secrets.with(url_passwords(url));
                let store = PgStore::connect(url)?.with_redactor(secrets);
                Ok(Some(Arc::new(store)))
            }
        }
    }
}

/// Where the store of a project is: `chosen` (`AGENTCTL_DATABASE_URL` or settings
/// `store.url`) read relative to `root`, else the embedded file at `default`.
pub(crate) fn resolve_location(
    chosen: Option<&str>,
    root: &Path,
    default: &Path,
) -> Result<StoreLocation, ContextError> {
    match chosen.filter(|url| !url.trim().is_empty()) {
        Some(url) => StoreLocation::parse(url, root),
        None => Ok(StoreLocation::Sqlite(default.to_path_buf())),
    }
}

/// How a runner finds its store: the choice as written, parsed when a session opens (so a bad
/// URL is an error of the run, not of building the runner), and the PostgreSQL store once
/// opened (a pool and its thread are worth keeping; SQLite files are opened per session, as
/// each connection serialises its own calls).
pub(crate) struct StoreSpec {
    pub(crate) chosen: Option<String>,
    pub(crate) root: PathBuf,
    pub(crate) default: PathBuf,
    opened: std::sync::Mutex<Option<Arc<dyn SessionStore>>>,
}

impl StoreSpec {
    pub(crate) fn new(chosen: Option<String>, root: PathBuf, default: PathBuf) -> Self {
        Self {
            chosen,
            root,
            default,
            opened: std::sync::Mutex::new(None),
        }
    }

    /// Where the store is.
    pub(crate) fn location(&self) -> Result<StoreLocation, ContextError> {
        resolve_location(self.chosen.as_deref(), &self.root, &self.default)
    }

    /// The store, opened (created) with `secrets`; files made private are noted in
    /// `tightened`.
    pub(crate) fn open(
        &self,
        secrets: &Redactor,
        tightened: &TightenedFiles,
    ) -> Result<Arc<dyn SessionStore>, SessionError> {
        let location = resolve_location(self.chosen.as_deref(), &self.root, &self.default)?;
        if !location.is_shared() {
            return location
                .open(secrets.clone(), true, tightened)?
                .map(|store| store as Arc<dyn SessionStore>)
                .ok_or_else(|| SessionError::Store(missing(&location)));
        }
        let mut opened = self
            .opened
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(store) = opened.as_ref() {
            return Ok(Arc::clone(store));
        }
        let store = location
            .open(secrets.clone(), true, tightened)?
            .map(|store| store as Arc<dyn SessionStore>)
            .ok_or_else(|| SessionError::Store(missing(&location)))?;
        *opened = Some(Arc::clone(&store));
        Ok(store)
    }
}

fn missing(location: &StoreLocation) -> ContextError {
    ContextError::Backend {
        store: location.to_string(),
        message: "the store could not be opened".into(),
        retryable: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        let root = Path::new("/p");
        let parse = |text: &str| StoreLocation::parse(text, root);
        assert_eq!(
            parse("s.db").unwrap(),
            StoreLocation::Sqlite("/p/s.db".into())
        );
        assert_eq!(
            parse("/abs/s.db").unwrap(),
            StoreLocation::Sqlite("/abs/s.db".into())
        );
        assert_eq!(
            parse("sqlite:rel.db").unwrap(),
            StoreLocation::Sqlite("/p/rel.db".into())
        );
        assert_eq!(
            parse("SQLite://x.db").unwrap(),
            StoreLocation::Sqlite("/p/x.db".into())
        );
        assert!(parse("postgresql://h/d").unwrap().is_shared());
        for bad in [
            "sqlite://",
            "",
            "http://example.com/x",
            "mysql://u:pw@h/d",
            "host=db user=me password=pw",
        ] {
            let error = parse(bad).unwrap_err().to_string();
            assert!(!error.contains(":pw@") && !error.contains("=pw"), "{error}");
        }
        let url = "postgres://u:hunter22@h/d";
        let location = parse(url).unwrap();
        assert_eq!(
            format!("{location} {location:?}"),
            "postgres://u:***@h/d Postgres(\"postgres://u:***@h/d\")"
        );
    }
}

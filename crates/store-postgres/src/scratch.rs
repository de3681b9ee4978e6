//! [`ScratchDatabase`]: an empty database of its own for each test, dropped afterwards.

use crate::url::{PgUrl, mask_url};
use agentctl_store::{ContextError, Result};

/// An empty database created on a server for one test (or one throwaway run), dropped —
/// with any connection still open to it — when this value is dropped.
///
/// `server_url` names a database the user can connect to (`…/postgres`) and a user allowed to
/// create databases; the new database's URL is the same with another database name.
///
/// ```no_run
/// use agentctl_store_postgres::{PgStore, ScratchDatabase};
/// let scratch = ScratchDatabase::create("postgres://agentctl@127.0.0.1:5432/postgres")?;
/// let store = PgStore::connect(scratch.url())?;
/// # Ok::<(), agentctl_store::ContextError>(())
/// ```
#[derive(Debug)]
pub struct ScratchDatabase {
    server: String,
    name: String,
    url: String,
}

impl ScratchDatabase {
    /// Creates `agentctl_test_<pid>_<random>` on the server of `server_url`.
    pub fn create(server_url: &str) -> Result<Self> {
        let name = format!(
            "agentctl_test_{}_{:016x}",
            std::process::id(),
            fastrand::u64(..)
        );
        // The name is ours (lowercase letters, digits, `_`): an identifier cannot be a parameter.
        admin(server_url, format!("CREATE DATABASE \"{name}\""))?;
        Ok(Self {
            url: with_database(server_url, &name),
            server: server_url.to_owned(),
            name,
        })
    }

    /// The new database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The new database's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        let _ = admin(
            &self.server,
            format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name),
        );
    }
}

/// `url` naming the database `name` instead of its own.
fn with_database(url: &str, name: &str) -> String {
    let start = url.find("://").map_or(0, |at| at + 3);
    let rest = &url[start..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let after = &rest[authority_end..];
    let query = after.find('?').map_or("", |at| &after[at..]);
    format!("{}/{name}{query}", &url[..start + authority_end])
}

/// Runs one statement on the server, from a thread of its own (callers may be inside a
/// runtime).
fn admin(server_url: &str, sql: String) -> Result<()> {
    let url = PgUrl::parse(server_url)?;
    let fail = |message: String| ContextError::Backend {
        store: url.label.clone(),
        message: url.mask(&message),
        retryable: false,
    };
    let tls = url.connector()?;
    let config = url.config.clone();
    let outcome = std::thread::spawn(move || -> std::result::Result<(), String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| error.to_string())?;
        runtime.block_on(async move {
            let error = |error: tokio_postgres::Error| match error.as_db_error() {
                Some(db) => db.message().to_owned(),
                None => error.to_string(),
            };
            let client = match tls {
                crate::url::Connector::Plain => {
                    let (client, connection) =
                        config.connect(tokio_postgres::NoTls).await.map_err(error)?;
                    tokio::spawn(connection);
                    client
                }
                crate::url::Connector::Rustls(tls) => {
                    let (client, connection) = config.connect(tls).await.map_err(error)?;
                    tokio::spawn(connection);
                    client
                }
            };
            client.batch_execute(&sql).await.map_err(error)
        })
    })
    .join()
    .map_err(|_| fail(format!("{} panicked", mask_url(server_url))))?;
    outcome.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_name_is_replaced() {
        assert_eq!(
            with_database("postgres://u:p@h:5/postgres?sslmode=disable", "t1"),
            "postgres://u:p@h:5/t1?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "t1"), "postgres://h/t1");
        assert_eq!(
            with_database("postgres://h?x=1", "t1"),
            "postgres://h/t1?x=1"
        );
    }
}

//! Which runs still have a live process behind them, across machines.
//!
//! The SQLite store asks `/proc` whether a run's process is alive; a shared store cannot, as
//! the process may run on another host. So each store that starts runs holds, on a connection
//! of its own (outside the pool), a session-level advisory lock on a random 62-bit key: its
//! *client key*, recorded with each run it starts (`agent_runs.owner_client`). The server
//! releases the lock the moment that connection ends — the process exited, was killed, or its
//! host went away (after TCP keepalive gives up) — so a run is stale exactly when no
//! connection holds its client's lock (`pg_locks`), with no clocks or heartbeats to tune.
//!
//! The connection is opened on the first run; if it breaks, it is opened again and the lock
//! taken again. Between the two, another process resuming the session may mark this store's
//! running runs `interrupted`; finishing such a run still records how it ended.

use crate::url::{Connector, PgUrl};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::OnceCell;

/// The held lock, shared by the store's operations.
#[derive(Debug)]
pub(crate) struct Presence {
    /// This store's client key.
    pub(crate) key: i64,
    /// Set once the lock is first held.
    held: OnceCell<()>,
}

/// `pg_locks` holds an advisory lock on a bigint key as `classid` (high 32 bits) and `objid`
/// (low 32 bits) with `objsubid = 1`; the SQL that asks whether a run's owner is alive.
pub(crate) const OWNER_ALIVE: &str = "EXISTS (SELECT 1 FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND l.classid::bigint = (r.owner_client >> 32)
      AND l.objid::bigint = (r.owner_client & 4294967295))";

impl Presence {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            // Non-negative, so the shifts in `OWNER_ALIVE` split it as the server does.
            key: i64::try_from(fastrand::u64(1..1 << 62)).unwrap_or(1),
            held: OnceCell::new(),
        })
    }

    /// Waits until the lock is held, opening the connection that holds it on first use.
    pub(crate) async fn ensure(
        self: &Arc<Self>,
        url: &PgUrl,
        tls: &Connector,
    ) -> Result<(), tokio_postgres::Error> {
        self.held
            .get_or_try_init(|| async {
                let connection = hold(url, tls, self.key).await?;
                tokio::spawn(keep(Arc::clone(self), url.clone(), tls.clone(), connection));
                Ok(())
            })
            .await
            .map(drop)
    }
}

/// A connection holding the lock: its client (which must stay alive) and the task driving it.
type Held = (tokio_postgres::Client, tokio::task::JoinHandle<()>);

/// Connects and takes the lock.
async fn hold(url: &PgUrl, tls: &Connector, key: i64) -> Result<Held, tokio_postgres::Error> {
    let (client, task) = match tls.clone() {
        Connector::Rustls(tls) => {
            let (client, connection) = url.config.connect(tls).await?;
            (
                client,
                tokio::spawn(async move {
                    let _ = connection.await;
                }),
            )
        }
        Connector::Plain => {
            let (client, connection) = url.config.connect(tokio_postgres::NoTls).await?;
            (
                client,
                tokio::spawn(async move {
                    let _ = connection.await;
                }),
            )
        }
    };
    client
        .execute("SELECT pg_advisory_lock($1)", &[&key])
        .await?;
    Ok((client, task))
}

/// Keeps the lock: when the connection ends, connects again (with a growing pause) and takes
/// it again, for as long as the store lives (its runtime drops this task).
async fn keep(presence: Arc<Presence>, url: PgUrl, tls: Connector, mut held: Held) {
    loop {
        let (_client, task) = held;
        let _ = task.await;
        let mut pause = Duration::from_millis(100);
        held = loop {
            tokio::time::sleep(pause).await;
            match hold(&url, &tls, presence.key).await {
                Ok(held) => break held,
                Err(_) => pause = (pause * 2).min(Duration::from_secs(10)),
            }
        };
    }
}

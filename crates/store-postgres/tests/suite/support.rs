//! A scratch database per test, and plain SQL on it from the test.

use agentctl_store_postgres::ScratchDatabase;
use agentctl_test_support::postgres_url;

/// A fresh database on the test server; `None` (the test then passes without running) when
/// there is no server outside CI.
pub fn scratch() -> Option<ScratchDatabase> {
    let server = postgres_url()?;
    Some(ScratchDatabase::create(&server).unwrap())
}

/// A plain connection to `url` on a runtime of its own, for the SQL a test runs itself.
pub struct Sql {
    pub runtime: tokio::runtime::Runtime,
    pub client: tokio_postgres::Client,
}

impl Sql {
    pub fn connect(url: &str) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let client = runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            client
        });
        Self { runtime, client }
    }

    /// Runs statements without results.
    pub fn batch(&self, sql: &str) {
        self.runtime
            .block_on(self.client.batch_execute(sql))
            .unwrap();
    }

    /// The first column of every row, as text.
    pub fn column(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Vec<String> {
        self.runtime
            .block_on(self.client.query(sql, params))
            .unwrap()
            .iter()
            .map(|row| row.get::<_, String>(0))
            .collect()
    }
}

//! Recall by meaning on PostgreSQL takes one of two paths: pgvector's cosine distance in the
//! database when `CREATE EXTENSION vector` was run there, else cosine similarity in the client.
//! Both must rank the same data the same way.
//!
//! Needs a server (`AGENTCTL_TEST_DATABASE_URL`) with Debian's `postgresql-NN-pgvector`
//! installed (`.ci/run` installs the one matching the server): under CI a missing extension
//! fails the test; elsewhere it prints SKIPPED (with `AGENTCTL_TEST_ALLOW_SKIPS=1`).

use agentctl_memory::{Embedding, MemoryBackend, MemoryQuery, NewMemory};
use agentctl_store_postgres::{PgStore, ScratchDatabase, SimilarityRanker};
use agentctl_test_support::{fake_embedding, postgres_url, requirement};

/// Runs `sql` in the database at `url`.
fn execute(url: &str, sql: &str) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| error.to_string())?;
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .map_err(|error| error.to_string())?;
        let driver = tokio::spawn(connection);
        let done = client.batch_execute(sql).await.map_err(|error| {
            error
                .as_db_error()
                .map_or_else(|| error.to_string(), |db| db.message().to_owned())
        });
        drop(client);
        let _ = driver.await;
        done
    })
}

const FACTS: &[&str] = &[
    "the login page times out on slow networks",
    "login and auth tokens expire after an hour",
    "car parking is behind the office",
    "the database migration needs a lock on sessions",
    "postgres backups run nightly at two",
    "sqlite files live in the project folder",
    "signin fails when the clock is skewed",
    "bake bread on fridays",
    "the vehicle fleet is serviced monthly",
    "authentication uses short lived tokens and a login cookie",
];

fn filled(url: &str) -> PgStore {
    let store = PgStore::connect(url).unwrap();
    for fact in FACTS {
        let mut memory = NewMemory::new("debugger", *fact);
        memory.embedding = Some(Embedding {
            model: "fake:bag-of-words".into(),
            vector: fake_embedding(fact),
        });
        store.remember(memory).unwrap();
    }
    store
}

#[test]
fn pgvector_and_the_client_rank_memories_alike() {
    let Some(server) = postgres_url() else {
        return;
    };
    let with = ScratchDatabase::create(&server).unwrap();
    let without = ScratchDatabase::create(&server).unwrap();
    let installed = execute(with.url(), "CREATE EXTENSION IF NOT EXISTS vector").map_err(|error| {
        format!(
            "pgvector is not installed on the PostgreSQL test server ({error}): install Debian's \
             postgresql-NN-pgvector for the server's version NN (.ci/run does)"
        )
    });
    if !requirement(installed) {
        return;
    }
    let (vector, client) = (filled(with.url()), filled(without.url()));
    assert_eq!(
        vector.similarity_ranker().unwrap(),
        SimilarityRanker::Pgvector
    );
    assert_eq!(
        client.similarity_ranker().unwrap(),
        SimilarityRanker::Client
    );
    for query in [
        "login auth",
        "database sqlite",
        "car",
        "tokens expire login",
    ] {
        let embedding = Embedding {
            model: "fake:bag-of-words".into(),
            vector: fake_embedding(query),
        };
        let ranked = |store: &PgStore| -> Vec<(String, f64)> {
            store
                .search(
                    &MemoryQuery::new("")
                        .agent("debugger")
                        .embedding(&embedding)
                        .limit(10),
                )
                .unwrap()
                .into_iter()
                .map(|hit| (hit.entry.content, hit.score))
                .collect()
        };
        let (by_vector, by_client) = (ranked(&vector), ranked(&client));
        assert!(!by_vector.is_empty(), "{query}");
        assert_eq!(by_vector, by_client, "{query}");
    }
    // Another model's vectors are never compared, on either path.
    let other = Embedding {
        model: "other:model".into(),
        vector: fake_embedding("login"),
    };
    for store in [&vector, &client] {
        let hits = store
            .search(&MemoryQuery::new("").embedding(&other))
            .unwrap();
        assert!(hits.is_empty());
    }
}

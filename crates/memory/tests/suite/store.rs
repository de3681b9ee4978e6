//! The store on real files: persistence, search, forgetting, limits, two writers at once.

use super::support::temp_store;
use agentctl_core::Redactor;
use agentctl_memory::{
    Embedding, Matched, MemoryError, MemoryQuery, MemoryStore, NewMemory, Remembered,
};
use agentctl_test_support::fake_embedding;
use serde_json::json;

fn remember(store: &MemoryStore, agent: &str, content: &str) -> i64 {
    store
        .remember(NewMemory::new(agent, content))
        .unwrap()
        .entry()
        .id
}

fn ids(hits: &[agentctl_memory::MemoryHit]) -> Vec<i64> {
    hits.iter().map(|hit| hit.entry.id).collect()
}

#[test]
fn entries_outlive_the_connection_and_are_found_by_stemmed_keywords() {
    let (_dir, path) = temp_store();
    let deploy = {
        let store = MemoryStore::open(&path).unwrap();
        let mut new = NewMemory::new(
            "ops",
            "Deploying on Fridays broke the release pipeline twice",
        );
        new.metadata = json!({"topic": "deploy"}).as_object().unwrap().clone();
        let id = store.remember(new).unwrap().entry().id;
        remember(&store, "ops", "The staging database lives on db-2");
        id
    };
    let store = MemoryStore::open(&path).unwrap();
    let hits = store
        .search(&MemoryQuery::new("friday deploy").agent("ops"))
        .unwrap();
    assert_eq!(ids(&hits), [deploy]);
    assert_eq!(hits[0].matched, Matched::Keyword);
    assert_eq!(hits[0].entry.metadata["topic"], "deploy");
    assert!(hits[0].score > 0.0);
    // The file is in WAL mode, so another process can write while this one reads.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn search_is_per_agent_and_ranked() {
    let store = MemoryStore::open_in_memory().unwrap();
    let weak = remember(
        &store,
        "a",
        "redis appears once in this long note about caching layers",
    );
    let strong = remember(&store, "a", "redis redis: the redis timeout is 5s");
    let other = remember(&store, "b", "redis belongs to b");
    let hits = store.search(&MemoryQuery::new("redis").agent("a")).unwrap();
    assert_eq!(ids(&hits), [strong, weak]);
    let everyone = store.search(&MemoryQuery::new("redis")).unwrap();
    assert!(ids(&everyone).contains(&other));
    assert_eq!(
        ids(&store
            .search(&MemoryQuery::new("redis").agent("a").limit(1))
            .unwrap()),
        [strong]
    );
    assert!(
        store
            .search(&MemoryQuery::new("absent").agent("a"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn forget_removes_an_entry_from_search_and_ids_are_never_reused() {
    let store = MemoryStore::open_in_memory().unwrap();
    let id = remember(&store, "a", "the cache key includes the locale");
    assert_eq!(store.search(&MemoryQuery::new("locale")).unwrap().len(), 1);
    // Another agent's name does not reach it.
    assert!(matches!(
        store.forget(id, Some("b")),
        Err(MemoryError::NotFound { .. })
    ));
    let forgotten = store.forget(id, Some("a")).unwrap();
    assert_eq!(forgotten.content, "the cache key includes the locale");
    assert!(
        store
            .search(&MemoryQuery::new("locale"))
            .unwrap()
            .is_empty()
    );
    assert!(store.get(id).unwrap().is_none());
    let error = store.forget(id, None).unwrap_err();
    assert_eq!(error.to_string(), format!("no memory #{id}"));
    let next = remember(&store, "a", "the cache key includes the locale");
    assert!(next > id);
}

#[test]
fn the_same_fact_twice_is_kept_once() {
    let store = MemoryStore::open_in_memory().unwrap();
    let first = store.remember(NewMemory::new("a", "use --locked")).unwrap();
    let again = store.remember(NewMemory::new("a", "use --locked")).unwrap();
    assert!(matches!(first, Remembered::Stored(_)));
    assert!(matches!(again, Remembered::Existing(ref entry) if entry.id == first.entry().id));
    // Another agent keeps its own copy.
    assert!(matches!(
        store.remember(NewMemory::new("b", "use --locked")).unwrap(),
        Remembered::Stored(_)
    ));
    assert_eq!(store.list(None).unwrap().len(), 2);
    assert_eq!(store.list(Some("a")).unwrap().len(), 1);
}

#[test]
fn secrets_are_masked_in_content_and_metadata() {
    let store = MemoryStore::open_in_memory()
        .unwrap()
        .with_redactor(Redactor::new(["sk-live-abcdef123456"]));
    let mut new = NewMemory::new("a", "the prod key is sk-live-abcdef123456, keep it");
    new.metadata = json!({"key": "sk-live-abcdef123456", "sk-live-abcdef123456": 1})
        .as_object()
        .unwrap()
        .clone();
    let entry = store.remember(new).unwrap().entry().clone();
    assert_eq!(entry.content, "the prod key is [REDACTED], keep it");
    assert_eq!(
        entry.metadata,
        *json!({"key": "[REDACTED]", "[REDACTED]": 1})
            .as_object()
            .unwrap()
    );
    let stored = store.get(entry.id).unwrap().unwrap();
    assert_eq!(stored, entry);
    // The secret itself finds nothing.
    assert!(
        store
            .search(&MemoryQuery::new("sk-live-abcdef123456 abcdef123456"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn limits_are_clear_errors() {
    let store = MemoryStore::open_in_memory().unwrap();
    let huge = "x".repeat(agentctl_memory::MAX_CONTENT_BYTES + 1);
    let error = store
        .remember(NewMemory::new("a", huge))
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("the memory is 16385 bytes, more than the 16 KiB"),
        "{error}"
    );
    let error = store
        .remember(NewMemory::new("a", " \n "))
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("the memory is empty"), "{error}");
    let mut fat = NewMemory::new("a", "fact");
    fat.metadata.insert("blob".into(), json!("y".repeat(5000)));
    let error = store.remember(fat).unwrap_err().to_string();
    assert!(
        error.starts_with("the metadata is 5011 bytes of JSON"),
        "{error}"
    );
    let mut bad = NewMemory::new("a", "fact");
    bad.embedding = Some(Embedding {
        model: "m".into(),
        vector: vec![f32::INFINITY],
    });
    assert!(store.remember(bad).is_err());
    assert!(store.list(None).unwrap().is_empty());
}

#[test]
fn one_agent_keeps_at_most_the_cap() {
    let (_dir, path) = temp_store();
    MemoryStore::open(&path).unwrap();
    // Filled behind the store's back, in one transaction: the cap is what is tested.
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    let tx = conn.transaction().unwrap();
    for i in 0..agentctl_memory::MAX_ENTRIES_PER_AGENT {
        tx.execute(
            "INSERT INTO memories (agent, content, created_at, content_hash) VALUES ('a', ?1, 0, ?2)",
            (format!("fact {i}"), i64::try_from(i).unwrap()),
        )
        .unwrap();
    }
    tx.commit().unwrap();
    let store = MemoryStore::open(&path).unwrap();
    let error = store.remember(NewMemory::new("a", "one more")).unwrap_err();
    assert!(matches!(error, MemoryError::Full { .. }), "{error}");
    assert!(error.to_string().contains("forget old ones"), "{error}");
    assert_eq!(
        error.hint(),
        Some(agentctl_core::Hint::ForgetMemories { agent: "a".into() })
    );
    // Others are not affected.
    remember(&store, "b", "one more");
}

#[test]
fn meaning_finds_what_words_miss_and_both_rank_first() {
    let store = MemoryStore::open_in_memory().unwrap();
    let embed = |text: &str| Embedding {
        model: "fake:bag-of-words".into(),
        vector: fake_embedding(text),
    };
    let with = |agent: &str, content: &str| {
        let mut new = NewMemory::new(agent, content);
        new.embedding = Some(embed(content));
        store.remember(new).unwrap().entry().id
    };
    let automobile = with("a", "the automobile needs new tyres");
    let both = with("a", "the car park closes at 8");
    let plain = remember(&store, "a", "car keys are in the drawer");
    let unrelated = with("a", "bake bread at 220 degrees");
    let other_agent = with("b", "the vehicle of b");
    let query = embed("car");
    let hits = store
        .search(&MemoryQuery::new("car").agent("a").embedding(&query))
        .unwrap();
    let found = ids(&hits);
    assert_eq!(found[0], both, "{hits:#?}");
    assert!(
        found.contains(&automobile) && found.contains(&plain),
        "{found:?}"
    );
    assert!(
        !found.contains(&unrelated) && !found.contains(&other_agent),
        "{found:?}"
    );
    let matched = |id| hits.iter().find(|hit| hit.entry.id == id).unwrap().matched;
    assert_eq!(matched(both), Matched::Both);
    assert_eq!(matched(automobile), Matched::Meaning);
    assert_eq!(matched(plain), Matched::Keyword);
    // Vectors of another model are not compared.
    let other_model = Embedding {
        model: "other:model".into(),
        vector: fake_embedding("car"),
    };
    let hits = store
        .search(
            &MemoryQuery::new("automobile")
                .agent("a")
                .embedding(&other_model),
        )
        .unwrap();
    assert_eq!(ids(&hits), [automobile]);
}

#[test]
fn two_writers_at_once_both_keep_every_entry() {
    let (_dir, path) = temp_store();
    MemoryStore::open(&path).unwrap();
    let writers: Vec<_> = (0..2)
        .map(|writer| {
            let path = path.clone();
            std::thread::spawn(move || {
                // Each its own connection, as two agentctl processes would have.
                let store = MemoryStore::open(&path).unwrap();
                for i in 0..40 {
                    store
                        .remember(NewMemory::new("a", format!("writer {writer} fact {i}")))
                        .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let store = MemoryStore::open(&path).unwrap();
    assert_eq!(store.list(Some("a")).unwrap().len(), 80);
    assert_eq!(
        store
            .search(&MemoryQuery::new("writer").limit(50))
            .unwrap()
            .len(),
        50
    );
}

#[test]
fn a_newer_schema_is_refused() {
    let (_dir, path) = temp_store();
    MemoryStore::open(&path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let error = MemoryStore::open(&path).unwrap_err().to_string();
    assert!(
        error.contains(
            "has schema version 99, newer than this agentctl supports (1): upgrade agentctl"
        ),
        "{error}"
    );
}

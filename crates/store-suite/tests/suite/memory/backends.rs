//! The long-term memory rules on every backend: the embedded SQLite store and the PostgreSQL
//! store (full-text search; cosine in the client, or pgvector where the database has it),
//! when `AGENTCTL_TEST_DATABASE_URL` names a server. One test per backend of each case.

use agentctl_core::Redactor;
use agentctl_memory::{
    Embedding, Matched, MemoryBackend, MemoryCopyReport, MemoryError, MemoryHit, MemoryQuery,
    MemoryStore, NewMemory, Remembered, copy_memories,
};
use agentctl_store_postgres::PgStore;
use agentctl_store_suite::{Backend, FreshStore};
use agentctl_test_support::fake_embedding;
use serde_json::json;
use std::sync::Arc;

/// An empty memory store of one backend, and what keeps it alive.
struct Fresh {
    store: Arc<dyn MemoryBackend>,
    open: Box<dyn Fn() -> Arc<dyn MemoryBackend>>,
    _keep: FreshStore,
}

fn fresh(backend: Backend, redactor: Redactor) -> Fresh {
    let keep = backend.fresh();
    let open: Box<dyn Fn() -> Arc<dyn MemoryBackend>> = match backend {
        Backend::Sqlite => {
            let path = keep.dir().unwrap().join(MemoryStore::FILE_NAME);
            Box::new(move || {
                Arc::new(
                    MemoryStore::open(&path)
                        .unwrap()
                        .with_redactor(redactor.clone()),
                )
            })
        }
        Backend::Postgres => {
            let url = keep.location.clone();
            Box::new(move || {
                Arc::new(
                    PgStore::connect(&url)
                        .unwrap()
                        .with_redactor(redactor.clone()),
                )
            })
        }
    };
    Fresh {
        store: open(),
        open,
        _keep: keep,
    }
}

macro_rules! on_each_backend {
    ($(fn $name:ident($fresh:ident) $body:block)*) => {
        $(
            mod $name {
                use super::*;

                fn case($fresh: &Fresh) $body

                #[test]
                fn sqlite() {
                    case(&fresh(Backend::Sqlite, Redactor::new(["sk-live-abcdef123456"])));
                }

                #[test]
                fn postgres() {
                    if agentctl_test_support::postgres_url().is_some() {
                        case(&fresh(Backend::Postgres, Redactor::new(["sk-live-abcdef123456"])));
                    }
                }
            }
        )*
    };
}

fn remember(store: &dyn MemoryBackend, agent: &str, content: &str) -> i64 {
    store
        .remember(NewMemory::new(agent, content))
        .unwrap()
        .entry()
        .id
}

fn ids(hits: &[MemoryHit]) -> Vec<i64> {
    hits.iter().map(|hit| hit.entry.id).collect()
}

on_each_backend! {
    fn stemmed_keywords_per_agent_ranked(fresh) {
        let store = &*fresh.store;
        let mut new = NewMemory::new("ops", "Deploying on Fridays broke the release pipeline twice");
        new.metadata = json!({"topic": "deploy"}).as_object().unwrap().clone();
        let deploy = store.remember(new).unwrap().entry().id;
        remember(store, "ops", "The staging database lives on db-2");
        let again = (fresh.open)();
        let hits = again.search(&MemoryQuery::new("friday deploy").agent("ops")).unwrap();
        assert_eq!(ids(&hits), [deploy]);
        assert_eq!(hits[0].matched, Matched::Keyword);
        assert_eq!(hits[0].entry.metadata["topic"], "deploy");
        assert!(hits[0].score > 0.0);
        let weak = remember(store, "a", "redis appears once in this long note about caching layers");
        let strong = remember(store, "a", "redis redis: the redis timeout is 5s");
        let other = remember(store, "b", "redis belongs to b");
        assert_eq!(ids(&store.search(&MemoryQuery::new("redis").agent("a")).unwrap()), [strong, weak]);
        assert!(ids(&store.search(&MemoryQuery::new("redis")).unwrap()).contains(&other));
        assert_eq!(ids(&store.search(&MemoryQuery::new("redis").agent("a").limit(1)).unwrap()), [strong]);
        assert!(store.search(&MemoryQuery::new("absent").agent("a")).unwrap().is_empty());
    }

    fn forget_dedup_list_and_get(fresh) {
        let store = &*fresh.store;
        let id = remember(store, "a", "the cache key includes the locale");
        assert!(matches!(store.forget(id, Some("b")), Err(MemoryError::NotFound { .. })));
        assert_eq!(store.forget(id, Some("a")).unwrap().content, "the cache key includes the locale");
        assert!(store.search(&MemoryQuery::new("locale")).unwrap().is_empty());
        assert!(store.get(id).unwrap().is_none());
        assert_eq!(store.forget(id, None).unwrap_err().to_string(), format!("no memory #{id}"));
        assert!(remember(store, "a", "the cache key includes the locale") > id, "ids are never reused");
        let first = store.remember(NewMemory::new("a", "use --locked")).unwrap();
        let again = store.remember(NewMemory::new("a", "use --locked")).unwrap();
        assert!(matches!(first, Remembered::Stored(_)));
        assert!(matches!(again, Remembered::Existing(ref entry) if entry.id == first.entry().id));
        assert!(matches!(store.remember(NewMemory::new("b", "use --locked")).unwrap(), Remembered::Stored(_)));
        assert_eq!(store.list(Some("a")).unwrap().len(), 2);
        let all = store.list(None).unwrap();
        assert_eq!(all.len(), 3);
        assert!(all.windows(2).all(|pair| pair[0].id > pair[1].id), "newest first");
        assert_eq!(store.get(all[0].id).unwrap().unwrap(), all[0]);
    }

    fn secrets_limits_and_hostile_text(fresh) {
        let store = &*fresh.store;
        let mut new = NewMemory::new("a", "the prod key is sk-live-abcdef123456, keep it");
        new.metadata = json!({"key": "sk-live-abcdef123456"}).as_object().unwrap().clone();
        let entry = store.remember(new).unwrap().entry().clone();
        assert_eq!(entry.content, "the prod key is [REDACTED], keep it");
        assert_eq!(entry.metadata["key"], "[REDACTED]");
        assert_eq!(store.get(entry.id).unwrap().unwrap(), entry);
        assert!(store.search(&MemoryQuery::new("sk-live-abcdef123456 abcdef123456")).unwrap().is_empty());
        assert!(store.remember(NewMemory::new("a", "x".repeat(agentctl_memory::MAX_CONTENT_BYTES + 1))).is_err());
        assert!(store.remember(NewMemory::new("a", " \n ")).is_err());
        assert!(store.remember(NewMemory::new(" ", "fact")).is_err());
        let mut bad = NewMemory::new("a", "fact");
        bad.embedding = Some(Embedding { model: "m".into(), vector: vec![f32::INFINITY] });
        assert!(store.remember(bad).is_err());
        remember(store, "a", "NEAR the OR gate, \"quoted\" text and a * star, it's 'single'");
        for query in ["\"", "*", "NEAR(", "OR", "AND NOT", "x | y & !z", "'", "''", "a:*", "\\", "'; DROP TABLE memories; --", "", "\0\u{1b}[31m", "the a of", "🙂", "ﬁ Ǆ"] {
            let hits = store.search(&MemoryQuery::new(query).agent("a")).unwrap();
            assert!(hits.len() <= 2, "{query:?}: {hits:?}");
        }
        assert_eq!(store.search(&MemoryQuery::new("gate star").agent("a")).unwrap().len(), 1);
        assert_eq!(store.list(None).unwrap().len(), 2);
        // Odd agent names are data.
        remember(store, "'); DELETE FROM memories; --", "still here");
        assert_eq!(store.list(Some("'); DELETE FROM memories; --")).unwrap().len(), 1);
        assert_eq!(store.list(None).unwrap().len(), 3);
    }

    fn meaning_finds_what_words_miss_and_both_rank_first(fresh) {
        let store = &*fresh.store;
        let embed = |text: &str| Embedding { model: "fake:bag-of-words".into(), vector: fake_embedding(text) };
        let with = |agent: &str, content: &str| {
            let mut new = NewMemory::new(agent, content);
            new.embedding = Some(embed(content));
            store.remember(new).unwrap().entry().id
        };
        let automobile = with("a", "the automobile needs new tyres");
        let both = with("a", "the car park closes at 8");
        let plain = remember(store, "a", "car keys are in the drawer");
        let unrelated = with("a", "bake bread at 220 degrees");
        let other_agent = with("b", "the vehicle of b");
        let query = embed("car");
        let hits = store.search(&MemoryQuery::new("car").agent("a").embedding(&query)).unwrap();
        let found = ids(&hits);
        assert_eq!(found[0], both, "{hits:#?}");
        assert!(found.contains(&automobile) && found.contains(&plain), "{found:?}");
        assert!(!found.contains(&unrelated) && !found.contains(&other_agent), "{found:?}");
        let matched = |id| hits.iter().find(|hit| hit.entry.id == id).unwrap().matched;
        assert_eq!(matched(both), Matched::Both);
        assert_eq!(matched(automobile), Matched::Meaning);
        assert_eq!(matched(plain), Matched::Keyword);
        let other_model = Embedding { model: "other:model".into(), vector: fake_embedding("car") };
        let hits = store.search(&MemoryQuery::new("automobile").agent("a").embedding(&other_model)).unwrap();
        assert_eq!(ids(&hits), [automobile]);
    }

    fn two_writers_at_once_keep_every_entry(fresh) {
        let writers: Vec<_> = (0..2)
            .map(|writer| {
                // Each its own connection, as two agentctl processes would have.
                let store = (fresh.open)();
                std::thread::spawn(move || {
                    for i in 0..40 {
                        store.remember(NewMemory::new("a", format!("writer {writer} fact {i}"))).unwrap();
                        // The same fact from both writers is still kept once.
                        store.remember(NewMemory::new("a", format!("shared fact {i}"))).unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        assert_eq!(fresh.store.list(Some("a")).unwrap().len(), 120);
        assert_eq!(fresh.store.search(&MemoryQuery::new("writer").limit(50)).unwrap().len(), 50);
    }
}

/// Every (source, target) pair of backends.
fn pairs() -> Vec<(Fresh, Fresh, String)> {
    let mut backends = vec![Backend::Sqlite];
    if agentctl_test_support::postgres_url().is_some() {
        backends.push(Backend::Postgres);
    }
    let mut pairs = Vec::new();
    for &from in &backends {
        for &to in &backends {
            pairs.push((
                fresh(from, Redactor::default()),
                fresh(to, Redactor::default()),
                format!("{from:?} → {to:?}"),
            ));
        }
    }
    pairs
}

#[test]
fn memories_are_copied_once_whichever_way_and_however_often() {
    for (from, to, pair) in pairs() {
        let embed = |text: &str| Embedding {
            model: "fake:bag-of-words".into(),
            vector: fake_embedding(text),
        };
        let mut lesson = NewMemory::new("debugger", "The checkout test needs STRIPE_MODE=test");
        lesson.metadata = json!({"topic": "ci"}).as_object().unwrap().clone();
        lesson.embedding = Some(embed("checkout stripe test"));
        from.store.remember(lesson).unwrap();
        remember(&*from.store, "reviewer", "Two approvals for login changes");
        // The target already keeps one of them, and one of its own.
        remember(&*to.store, "reviewer", "Two approvals for login changes");
        remember(&*to.store, "fixer", "Run cargo fmt before committing");

        let report = copy_memories(&*from.store, &*to.store).unwrap();
        assert_eq!(
            report,
            MemoryCopyReport {
                copied: 1,
                existing: 1
            },
            "{pair}"
        );
        let again = copy_memories(&*from.store, &*to.store).unwrap();
        assert_eq!(
            again,
            MemoryCopyReport {
                copied: 0,
                existing: 2
            },
            "{pair}"
        );
        let back = copy_memories(&*to.store, &*from.store).unwrap();
        assert_eq!(
            back,
            MemoryCopyReport {
                copied: 1,
                existing: 2
            },
            "{pair}"
        );
        assert_eq!(to.store.list(None).unwrap().len(), 3, "{pair}");
        assert_eq!(from.store.list(None).unwrap().len(), 3, "{pair}");

        // The copy keeps its time, metadata and embedding: recall by meaning finds it.
        let original = &from.store.list(Some("debugger")).unwrap()[0];
        let copied = &to.store.list(Some("debugger")).unwrap()[0];
        assert_eq!(
            (
                &copied.content,
                &copied.metadata,
                copied.created_at,
                &copied.embedding_model
            ),
            (
                &original.content,
                &original.metadata,
                original.created_at,
                &original.embedding_model
            ),
            "{pair}"
        );
        let query = embed("stripe checkout");
        let hits = to
            .store
            .search(&MemoryQuery::new("").agent("debugger").embedding(&query))
            .unwrap();
        assert_eq!(hits.len(), 1, "{pair}");
        assert_eq!(hits[0].matched, Matched::Meaning, "{pair}");
    }
}

//! [`MemoryBackend`] for [`PgStore`]: agents' long-term memory in the shared database, so a
//! lesson remembered on one machine is recalled on another.
//!
//! Keyword search is PostgreSQL full-text search (`to_tsvector('english', content)`, ranked
//! by `ts_rank_cd`) over the words of the query — each a quoted lexeme joined by `|`, so no
//! text is an operator or a syntax error. Similarity uses pgvector's cosine distance when the
//! `vector` extension is installed in the database, else cosine similarity computed here over
//! the agent's embedded entries; the two rankings are fused by reciprocal rank, as the
//! embedded store does. The rules of the embedded `MemoryStore` hold: checks, masking, one entry per
//! agent and content (serialised per agent by an advisory lock), the per-agent limit.

use crate::fault::{Fault, FaultResult};
use crate::store::{PgStore, now_ms, text};
use agentctl_memory::{
    CopiedMemory, Embedding, MAX_ENTRIES_PER_AGENT, Matched, MemoryBackend, MemoryEntry,
    MemoryError, MemoryHit, MemoryQuery, NewMemory, Remembered, check_embedding, check_entry,
    cosine_similarity, fuse_rankings, search_terms,
};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use tokio_postgres::{GenericClient, Row};

const COLUMNS: &str = "id, agent, content, metadata, created_at, embedding_model";

fn entry(row: &Row) -> FaultResult<MemoryEntry> {
    let id: i64 = row.try_get(0)?;
    let metadata: String = row.try_get(3)?;
    let metadata = match serde_json::from_str::<Value>(&metadata) {
        Ok(Value::Object(map)) => map,
        _ => {
            return Err(Fault::Corrupt(
                "memories",
                format!("entry #{id}: metadata is not a JSON object"),
            ));
        }
    };
    Ok(MemoryEntry {
        id,
        agent: row.try_get(1)?,
        content: row.try_get(2)?,
        metadata,
        created_at: row.try_get(4)?,
        embedding_model: row.try_get(5)?,
    })
}

/// Entries each ranking contributes before fusion (as the embedded store).
fn pool(limit: usize) -> i64 {
    i64::try_from((limit * 4).max(50)).unwrap_or(i64::MAX)
}

impl PgStore {
    /// A store error as the memory crate's.
    fn memory_error(&self, fault: Fault) -> MemoryError {
        match fault {
            Fault::Memory(error) => error,
            other => match self.error(other) {
                agentctl_store::ContextError::Backend { store, message, .. } => {
                    MemoryError::Backend { store, message }
                }
                error => MemoryError::Backend {
                    store: self.url().to_owned(),
                    message: error.to_string(),
                },
            },
        }
    }

    fn memory_call<T, F, Fut>(&self, operation: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(std::sync::Arc<crate::store::Inner>) -> Fut,
        Fut: std::future::Future<Output = FaultResult<T>> + Send + 'static,
    {
        self.call_raw(operation)
            .map_err(|fault| self.memory_error(fault))
    }
}

impl MemoryBackend for PgStore {
    fn label(&self) -> &str {
        self.url()
    }

    fn mask(&self, text: &str) -> String {
        self.redactor.redact(text).into_owned()
    }

    fn remember(&self, new: NewMemory) -> Result<Remembered, MemoryError> {
        self.remember_at(new, None)
    }

    fn get(&self, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        self.get_entry(id)
    }

    fn list(&self, agent: Option<&str>) -> Result<Vec<MemoryEntry>, MemoryError> {
        self.list_entries(agent)
    }

    fn forget(&self, id: i64, agent: Option<&str>) -> Result<MemoryEntry, MemoryError> {
        self.forget_entry(id, agent)
    }

    fn search(&self, query: &MemoryQuery<'_>) -> Result<Vec<MemoryHit>, MemoryError> {
        self.search_entries(query)
    }

    fn entries_after(&self, after: i64, limit: usize) -> Result<Vec<CopiedMemory>, MemoryError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.memory_call(|inner| async move {
            let client = inner.pool.get().await?;
            let rows = client
                .query(
                    &format!(
                        "SELECT {COLUMNS}, embedding FROM memories WHERE id > $1
                         ORDER BY id LIMIT $2"
                    ),
                    &[&after, &limit],
                )
                .await?;
            let mut entries = Vec::with_capacity(rows.len());
            for row in &rows {
                let entry = entry(row)?;
                let vector: Option<Vec<f32>> = row.try_get(6)?;
                let embedding = match (&entry.embedding_model, vector) {
                    (Some(model), Some(vector)) => Some(Embedding {
                        model: model.clone(),
                        vector,
                    }),
                    _ => None,
                };
                entries.push(CopiedMemory { entry, embedding });
            }
            Ok(entries)
        })
    }

    fn import_entry(&self, copied: &CopiedMemory) -> Result<Remembered, MemoryError> {
        let new = NewMemory {
            agent: copied.entry.agent.clone(),
            content: copied.entry.content.clone(),
            metadata: copied.entry.metadata.clone(),
            embedding: copied.embedding.clone(),
        };
        self.remember_at(new, Some(copied.entry.created_at))
    }
}

/// A memory to store, checked, masked and cleaned for PostgreSQL.
struct Checked {
    agent: String,
    content: String,
    metadata: Map<String, Value>,
    embedding: Option<Embedding>,
}

/// The agent's entry with `content`, if it has one; otherwise fails with
/// [`MemoryError::Full`] when the agent has no room left. Takes the agent's lock for the rest
/// of the transaction first: one writer per agent at a time, so the duplicate check and the
/// count stay true until the insert.
async fn existing_or_room(
    tx: &tokio_postgres::Transaction<'_>,
    agent: &str,
    content: &str,
) -> FaultResult<Option<MemoryEntry>> {
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('memory:' || $1, 0))",
        &[&agent],
    )
    .await?;
    if let Some(row) = tx
        .query_opt(
            &format!(
                "SELECT {COLUMNS} FROM memories
                 WHERE agent = $1 AND md5(content) = md5($2) AND content = $2"
            ),
            &[&agent, &content],
        )
        .await?
    {
        return Ok(Some(entry(&row)?));
    }
    let count: i64 = tx
        .query_one("SELECT COUNT(*) FROM memories WHERE agent = $1", &[&agent])
        .await?
        .try_get(0)?;
    if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_ENTRIES_PER_AGENT {
        return Err(Fault::Memory(MemoryError::Full {
            agent: agent.to_owned(),
            max: MAX_ENTRIES_PER_AGENT,
        }));
    }
    Ok(None)
}

impl PgStore {
    /// `new` checked (content, metadata, agent name, embedding), its secrets masked.
    fn checked(&self, new: NewMemory) -> Result<Checked, MemoryError> {
        check_entry(&new.content, &new.metadata)?;
        if new.agent.trim().is_empty() {
            return Err(MemoryError::Invalid(
                "a memory belongs to an agent: the agent name is empty".into(),
            ));
        }
        let mut metadata = Value::Object(new.metadata);
        self.redactor.redact_json(&mut metadata);
        let metadata = match metadata {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if let Some(embedding) = &new.embedding {
            check_embedding(&embedding.vector).map_err(MemoryError::Invalid)?;
        }
        Ok(Checked {
            agent: text(&new.agent).into_owned(),
            content: text(&self.mask(&new.content)).into_owned(),
            metadata,
            embedding: new.embedding,
        })
    }
}

impl PgStore {
    /// [`MemoryBackend::remember`], stamped `created_at` when given (a copied entry keeps its
    /// time), else now.
    fn remember_at(
        &self,
        new: NewMemory,
        created_at: Option<i64>,
    ) -> Result<Remembered, MemoryError> {
        let Checked {
            agent,
            content,
            metadata,
            embedding,
        } = self.checked(new)?;
        self.memory_call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            if let Some(existing) = existing_or_room(&tx, &agent, &content).await? {
                return Ok(Remembered::Existing(existing));
            }
            let created_at = created_at.unwrap_or_else(now_ms);
            let (vector, model) = match &embedding {
                Some(embedding) => (
                    Some(embedding.vector.clone()),
                    Some(embedding.model.clone()),
                ),
                None => (None, None),
            };
            let id: i64 = tx
                .query_one(
                    "INSERT INTO memories (agent, content, metadata, created_at, embedding,
                         embedding_model)
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                    &[
                        &agent,
                        &content,
                        &Value::Object(metadata.clone()).to_string(),
                        &created_at,
                        &vector,
                        &model,
                    ],
                )
                .await?
                .try_get(0)?;
            tx.commit().await?;
            Ok(Remembered::Stored(MemoryEntry {
                id,
                agent,
                content,
                metadata,
                created_at,
                embedding_model: model,
            }))
        })
    }

    fn get_entry(&self, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        self.memory_call(|inner| async move {
            let client = inner.pool.get().await?;
            client
                .query_opt(
                    &format!("SELECT {COLUMNS} FROM memories WHERE id = $1"),
                    &[&id],
                )
                .await?
                .as_ref()
                .map(entry)
                .transpose()
        })
    }

    fn list_entries(&self, agent: Option<&str>) -> Result<Vec<MemoryEntry>, MemoryError> {
        let agent = agent.map(|agent| text(agent).into_owned());
        self.memory_call(|inner| async move {
            let client = inner.pool.get().await?;
            client
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM memories WHERE $1::text IS NULL OR agent = $1
                         ORDER BY id DESC"
                    ),
                    &[&agent],
                )
                .await?
                .iter()
                .map(entry)
                .collect()
        })
    }

    fn forget_entry(&self, id: i64, agent: Option<&str>) -> Result<MemoryEntry, MemoryError> {
        let agent = agent.map(|agent| text(agent).into_owned());
        self.memory_call(|inner| async move {
            let client = inner.pool.get().await?;
            let row = client
                .query_opt(
                    &format!(
                        "DELETE FROM memories WHERE id = $1 AND ($2::text IS NULL OR agent = $2)
                         RETURNING {COLUMNS}"
                    ),
                    &[&id, &agent],
                )
                .await?;
            match row {
                Some(row) => entry(&row),
                None => Err(Fault::Memory(MemoryError::NotFound { id, agent })),
            }
        })
    }

    fn search_entries(&self, query: &MemoryQuery<'_>) -> Result<Vec<MemoryHit>, MemoryError> {
        let limit = query.limit.clamp(1, MemoryQuery::MAX_LIMIT);
        let terms = search_terms(query.text);
        // Words are letters and digits only: quoted, none is an operator.
        let tsquery = (!terms.is_empty()).then(|| {
            terms
                .iter()
                .map(|term| format!("'{}'", text(term)))
                .collect::<Vec<_>>()
                .join(" | ")
        });
        let agent = query.agent.map(|agent| text(agent).into_owned());
        let embedding = query.embedding.cloned();
        self.memory_call(|inner| async move {
            let client = inner.pool.get().await?;
            let keyword = match &tsquery {
                Some(tsquery) => {
                    by_keyword(&**client, tsquery, agent.as_deref(), pool(limit)).await?
                }
                None => Vec::new(),
            };
            let Some(embedding) = embedding else {
                return Ok(keyword
                    .into_iter()
                    .take(limit)
                    .map(|(entry, rank)| MemoryHit {
                        entry,
                        score: rank,
                        matched: Matched::Keyword,
                    })
                    .collect());
            };
            let meaning = by_meaning(&**client, &embedding, agent.as_deref(), pool(limit)).await?;
            let keyword_ids: Vec<i64> = keyword.iter().map(|(entry, _)| entry.id).collect();
            let meaning_ids: Vec<i64> = meaning.iter().map(|(id, _)| *id).collect();
            let in_keyword: HashSet<i64> = keyword_ids.iter().copied().collect();
            let in_meaning: HashSet<i64> = meaning_ids.iter().copied().collect();
            let mut entries: HashMap<i64, MemoryEntry> = keyword
                .into_iter()
                .map(|(entry, _)| (entry.id, entry))
                .collect();
            let mut hits = Vec::new();
            for (id, score) in fuse_rankings(&[&keyword_ids, &meaning_ids])
                .into_iter()
                .take(limit)
            {
                let entry = match entries.remove(&id) {
                    Some(entry) => entry,
                    None => match client
                        .query_opt(
                            &format!("SELECT {COLUMNS} FROM memories WHERE id = $1"),
                            &[&id],
                        )
                        .await?
                    {
                        Some(row) => entry(&row)?,
                        None => continue,
                    },
                };
                let matched = match (in_keyword.contains(&id), in_meaning.contains(&id)) {
                    (true, true) => Matched::Both,
                    (true, false) => Matched::Keyword,
                    _ => Matched::Meaning,
                };
                hits.push(MemoryHit {
                    entry,
                    score,
                    matched,
                });
            }
            Ok(hits)
        })
    }
}

/// The best `pool` entries by full-text rank, with their rank (higher is better).
async fn by_keyword(
    client: &impl GenericClient,
    tsquery: &str,
    agent: Option<&str>,
    pool: i64,
) -> FaultResult<Vec<(MemoryEntry, f64)>> {
    let columns = COLUMNS
        .split(", ")
        .map(|column| format!("m.{column}"))
        .collect::<Vec<_>>()
        .join(", ");
    let rows = client
        .query(
            &format!(
                "SELECT {columns}, ts_rank_cd(m.search, q)::float8 AS rank
                 FROM memories m, to_tsquery('english', $1) q
                 WHERE m.search @@ q AND ($2::text IS NULL OR m.agent = $2)
                 ORDER BY rank DESC, m.id DESC LIMIT $3"
            ),
            &[&tsquery, &agent, &pool],
        )
        .await?;
    rows.iter()
        .map(|row| Ok((entry(row)?, row.try_get::<_, f64>(6)?)))
        .collect()
}

/// Who computes similarity for a recall by meaning ([`PgStore::similarity_ranker`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimilarityRanker {
    /// The database, with pgvector's cosine distance (`CREATE EXTENSION vector` was run in
    /// it): only the best entries leave the server.
    Pgvector,
    /// This process, over the agent's embedded entries: what a database without pgvector (or
    /// with a version that cannot cast `real[]` to `vector`) gets. Same ranking, more rows
    /// read.
    Client,
}

impl PgStore {
    /// Who ranks this database's memories by meaning: pgvector when the extension is
    /// installed in it and casts `real[]` to `vector`, else this process. Both give the same
    /// ranking.
    pub fn similarity_ranker(&self) -> Result<SimilarityRanker, MemoryError> {
        self.memory_call(|inner| async move {
            let client = inner.pool.get().await?;
            ranker(&**client).await
        })
    }
}

/// [`PgStore::similarity_ranker`] on a connection.
async fn ranker(client: &impl GenericClient) -> FaultResult<SimilarityRanker> {
    let installed: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')",
            &[],
        )
        .await?
        .try_get(0)?;
    if !installed {
        return Ok(SimilarityRanker::Client);
    }
    // An old pgvector without the array cast leaves ranking to the client.
    let probe = client
        .query_one(
            "SELECT ('{1,0}'::real[]::vector <=> '{1,0}'::real[]::vector)::float8",
            &[],
        )
        .await;
    Ok(if probe.is_ok() {
        SimilarityRanker::Pgvector
    } else {
        SimilarityRanker::Client
    })
}

/// The `pool` entries most similar to `embedding` (cosine above 0) among those embedded by
/// the same model with as many dimensions: by pgvector when the database has it, else here.
async fn by_meaning(
    client: &impl GenericClient,
    embedding: &Embedding,
    agent: Option<&str>,
    pool: i64,
) -> FaultResult<Vec<(i64, f64)>> {
    let dimensions = i32::try_from(embedding.vector.len()).unwrap_or(i32::MAX);
    if ranker(client).await? == SimilarityRanker::Pgvector {
        let rows = client
            .query(
                "SELECT id, (1 - (embedding::vector <=> $1::real[]::vector))::float8 AS similarity
                 FROM memories
                 WHERE embedding IS NOT NULL AND embedding_model = $2
                   AND cardinality(embedding) = $3 AND ($4::text IS NULL OR agent = $4)
                 ORDER BY similarity DESC, id DESC LIMIT $5",
                &[
                    &embedding.vector,
                    &embedding.model,
                    &dimensions,
                    &agent,
                    &pool,
                ],
            )
            .await?;
        let mut scored = Vec::new();
        for row in rows {
            let similarity: f64 = row.try_get(1)?;
            if similarity > 0.0 {
                scored.push((row.try_get(0)?, similarity));
            }
        }
        order_by_similarity(&mut scored);
        return Ok(scored);
    }
    let scan = i64::try_from(MAX_ENTRIES_PER_AGENT).unwrap_or(i64::MAX);
    let rows = client
        .query(
            "SELECT id, embedding FROM memories
             WHERE embedding IS NOT NULL AND embedding_model = $1
               AND cardinality(embedding) = $2 AND ($3::text IS NULL OR agent = $3)
             ORDER BY id DESC LIMIT $4",
            &[&embedding.model, &dimensions, &agent, &scan],
        )
        .await?;
    let mut scored = Vec::new();
    for row in rows {
        let vector: Vec<f32> = row.try_get(1)?;
        if let Some(similarity) =
            cosine_similarity(&vector, &embedding.vector).filter(|similarity| *similarity > 0.0)
        {
            scored.push((row.try_get::<_, i64>(0)?, similarity));
        }
    }
    order_by_similarity(&mut scored);
    scored.truncate(usize::try_from(pool).unwrap_or(usize::MAX));
    Ok(scored)
}

/// Most similar first, newest first among equals. pgvector computes in `real` and this client
/// in `f64`: similarities equal to six places are taken as equal, so that both paths break a
/// tie the same way instead of by rounding noise.
fn order_by_similarity(scored: &mut [(i64, f64)]) {
    let level = |similarity: f64| (similarity * 1e6).round() as i64;
    scored.sort_by(|a, b| level(b.1).cmp(&level(a.1)).then(b.0.cmp(&a.0)));
}

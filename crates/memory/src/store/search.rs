//! Search: FTS5 BM25 over the content, and — given the query's embedding — cosine similarity
//! over the entries embedded by the same model, the two rankings fused by reciprocal rank
//! (see [`crate::vector`] for why).

use super::{COLUMNS, FaultResult, MemoryStore, RawRow, read_row};
use crate::entry::{Embedding, Matched, MemoryHit, MemoryQuery};
use crate::error::Result;
use crate::query::fts_query;

use crate::vector::{cosine, from_blob, fuse};
use rusqlite::{Connection, OptionalExtension};
use std::collections::{HashMap, HashSet};

/// Entries the keyword and similarity rankings each contribute before fusion.
fn pool(limit: usize) -> usize {
    (limit * 4).max(50)
}

impl MemoryStore {
    /// The best entries for `query`, best first: by BM25 over the words of its text and,
    /// with an embedding, by cosine similarity too (entries without an embedding of the same
    /// model are still found by their words). A text without any word finds nothing by
    /// keyword; no text ever makes an SQL or FTS5 syntax error.
    pub fn search(&self, query: &MemoryQuery<'_>) -> Result<Vec<MemoryHit>> {
        let limit = query.limit.clamp(1, MemoryQuery::MAX_LIMIT);
        self.with(|conn| {
            let keyword = match fts_query(query.text) {
                Some(expression) => by_keyword(conn, &expression, query.agent, pool(limit))?,
                None => Vec::new(),
            };
            let Some(embedding) = query.embedding else {
                let mut hits = Vec::new();
                for (row, rank) in keyword.into_iter().take(limit) {
                    hits.push(MemoryHit {
                        entry: row.decode(&self.path)?,
                        // BM25 in FTS5 is negative, better more so.
                        score: -rank,
                        matched: Matched::Keyword,
                    });
                }
                return Ok(hits);
            };
            let meaning = by_meaning(conn, embedding, query.agent, pool(limit))?;
            let keyword_ids: Vec<i64> = keyword.iter().map(|(row, _)| row.id).collect();
            let meaning_ids: Vec<i64> = meaning.iter().map(|(id, _)| *id).collect();
            let in_keyword: HashSet<i64> = keyword_ids.iter().copied().collect();
            let in_meaning: HashSet<i64> = meaning_ids.iter().copied().collect();
            let mut rows: HashMap<i64, RawRow> =
                keyword.into_iter().map(|(row, _)| (row.id, row)).collect();
            let mut hits = Vec::new();
            for (id, score) in fuse(&[&keyword_ids, &meaning_ids]).into_iter().take(limit) {
                let row = match rows.remove(&id) {
                    Some(row) => row,
                    None => match row_by_id(conn, id)? {
                        Some(row) => row,
                        None => continue,
                    },
                };
                let matched = match (in_keyword.contains(&id), in_meaning.contains(&id)) {
                    (true, true) => Matched::Both,
                    (true, false) => Matched::Keyword,
                    _ => Matched::Meaning,
                };
                hits.push(MemoryHit {
                    entry: row.decode(&self.path)?,
                    score,
                    matched,
                });
            }
            Ok(hits)
        })
    }
}

/// The best `pool` entries by BM25, with their rank value (lower is better).
fn by_keyword(
    conn: &Connection,
    expression: &str,
    agent: Option<&str>,
    pool: usize,
) -> FaultResult<Vec<(RawRow, f64)>> {
    let columns = COLUMNS
        .split(", ")
        .map(|column| format!("m.{column}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {columns}, bm25(memories_fts) AS rank
         FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
         WHERE memories_fts MATCH ?1 AND (?2 IS NULL OR m.agent = ?2)
         ORDER BY rank, m.id DESC LIMIT ?3"
    ))?;
    let rows = statement.query_map(
        (expression, agent, i64::try_from(pool).unwrap_or(i64::MAX)),
        |row| Ok((read_row(row)?, row.get::<_, f64>(6)?)),
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The `pool` entries most similar to `embedding` (cosine above 0), among the newest
/// [`MAX_ENTRIES_PER_AGENT`](crate::MAX_ENTRIES_PER_AGENT) embedded by the same model.
fn by_meaning(
    conn: &Connection,
    embedding: &Embedding,
    agent: Option<&str>,
    pool: usize,
) -> FaultResult<Vec<(i64, f64)>> {
    let mut statement = conn.prepare_cached(
        "SELECT id, embedding FROM memories
         WHERE embedding IS NOT NULL AND embedding_model = ?1 AND (?2 IS NULL OR agent = ?2)
         ORDER BY id DESC LIMIT ?3",
    )?;
    let scan = i64::try_from(crate::MAX_ENTRIES_PER_AGENT).unwrap_or(i64::MAX);
    let mut rows = statement.query((&embedding.model, agent, scan))?;
    let mut scored = Vec::new();
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let blob: Vec<u8> = row.get(1)?;
        // A vector of another length (the model changed its dimensions) is not comparable.
        let similarity = from_blob(&blob).and_then(|vector| cosine(&vector, &embedding.vector));
        if let Some(similarity) = similarity.filter(|s| *s > 0.0) {
            scored.push((id, similarity));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    scored.truncate(pool);
    Ok(scored)
}

fn row_by_id(conn: &Connection, id: i64) -> FaultResult<Option<RawRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM memories WHERE id = ?1"))?
        .query_row([id], read_row)
        .optional()?)
}

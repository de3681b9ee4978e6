//! What long-term memory stores and finds, whatever the store: entries, queries, hits, and
//! the limits every store keeps. No I/O: the embedded SQLite store (feature `sqlite`) and the
//! PostgreSQL one share these.

use crate::error::{MemoryError, Result};
use serde::Serialize;
use serde_json::{Map, Value};

/// Largest content of one entry, in bytes: memories are facts and lessons, not files.
pub const MAX_CONTENT_BYTES: usize = 16 * 1024;
/// Largest metadata object of one entry, in bytes of compact JSON.
pub const MAX_METADATA_BYTES: usize = 4 * 1024;
/// Most entries one agent keeps; bounds the file and the similarity scan of a recall.
pub const MAX_ENTRIES_PER_AGENT: usize = 10_000;

/// Checks `content` and `metadata` against the limits, before anything is masked or sent.
///
/// ```
/// use agentctl_memory::check_entry;
/// let error = check_entry(&"x".repeat(20_000), &Default::default()).unwrap_err();
/// assert!(error.to_string().starts_with("the memory is 20000 bytes, more than the 16 KiB"));
/// ```
pub fn check_entry(content: &str, metadata: &Map<String, Value>) -> Result<()> {
    if content.trim().is_empty() {
        return Err(MemoryError::Invalid(
            "the memory is empty: give the fact or lesson to remember as `content`".into(),
        ));
    }
    if content.len() > MAX_CONTENT_BYTES {
        return Err(MemoryError::Invalid(format!(
            "the memory is {} bytes, more than the {} KiB one entry keeps: remember the \
             lesson in a few sentences, or several smaller facts",
            content.len(),
            MAX_CONTENT_BYTES / 1024
        )));
    }
    let size = Value::Object(metadata.clone()).to_string().len();
    if size > MAX_METADATA_BYTES {
        return Err(MemoryError::Invalid(format!(
            "the metadata is {size} bytes of JSON, more than the {} KiB one entry keeps: \
             keep it to a few short fields such as {{\"topic\": \"deploy\"}}",
            MAX_METADATA_BYTES / 1024
        )));
    }
    Ok(())
}

/// An embedding of an entry's content.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedding {
    /// The model that made it, as `provider:model`: only vectors of the same model are compared.
    pub model: String,
    /// The vector.
    pub vector: Vec<f32>,
}

/// An entry to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    /// The agent the entry belongs to; only its own recalls find it.
    pub agent: String,
    /// What to remember (at most [`MAX_CONTENT_BYTES`]).
    pub content: String,
    /// A JSON object (at most [`MAX_METADATA_BYTES`] compact).
    pub metadata: Map<String, Value>,
    /// The content's embedding, when the agent's backend uses embeddings and it was made.
    pub embedding: Option<Embedding>,
}

impl NewMemory {
    /// An entry of `agent` with no metadata and no embedding.
    pub fn new(agent: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            agent: agent.into(),
            content: content.into(),
            metadata: Map::new(),
            embedding: None,
        }
    }
}

/// A stored entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryEntry {
    /// Its id (never reused after a `forget`).
    pub id: i64,
    /// The agent it belongs to.
    pub agent: String,
    /// The content, secrets masked.
    pub content: String,
    /// The metadata object, secrets masked.
    pub metadata: Map<String, Value>,
    /// When it was stored, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// The model of its embedding; absent when it has none (keyword search only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_model: Option<String>,
}

/// What remembering did ([`MemoryBackend::remember`](crate::MemoryBackend::remember)).
#[derive(Debug, Clone, PartialEq)]
pub enum Remembered {
    /// A new entry.
    Stored(MemoryEntry),
    /// The agent already kept exactly this content: the existing entry, unchanged.
    Existing(MemoryEntry),
}

impl Remembered {
    /// The entry, new or existing.
    pub fn entry(&self) -> &MemoryEntry {
        match self {
            Self::Stored(entry) | Self::Existing(entry) => entry,
        }
    }
}

/// A search of long-term memory.
#[derive(Debug, Clone, Copy)]
pub struct MemoryQuery<'a> {
    /// What to look for: any text (it is cut into words; operators mean nothing).
    pub text: &'a str,
    /// Only this agent's entries; `None` searches every agent's (the CLI, never a tool).
    pub agent: Option<&'a str>,
    /// How many hits at most (1 to [`MemoryQuery::MAX_LIMIT`]).
    pub limit: usize,
    /// The query's embedding: adds the similarity ranking.
    pub embedding: Option<&'a Embedding>,
}

impl<'a> MemoryQuery<'a> {
    /// Hits returned when no limit is given.
    pub const DEFAULT_LIMIT: usize = 5;
    /// Most hits one search returns.
    pub const MAX_LIMIT: usize = 50;

    /// A keyword search of every agent's entries for `text`.
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            agent: None,
            limit: Self::DEFAULT_LIMIT,
            embedding: None,
        }
    }

    /// Only `agent`'s entries.
    pub fn agent(mut self, agent: &'a str) -> Self {
        self.agent = Some(agent);
        self
    }

    /// At most `limit` hits (clamped to 1..=[`MAX_LIMIT`](Self::MAX_LIMIT)).
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Ranks by meaning too, with the query's `embedding`.
    pub fn embedding(mut self, embedding: &'a Embedding) -> Self {
        self.embedding = Some(embedding);
        self
    }
}

/// Which ranking found a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Matched {
    /// Its words (BM25).
    Keyword,
    /// Its embedding (cosine similarity).
    Meaning,
    /// Both.
    Both,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryHit {
    /// The entry.
    #[serde(flatten)]
    pub entry: MemoryEntry,
    /// Higher is better: the BM25 relevance of a keyword search, the fused reciprocal-rank
    /// score of a search with an embedding. Comparable within one search only.
    pub score: f64,
    /// Which ranking found it.
    pub matched: Matched,
}

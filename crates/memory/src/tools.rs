//! `remember` and `recall`: an agent that declares `memory.longTerm` stores facts and lessons
//! and finds them again in later sessions (the seed's `storeLongTerm` / `recallLongTerm`).
//!
//! * **Scope.** Both tools act for the agent they were built for: `recall` searches that
//!   agent's entries only, whatever the model asks, and a run of another agent that reaches
//!   the same tool set (a sub-agent task) is refused rather than handed someone else's memory.
//! * **Secrets.** Content and metadata are masked before they are embedded or stored.
//! * **Embeddings.** With an [`Embedder`] (`backend: vector_store`), `remember` stores the
//!   content's vector beside it and `recall` fuses keyword and similarity rankings. A failing
//!   embeddings endpoint never loses an entry: the text is stored, the answer says why it is
//!   searchable by keyword only, and `recall` falls back to keywords the same way.
//! * **Risk.** Both are `low`: they change or read nothing outside agentctl's own store, but
//!   what `remember` writes is read back by later sessions, so a prompt injection could try to
//!   persist instructions there; the default policy (`safe` only) asks before either runs.
//!   `remember` is mutating (its calls run one at a time); `recall` is not.

use crate::backend::MemoryBackend;
use crate::entry::{Embedding, MemoryQuery, NewMemory, Remembered, check_entry};
use crate::error::MemoryError;
use crate::store::MemoryStore;
use agentctl_core::{
    Embedder, Redactor, RiskLevel, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry,
    TypedTool, typed_tool,
};
use agentctl_store::utc_timestamp;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// Most hits one `recall` returns.
pub const MAX_RECALL_LIMIT: usize = 20;

/// The long-term memory tools of one agent.
///
/// ```
/// use agentctl_core::ToolRegistry;
/// use agentctl_memory::{LongTermTools, MemoryStore};
/// use std::sync::Arc;
///
/// let store = Arc::new(MemoryStore::open_in_memory()?);
/// let tools = LongTermTools::new(store, "debugger");
/// let mut registry = ToolRegistry::new();
/// tools.register(&mut registry);
/// assert!(registry.contains("remember") && registry.contains("recall"));
/// # Ok::<(), agentctl_memory::MemoryError>(())
/// ```
#[derive(Clone)]
pub struct LongTermTools {
    agent: Arc<str>,
    store: Arc<StoreSource>,
    embeddings: Embeddings,
}

impl std::fmt::Debug for LongTermTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LongTermTools")
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

/// Opens a store on first use.
type Opener = Box<dyn Fn() -> Result<Arc<dyn MemoryBackend>, MemoryError> + Send + Sync>;

/// The store, open or opened on first use.
enum StoreSource {
    Open(Arc<dyn MemoryBackend>),
    Lazy {
        open: Opener,
        slot: Mutex<Option<Arc<dyn MemoryBackend>>>,
    },
}

impl StoreSource {
    /// The store, opening it on first use (blocking: call off the async threads).
    fn get(&self) -> Result<Arc<dyn MemoryBackend>, MemoryError> {
        match self {
            Self::Open(store) => Ok(Arc::clone(store)),
            Self::Lazy { open, slot } => {
                let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(store) = slot.as_ref() {
                    return Ok(Arc::clone(store));
                }
                let store = open()?;
                *slot = Some(Arc::clone(&store));
                Ok(store)
            }
        }
    }
}

/// Whether entries and queries are embedded.
#[derive(Clone)]
enum Embeddings {
    /// Keyword search only (`sqlite`, `filesystem`).
    Off,
    /// `vector_store` with its model.
    Ready(Arc<dyn Embedder>),
    /// `vector_store` whose model could not be set up (no API key, unknown provider): why.
    Unavailable(String),
}

impl LongTermTools {
    /// Name of the storing tool.
    pub const REMEMBER: &'static str = agentctl_core::REMEMBER_TOOL;
    /// Name of the searching tool.
    pub const RECALL: &'static str = agentctl_core::RECALL_TOOL;

    /// The tools of `agent` over an open embedded `store`.
    pub fn new(store: Arc<MemoryStore>, agent: impl Into<String>) -> Self {
        Self::with_backend(store, agent)
    }

    /// The tools of `agent` over an open store of any [`MemoryBackend`] (the PostgreSQL store
    /// of agentctl-store-postgres).
    pub fn with_backend(store: Arc<dyn MemoryBackend>, agent: impl Into<String>) -> Self {
        Self {
            agent: agent.into().into(),
            store: Arc::new(StoreSource::Open(store)),
            embeddings: Embeddings::Off,
        }
    }

    /// The tools of `agent` over the store at `path`, opened (and created) on the first call,
    /// masking `redactor`'s secrets: an agent that never uses them leaves no file behind, and
    /// a store that cannot be opened is a tool error the model reads, not a failed run.
    pub fn at_path(path: PathBuf, redactor: Redactor, agent: impl Into<String>) -> Self {
        Self::opened_with(
            move || {
                let store = MemoryStore::open(&path)?.with_redactor(redactor.clone());
                Ok(Arc::new(store) as Arc<dyn MemoryBackend>)
            },
            agent,
        )
    }

    /// The tools of `agent` over the store `open` opens on the first call (a server store
    /// connects then): a store that cannot be opened is a tool error the model reads.
    pub fn opened_with(
        open: impl Fn() -> Result<Arc<dyn MemoryBackend>, MemoryError> + Send + Sync + 'static,
        agent: impl Into<String>,
    ) -> Self {
        Self {
            agent: agent.into().into(),
            store: Arc::new(StoreSource::Lazy {
                open: Box::new(open),
                slot: Mutex::new(None),
            }),
            embeddings: Embeddings::Off,
        }
    }

    /// Embeds entries and queries with `embedder` (`backend: vector_store`).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embeddings = Embeddings::Ready(embedder);
        self
    }

    /// `backend: vector_store` whose embedding model could not be set up, and `why`: entries
    /// are stored and searched by keyword, and each answer says so.
    pub fn embedder_unavailable(mut self, why: impl Into<String>) -> Self {
        self.embeddings = Embeddings::Unavailable(why.into());
        self
    }

    /// The agent whose memory the tools use.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// `remember` and `recall` as tool objects.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![
            typed_tool(Remember(self.clone())),
            typed_tool(Recall(self.clone())),
        ]
    }

    /// Registers `remember` and `recall`.
    pub fn register(self, registry: &mut ToolRegistry) {
        for tool in self.tools() {
            registry.register_arc(tool);
        }
    }

    /// Refuses a run of another agent (a sub-agent sharing the caller's tools).
    fn check_caller(&self, ctx: &ToolContext, tool: &str) -> Result<(), ToolError> {
        if ctx.agent() == &*self.agent {
            return Ok(());
        }
        Err(ToolError::failed(format!(
            "`{tool}` reaches the long-term memory of agent `{}`; `{}` cannot use it (an agent \
             gets its own long-term memory by declaring `memory.longTerm`)",
            self.agent,
            ctx.agent()
        )))
    }

    /// The store, off the async threads (opening it may wait for another process's lock).
    async fn store(&self) -> Result<Arc<dyn MemoryBackend>, ToolError> {
        let source = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || source.get())
            .await
            .map_err(|error| ToolError::failed(format!("long-term memory: {error}")))?
            .map_err(|error| ToolError::failed(format!("long-term memory: {error}")))
    }

    /// The embedding of `text` (already masked), or why there is none (`None` when the
    /// backend uses no embeddings).
    async fn embed(&self, text: String) -> Result<Embedding, Option<String>> {
        let embedder = match &self.embeddings {
            Embeddings::Off => return Err(None),
            Embeddings::Unavailable(why) => return Err(Some(why.clone())),
            Embeddings::Ready(embedder) => embedder,
        };
        let model = embedder.model().to_string();
        let failed = |cause: String| {
            Some(format!(
                "embeddings from `{model}` at {} failed: {cause}",
                embedder.endpoint()
            ))
        };
        let mut vectors = embedder
            .embed(&[text])
            .await
            .map_err(|error| failed(error.to_string()))?;
        if vectors.len() != 1 {
            return Err(failed(format!("asked for 1 vector, got {}", vectors.len())));
        }
        let vector = vectors.remove(0);
        crate::vector::check(&vector).map_err(failed)?;
        Ok(Embedding { model, vector })
    }
}

/// Runs a store call off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, MemoryError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|error| ToolError::failed(format!("long-term memory: {error}")))?
        .map_err(|error| match error {
            MemoryError::Invalid(message) => ToolError::failed(message),
            other => ToolError::failed(format!("long-term memory: {other}")),
        })
}

/// Arguments of `remember`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RememberArgs {
    /// The fact or lesson, self-contained: it will be read in a later session without this
    /// conversation (say what, where and why).
    pub content: String,
    /// Optional labels as a small JSON object, e.g. {"topic": "deploy", "file": "ci.yml"}.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

/// Arguments of `recall`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RecallArgs {
    /// Words to look for (and, with embeddings, the meaning to look for).
    pub query: String,
    /// How many memories at most (default 5, at most 20).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The `remember` tool.
struct Remember(LongTermTools);

/// The `recall` tool.
struct Recall(LongTermTools);

#[async_trait]
impl TypedTool for Remember {
    type Args = RememberArgs;

    fn name(&self) -> &str {
        LongTermTools::REMEMBER
    }

    fn description(&self) -> &str {
        "Stores a fact or lesson in your long-term memory, which you can find again with \
         `recall` in this and later sessions. Keep each memory to one self-contained fact (what, \
         where, why), at most 16 KiB; `metadata` is an optional small JSON object of labels. \
         Secrets are masked before anything is stored. Answers with the memory's id."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Low
    }

    async fn call(&self, args: RememberArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let tools = &self.0;
        tools.check_caller(ctx, LongTermTools::REMEMBER)?;
        let metadata = args.metadata.unwrap_or_default();
        check_entry(&args.content, &metadata)
            .map_err(|error| ToolError::failed(error.to_string()))?;
        let store = tools.store().await?;
        let (embedding, note) = match tools.embed(store.mask(&args.content)).await {
            Ok(embedding) => (Some(embedding), None),
            Err(why) => (None, why),
        };
        let new = NewMemory {
            agent: tools.agent.to_string(),
            content: args.content,
            metadata,
            embedding,
        };
        let remembered = blocking(move || store.remember(new)).await?;
        let mut text = match &remembered {
            Remembered::Stored(entry) => format!("Remembered as memory #{}.", entry.id),
            Remembered::Existing(entry) => format!(
                "Already remembered as memory #{} ({}); nothing changed.",
                entry.id,
                utc_timestamp(entry.created_at)
            ),
        };
        if let (Remembered::Stored(_), Some(note)) = (&remembered, note) {
            text.push_str(&format!(
                " It is searchable by keyword only: {note}. `recall` still finds it by its words."
            ));
        }
        Ok(ToolOutput::text(text))
    }
}

#[async_trait]
impl TypedTool for Recall {
    type Args = RecallArgs;

    fn name(&self) -> &str {
        LongTermTools::RECALL
    }

    fn description(&self) -> &str {
        "Searches your long-term memory — what you stored with `remember`, in this or earlier \
         sessions — for `query`, best matches first. Answers with JSON: `memories`, each with \
         id, content, metadata and created_at. Use a few distinctive words (names, errors, \
         files); no operators needed."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Low
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: RecallArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let tools = &self.0;
        tools.check_caller(ctx, LongTermTools::RECALL)?;
        if !args.query.chars().any(char::is_alphanumeric) {
            return Err(ToolError::failed(
                "give `query` some words to look for, e.g. the error message, file or topic",
            ));
        }
        let limit = args
            .limit
            .map_or(MemoryQuery::DEFAULT_LIMIT, |limit| limit as usize)
            .clamp(1, MAX_RECALL_LIMIT);
        let store = tools.store().await?;
        let embedded = tools.embed(store.mask(&args.query)).await;
        let agent = tools.agent.to_string();
        let query = args.query;
        let (hits, with_meaning) = {
            let embedding = embedded.as_ref().ok().cloned();
            let with_meaning = embedding.is_some();
            let hits = blocking(move || {
                let mut search = MemoryQuery::new(&query).agent(&agent).limit(limit);
                if let Some(embedding) = &embedding {
                    search = search.embedding(embedding);
                }
                store.search(&search)
            })
            .await?;
            (hits, with_meaning)
        };
        let memories: Vec<Value> = hits
            .iter()
            .map(|hit| {
                json!({
                    "id": hit.entry.id,
                    "content": hit.entry.content,
                    "metadata": hit.entry.metadata,
                    "created_at": utc_timestamp(hit.entry.created_at),
                })
            })
            .collect();
        let mut answer = json!({
            "memories": memories,
            "search": if with_meaning { "keyword+meaning" } else { "keyword" },
        });
        if let Err(Some(why)) = embedded {
            answer["note"] = json!(format!("keyword results only: {why}"));
        } else if hits.is_empty() {
            answer["note"] = json!("nothing matched: try other words (names, errors, files)");
        }
        Ok(ToolOutput::json(&answer))
    }
}

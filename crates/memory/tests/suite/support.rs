//! Helpers: stores in temporary folders, tool calls, an in-process embedding model.

use agentctl_core::{Embedder, ModelRef, ProviderError, Tool, ToolContext, ToolError};
use agentctl_memory::{LongTermTools, MemoryStore};
use agentctl_test_support::fake_embedding;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio_util::sync::CancellationToken;

/// A folder with a `memory.db` path in it (the file is not created).
pub fn temp_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".agentctl").join(MemoryStore::FILE_NAME);
    (dir, path)
}

/// Calls tool `name` of `tools` as agent `caller` would.
pub async fn call(
    tools: &LongTermTools,
    caller: &str,
    name: &str,
    args: Value,
) -> Result<String, ToolError> {
    let tool: Arc<dyn Tool> = tools
        .tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap();
    let ctx = ToolContext::new(
        "1",
        caller,
        "call-1",
        Path::new("."),
        CancellationToken::new(),
    );
    tool.call(args, &ctx).await.map(|output| output.content)
}

/// The in-process twin of the fake embeddings server's model; counts calls and may fail.
pub struct FakeModel {
    model: ModelRef,
    pub calls: AtomicUsize,
    pub fail: bool,
}

impl FakeModel {
    pub fn new(fail: bool) -> Arc<Self> {
        Arc::new(Self {
            model: ModelRef {
                provider: "fake".into(),
                model: "bag-of-words".into(),
            },
            calls: AtomicUsize::new(0),
            fail,
        })
    }
}

#[async_trait::async_trait]
impl Embedder for FakeModel {
    fn model(&self) -> &ModelRef {
        &self.model
    }

    fn endpoint(&self) -> &str {
        "http://127.0.0.1:9/v1/embeddings"
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ProviderError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.fail {
            return Err(ProviderError::Connection {
                provider: "fake".into(),
                model: "bag-of-words".into(),
                url: self.endpoint().into(),
                message: "connection refused".into(),
            });
        }
        Ok(texts.iter().map(|text| fake_embedding(text)).collect())
    }
}

/// The ids of a `recall` answer.
pub fn recalled_ids(answer: &str) -> Vec<i64> {
    let answer: Value = serde_json::from_str(answer).unwrap();
    answer["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|memory| memory["id"].as_i64().unwrap())
        .collect()
}

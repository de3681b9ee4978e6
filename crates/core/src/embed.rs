//! The contract of embedding models: texts in, one vector per text out.
//!
//! Long-term memory with `backend: vector_store` embeds what an agent remembers and what it
//! recalls with an [`Embedder`]; `agentctl-providers` implements it over the OpenAI-compatible
//! `/v1/embeddings`, Gemini's `batchEmbedContents` and Ollama's `/api/embed`, from the same
//! provider settings as chat models. The store only sees this trait.

use crate::model::ModelRef;
use crate::provider::ProviderError;
use async_trait::async_trait;

/// An embedding model.
///
/// ```
/// use agentctl_core::{Embedder, ModelRef, ProviderError};
///
/// /// Counts letters: a toy model for tests.
/// struct Letters(ModelRef);
///
/// #[async_trait::async_trait]
/// impl Embedder for Letters {
///     fn model(&self) -> &ModelRef { &self.0 }
///     fn endpoint(&self) -> &str { "memory:" }
///     async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ProviderError> {
///         Ok(texts.iter().map(|t| vec![t.len() as f32, t.matches('a').count() as f32]).collect())
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let model = Letters(ModelRef { provider: "toy".into(), model: "letters".into() });
/// let vectors = model.embed(&["banana".into()]).await.unwrap();
/// assert_eq!(vectors, [vec![6.0, 3.0]]);
/// # });
/// ```
#[async_trait]
pub trait Embedder: Send + Sync {
    /// The model, as `provider:model`; stored beside each vector so vectors of different
    /// models are never compared.
    fn model(&self) -> &ModelRef;

    /// Where requests go (a URL), for messages.
    fn endpoint(&self) -> &str;

    /// One vector per text, in the order of `texts`, all of the same length. An empty `texts`
    /// answers an empty list without a request.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ProviderError>;
}

//! The provider trait: one model call, streamed or not.

use crate::conversation::{ModelDelta, ModelRequest, ModelResponse};
use crate::model::ModelRef;
use crate::settings::Settings;
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

/// Receives the pieces of a streamed answer as they arrive.
///
/// Providers call it for every text fragment and tool-call fragment; when the request is not
/// streamed they may call it once with the whole text, or not at all.
pub type DeltaSink<'a> = &'a (dyn Fn(ModelDelta) + Send + Sync);

/// A model API.
///
/// Implementations convert [`ModelRequest`] to their wire format, send it, and assemble the
/// answer into a [`ModelResponse`]; retries with backoff happen inside `complete`.
#[async_trait]
pub trait ModelProvider: Send + Sync {
    /// Provider name as used in model strings (`openai`, `anthropic`, a settings key, …).
    fn name(&self) -> &str;

    /// Sends one request and returns the complete answer, reporting deltas to `on_delta`.
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError>;
}

/// Builds the provider serving a resolved model.
///
/// Any `Fn(&ModelRef, &Settings) -> Result<Arc<dyn ModelProvider>, ProviderError>` is a
/// factory, so tests and embedders can inject providers with a closure. A runtime builds each
/// model's provider once and reuses it.
pub trait ProviderFactory: Send + Sync {
    /// The provider for `model`.
    fn build(
        &self,
        model: &ModelRef,
        settings: &Settings,
    ) -> Result<Arc<dyn ModelProvider>, ProviderError>;
}

impl<F> ProviderFactory for F
where
    F: Fn(&ModelRef, &Settings) -> Result<Arc<dyn ModelProvider>, ProviderError> + Send + Sync,
{
    fn build(
        &self,
        model: &ModelRef,
        settings: &Settings,
    ) -> Result<Arc<dyn ModelProvider>, ProviderError> {
        self(model, settings)
    }
}

/// Why a model call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// No API key: reported before any request is sent.
    #[error("{provider}: no API key for model `{model}`: set {env_var}")]
    MissingApiKey {
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// Environment variable to set.
        env_var: String,
    },
    /// The API answered with an error status.
    #[error("{provider}: model `{model}` request failed with HTTP {status}: {message}{hint}")]
    Status {
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// HTTP status code.
        status: u16,
        /// The API's own error message, shortened.
        message: String,
        /// What to do about it (e.g. ` — check OPENAI_API_KEY`), possibly empty.
        hint: String,
        /// `Retry-After`, when the server sent one.
        retry_after: Option<Duration>,
    },
    /// The connection failed or was cut.
    #[error("{provider}: cannot reach {url} for model `{model}`: {message}")]
    Connection {
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// Endpoint URL.
        url: String,
        /// The transport error.
        message: String,
    },
    /// No answer, or no new stream data, within the time limit.
    #[error("{provider}: model `{model}` timed out after {after:?} ({what})")]
    Timeout {
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// The limit that ran out.
        after: Duration,
        /// `request` or `idle stream`.
        what: &'static str,
    },
    /// The API answered something that is not the expected format.
    #[error("{provider}: model `{model}` sent a malformed response: {message}")]
    Malformed {
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// What was wrong, with a short excerpt.
        message: String,
    },
    /// A scripted provider's cassette is unusable or exhausted, or the request does not match.
    #[error("{0}")]
    Script(String),
    /// The provider is not configured correctly (unknown kind, bad base URL, …).
    #[error("{0}")]
    Config(String),
    /// The call was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl ProviderError {
    /// True for failures worth retrying: 429, 5xx, connection errors and timeouts.
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Status { status, .. } => *status == 429 || *status >= 500,
            ProviderError::Connection { .. } | ProviderError::Timeout { .. } => true,
            _ => false,
        }
    }
}

//! Embedding models over HTTP, configured like chat models (same `providers` settings, base URL
//! variables, API keys, headers, retries and time limits):
//!
//! * OpenAI-compatible (`kind: openai`, the built-in `openai`): `POST {base}/embeddings` with
//!   `{"model", "input": [texts], "encoding_format": "float"}`;
//! * Gemini: `POST {base}/v1beta/models/{model}:batchEmbedContents` with one request per text;
//! * Ollama (the provider named `ollama`): its native `POST {root}/api/embed`, `root` being the
//!   base URL without its `/v1` (`http://localhost:11434`);
//! * Anthropic has no embeddings API, nor do cassettes: asking for one is a configuration error.
//!
//! Texts go in batches of [`BATCH`]; every answer is checked (one vector per text, numbers
//! only, equal lengths) and a wrong one is a [`ProviderError::Malformed`] naming provider and
//! model. Errors of the transport name the URL; callers add it to the others.

use crate::factory::{Endpoint, endpoint};
use crate::http::{HttpClient, Target};
use crate::options::ProviderOptions;
use agentctl_core::{Embedder, ModelRef, ProviderError, ProviderKind, Settings};
use async_trait::async_trait;
use serde_json::{Value, json};
use std::sync::Arc;

/// Most texts sent in one request (Gemini's batch limit; OpenAI takes 2048).
pub const BATCH: usize = 100;

/// Builds the embedder of `model` (resolve the agent's `embedding_model` with
/// [`resolve_embedding_model`](agentctl_core::resolve_embedding_model) first).
///
/// ```
/// use agentctl_core::{ModelRef, Settings};
/// use agentctl_providers::{Env, ProviderOptions, build_embedder};
///
/// let options = ProviderOptions { env: Env::from_pairs([("OPENAI_API_KEY", "sk-test")]), ..Default::default() };
/// let model = ModelRef { provider: "openai".into(), model: "text-embedding-3-small".into() };
/// let embedder = build_embedder(&model, &Settings::default(), &options).unwrap();
/// assert_eq!(embedder.endpoint(), "https://api.openai.com/v1/embeddings");
///
/// let ollama = ModelRef { provider: "ollama".into(), model: "nomic-embed-text".into() };
/// let embedder = build_embedder(&ollama, &Settings::default(), &options).unwrap();
/// assert_eq!(embedder.endpoint(), "http://localhost:11434/api/embed");
///
/// let claude = ModelRef { provider: "anthropic".into(), model: "claude-haiku-4-5".into() };
/// let error = build_embedder(&claude, &Settings::default(), &options).err().unwrap();
/// assert!(error.to_string().contains("has no embeddings API"));
/// ```
pub fn build_embedder(
    model: &ModelRef,
    settings: &Settings,
    options: &ProviderOptions,
) -> Result<Arc<dyn Embedder>, ProviderError> {
    let name = model.provider.as_str();
    let no_api = || {
        ProviderError::Config(format!(
            "{name}: provider `{name}` has no embeddings API for `{model}`: use an \
             OpenAI-compatible (`openai:`, `ollama:`, a `kind: openai` provider) or a `gemini:` \
             embedding model"
        ))
    };
    // Before the key is looked for: "set ANTHROPIC_API_KEY" would send users the wrong way.
    let without_api = match settings.providers.get(name) {
        Some(config) => config.kind == ProviderKind::Anthropic,
        None => name == "anthropic" || name == "scripted",
    };
    if without_api {
        return Err(no_api());
    }
    let Endpoint {
        kind,
        base_url,
        http,
    } = endpoint(model, settings, options)?;
    let base = base_url.trim_end_matches('/');
    let (wire, url) = match kind {
        ProviderKind::Anthropic => return Err(no_api()),
        ProviderKind::Gemini => {
            let id = model.model.strip_prefix("models/").unwrap_or(&model.model);
            (
                Wire::Gemini {
                    path_model: format!("models/{id}"),
                },
                format!("{base}/v1beta/models/{id}:batchEmbedContents"),
            )
        }
        ProviderKind::Openai if name == "ollama" => {
            let root = base.strip_suffix("/v1").unwrap_or(base);
            (Wire::Ollama, format!("{root}/api/embed"))
        }
        ProviderKind::Openai => (Wire::OpenAi, format!("{base}/embeddings")),
    };
    Ok(Arc::new(HttpEmbedder {
        model: model.clone(),
        http,
        url,
        wire,
    }))
}

/// The wire format of an embeddings endpoint.
#[derive(Debug)]
enum Wire {
    OpenAi,
    Gemini { path_model: String },
    Ollama,
}

/// An embeddings endpoint.
#[derive(Debug)]
struct HttpEmbedder {
    model: ModelRef,
    http: HttpClient,
    url: String,
    wire: Wire,
}

#[async_trait]
impl Embedder for HttpEmbedder {
    fn model(&self) -> &ModelRef {
        &self.model
    }

    fn endpoint(&self) -> &str {
        &self.url
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ProviderError> {
        let target = Target {
            model: &self.model.model,
            url: self.url.as_str().into(),
            parsed: None,
        };
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let body = self.body(batch);
            let answer = self.http.post_json(&target, &body).await?;
            let batch_vectors = self
                .parse(&answer, batch.len())
                .map_err(|message| self.http.malformed(&target, message))?;
            vectors.extend(batch_vectors);
        }
        if let Some(first) = vectors.first()
            && vectors.iter().any(|vector| vector.len() != first.len())
        {
            return Err(self.http.malformed(
                &target,
                "the embeddings answered have different lengths".into(),
            ));
        }
        Ok(vectors)
    }
}

impl HttpEmbedder {
    fn body(&self, texts: &[String]) -> Value {
        match &self.wire {
            Wire::OpenAi => {
                json!({"model": self.model.model, "input": texts, "encoding_format": "float"})
            }
            Wire::Gemini { path_model } => json!({
                "requests": texts.iter().map(|text| json!({
                    "model": path_model,
                    "content": {"parts": [{"text": text}]},
                })).collect::<Vec<_>>(),
            }),
            Wire::Ollama => json!({"model": self.model.model, "input": texts}),
        }
    }

    /// The vectors of one answer, in the order of the texts.
    fn parse(&self, answer: &Value, expected: usize) -> Result<Vec<Vec<f32>>, String> {
        let vectors: Vec<Vec<f32>> = match &self.wire {
            Wire::OpenAi => {
                let data = answer
                    .get("data")
                    .and_then(Value::as_array)
                    .ok_or("no `data` list in the answer")?;
                let mut indexed = Vec::with_capacity(data.len());
                for (position, item) in data.iter().enumerate() {
                    let index = item
                        .get("index")
                        .and_then(Value::as_u64)
                        .map_or(position, |index| index as usize);
                    indexed.push((index, numbers(item.get("embedding"))?));
                }
                indexed.sort_by_key(|(index, _)| *index);
                indexed.into_iter().map(|(_, vector)| vector).collect()
            }
            Wire::Gemini { .. } => answer
                .get("embeddings")
                .and_then(Value::as_array)
                .ok_or("no `embeddings` list in the answer")?
                .iter()
                .map(|item| numbers(item.get("values")))
                .collect::<Result<_, _>>()?,
            Wire::Ollama => answer
                .get("embeddings")
                .and_then(Value::as_array)
                .ok_or("no `embeddings` list in the answer")?
                .iter()
                .map(|item| numbers(Some(item)))
                .collect::<Result<_, _>>()?,
        };
        if vectors.len() != expected {
            return Err(format!(
                "asked for {expected} embedding(s), got {}",
                vectors.len()
            ));
        }
        Ok(vectors)
    }
}

/// A JSON array of numbers as `f32`s.
fn numbers(value: Option<&Value>) -> Result<Vec<f32>, String> {
    let items = value
        .and_then(Value::as_array)
        .ok_or("an embedding is not a list of numbers")?;
    items
        .iter()
        .map(|item| {
            item.as_f64()
                .map(|number| number as f32)
                .ok_or_else(|| format!("an embedding holds {item}, not a number"))
        })
        .collect()
}

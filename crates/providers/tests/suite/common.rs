//! Shared helpers: providers pointed at a fake server, requests, delta collection.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a panic is a test failure"
)]

use agentctl_core::ModelProvider;
use agentctl_core::{
    Message, ModelDelta, ModelRef, ModelRequest, ProviderConfig, ProviderKind, Settings, ToolSpec,
};
use agentctl_providers::{Env, ProviderOptions, RetryPolicy, build_provider};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const KEY: &str = "sk-secret-test-key";

/// Options with tiny retry delays and a key for every provider.
pub fn options() -> ProviderOptions {
    ProviderOptions {
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(20),
        },
        request_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(10),
        env: Env::from_pairs([
            ("OPENAI_API_KEY", KEY),
            ("ANTHROPIC_API_KEY", KEY),
            ("GEMINI_API_KEY", KEY),
        ]),
        working_dir: None,
    }
}

/// Provider `name` (built in, so default key variables apply) at `base_url`.
pub fn provider_at(
    name: &str,
    kind: ProviderKind,
    base_url: &str,
    options: &ProviderOptions,
) -> Arc<dyn ModelProvider> {
    let mut settings = Settings::default();
    let config = ProviderConfig {
        kind,
        base_url: Some(base_url.to_owned()),
        ..Default::default()
    };
    settings.providers.insert(name.to_owned(), config);
    let model = ModelRef {
        provider: name.to_owned(),
        model: "test-model".to_owned(),
    };
    build_provider(&model, &settings, options).unwrap()
}

/// A one-message request offering one tool.
pub fn request(text: &str, stream: bool) -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        system: Some("You are terse.".into()),
        messages: vec![Message::user(text)],
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "Reads a file".into(),
            parameters: serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "additionalProperties": false,
            }),
        }],
        temperature: None,
        max_tokens: None,
        stream,
    }
}

/// Collects deltas.
#[derive(Default)]
pub struct Deltas(Mutex<Vec<ModelDelta>>);

impl Deltas {
    pub fn sink(&self) -> impl Fn(ModelDelta) + Send + Sync + '_ {
        |delta| self.0.lock().unwrap().push(delta)
    }

    pub fn all(&self) -> Vec<ModelDelta> {
        self.0.lock().unwrap().clone()
    }

    pub fn texts(&self) -> Vec<String> {
        self.all()
            .into_iter()
            .filter_map(|delta| match delta {
                ModelDelta::Text { text } => Some(text),
                _ => None,
            })
            .collect()
    }
}

/// Every error's message is one line and never shows the key.
pub fn check_display(error: &impl std::fmt::Display) -> String {
    let text = error.to_string();
    assert!(!text.contains('\n'), "multi-line error: {text}");
    assert!(!text.contains(KEY), "error shows the key: {text}");
    text
}

//! Chooses and configures a provider for a resolved [`ModelRef`].

use crate::anthropic::AnthropicProvider;
use crate::gemini::GeminiProvider;
use crate::http::HttpClient;
use crate::openai::OpenAiProvider;
use crate::options::{Env, ProviderOptions};
use crate::scripted::ScriptedProvider;
use agentctl_core::{ModelProvider, ProviderError};
use agentctl_core::{ModelRef, ProviderConfig, ProviderFactory, ProviderKind, Settings};
use std::path::Path;
use std::sync::Arc;

const OPENAI_BASE: &str = "https://api.openai.com/v1";
const OLLAMA_BASE: &str = "http://localhost:11434/v1";
const ANTHROPIC_BASE: &str = "https://api.anthropic.com";
const GEMINI_BASE: &str = "https://generativelanguage.googleapis.com";

/// The built-in providers as a runtime's [`ProviderFactory`]: [`build_provider`] with fixed
/// options.
#[derive(Debug, Clone, Default)]
pub struct BuiltinProviders {
    options: ProviderOptions,
}

impl BuiltinProviders {
    /// The factory building providers with `options` (keys, base URLs, retries, working
    /// directory of cassettes).
    pub fn new(options: ProviderOptions) -> Self {
        Self { options }
    }
}

impl ProviderFactory for BuiltinProviders {
    fn build(
        &self,
        model: &ModelRef,
        settings: &Settings,
    ) -> Result<Arc<dyn ModelProvider>, ProviderError> {
        build_provider(model, settings, &self.options)
    }
}

/// Builds the provider serving `model`.
///
/// The provider is chosen by name: a key of `settings.providers` (by its `kind`), else one of
/// `openai`, `anthropic`, `gemini`, `ollama` (OpenAI-compatible at `http://localhost:11434/v1`,
/// no key) or `scripted` (the model is a cassette path, relative to
/// [`ProviderOptions::working_dir`]).
///
/// Base URLs come from the settings' `baseUrl`, else `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` /
/// `GEMINI_BASE_URL`, else the public endpoint. Keys come from the settings' `apiKeyEnv`, else
/// `OPENAI_API_KEY` (built-in `openai` only: other OpenAI-compatible endpoints get no key
/// unless they name a variable), `ANTHROPIC_API_KEY`, `GEMINI_API_KEY` or `GOOGLE_API_KEY`. A
/// missing key is a [`ProviderError::MissingApiKey`] here, before any request.
///
/// ```
/// use agentctl_core::{ModelRef, Settings};
/// use agentctl_core::ProviderError;
/// use agentctl_providers::{Env, ProviderOptions, build_provider};
///
/// let options = ProviderOptions { env: Env::from_pairs([("OPENAI_API_KEY", "sk-test")]), ..Default::default() };
/// let model = ModelRef { provider: "openai".into(), model: "gpt-4o-mini".into() };
/// let provider = build_provider(&model, &Settings::default(), &options).unwrap();
/// assert_eq!(provider.name(), "openai");
///
/// let anthropic = ModelRef { provider: "anthropic".into(), model: "claude-sonnet-4-5".into() };
/// let error = build_provider(&anthropic, &Settings::default(), &options).err().unwrap();
/// assert!(matches!(error, ProviderError::MissingApiKey { .. }));
/// assert!(error.to_string().contains("ANTHROPIC_API_KEY"));
/// ```
pub fn build_provider(
    model: &ModelRef,
    settings: &Settings,
    options: &ProviderOptions,
) -> Result<Arc<dyn ModelProvider>, ProviderError> {
    let name = model.provider.as_str();
    let configured = settings.providers.get(name);
    if name == "scripted" && configured.is_none() {
        let path = Path::new(&model.model);
        let path = match &options.working_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        };
        return Ok(Arc::new(ScriptedProvider::from_file(&path)?));
    }
    let Endpoint {
        kind,
        base_url,
        http,
    } = endpoint(model, settings, options)?;
    Ok(match kind {
        ProviderKind::Openai => Arc::new(OpenAiProvider::new(http, &base_url)),
        ProviderKind::Anthropic => Arc::new(AnthropicProvider::new(http, &base_url)),
        ProviderKind::Gemini => Arc::new(GeminiProvider::new(http, &base_url)),
    })
}

/// A provider's API as the settings and the environment configure it: its wire format, base
/// URL and a client sending its key and headers.
pub(crate) struct Endpoint {
    /// The wire format.
    pub kind: ProviderKind,
    /// The base URL (checked to be http or https).
    pub base_url: String,
    /// The client.
    pub http: HttpClient,
}

/// Resolves the endpoint of `model`'s provider: a key of `settings.providers`, else one of the
/// built-in names; base URL, key and headers as [`build_provider`] documents.
pub(crate) fn endpoint(
    model: &ModelRef,
    settings: &Settings,
    options: &ProviderOptions,
) -> Result<Endpoint, ProviderError> {
    let name = model.provider.as_str();
    let default_config;
    let config = match settings.providers.get(name) {
        Some(config) => config,
        None => {
            default_config = builtin_config(name, model)?;
            &default_config
        }
    };
    let env = &options.env;
    let setting_or_env = |var: &str, default: &str| {
        config
            .base_url
            .clone()
            .or_else(|| env.get(var))
            .unwrap_or_else(|| default.to_owned())
    };
    let (key, key_env) = api_key(name, model, config, env)?;
    let (base_url, auth) = match config.kind {
        ProviderKind::Openai => {
            let default = if name == "ollama" {
                OLLAMA_BASE
            } else {
                OPENAI_BASE
            };
            let base = if name == "ollama" {
                config
                    .base_url
                    .clone()
                    .unwrap_or_else(|| default.to_owned())
            } else {
                setting_or_env("OPENAI_BASE_URL", default)
            };
            let auth = if key.is_empty() {
                vec![]
            } else {
                vec![("authorization", format!("Bearer {key}"))]
            };
            (base, auth)
        }
        ProviderKind::Anthropic => (
            setting_or_env("ANTHROPIC_BASE_URL", ANTHROPIC_BASE),
            vec![
                ("x-api-key", key),
                ("anthropic-version", "2023-06-01".to_owned()),
            ],
        ),
        ProviderKind::Gemini => (
            setting_or_env("GEMINI_BASE_URL", GEMINI_BASE),
            vec![("x-goog-api-key", key)],
        ),
    };
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(ProviderError::Config(format!(
            "{name}: base URL `{base_url}` must start with http:// or https://"
        )));
    }
    let http = HttpClient::new(name, &key_env, auth, &config.headers, options)?;
    Ok(Endpoint {
        kind: config.kind,
        base_url,
        http,
    })
}

/// The configuration of a built-in provider name that settings do not configure.
fn builtin_config(name: &str, model: &ModelRef) -> Result<ProviderConfig, ProviderError> {
    let kind = match name {
        "openai" | "ollama" => ProviderKind::Openai,
        "anthropic" => ProviderKind::Anthropic,
        "gemini" => ProviderKind::Gemini,
        _ => {
            return Err(ProviderError::Config(format!(
                "unknown provider `{name}` for model `{model}`: use openai, anthropic, gemini, ollama or scripted, or add `providers.{name}` to settings"
            )));
        }
    };
    Ok(ProviderConfig {
        kind,
        ..ProviderConfig::default()
    })
}

/// The provider's API key (empty when the endpoint needs none) and the variables it may be
/// read from, as error messages name them; a missing key that is needed is an error.
fn api_key(
    name: &str,
    model: &ModelRef,
    config: &ProviderConfig,
    env: &Env,
) -> Result<(String, String), ProviderError> {
    // Which variables may hold the key; empty means the endpoint needs none.
    let key_vars: Vec<String> = match (&config.api_key_env, config.kind) {
        (Some(var), _) => vec![var.clone()],
        (None, ProviderKind::Openai) if name == "openai" => vec!["OPENAI_API_KEY".into()],
        (None, ProviderKind::Openai) => Vec::new(),
        (None, ProviderKind::Anthropic) => vec!["ANTHROPIC_API_KEY".into()],
        (None, ProviderKind::Gemini) => vec!["GEMINI_API_KEY".into(), "GOOGLE_API_KEY".into()],
    };
    let key_env = if key_vars.is_empty() {
        format!("providers.{name}.apiKeyEnv")
    } else {
        key_vars.join(" or ")
    };
    let key = key_vars.iter().find_map(|var| env.get(var));
    if key.is_none() && !key_vars.is_empty() {
        return Err(ProviderError::MissingApiKey {
            provider: name.to_owned(),
            model: model.model.clone(),
            env_var: key_env,
        });
    }
    Ok((key.unwrap_or_default(), key_env))
}

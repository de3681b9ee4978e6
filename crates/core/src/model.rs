//! Model references: `provider:model` strings, aliases and inference from bare model ids.

use crate::hint::Hint;
use crate::settings::Settings;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// Providers agentctl knows without any settings.
pub const KNOWN_PROVIDERS: &[&str] = &["openai", "anthropic", "gemini", "ollama", "scripted"];

/// Aliases that work without settings; `settings.aliases` overrides them.
pub const BUILTIN_ALIASES: &[(&str, &str)] = &[
    ("sonnet", "anthropic:claude-sonnet-4-5"),
    ("opus", "anthropic:claude-opus-4-1"),
    ("haiku", "anthropic:claude-haiku-4-5"),
];

/// How deep alias chains may go before they are taken for a cycle.
const MAX_ALIAS_DEPTH: usize = 8;

/// A resolved model: which provider serves it and the provider's model id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ModelRef {
    /// Provider name: one of [`KNOWN_PROVIDERS`] or a key of `settings.providers`.
    pub provider: String,
    /// Model id as the provider knows it (for `scripted`, the cassette path).
    pub model: String,
}

impl ModelRef {
    /// This model as a run in `dir` finds it: a `scripted:` cassette named by a relative path
    /// is looked up in `dir`, not in the process's current directory; any other model is
    /// itself. (Only the built-in `scripted` provider names a file: a provider configured
    /// under that name in settings is not given this rewrite by its caller.)
    ///
    /// ```
    /// use agentctl_core::ModelRef;
    /// use std::path::Path;
    ///
    /// let cassette = ModelRef { provider: "scripted".into(), model: "review.yaml".into() };
    /// let found = cassette.located_in(Path::new("/work/project"));
    /// assert_eq!(found.model, Path::new("/work/project/review.yaml").to_string_lossy());
    /// let hosted = ModelRef { provider: "openai".into(), model: "gpt-4o".into() };
    /// assert_eq!(*hosted.located_in(Path::new("/work/project")), hosted);
    /// ```
    pub fn located_in(&self, dir: &Path) -> Cow<'_, ModelRef> {
        let path = Path::new(&self.model);
        if self.provider != "scripted" || !path.is_relative() || self.model.is_empty() {
            return Cow::Borrowed(self);
        }
        Cow::Owned(ModelRef {
            provider: self.provider.clone(),
            model: dir.join(path).to_string_lossy().into_owned(),
        })
    }
}

impl fmt::Display for ModelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.provider, self.model)
    }
}

/// Why a model string could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// `inherit` with nothing to inherit from.
    #[error("model `inherit` has nothing to inherit: set `agents.defaultModel` in settings")]
    NothingToInherit,
    /// The provider prefix is neither built in nor configured.
    #[error(
        "unknown provider `{provider}` in model `{input}`: use one of {known} or add `providers.{provider}` to settings"
    )]
    UnknownProvider {
        /// The model string as written.
        input: String,
        /// The provider part.
        provider: String,
        /// Providers that would work, comma-separated.
        known: String,
    },
    /// A bare id whose provider cannot be inferred.
    #[error(
        "cannot tell which provider serves model `{input}`: write it as `provider:model` (e.g. `openai:{input}`) or define an alias in settings"
    )]
    UnknownModel {
        /// The model string as written.
        input: String,
    },
    /// Aliases that refer to each other.
    #[error(
        "model alias `{alias}` does not resolve: the alias chain is cyclic or deeper than {MAX_ALIAS_DEPTH}"
    )]
    AliasCycle {
        /// The alias where resolution started.
        alias: String,
    },
    /// `provider:` with nothing after the colon.
    #[error("model `{input}` names no model after the provider")]
    EmptyModel {
        /// The model string as written.
        input: String,
    },
}

impl ModelError {
    /// What a front end can offer beyond the message: naming a model for the run.
    pub fn hint(&self) -> Option<Hint> {
        matches!(self, ModelError::NothingToInherit).then_some(Hint::ChooseModel)
    }
}

impl ModelRef {
    /// Splits a `provider:model` string without resolving aliases or checking the provider.
    pub fn split(input: &str) -> Option<(&str, &str)> {
        input.split_once(':')
    }
}

/// Resolves a model string from an agent file, the command line or settings.
///
/// `inherited` is the model of the calling context, used for `inherit`; when it is `None`,
/// `settings.agents.defaultModel` is used.
///
/// ```
/// use agentctl_core::{resolve_model, Settings};
/// let settings = Settings::default();
/// let model = resolve_model("sonnet", &settings, None).unwrap();
/// assert_eq!(model.to_string(), "anthropic:claude-sonnet-4-5");
/// let model = resolve_model("ollama:llama3.2:3b", &settings, None).unwrap();
/// assert_eq!((model.provider.as_str(), model.model.as_str()), ("ollama", "llama3.2:3b"));
/// ```
pub fn resolve_model(
    input: &str,
    settings: &Settings,
    inherited: Option<&str>,
) -> Result<ModelRef, ModelError> {
    let mut current = input.trim().to_owned();
    for _ in 0..MAX_ALIAS_DEPTH {
        if current == "inherit" {
            current = inherited
                .map(str::to_owned)
                .or_else(|| settings.agents.default_model.clone())
                .ok_or(ModelError::NothingToInherit)?;
            if current == "inherit" {
                return Err(ModelError::NothingToInherit);
            }
            continue;
        }
        if let Some(target) = lookup_alias(&current, settings) {
            current = target.to_owned();
            continue;
        }
        return parse_reference(&current, settings);
    }
    Err(ModelError::AliasCycle {
        alias: input.to_owned(),
    })
}

fn lookup_alias<'a>(name: &str, settings: &'a Settings) -> Option<&'a str> {
    settings.aliases.get(name).map(String::as_str).or_else(|| {
        BUILTIN_ALIASES
            .iter()
            .find(|(alias, _)| *alias == name)
            .map(|(_, target)| *target)
    })
}

fn parse_reference(input: &str, settings: &Settings) -> Result<ModelRef, ModelError> {
    if let Some((provider, model)) = ModelRef::split(input) {
        if model.is_empty() {
            return Err(ModelError::EmptyModel {
                input: input.to_owned(),
            });
        }
        if !KNOWN_PROVIDERS.contains(&provider) && !settings.providers.contains_key(provider) {
            let mut known: Vec<&str> = KNOWN_PROVIDERS.to_vec();
            // A configured provider may reuse a built-in name (`ollama` with its own base URL).
            known.extend(
                settings
                    .providers
                    .keys()
                    .map(String::as_str)
                    .filter(|name| !KNOWN_PROVIDERS.contains(name)),
            );
            return Err(ModelError::UnknownProvider {
                input: input.to_owned(),
                provider: provider.to_owned(),
                known: known.join(", "),
            });
        }
        return Ok(ModelRef {
            provider: provider.to_owned(),
            model: model.to_owned(),
        });
    }
    infer_provider(input)
        .map(|provider| ModelRef {
            provider: provider.to_owned(),
            model: input.to_owned(),
        })
        .ok_or_else(|| ModelError::UnknownModel {
            input: input.to_owned(),
        })
}

/// Resolves the `embedding_model` of long-term memory: `provider:model` and aliases as for
/// chat models ([`resolve_model`]); a bare name goes by its family — OpenAI's
/// `text-embedding-3-*`/`text-embedding-ada-*` to `openai`, Gemini's `gemini-embedding-*`,
/// `text-embedding-004`/`005`, `embedding-001` and `text-multilingual-embedding-*` to
/// `gemini`, the usual Ollama library models (`nomic-embed-text`, `mxbai-embed-large`,
/// `all-minilm`, `bge-*`, `snowflake-arctic-embed*`, `granite-embedding*`, `embeddinggemma`)
/// to `ollama` — and any other bare name to `openai`, whose base URL (`OPENAI_BASE_URL`) may
/// point at any OpenAI-compatible server. `inherit` means nothing here and is refused.
///
/// ```
/// use agentctl_core::{resolve_embedding_model, Settings};
/// let settings = Settings::default();
/// let model = |name| resolve_embedding_model(name, &settings).unwrap().to_string();
/// assert_eq!(model("text-embedding-3-small"), "openai:text-embedding-3-small");
/// assert_eq!(model("text-embedding-004"), "gemini:text-embedding-004");
/// assert_eq!(model("nomic-embed-text"), "ollama:nomic-embed-text");
/// assert_eq!(model("ollama:bge-m3"), "ollama:bge-m3");
/// assert_eq!(model("my-embedder"), "openai:my-embedder");
/// ```
pub fn resolve_embedding_model(input: &str, settings: &Settings) -> Result<ModelRef, ModelError> {
    let input = input.trim();
    if input.is_empty() || input == "inherit" {
        return Err(ModelError::UnknownModel {
            input: input.to_owned(),
        });
    }
    match resolve_model(input, settings, None) {
        Err(ModelError::UnknownModel { input }) => Ok(ModelRef {
            provider: embedding_provider(&input).to_owned(),
            model: input,
        }),
        other => other,
    }
}

/// The provider of a bare embedding model name.
fn embedding_provider(model: &str) -> &'static str {
    const GEMINI: &[&str] = &[
        "gemini-embedding",
        "text-embedding-004",
        "text-embedding-005",
        "embedding-001",
        "text-multilingual-embedding",
    ];
    const OLLAMA: &[&str] = &[
        "nomic-embed",
        "mxbai-embed",
        "all-minilm",
        "bge-",
        "snowflake-arctic-embed",
        "granite-embedding",
        "embeddinggemma",
    ];
    if GEMINI.iter().any(|prefix| model.starts_with(prefix)) {
        "gemini"
    } else if OLLAMA.iter().any(|prefix| model.starts_with(prefix)) {
        "ollama"
    } else {
        "openai"
    }
}

/// Infers the provider of a bare model id, as Claude Code and Gemini CLI files write them.
fn infer_provider(model: &str) -> Option<&'static str> {
    const PREFIXES: &[(&str, &str)] = &[
        ("claude-", "anthropic"),
        ("gpt-", "openai"),
        ("chatgpt-", "openai"),
        ("o1", "openai"),
        ("o3", "openai"),
        ("o4", "openai"),
        ("gemini-", "gemini"),
    ];
    PREFIXES
        .iter()
        .find(|(prefix, _)| model.starts_with(prefix))
        .map(|(_, provider)| *provider)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_settings_override_builtins_and_chain() {
        let mut settings = Settings::default();
        settings.aliases.insert("sonnet".into(), "fast".into());
        settings
            .aliases
            .insert("fast".into(), "ollama:qwen3".into());
        let model = resolve_model("sonnet", &settings, None).unwrap();
        assert_eq!(model.to_string(), "ollama:qwen3");
    }

    #[test]
    fn alias_cycle_is_an_error() {
        let mut settings = Settings::default();
        settings.aliases.insert("a".into(), "b".into());
        settings.aliases.insert("b".into(), "a".into());
        assert!(matches!(
            resolve_model("a", &settings, None),
            Err(ModelError::AliasCycle { .. })
        ));
    }

    #[test]
    fn inherit_uses_parent_then_default() {
        let mut settings = Settings::default();
        assert_eq!(
            resolve_model("inherit", &settings, None),
            Err(ModelError::NothingToInherit)
        );
        settings.agents.default_model = Some("openai:gpt-4o-mini".into());
        assert_eq!(
            resolve_model("inherit", &settings, None).unwrap().model,
            "gpt-4o-mini"
        );
        let model = resolve_model("inherit", &settings, Some("haiku")).unwrap();
        assert_eq!(model.provider, "anthropic");
    }

    #[test]
    fn bare_ids_infer_provider() {
        let settings = Settings::default();
        let model = resolve_model("claude-sonnet-4-5-20250929", &settings, None).unwrap();
        assert_eq!(model.provider, "anthropic");
        assert_eq!(
            resolve_model("gemini-2.5-pro", &settings, None)
                .unwrap()
                .provider,
            "gemini"
        );
        assert!(matches!(
            resolve_model("mystery", &settings, None),
            Err(ModelError::UnknownModel { .. })
        ));
    }

    #[test]
    fn the_unknown_provider_error_names_each_provider_once() {
        let mut settings = Settings::default();
        settings
            .providers
            .insert("ollama".into(), Default::default());
        settings.providers.insert("vllm".into(), Default::default());
        let error = resolve_model("nope:x", &settings, None)
            .unwrap_err()
            .to_string();
        assert_eq!(error.matches("ollama").count(), 1, "{error}");
        assert!(error.contains("vllm"), "{error}");
    }

    #[test]
    fn provider_must_be_known_or_configured() {
        let mut settings = Settings::default();
        assert!(matches!(
            resolve_model("vllm:qwen", &settings, None),
            Err(ModelError::UnknownProvider { .. })
        ));
        settings.providers.insert("vllm".into(), Default::default());
        assert_eq!(
            resolve_model("vllm:qwen", &settings, None)
                .unwrap()
                .provider,
            "vllm"
        );
        assert!(matches!(
            resolve_model("openai:", &settings, None),
            Err(ModelError::EmptyModel { .. })
        ));
    }
}

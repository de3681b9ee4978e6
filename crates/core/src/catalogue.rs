//! The models agentctl knows, by provider, with their list prices: a data file kept in the
//! repository (`crates/core/data/models.json`, dated), read once. A model missing from it
//! still runs — the catalogue only lets validation say "did you mean", runs price their
//! tokens, and says which models reason and which efforts they accept
//! ([`ModelCatalogue::effort`]).

use crate::effort::{Effort, EffortPlan, EffortStyle, EffortSupport};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

const MODELS_JSON: &str = include_str!("../data/models.json");

/// What the catalogue knows of one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    /// US dollars per million input (prompt) tokens.
    pub input_per_mtok: f64,
    /// US dollars per million output (completion) tokens.
    pub output_per_mtok: f64,
}

impl ModelPrice {
    /// The price of `input` and `output` tokens, in US dollars.
    pub fn cost(&self, input: u64, output: u64) -> f64 {
        // Token counts far beyond f64's exact integers are not a concern for prices.
        #[allow(clippy::cast_precision_loss)]
        let (input, output) = (input as f64, output as f64);
        (input * self.input_per_mtok + output * self.output_per_mtok) / 1_000_000.0
    }
}

/// The catalogue: models by provider.
#[derive(Debug, Default, Deserialize)]
pub struct ModelCatalogue {
    /// The day its prices were checked (`YYYY-MM-DD`).
    pub updated: String,
    providers: BTreeMap<String, BTreeMap<String, [f64; 2]>>,
    #[serde(default)]
    reasoning: ReasoningTable,
}

/// The models that reason, by provider.
#[derive(Debug, Default, Deserialize)]
struct ReasoningTable {
    #[serde(default, rename = "about")]
    _about: String,
    #[serde(flatten)]
    providers: BTreeMap<String, ReasoningProvider>,
}

#[derive(Debug, Deserialize)]
struct ReasoningProvider {
    style: StyleName,
    models: BTreeMap<String, ReasoningModel>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum ReasoningModel {
    /// The levels, in the provider's style.
    Levels(Vec<Effort>),
    /// A style of its own.
    Styled {
        style: StyleName,
        levels: Vec<Effort>,
    },
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum StyleName {
    Level,
    Budget,
    ThinkingLevel,
}

impl From<StyleName> for EffortStyle {
    fn from(name: StyleName) -> Self {
        match name {
            StyleName::Level => EffortStyle::Level,
            StyleName::Budget => EffortStyle::Budget,
            StyleName::ThinkingLevel => EffortStyle::ThinkingLevel,
        }
    }
}

impl ModelCatalogue {
    /// The catalogue kept in the repository.
    ///
    /// ```
    /// use agentctl_core::ModelCatalogue;
    /// let catalogue = ModelCatalogue::builtin();
    /// assert!(catalogue.knows("openai", "gpt-4o-mini-2024-07-18"));
    /// assert!(!catalogue.knows("openai", "gpt-4o-mni"));
    /// assert!(catalogue.models("anthropic").unwrap().contains(&"claude-sonnet-4-5"));
    /// let price = catalogue.price("openai", "gpt-4o-mini").unwrap();
    /// assert!((price.cost(1_000_000, 0) - 0.15).abs() < 1e-9);
    /// ```
    pub fn builtin() -> &'static ModelCatalogue {
        static CATALOGUE: OnceLock<ModelCatalogue> = OnceLock::new();
        // The file is the repository's own and a test parses it: a broken one is no catalogue
        // rather than a panic.
        CATALOGUE.get_or_init(|| serde_json::from_str(MODELS_JSON).unwrap_or_default())
    }

    /// The models of `provider`, `None` for a provider the catalogue does not cover (a local
    /// or self-configured one: any model name may be right there).
    pub fn models(&self, provider: &str) -> Option<Vec<&str>> {
        self.providers
            .get(provider)
            .map(|models| models.keys().map(String::as_str).collect())
    }

    /// Whether `model` of `provider` is in the catalogue: its id, or its id with a dated or
    /// versioned suffix (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`).
    pub fn knows(&self, provider: &str, model: &str) -> bool {
        self.entry(provider, model).is_some()
    }

    /// The list price of `model` of `provider` (the longest catalogue id it starts with).
    pub fn price(&self, provider: &str, model: &str) -> Option<ModelPrice> {
        self.entry(provider, model)
            .map(|[input, output]| ModelPrice {
                input_per_mtok: input,
                output_per_mtok: output,
            })
    }

    /// Whether `model` of `provider` reasons and how it takes an effort.
    ///
    /// ```
    /// use agentctl_core::{Effort, EffortStyle, EffortSupport, ModelCatalogue};
    /// let catalogue = ModelCatalogue::builtin();
    /// let EffortSupport::Reasons { style, levels } = catalogue.effort("openai", "o3-2025-04-16")
    /// else { panic!() };
    /// assert_eq!(style, EffortStyle::Level);
    /// assert!(!levels.contains(&Effort::Minimal));
    /// assert_eq!(catalogue.effort("openai", "gpt-4o-mini"), EffortSupport::DoesNotReason);
    /// assert_eq!(catalogue.effort("openai", "gpt-7"), EffortSupport::Unknown);
    /// assert_eq!(catalogue.effort("ollama", "qwen3"), EffortSupport::Unknown);
    /// ```
    pub fn effort(&self, provider: &str, model: &str) -> EffortSupport {
        let reasoning = self
            .reasoning
            .providers
            .get(provider)
            .and_then(|table| Some((table, longest(&table.models, model)?)));
        match reasoning {
            Some((table, ReasoningModel::Levels(levels))) => EffortSupport::Reasons {
                style: table.style.into(),
                levels: levels.clone(),
            },
            Some((_, ReasoningModel::Styled { style, levels })) => EffortSupport::Reasons {
                style: (*style).into(),
                levels: levels.clone(),
            },
            None if self.knows(provider, model) => EffortSupport::DoesNotReason,
            None => EffortSupport::Unknown,
        }
    }

    /// What a request to `model` of `provider` carries for `effort`: the level itself, the
    /// nearest level the model accepts, or nothing when the catalogue says the model does
    /// not reason. A model the catalogue does not know gets the level as asked — the user
    /// asked for it, new models reach the providers before they reach this file, and a
    /// provider that refuses it says so in its own words.
    pub fn plan_effort(&self, provider: &str, model: &str, effort: Effort) -> EffortPlan {
        match self.effort(provider, model) {
            EffortSupport::Reasons { levels, .. } => match effort.nearest(&levels) {
                Some(sent) if sent != effort => EffortPlan::Nearest {
                    asked: effort,
                    sent,
                },
                _ => EffortPlan::Send(effort),
            },
            EffortSupport::DoesNotReason => EffortPlan::NotSent(effort),
            EffortSupport::Unknown => EffortPlan::Send(effort),
        }
    }

    fn entry(&self, provider: &str, model: &str) -> Option<[f64; 2]> {
        longest(self.providers.get(provider)?, model).copied()
    }
}

/// The entry of the longest id `model` is, or is a snapshot of.
fn longest<'a, T>(models: &'a BTreeMap<String, T>, model: &str) -> Option<&'a T> {
    models
        .iter()
        .filter(|(id, _)| {
            model
                .strip_prefix(id.as_str())
                .is_some_and(|rest| rest.is_empty() || is_version_suffix(rest))
        })
        .max_by_key(|(id, _)| id.len())
        .map(|(_, entry)| entry)
}

/// `-2024-08-06`, `-20250929`, `@20250929`, `-latest`, `-preview-05-20`, `-exp`: a snapshot
/// of the model, not another model (`-mini` is another model).
fn is_version_suffix(rest: &str) -> bool {
    let Some(tail) = rest.strip_prefix(['-', '@']) else {
        return false;
    };
    tail.starts_with(|c: char| c.is_ascii_digit())
        || ["latest", "preview", "exp"]
            .iter()
            .any(|word| tail == *word || tail.starts_with(&format!("{word}-")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_parses_and_covers_the_built_in_providers() {
        let catalogue: ModelCatalogue = serde_json::from_str(MODELS_JSON).unwrap();
        assert_eq!(catalogue.updated.len(), "2025-10-15".len());
        for provider in ["openai", "anthropic", "gemini"] {
            assert!(
                catalogue.models(provider).is_some_and(|m| !m.is_empty()),
                "{provider}"
            );
        }
        assert_eq!(catalogue.models("ollama"), None);
        assert!(!catalogue.reasoning.providers.is_empty());
        for (provider, table) in &catalogue.reasoning.providers {
            for id in table.models.keys() {
                assert!(
                    catalogue.knows(provider, id),
                    "{provider}:{id} has no price"
                );
            }
        }
    }

    #[test]
    fn efforts_by_model() {
        let catalogue = ModelCatalogue::builtin();
        assert_eq!(
            catalogue.plan_effort("openai", "gpt-5-mini", Effort::Minimal),
            EffortPlan::Send(Effort::Minimal)
        );
        assert_eq!(
            catalogue.plan_effort("openai", "o4-mini", Effort::Minimal),
            EffortPlan::Nearest {
                asked: Effort::Minimal,
                sent: Effort::Low
            }
        );
        assert_eq!(
            catalogue.plan_effort("openai", "gpt-4.1", Effort::High),
            EffortPlan::NotSent(Effort::High)
        );
        assert_eq!(
            catalogue.plan_effort("anthropic", "claude-3-5-haiku", Effort::High),
            EffortPlan::NotSent(Effort::High)
        );
        assert_eq!(
            catalogue.plan_effort("anthropic", "claude-sonnet-4-5-20250929", Effort::Max),
            EffortPlan::Send(Effort::Max)
        );
        let EffortSupport::Reasons { style, .. } =
            catalogue.effort("gemini", "gemini-3-pro-preview")
        else {
            panic!()
        };
        assert_eq!(style, EffortStyle::ThinkingLevel);
        assert_eq!(
            catalogue.plan_effort("gemini", "gemini-3-pro-preview", Effort::Medium),
            EffortPlan::Nearest {
                asked: Effort::Medium,
                sent: Effort::High
            }
        );
        assert_eq!(
            catalogue.plan_effort("gemini", "gemini-2.0-flash", Effort::Low),
            EffortPlan::NotSent(Effort::Low)
        );
        assert_eq!(
            catalogue.plan_effort("openrouter", "x", Effort::Low),
            EffortPlan::Send(Effort::Low)
        );
    }

    #[test]
    fn dated_ids_are_known_and_priced_by_the_longest_id() {
        let catalogue = ModelCatalogue::builtin();
        assert!(catalogue.knows("anthropic", "claude-sonnet-4-5-20250929"));
        let mini = catalogue.price("openai", "gpt-4o-mini-2024-07-18").unwrap();
        assert!((mini.input_per_mtok - 0.15).abs() < 1e-9);
        assert!(!catalogue.knows("openai", "gpt-4o-minimal"));
        assert!(!catalogue.knows("openai", "gpt"));
        assert!(catalogue.knows("gemini", "gemini-2.5-flash-preview-05-20"));
        assert!(catalogue.knows("anthropic", "claude-opus-4-1@20250805"));
    }
}

//! The models agentctl knows, by provider, with their list prices: a data file kept in the
//! repository (`crates/core/data/models.json`, dated), read once. A model missing from it
//! still runs — the catalogue only lets validation say "did you mean" and runs price their
//! tokens.

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

    fn entry(&self, provider: &str, model: &str) -> Option<[f64; 2]> {
        let models = self.providers.get(provider)?;
        models
            .iter()
            .filter(|(id, _)| {
                model
                    .strip_prefix(id.as_str())
                    .is_some_and(|rest| rest.is_empty() || is_version_suffix(rest))
            })
            .max_by_key(|(id, _)| id.len())
            .map(|(_, price)| *price)
    }
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

//! Validators a program registers by name: [`Validator`], [`validator_fn`] and the
//! [`ValidatorRegistry`] agent files pick them from with `validator: <name>`.

use agentctl_core::GuardrailStage;
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The validators agentctl itself provides, by the name an agent file uses.
pub const BUILTIN_VALIDATORS: [&str; 5] = [
    "regex",
    "not-regex",
    "max-length",
    "contains-secret",
    "json",
];

/// The validator name that stands for "the one registered under this guardrail's name".
pub const CUSTOM_VALIDATOR: &str = "custom";

/// What a registered validator is asked to check.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ValidatorInput<'a> {
    /// The text: the prompt, the answer, or a handoff's payload as JSON.
    pub text: &'a str,
    /// The agent whose input or output it is.
    pub agent: &'a str,
    /// The guardrail's name.
    pub guardrail: &'a str,
    /// Whether it is the agent's input or output.
    pub stage: GuardrailStage,
}

impl<'a> ValidatorInput<'a> {
    /// The input of a check of `text` by `guardrail` of `agent` at `stage` (for calling a
    /// validator directly, e.g. in its tests).
    pub fn new(text: &'a str, agent: &'a str, guardrail: &'a str, stage: GuardrailStage) -> Self {
        Self {
            text,
            agent,
            guardrail,
            stage,
        }
    }
}

/// A check an embedding program provides, used by guardrails that name it.
///
/// `Err` holds one-line errors: they are shown to the user, recorded in the session and, for
/// `repair` guardrails, sent back to the model, so they must not quote secrets. A validator
/// that panics fails its check; one that takes longer than
/// [`DEFAULT_VALIDATOR_TIMEOUT_SECS`](agentctl_core::DEFAULT_VALIDATOR_TIMEOUT_SECS) fails it
/// too. Blocking work belongs in `tokio::task::spawn_blocking`.
///
/// ```
/// use agentctl_guardrails::{Validator, ValidatorInput};
/// use async_trait::async_trait;
///
/// struct NoShouting;
///
/// #[async_trait]
/// impl Validator for NoShouting {
///     async fn validate(&self, input: &ValidatorInput<'_>) -> Result<(), Vec<String>> {
///         let letters = input.text.chars().filter(|c| c.is_alphabetic());
///         if letters.clone().count() > 10 && letters.clone().all(char::is_uppercase) {
///             return Err(vec!["the text is all capitals; write in sentence case".into()]);
///         }
///         Ok(())
///     }
/// }
/// ```
#[async_trait]
pub trait Validator: Send + Sync {
    /// Checks `input.text`.
    async fn validate(&self, input: &ValidatorInput<'_>) -> Result<(), Vec<String>>;
}

/// A [`Validator`] from a synchronous closure (see [`validator_fn`]).
pub struct FnValidator<F>(F);

impl<F> fmt::Debug for FnValidator<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnValidator")
    }
}

#[async_trait]
impl<F> Validator for FnValidator<F>
where
    F: Fn(&ValidatorInput<'_>) -> Result<(), Vec<String>> + Send + Sync,
{
    async fn validate(&self, input: &ValidatorInput<'_>) -> Result<(), Vec<String>> {
        (self.0)(input)
    }
}

/// A validator that runs `check` on the async worker that checks the guardrails: for quick
/// checks; slow ones should implement [`Validator`] and move their work off the worker.
///
/// ```
/// use agentctl_guardrails::{ValidatorRegistry, validator_fn};
///
/// let mut registry = ValidatorRegistry::new();
/// registry
///     .register("cites-a-ticket", validator_fn(|input| {
///         if input.text.contains("JIRA-") {
///             Ok(())
///         } else {
///             Err(vec!["cite the ticket (JIRA-123) the change is for".to_owned()])
///         }
///     }))
///     .unwrap();
/// assert!(registry.contains("cites-a-ticket"));
/// ```
pub fn validator_fn<F>(check: F) -> FnValidator<F>
where
    F: Fn(&ValidatorInput<'_>) -> Result<(), Vec<String>> + Send + Sync,
{
    FnValidator(check)
}

/// Why a validator could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The name is one of agentctl's own validators, or `custom`.
    #[error(
        "cannot register a validator named `{name}`: the name is taken by a built-in validator ({}) or `custom`; choose another",
        BUILTIN_VALIDATORS.join(", ")
    )]
    Reserved {
        /// The name.
        name: String,
    },
    /// A validator of that name is registered already.
    #[error("a validator named `{name}` is registered already; choose another name")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// The name is empty or has whitespace.
    #[error(
        "cannot register a validator named `{name}`: agent files name it in `validator:`, so it must be a non-empty word without spaces"
    )]
    InvalidName {
        /// The name.
        name: String,
    },
}

/// The validators a program provides, by name. Cheap to clone.
#[derive(Clone, Default)]
pub struct ValidatorRegistry {
    validators: Arc<BTreeMap<String, Arc<dyn Validator>>>,
    /// Validators that are programs (`.agentctl/validators/NAME`), run like `command:`.
    programs: Arc<BTreeMap<String, PathBuf>>,
}

impl fmt::Debug for ValidatorRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.validators.keys().chain(self.programs.keys()))
            .finish()
    }
}

impl ValidatorRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `validator` as `name`. Built-in names, `custom` and names registered already
    /// are refused.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        validator: impl Validator + 'static,
    ) -> Result<&mut Self, RegisterError> {
        self.register_arc(name, Arc::new(validator))
    }

    /// [`register`](Self::register) for a validator that is shared already.
    pub fn register_arc(
        &mut self,
        name: impl Into<String>,
        validator: Arc<dyn Validator>,
    ) -> Result<&mut Self, RegisterError> {
        let name = name.into();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(RegisterError::InvalidName { name });
        }
        self.check_new(&name)?;
        Arc::make_mut(&mut self.validators).insert(name, validator);
        Ok(self)
    }

    /// Registers the program at `path` as validator `name`: it is run like a `command:`
    /// guardrail (the text on stdin, passing by exiting 0, in the tools' sandbox). See
    /// [`add_programs_in`](Self::add_programs_in) for a folder of them.
    pub fn register_program(
        &mut self,
        name: impl Into<String>,
        path: impl Into<PathBuf>,
    ) -> Result<&mut Self, RegisterError> {
        let name = name.into();
        self.check_new(&name)?;
        Arc::make_mut(&mut self.programs).insert(name, path.into());
        Ok(self)
    }

    fn check_new(&self, name: &str) -> Result<(), RegisterError> {
        let name = name.to_owned();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(RegisterError::InvalidName { name });
        }
        if name == CUSTOM_VALIDATOR || BUILTIN_VALIDATORS.contains(&name.as_str()) {
            return Err(RegisterError::Reserved { name });
        }
        if self.contains(&name) {
            return Err(RegisterError::Duplicate { name });
        }
        Ok(())
    }

    /// Whether a validator is registered as `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.validators.contains_key(name) || self.programs.contains_key(name)
    }

    /// The program registered as validator `name`.
    pub fn program(&self, name: &str) -> Option<&Path> {
        self.programs.get(name).map(PathBuf::as_path)
    }

    /// The validator registered as `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Validator>> {
        self.validators.get(name).cloned()
    }

    /// The registered names: those in code, then the programs, each sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.validators
            .keys()
            .chain(self.programs.keys())
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_duplicate_and_odd_names_are_refused() {
        let mut registry = ValidatorRegistry::new();
        let ok = || validator_fn(|_| Ok(()));
        for name in ["regex", "json", "custom"] {
            assert_eq!(
                registry.register(name, ok()).unwrap_err(),
                RegisterError::Reserved { name: name.into() }
            );
        }
        for name in ["", "two words"] {
            assert!(matches!(
                registry.register(name, ok()).unwrap_err(),
                RegisterError::InvalidName { .. }
            ));
        }
        registry
            .register("a", ok())
            .unwrap()
            .register("b", ok())
            .unwrap();
        let copy = registry.clone();
        assert!(matches!(
            registry.register("a", ok()).unwrap_err(),
            RegisterError::Duplicate { .. }
        ));
        registry.register("c", ok()).unwrap();
        assert_eq!(copy.names().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(registry.names().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(registry.get("c").is_some() && !copy.contains("c"));
    }
}

//! The command line's words for the hints library errors carry ([`Hint`]): the flags and
//! commands that get past an error, appended to its message.

use agentctl_core::{Hint, ModelError, RunError};
use agentctl_session::memory::MemoryError;
use agentctl_session::store::MigrateError;
use agentctl_session::{GraphError, SessionError};
use std::error::Error;

/// The hint of an error, when it is one of the library errors that carry one.
pub(crate) fn hint_of(error: &(dyn Error + 'static)) -> Option<Hint> {
    if let Some(error) = error.downcast_ref::<SessionError>() {
        error.hint()
    } else if let Some(error) = error.downcast_ref::<GraphError>() {
        error.hint()
    } else if let Some(error) = error.downcast_ref::<RunError>() {
        error.hint()
    } else if let Some(error) = error.downcast_ref::<ModelError>() {
        error.hint()
    } else if let Some(error) = error.downcast_ref::<MemoryError>() {
        error.hint()
    } else if let Some(error) = error.downcast_ref::<MigrateError>() {
        error.hint()
    } else {
        None
    }
}

/// What to type, worded to follow the error's message (it brings its own separator).
pub(crate) fn advice(hint: &Hint) -> String {
    match hint {
        Hint::ChooseModel => ", or pass --model".to_owned(),
        Hint::RaiseMaxTurns => ", or pass a higher --max-turns".to_owned(),
        Hint::RaiseBudget => {
            "; raise `maxTokens`/`maxCost` in the agent file, or pass a higher --max-tokens/--max-cost"
                .to_owned()
        }
        Hint::ListMemories { .. } => ": see `agentctl memory list`".to_owned(),
        Hint::ForgetMemories { agent } => format!(
            " with `agentctl memory forget ID` (see `agentctl memory list --agent {agent}`)"
        ),
        Hint::StartGraph => ": start one with `agentctl graph run NAME -p PROMPT`".to_owned(),
        Hint::ResumeGraph => "; continue it with `agentctl graph resume --session ID`".to_owned(),
        Hint::RerunFromStep => " with --from-step N".to_owned(),
        Hint::NameSession => ", or pass --session ID".to_owned(),
        // A hint added to the libraries before this front end learnt to word it.
        _ => String::new(),
    }
}

/// The error's message followed by the command line's advice for its hint, if any.
pub(crate) fn with_advice(error: &(dyn Error + 'static)) -> String {
    let advice = hint_of(error).map(|hint| advice(&hint)).unwrap_or_default();
    format!("{error}{advice}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_follows_the_library_message() {
        let missing = MemoryError::NotFound { id: 3, agent: None };
        assert_eq!(
            with_advice(&missing),
            "no memory #3: see `agentctl memory list`"
        );
        let cancelled = SessionError::Graph(Box::new(GraphError::Cancelled));
        assert_eq!(
            with_advice(&cancelled),
            "graph run cancelled; continue it with `agentctl graph resume --session ID`"
        );
        let no_model = SessionError::Run(RunError::NoModel { agent: "a".into() });
        assert_eq!(
            with_advice(&no_model),
            "agent `a` has no model: set `model:` in the agent file or `agents.defaultModel` in settings, or pass --model"
        );
        // An error without a hint is its message.
        assert_eq!(
            with_advice(&SessionError::NoRoute),
            SessionError::NoRoute.to_string()
        );
    }
}

//! The session state as `when` conditions see it, and which names a state key may have.
//!
//! A [`Condition`](crate::Condition) is evaluated against one map of variables
//! ([`condition_variables`]):
//!
//! | name | value |
//! |------|-------|
//! | every state key (`fix`, `analysis`, …) | its JSON value, so `fix.applied` reads the key `fix` |
//! | `memory` | the whole state as a map: `has(memory.fix)` tests whether `fix` is set |
//! | `task` | the state's `task` object, `{}` when not set |
//! | `payload` | the hand-off's payload (`null` when there is none) |
//! | `last` | the previous agent's final output, parsed when it is JSON ([`ChainFacts::output`]) |
//! | `agent` | the name of the agent that is running |
//! | `turn` | how many turns the chain has taken |
//!
//! The six fixed names win over state keys with the same name (which [`check_state_key`]
//! refuses, so only a state written outside the memory tools can have them; such a key is
//! still readable as `memory.<key>`).

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// State keys agents do not declare: every agent with memory tools may read and set them.
///
/// `task` is the shared record of the work in hand, an object such as
/// `{"status": "need-review"}`, so conditions can say `task.status == 'need-review'`.
pub const RESERVED_STATE_KEYS: &[&str] = &["task"];

/// The names a condition always has, whatever the state holds (see the module docs).
pub const CONDITION_NAMES: &[&str] = &["memory", "task", "payload", "last", "agent", "turn"];

/// Words CEL reserves: a key named like one could not be read as a top-level name.
pub(crate) const CEL_RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Longest state key.
pub const MAX_STATE_KEY_LEN: usize = 64;

/// What a condition knows about the hand-off chain besides the state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChainFacts {
    /// The agent that is running (the one whose hand-off is being checked).
    pub agent: String,
    /// The previous agent's final output, parsed when it is JSON (see [`ChainFacts::output`]);
    /// `null` for the first agent.
    pub last: Value,
    /// How many turns the chain has taken so far.
    pub turn: u32,
}

impl ChainFacts {
    /// An agent's final text as `last`: its JSON value when the text is JSON (also inside a
    /// Markdown code fence, as models like to write it), else the text as a string.
    ///
    /// ```
    /// use agentctl_routing::state::ChainFacts;
    /// use serde_json::json;
    ///
    /// assert_eq!(ChainFacts::output("{\"verdict\": \"approve\"}"), json!({"verdict": "approve"}));
    /// assert_eq!(ChainFacts::output("```json\n[1, 2]\n```"), json!([1, 2]));
    /// assert_eq!(ChainFacts::output("All fixed."), json!("All fixed."));
    /// ```
    pub fn output(text: &str) -> Value {
        let trimmed = text.trim();
        let unfenced = trimmed
            .strip_prefix("```")
            .and_then(|rest| rest.strip_suffix("```"))
            .and_then(|body| body.split_once('\n'))
            .map_or(trimmed, |(_language, body)| body.trim());
        serde_json::from_str(unfenced).unwrap_or_else(|_| Value::String(text.to_owned()))
    }
}

/// The variables a `when` condition is evaluated with: every state key at the top level, then
/// `memory` (the whole state), `task` (the state's, or `{}`), `payload`, `last`, `agent` and
/// `turn`, which win over state keys of the same name.
///
/// ```
/// use agentctl_routing::state::{ChainFacts, condition_variables};
/// use agentctl_routing::Condition;
/// use serde_json::json;
/// use std::collections::BTreeMap;
///
/// let state = BTreeMap::from([("fix".to_owned(), json!({"applied": true}))]);
/// let facts = ChainFacts { agent: "fixer".into(), last: json!(null), turn: 3 };
/// let variables = condition_variables(&state, &facts, &json!({"files": ["a.rs"]}));
/// let condition = Condition::parse("fix.applied && agent == 'fixer' && size(payload.files) == 1")?;
/// assert!(condition.evaluate(&variables)?);
/// assert_eq!(variables["task"], json!({}));
/// # Ok::<(), agentctl_routing::ConditionError>(())
/// ```
pub fn condition_variables(
    state: &BTreeMap<String, Value>,
    facts: &ChainFacts,
    payload: &Value,
) -> Map<String, Value> {
    let mut variables: Map<String, Value> = state
        .iter()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let memory: Map<String, Value> = variables.clone();
    let task = state
        .get("task")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    variables.insert("memory".into(), Value::Object(memory));
    variables.insert("task".into(), task);
    variables.insert("payload".into(), payload.clone());
    variables.insert("last".into(), facts.last.clone());
    variables.insert("agent".into(), Value::String(facts.agent.clone()));
    variables.insert("turn".into(), Value::from(facts.turn));
    variables
}

/// Why a name cannot be a state key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateKeyError {
    /// Not a CEL identifier, so a condition could not name it.
    #[error(
        "`{0}` is not a valid state key: use letters, digits and underscores, starting with a \
         letter or an underscore, up to 64 characters (conditions read it as a name)"
    )]
    NotIdentifier(String),
    /// A reserved key (`task`), which every agent with memory tools has without declaring it.
    #[error(
        "`{0}` is reserved: every agent with memory tools can read and set it without declaring it"
    )]
    Reserved(String),
    /// One of the names a condition always has (`memory`, `payload`, …).
    #[error(
        "`{0}` is a name conditions already have (memory, task, payload, last, agent, turn): \
         choose another key"
    )]
    ConditionName(String),
    /// A word CEL reserves (`in`, `null`, …) or one of its internal names (`__result__`).
    #[error("`{0}` is reserved by the CEL language: choose another key")]
    CelReserved(String),
}

/// Checks that `key` can be declared in `memory.session`: a CEL identifier
/// (`[A-Za-z_][A-Za-z0-9_]*`, at most [`MAX_STATE_KEY_LEN`] characters) that is neither
/// reserved ([`RESERVED_STATE_KEYS`]), nor a fixed condition name ([`CONDITION_NAMES`]), nor a
/// CEL keyword.
///
/// ```
/// use agentctl_routing::state::{StateKeyError, check_state_key};
/// assert!(check_state_key("can_auto_fix").is_ok());
/// assert_eq!(check_state_key("task"), Err(StateKeyError::Reserved("task".into())));
/// assert!(matches!(check_state_key("fix-list"), Err(StateKeyError::NotIdentifier(_))));
/// ```
pub fn check_state_key(key: &str) -> Result<(), StateKeyError> {
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && key.len() <= MAX_STATE_KEY_LEN;
    if !identifier {
        return Err(StateKeyError::NotIdentifier(key.to_owned()));
    }
    if RESERVED_STATE_KEYS.contains(&key) {
        return Err(StateKeyError::Reserved(key.to_owned()));
    }
    if CONDITION_NAMES.contains(&key) {
        return Err(StateKeyError::ConditionName(key.to_owned()));
    }
    if CEL_RESERVED.contains(&key) || key.starts_with("__") {
        return Err(StateKeyError::CelReserved(key.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Condition;
    use serde_json::json;

    fn facts() -> ChainFacts {
        ChainFacts {
            agent: "reviewer".into(),
            last: json!({"verdict": "request-changes"}),
            turn: 2,
        }
    }

    #[test]
    fn every_state_key_is_top_level_and_in_memory() {
        let state = BTreeMap::from([
            ("analysis".to_owned(), json!({"can_auto_fix": true})),
            ("task".to_owned(), json!({"status": "need-review"})),
        ]);
        let variables = condition_variables(&state, &facts(), &Value::Null);
        assert_eq!(variables["analysis"], json!({"can_auto_fix": true}));
        assert_eq!(
            variables["memory"]["analysis"],
            json!({"can_auto_fix": true})
        );
        assert_eq!(variables["task"], json!({"status": "need-review"}));
        assert_eq!(variables["payload"], Value::Null);
        assert_eq!(variables["agent"], "reviewer");
        assert_eq!(variables["turn"], 2);
        for (expression, expected) in [
            ("analysis.can_auto_fix", true),
            ("task.status == 'need-review'", true),
            ("memory.analysis.can_auto_fix && has(memory.task)", true),
            ("has(memory.fix)", false),
            ("last.verdict == 'request-changes' && turn >= 2", true),
        ] {
            let condition = Condition::parse(expression).unwrap();
            assert_eq!(
                condition.evaluate(&variables).unwrap(),
                expected,
                "{expression}"
            );
        }
    }

    #[test]
    fn fixed_names_win_over_state_keys() {
        let state = BTreeMap::from([
            ("agent".to_owned(), json!("impostor")),
            ("turn".to_owned(), json!(99)),
            ("payload".to_owned(), json!("from state")),
        ]);
        let variables = condition_variables(&state, &facts(), &json!({"n": 1}));
        assert_eq!(variables["agent"], "reviewer");
        assert_eq!(variables["turn"], 2);
        assert_eq!(variables["payload"], json!({"n": 1}));
        // Still readable through `memory`.
        assert_eq!(variables["memory"]["agent"], "impostor");
        assert_eq!(variables["task"], json!({}));
    }

    #[test]
    fn state_keys() {
        for good in ["fix", "can_auto_fix", "_private", "a1", "Review"] {
            assert_eq!(check_state_key(good), Ok(()), "{good}");
        }
        for bad in ["", "1st", "fix-list", "a.b", "é", "a b", &"k".repeat(65)] {
            assert!(
                matches!(check_state_key(bad), Err(StateKeyError::NotIdentifier(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            check_state_key("task"),
            Err(StateKeyError::Reserved(_))
        ));
        for name in ["memory", "payload", "last", "agent", "turn"] {
            assert!(matches!(
                check_state_key(name),
                Err(StateKeyError::ConditionName(_))
            ));
        }
        for word in ["in", "null", "true", "__result__"] {
            assert!(matches!(
                check_state_key(word),
                Err(StateKeyError::CelReserved(_))
            ));
        }
    }

    #[test]
    fn outputs() {
        assert_eq!(ChainFacts::output(" 42 "), json!(42));
        assert_eq!(ChainFacts::output("```\n{\"a\": 1}\n```"), json!({"a": 1}));
        assert_eq!(
            ChainFacts::output("```json {\"a\": 1}```"),
            json!("```json {\"a\": 1}```")
        );
        assert_eq!(ChainFacts::output(""), json!(""));
    }
}

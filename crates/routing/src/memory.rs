//! `memory_get` and `memory_set`: an agent reads and writes its declared session-state keys.
//!
//! An agent that declares `memory: {session: [fix, analysis]}` gets both tools in a session.
//! It may use exactly its declared keys plus the reserved `task`
//! ([`RESERVED_STATE_KEYS`]); any other key is a tool error naming the allowed ones. Values are
//! JSON, kept per session in the store ([`StateLog`]), and read by `when` conditions
//! (`fix.applied`, `task.status == 'need-review'`), by the other agents of the session that
//! declare the same key, and by `agentctl sessions show` and `agentctl context`.
//!
//! * `task` only takes an object (or `null`): conditions read `task.status`, and a `task` that
//!   were a string would make every such condition fail. Setting it replaces the whole object.
//! * A value of `null` deletes the key, so "not set" has one spelling and `has(memory.fix)`
//!   turns false again.
//! * Values are at most [`MAX_STATE_VALUE_BYTES`] of JSON: state is for facts and small
//!   records that steer the chain, not for files.
//!
//! Risk: `memory_get` is `safe` and non-mutating. `memory_set` is `safe` too (so the default
//! policy lets agents keep their state without asking): it changes nothing outside agentctl's
//! own session record — no file, process or remote system — and the change
//! is undone by setting the key again; what it can influence is which hand-offs a condition
//! lets through, which is the model's own judgement either way. It is mutating, so its calls
//! run one at a time in the order the model made them.

use crate::state::RESERVED_STATE_KEYS;
use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use agentctl_store::StateLog;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::sync::Arc;

/// Largest value `memory_set` stores, in bytes of compact JSON.
pub const MAX_STATE_VALUE_BYTES: usize = 64 * 1024;

/// The memory tools of one agent in one session.
///
/// ```
/// use agentctl_store::{SessionLog, StateLog};
/// use agentctl_store_sqlite::SqliteStore;
/// use agentctl_core::ToolRegistry;
/// use agentctl_routing::MemoryTools;
/// use std::sync::Arc;
///
/// let store = Arc::new(SqliteStore::open_in_memory()?);
/// let session = store.create_session(None)?;
/// let tools = MemoryTools::new(store.clone(), session.id.clone(), "fixer".into(), vec!["fix".into()]);
/// assert_eq!(tools.keys(), ["task", "fix"]);
/// let mut registry = ToolRegistry::new();
/// tools.register(&mut registry);
/// assert!(registry.contains("memory_get") && registry.contains("memory_set"));
/// # Ok::<(), agentctl_store::ContextError>(())
/// ```
#[derive(Clone)]
pub struct MemoryTools {
    shared: Arc<Shared>,
}

struct Shared {
    store: Arc<dyn StateLog>,
    session: String,
    agent: String,
    /// `task` first, then the declared keys in their order, without duplicates.
    keys: Vec<String>,
}

impl std::fmt::Debug for MemoryTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTools")
            .field("session", &self.shared.session)
            .field("agent", &self.shared.agent)
            .field("keys", &self.shared.keys)
            .finish_non_exhaustive()
    }
}

impl MemoryTools {
    /// Name of the reading tool.
    pub const GET: &'static str = agentctl_core::MEMORY_GET_TOOL;
    /// Name of the writing tool.
    pub const SET: &'static str = agentctl_core::MEMORY_SET_TOOL;

    /// The tools `agent` uses in `session` of `store`, for its declared `memory.session`
    /// `keys` (the reserved keys are added).
    pub fn new(
        store: Arc<dyn StateLog>,
        session: String,
        agent: String,
        keys: Vec<String>,
    ) -> Self {
        let mut allowed: Vec<String> = RESERVED_STATE_KEYS
            .iter()
            .map(|k| (*k).to_owned())
            .collect();
        for key in keys {
            if !allowed.contains(&key) {
                allowed.push(key);
            }
        }
        Self {
            shared: Arc::new(Shared {
                store,
                session,
                agent,
                keys: allowed,
            }),
        }
    }

    /// The keys the tools accept: the reserved ones, then the declared ones.
    pub fn keys(&self) -> &[String] {
        &self.shared.keys
    }

    /// `memory_get`.
    pub fn get_tool(&self) -> MemoryGet {
        MemoryGet {
            description: get_description(&self.shared.keys),
            shared: Arc::clone(&self.shared),
        }
    }

    /// `memory_set`.
    pub fn set_tool(&self) -> MemorySet {
        MemorySet {
            description: set_description(&self.shared.keys),
            shared: Arc::clone(&self.shared),
        }
    }

    /// Registers `memory_get` and `memory_set`.
    pub fn register(self, registry: &mut ToolRegistry) {
        registry.register_typed(self.get_tool());
        registry.register_typed(self.set_tool());
    }
}

/// Arguments of `memory_get`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct MemoryGetArgs {
    /// The state key to read (one of the keys listed in the tool description).
    pub key: String,
}

/// Arguments of `memory_set`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct MemorySetArgs {
    /// The state key to set (one of the keys listed in the tool description).
    pub key: String,
    /// The JSON value to store (object, array, string, number or boolean); `null` deletes the
    /// key.
    #[serde(deserialize_with = "present")]
    #[schemars(with = "Value")]
    pub value: Value,
}

/// A `value` the model left out is an error, not `null` (which would delete the key).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Value::deserialize(deserializer)
}

/// The `memory_get` tool.
pub struct MemoryGet {
    shared: Arc<Shared>,
    description: String,
}

/// The `memory_set` tool.
pub struct MemorySet {
    shared: Arc<Shared>,
    description: String,
}

impl Shared {
    /// Refuses a key the agent did not declare, naming the ones it may use.
    fn check_key(&self, key: &str) -> Result<(), ToolError> {
        if self.keys.iter().any(|allowed| allowed == key) {
            return Ok(());
        }
        Err(ToolError::failed(format!(
            "`{key}` is not one of your session memory keys; you may use: {}. Other keys are \
             declared in the agent's `memory.session` list",
            self.keys.join(", ")
        )))
    }

    /// Runs a store call off the async threads: a write may wait for another process's lock.
    async fn blocking<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&Shared) -> agentctl_store::Result<T> + Send + 'static,
    ) -> Result<T, ToolError> {
        let shared = Arc::clone(self);
        tokio::task::spawn_blocking(move || f(&shared))
            .await
            .map_err(|error| ToolError::failed(format!("session state: {error}")))?
            .map_err(|error| ToolError::failed(format!("session state: {error}")))
    }
}

fn key_list(keys: &[String]) -> String {
    keys.iter()
        .map(|key| {
            if RESERVED_STATE_KEYS.contains(&key.as_str()) {
                format!("`{key}` (shared by every agent of the session: an object such as {{\"status\": \"need-review\"}})")
            } else {
                format!("`{key}`")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn get_description(keys: &[String]) -> String {
    format!(
        "Reads a value from this session's memory: JSON facts that you, later turns and the other \
         agents of the session keep, and that hand-off conditions (`when`) test. Keys you may \
         read: {}. Answers with the JSON value, or says the key is not set.",
        key_list(keys)
    )
}

fn set_description(keys: &[String]) -> String {
    format!(
        "Stores a JSON value in this session's memory, where later turns, the other agents of \
         the session and hand-off conditions read it (a condition such as `fix.applied` reads key \
         `fix`). Record decisions and results there, e.g. {{\"applied\": true}}. Keys you may \
         set: {}. Setting a key replaces its whole value (read `task` first to keep its other \
         fields); `task` takes an object; a value of null deletes the key. At most {} KiB of JSON.",
        key_list(keys),
        MAX_STATE_VALUE_BYTES / 1024
    )
}

#[async_trait]
impl TypedTool for MemoryGet {
    type Args = MemoryGetArgs;

    fn name(&self) -> &str {
        MemoryTools::GET
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: MemoryGetArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.shared.check_key(&args.key)?;
        let key = args.key;
        let (key, value) = self
            .shared
            .blocking(move |shared| {
                let mut state = shared.store.session_state(&shared.session)?;
                let value = state.remove(&key);
                Ok((key, value))
            })
            .await?;
        Ok(match value {
            Some(value) => ToolOutput::json(&value),
            None => ToolOutput::text(format!(
                "`{key}` is not set in this session (set it with `memory_set`)"
            )),
        })
    }
}

#[async_trait]
impl TypedTool for MemorySet {
    type Args = MemorySetArgs;

    fn name(&self) -> &str {
        MemoryTools::SET
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn risk(&self) -> RiskLevel {
        // It only writes agentctl's own session record — limited to the agent's declared keys,
        // size-capped, secrets masked — like the messages a run writes; what a value unlocks
        // (a handoff's `when`) leads to agents whose own calls meet the approval gate.
        RiskLevel::Safe
    }

    async fn call(&self, args: MemorySetArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let MemorySetArgs { key, value } = args;
        self.shared.check_key(&key)?;
        if RESERVED_STATE_KEYS.contains(&key.as_str()) && !(value.is_object() || value.is_null()) {
            return Err(ToolError::failed(format!(
                "`{key}` takes an object, such as {{\"status\": \"need-review\"}}, or null to \
                 clear it"
            )));
        }
        let size = value.to_string().len();
        if size > MAX_STATE_VALUE_BYTES {
            return Err(ToolError::failed(format!(
                "the value is {size} bytes of JSON, more than the {} KiB session memory keeps: \
                 store a summary, or write the details to a file and store its path",
                MAX_STATE_VALUE_BYTES / 1024
            )));
        }
        let deleted = value.is_null();
        let reported = key.clone();
        self.shared
            .blocking(move |shared| {
                shared
                    .store
                    .set_session_state(&shared.session, &key, &value, &shared.agent)
            })
            .await?;
        Ok(ToolOutput::text(if deleted {
            format!("`{reported}` deleted")
        } else {
            format!("`{reported}` set")
        }))
    }
}

//! What an agent remembers (`memory:` in the front matter): session keys, read and set with
//! `memory_get`/`memory_set` within one session, and long-term memory kept across sessions,
//! read and written with `remember`/`recall`.
//!
//! ```yaml
//! memory:
//!   session: [current_task, analyzed_files]
//!   long_term:                 # or `longTerm`; `true` is the default backend
//!     backend: vector_store    # sqlite (default), vector_store or filesystem
//!     config:
//!       index_name: debug_knowledge
//!       embedding_model: openai:text-embedding-3-small
//! ```
//!
//! An unknown backend (`redis`) is kept as [`MemoryBackend::Unknown`] rather than refused
//! while parsing, so `agents validate` can report it at its line and column with the backends
//! that exist.
//!
//! `memory: project` (Claude Code's subagent field, in either format) or `memory: {scope:
//! project}` gives the agent a memory folder ([`MemoryScope`]): the first lines of its
//! `MEMORY.md` in the system prompt, and the file tools on that folder.

use crate::serde_util::one_or_many;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// Memory an agent keeps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemorySpec {
    /// A memory folder of the agent's own, as Claude Code keeps one (`user`, `project` or
    /// `local`): its `MEMORY.md` opens the system prompt's memory section, and the file tools
    /// read and write the folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<MemoryScope>,
    /// Keys kept for the duration of a session.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub session: Vec<String>,
    /// Long-term memory across sessions: `true` for the default backend (`sqlite`), a backend
    /// name, or `{backend, config}`; `false` or absent for none.
    #[serde(
        default,
        alias = "long_term",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "long_term"
    )]
    #[schemars(with = "Option<LongTermInput>")]
    pub long_term: Option<LongTermMemory>,
}

/// Where an agent's memory folder is, as Claude Code's subagent `memory` field names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryScope {
    /// `~/.claude/agent-memory/<agent>/`: the user's, across projects.
    User,
    /// `.claude/agent-memory/<agent>/` in the project: shared through version control.
    Project,
    /// `.claude/agent-memory-local/<agent>/` in the project: the user's, kept out of git.
    Local,
}

impl MemoryScope {
    /// The scope names, as written.
    pub const NAMES: [&'static str; 3] = ["user", "project", "local"];

    /// The scope `name` spells, if any.
    ///
    /// ```
    /// use agentctl_core::MemoryScope;
    /// assert_eq!(MemoryScope::parse("local"), Some(MemoryScope::Local));
    /// assert_eq!(MemoryScope::parse("team"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "user" => Some(Self::User),
            "project" => Some(Self::Project),
            "local" => Some(Self::Local),
            _ => None,
        }
    }

    /// The name as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Local => "local",
        }
    }
}

impl fmt::Display for MemoryScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `memory:` as written: a folder scope alone (`memory: project`) or the full mapping.
#[derive(JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "only describes the schema")]
pub(crate) enum MemoryInput {
    /// A memory folder only: `user`, `project` or `local`.
    Scope(MemoryScope),
    /// `{scope, session, long_term}`.
    Spec(MemorySpec),
}

/// Reads `memory:`: a scope name → a memory folder of that scope; a mapping → the full spec.
/// A visitor rather than an untagged enum so that errors inside the mapping keep their line
/// and column.
pub(crate) fn memory_spec<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<MemorySpec>, D::Error> {
    struct Visitor;

    impl<'de> de::Visitor<'de> for Visitor {
        type Value = Option<MemorySpec>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a memory folder scope (user, project or local) or a mapping")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            let scope =
                MemoryScope::parse(v).ok_or_else(|| E::unknown_variant(v, &MemoryScope::NAMES))?;
            Ok(Some(MemorySpec {
                scope: Some(scope),
                ..MemorySpec::default()
            }))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            MemorySpec::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }

    deserializer.deserialize_any(Visitor)
}

/// Long-term memory of an agent: where entries are kept and how they are searched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LongTermMemory {
    /// The store: `sqlite` (default; keyword search), `vector_store` (keyword and embedding
    /// search; needs `config.embedding_model`) or `filesystem` (the same embedded store as
    /// `sqlite`).
    #[serde(default)]
    #[schemars(with = "BackendName")]
    pub backend: MemoryBackend,
    /// Backend settings.
    #[serde(default, skip_serializing_if = "LongTermConfig::is_empty")]
    pub config: LongTermConfig,
}

impl LongTermMemory {
    /// The embedding model when the backend uses embeddings and one is named.
    pub fn embedding_model(&self) -> Option<&str> {
        if !self.backend.uses_embeddings() {
            return None;
        }
        self.config
            .embedding_model
            .as_deref()
            .map(str::trim)
            .filter(|model| !model.is_empty())
    }
}

/// `long_term.config`: the keys agentctl reads, and any others, kept as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LongTermConfig {
    /// Name of the collection (informational: every agent's entries live in one project store,
    /// kept apart by agent name).
    #[serde(default, alias = "indexName", skip_serializing_if = "Option::is_none")]
    pub index_name: Option<String>,
    /// Embedding model of `vector_store`: `provider:model` (`openai:text-embedding-3-small`,
    /// `gemini:gemini-embedding-001`, `ollama:nomic-embed-text`), an alias, or a bare name.
    #[serde(
        default,
        alias = "embeddingModel",
        skip_serializing_if = "Option::is_none"
    )]
    pub embedding_model: Option<String>,
    /// Other keys, kept as written.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

impl LongTermConfig {
    /// True when nothing is set.
    pub fn is_empty(&self) -> bool {
        self.index_name.is_none() && self.embedding_model.is_none() && self.other.is_empty()
    }
}

/// Where long-term memory is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum MemoryBackend {
    /// The embedded SQLite store, searched with FTS5 (BM25); works offline.
    #[default]
    Sqlite,
    /// The embedded store plus embeddings from an embedding model; recall combines keyword
    /// and similarity rankings.
    VectorStore,
    /// Accepted for the seed format: the same embedded store as [`MemoryBackend::Sqlite`].
    Filesystem,
    /// A name agentctl does not support (`redis`), as written; validation reports it.
    Unknown(String),
}

impl MemoryBackend {
    /// The names of the supported backends, as written.
    pub const SUPPORTED: [&'static str; 3] = ["sqlite", "vector_store", "filesystem"];

    /// Reads a backend name (`vectorStore` and `vector-store` are read as `vector_store`).
    ///
    /// ```
    /// use agentctl_core::MemoryBackend;
    /// assert_eq!(MemoryBackend::parse("vector_store"), MemoryBackend::VectorStore);
    /// assert_eq!(MemoryBackend::parse("redis"), MemoryBackend::Unknown("redis".into()));
    /// ```
    pub fn parse(name: &str) -> Self {
        match name.trim() {
            "sqlite" => Self::Sqlite,
            "vector_store" | "vectorStore" | "vector-store" => Self::VectorStore,
            "filesystem" => Self::Filesystem,
            other => Self::Unknown(other.to_owned()),
        }
    }

    /// The name as written in files.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Sqlite => "sqlite",
            Self::VectorStore => "vector_store",
            Self::Filesystem => "filesystem",
            Self::Unknown(name) => name,
        }
    }

    /// True for the backend that adds embeddings to the keyword search.
    pub fn uses_embeddings(&self) -> bool {
        matches!(self, Self::VectorStore)
    }
}

impl fmt::Display for MemoryBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for MemoryBackend {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for MemoryBackend {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl de::Visitor<'_> for Visitor {
            type Value = MemoryBackend;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a backend name: sqlite, vector_store or filesystem")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<MemoryBackend, E> {
                Ok(MemoryBackend::parse(v))
            }

            fn visit_unit<E: de::Error>(self) -> Result<MemoryBackend, E> {
                Ok(MemoryBackend::default())
            }
        }

        deserializer.deserialize_any(Visitor)
    }
}

/// The backend names the schema offers (what [`MemoryBackend`] reads without complaint).
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(dead_code, reason = "only describes the schema")]
enum BackendName {
    /// The embedded SQLite store with keyword (BM25) search; works offline.
    Sqlite,
    /// The embedded store plus embeddings (`config.embedding_model`).
    VectorStore,
    /// The same embedded store as `sqlite`.
    Filesystem,
}

/// `long_term` as written: a flag, a backend name or an object.
#[derive(JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "only describes the schema")]
enum LongTermInput {
    /// `true`: the default backend; `false`: no long-term memory.
    Enabled(bool),
    /// A backend with its default configuration.
    Backend(BackendName),
    /// `{backend, config}`.
    Spec(LongTermMemory),
}

/// Reads `long_term`: `true` → the default backend, `false`/null → none, a name → that backend,
/// a mapping → `{backend, config}`. A visitor rather than an untagged enum so that errors
/// inside the mapping keep their line and column.
fn long_term<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<LongTermMemory>, D::Error> {
    struct Visitor;

    impl<'de> de::Visitor<'de> for Visitor {
        type Value = Option<LongTermMemory>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("true, false, a backend name or a mapping with `backend` and `config`")
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(v.then(LongTermMemory::default))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(LongTermMemory {
                backend: MemoryBackend::parse(v),
                config: LongTermConfig::default(),
            }))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            LongTermMemory::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }

    deserializer.deserialize_any(Visitor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(value: Value) -> MemorySpec {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn long_term_takes_a_flag_a_name_or_the_seed_object() {
        assert_eq!(spec(json!({"longTerm": false})).long_term, None);
        assert_eq!(spec(json!({"session": ["a"]})).long_term, None);
        assert_eq!(
            spec(json!({"longTerm": true})).long_term,
            Some(LongTermMemory::default())
        );
        let seed = spec(json!({"session": ["current_task"], "long_term": {
            "backend": "vector_store",
            "config": {"index_name": "debug_knowledge", "embedding_model": "text-embedding-3-small", "dims": 8},
        }}));
        let long_term = seed.long_term.unwrap();
        assert_eq!(long_term.backend, MemoryBackend::VectorStore);
        assert_eq!(
            long_term.config.index_name.as_deref(),
            Some("debug_knowledge")
        );
        assert_eq!(long_term.embedding_model(), Some("text-embedding-3-small"));
        assert_eq!(long_term.config.other["dims"], 8);
        let redis = spec(json!({"longTerm": {"backend": "redis"}}))
            .long_term
            .unwrap();
        assert_eq!(redis.backend, MemoryBackend::Unknown("redis".into()));
        assert_eq!(
            spec(json!({"longTerm": "filesystem"}))
                .long_term
                .unwrap()
                .backend,
            MemoryBackend::Filesystem
        );
        // Round trip: what `agents show --format json` prints reads back the same.
        let written = serde_json::to_value(&long_term).unwrap();
        assert_eq!(written["backend"], "vector_store");
        assert_eq!(written["config"]["dims"], 8);
        let again: LongTermMemory = serde_json::from_value(written).unwrap();
        assert_eq!(again, long_term);
    }

    #[derive(Debug, Deserialize)]
    struct Holder {
        #[serde(default, deserialize_with = "memory_spec")]
        memory: Option<MemorySpec>,
    }

    #[test]
    fn memory_takes_a_scope_alone_or_in_the_mapping() {
        let holder = |value: Value| serde_json::from_value::<Holder>(value).map(|h| h.memory);
        let plain = holder(json!({"memory": "project"})).unwrap().unwrap();
        assert_eq!(plain.scope, Some(MemoryScope::Project));
        assert_eq!(plain.long_term, None);
        let mapping = holder(json!({"memory": {"scope": "local", "session": ["a"]}}))
            .unwrap()
            .unwrap();
        assert_eq!(mapping.scope, Some(MemoryScope::Local));
        assert_eq!(mapping.session, ["a"]);
        let error = holder(json!({"memory": "team"})).unwrap_err().to_string();
        assert!(error.contains("unknown variant `team`"), "{error}");
        assert!(holder(json!({"memory": {"scope": "../x"}})).is_err());
        assert_eq!(holder(json!({"memory": null})).unwrap(), None);
        // Round trip through what `agents show --format json` prints.
        let written = serde_json::to_value(&plain).unwrap();
        assert_eq!(written, json!({"scope": "project"}));
    }

    #[test]
    fn sqlite_ignores_an_embedding_model() {
        let memory = LongTermMemory {
            backend: MemoryBackend::Sqlite,
            config: LongTermConfig {
                embedding_model: Some("openai:text-embedding-3-small".into()),
                ..LongTermConfig::default()
            },
        };
        assert_eq!(memory.embedding_model(), None);
        assert!(serde_json::from_value::<MemorySpec>(json!({"longTerm": 3})).is_err());
    }
}

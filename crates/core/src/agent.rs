//! The agent definition: front matter fields, the system prompt and where the agent came from.

use crate::context_mode::{ContextFilter, ContextMode};
use crate::effort::Effort;
use crate::graph::GraphSpec;
use crate::guardrail::Guardrail;
use crate::handoff::HandoffHistory;
use crate::mcp::McpServerConfig;
use crate::memory::MemorySpec;
use crate::permission_mode::PermissionMode;
use crate::serde_util::one_or_many;
use crate::trace::SpanKind;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// A loaded agent: its front matter, its system prompt and its origin.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    /// The front matter, mapped onto the native format whatever the source format was.
    #[serde(flatten)]
    pub spec: AgentSpec,
    /// The Markdown body: the agent's system prompt.
    pub system_prompt: String,
    /// Where the definition was read from.
    pub source: AgentSource,
    /// Front-matter fields that have no native meaning (kept, never dropped).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
}

impl AgentDefinition {
    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }
}

/// Whether an agent's system prompt gets the project instructions.
///
/// The default is `inherit`, for sub-agents too: the project's instructions say how to build,
/// test and write code in the repository, which a sub-agent working there needs as much as
/// the main conversation does (Claude Code's and codex's sub-agents read them as well).
/// `none` is for agents that must judge without them, or whose prompt has to stay small.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InstructionsMode {
    /// The project instructions follow the agent's prompt.
    #[default]
    Inherit,
    /// The agent's prompt stands alone.
    None,
}

/// The native front matter of an agent file.
///
/// This is the format `agentctl schema agent` describes; Claude Code and Gemini CLI files are
/// mapped onto it when loaded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "agentctl agent definition front matter")]
pub struct AgentSpec {
    /// Document kind; `agent` for agent definitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Unique name, kebab-case (`code-reviewer`). Required.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the agent does; routers and orchestrators read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Model reference: `provider:model`, or an alias such as `sonnet` or `inherit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Display colour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Scope the file declares for itself (the loader records where it was actually found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Free-form version of the definition.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "string_or_number"
    )]
    pub version: Option<String>,
    /// Which conversation history the agent sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_mode: Option<ContextMode>,
    /// Which of the main conversation's messages the agent sees when it shares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_filter: Option<ContextFilter>,
    /// Whether the project instructions (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`) follow the
    /// agent's own prompt: `inherit` (the default) or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<InstructionsMode>,
    /// Tool allow and deny lists.
    #[serde(default, skip_serializing_if = "ToolPolicy::is_unrestricted")]
    pub tools: ToolPolicy,
    /// Permission mode (Claude Code's `permissionMode`): `default`, `acceptEdits` (file edits
    /// run unasked), `plan` (read-only tools only) or `bypassPermissions` (runs as `default`
    /// unless the user's own settings grant it). A sub-agent never runs looser than its
    /// parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<PermissionMode>,
    /// MCP servers the agent uses.
    #[serde(default, skip_serializing_if = "McpRefs::is_empty")]
    pub mcp: McpRefs,
    /// Upper bound on model turns in one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Token budget of one run: input and output tokens over all its model calls (seed 002
    /// §10.3). The run stops before the model call after the one that reached it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Plan mode (seed 003): the agent keeps the conversation's todo list with `todo_write`
    /// and `todo_read` (also offered when its allow list names them). Sub-agents never plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_mode: Option<bool>,
    /// Cost budget of one run in US dollars, priced by the model catalogue (seed 002 §10.3);
    /// a model the catalogue has no price for cannot be held to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<f64>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Reasoning effort (Claude Code's `effort`): `minimal`, `low`, `medium`, `high`, `xhigh`
    /// or `max`. Sent in the provider's own parameter to models the catalogue says reason
    /// (as the nearest level the model accepts); not sent, with a notice, to models it says
    /// do not; sent as written to models it does not know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// When a router should pick this agent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<Trigger>,
    /// Agents this agent may hand work to. Each entry brings a `handoff_to_<agent>` tool,
    /// offered whatever `tools.allow` says (only `tools.deny` removes it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handoffs: Vec<Handoff>,
    /// Checks applied to the agent's input or output.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guardrails: Vec<Guardrail>,
    /// Memory the agent keeps across turns and sessions: a folder scope alone
    /// (`memory: project`, as Claude Code writes it) or `{scope, session, long_term}`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::memory::memory_spec"
    )]
    #[schemars(with = "Option<crate::memory::MemoryInput>")]
    pub memory: Option<MemorySpec>,
    /// Tracing of the agent's runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracing: Option<TracingSpec>,
    /// A graph of agents this file runs instead of a single agent (a "graph agent").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphSpec>,
}

/// Where an agent definition lives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The user's agents (`$AGENTCTL_HOME/agents`, `~/.claude/agents`, `~/.gemini/agents`).
    Global,
    /// The project's agents (`.agentctl/agents`, `.claude/agents`, `.gemini/agents`).
    Project,
}

impl Scope {
    /// The lowercase name used in files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Project => "project",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The file format an agent was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceFormat {
    /// agentctl's own format (`.agentctl/agents/*.md`).
    Native,
    /// Claude Code subagent files (`.claude/agents/**/*.md`).
    Claude,
    /// Gemini CLI agent files (`.gemini/agents/*.md`).
    Gemini,
}

impl SourceFormat {
    /// The lowercase name used in output.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceFormat::Native => "native",
            SourceFormat::Claude => "claude",
            SourceFormat::Gemini => "gemini",
        }
    }
}

impl fmt::Display for SourceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a loaded agent came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentSource {
    /// The file format.
    pub format: SourceFormat,
    /// The file path.
    pub path: PathBuf,
    /// The scope of the folder it was found in.
    pub scope: Scope,
}

/// Tool allow and deny lists. Entries are tool names or glob patterns (`mcp.github.*`).
///
/// In YAML either a mapping `{allow: [...], deny: [...]}` or, as a shorthand, a plain list that
/// is the allow list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ToolPolicy {
    /// Tools the agent may use; `None` means every tool. The tools the agent's handoffs and
    /// memory bring need not be listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    /// Tools the agent may never use, even those its handoffs and memory bring; deny wins
    /// over allow.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

impl ToolPolicy {
    /// True when neither list restricts anything.
    pub fn is_unrestricted(&self) -> bool {
        self.allow.is_none() && self.deny.is_empty()
    }
}

impl<'de> Deserialize<'de> for ToolPolicy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PolicyVisitor;

        impl<'de> de::Visitor<'de> for PolicyVisitor {
            type Value = ToolPolicy;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of allowed tools or a mapping with `allow` and `deny` lists")
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ToolPolicy, A::Error> {
                let mut allow = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    allow.push(item);
                }
                Ok(ToolPolicy {
                    allow: Some(allow),
                    deny: Vec::new(),
                })
            }

            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<ToolPolicy, A::Error> {
                let mut policy = ToolPolicy::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "allow" => policy.allow = Some(map.next_value::<StringList>()?.0),
                        "deny" => policy.deny = map.next_value::<StringList>()?.0,
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(policy)
            }

            fn visit_unit<E: de::Error>(self) -> Result<ToolPolicy, E> {
                Ok(ToolPolicy::default())
            }
        }

        deserializer.deserialize_any(PolicyVisitor)
    }
}

/// A list of strings that also accepts a single string.
struct StringList(Vec<String>);

impl<'de> Deserialize<'de> for StringList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        one_or_many(deserializer).map(StringList)
    }
}

/// MCP servers an agent uses: names of servers configured in settings, and servers defined in
/// the agent file itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpRefs {
    /// Names of servers from settings `mcpServers` (or from `inline`).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub servers: Vec<String>,
    /// Servers defined in the agent file, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inline: BTreeMap<String, McpServerConfig>,
}

impl McpRefs {
    /// True when the agent names no server.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty() && self.inline.is_empty()
    }
}

/// When a router should pick an agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    /// Intent label this trigger stands for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// Words that select the agent when they appear in the request.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub keywords: Vec<String>,
    /// Regular expressions matched against the request.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub regex: Vec<String>,
    /// Higher wins when several agents match.
    #[serde(default)]
    pub priority: i32,
    /// How `keywords` match: on word boundaries (the default), or anywhere in the request as
    /// seed 002's router does with `includes()` (`match: substring`: `bug` matches `debug`).
    #[serde(
        default,
        rename = "match",
        skip_serializing_if = "KeywordMatch::is_word"
    )]
    pub keyword_match: KeywordMatch,
}

/// How a trigger's keywords match a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeywordMatch {
    /// On word boundaries: `bug` matches `Bug!` and `bug-fix`, not `debug`.
    #[default]
    Word,
    /// Anywhere: `bug` matches `debug` too.
    Substring,
}

impl KeywordMatch {
    /// Whether this is the default, word-boundary matching.
    pub fn is_word(&self) -> bool {
        *self == Self::Word
    }
}

/// An agent this agent may hand work to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Handoff {
    /// Name of the target agent.
    pub to: String,
    /// CEL condition over the session state under which the hand-off may happen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// Description shown to the model for the hand-off tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Shape of the data passed along.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<HandoffPayload>,
    /// What the target sees of the conversation so far (`full`, `summary`, `none`); default:
    /// by the target's context mode (shared → full, else summary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HandoffHistory>,
}

/// The payload of a hand-off.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HandoffPayload {
    /// JSON Schema the payload must satisfy.
    pub schema: Value,
}

/// Tracing of an agent's runs (`tracing:` in the front matter). Fields left out take the
/// settings' `agents.tracing` values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TracingSpec {
    /// Whether runs of this agent are traced (default true once `tracing:` is written).
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Span kinds to record (`session`, `graph`, `node`, `run`, `llm`, `tool`, `handoff`,
    /// `guardrail`); empty takes the settings' list, which when empty means all.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub events: Vec<SpanKind>,
    /// Where traces go besides the session store: one backend or a list.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub backend: Vec<TracingBackend>,
    /// Fraction of runs traced, from 0 to 1; decided once per run, so a trace is never half
    /// present.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        alias = "sample_rate"
    )]
    pub sample_rate: Option<f64>,
    /// Whether OpenTelemetry spans carry message contents (prompts, answers, tool arguments
    /// and results); off by default, as the GenAI conventions advise.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        alias = "capture_content"
    )]
    pub capture_content: Option<bool>,
}

/// Where traces are written, besides the session store (which `agentctl trace` reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TracingBackend {
    /// Human-readable lines on stderr.
    Console,
    /// One file per session under `.agentctl/traces/YYYY-MM-DD/session-<id>.jsonl`.
    Jsonl,
    /// OTLP over HTTP/protobuf to `OTEL_EXPORTER_OTLP_ENDPOINT`.
    #[serde(alias = "opentelemetry")]
    Otel,
    /// OTLP to LangSmith: `$LANGSMITH_ENDPOINT` (default `https://api.smith.langchain.com`)
    /// `/otel/v1/traces`, with `$LANGSMITH_API_KEY` and `$LANGSMITH_PROJECT`.
    Langsmith,
    /// OTLP to Langfuse: `$LANGFUSE_HOST` (default `https://cloud.langfuse.com`)
    /// `/api/public/otel/v1/traces`, with `$LANGFUSE_PUBLIC_KEY` and `$LANGFUSE_SECRET_KEY`.
    Langfuse,
}

impl TracingBackend {
    /// Every backend, as written.
    pub const ALL: [TracingBackend; 5] = [
        Self::Console,
        Self::Jsonl,
        Self::Otel,
        Self::Langsmith,
        Self::Langfuse,
    ];

    /// The name as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Console => "console",
            Self::Jsonl => "jsonl",
            Self::Otel => "otel",
            Self::Langsmith => "langsmith",
            Self::Langfuse => "langfuse",
        }
    }

    /// The backend a name (as written in a file) stands for: a name of [`Self::ALL`] or
    /// `opentelemetry`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "opentelemetry" => Some(Self::Otel),
            _ => Self::ALL
                .into_iter()
                .find(|backend| backend.as_str() == name),
        }
    }
}

fn default_true() -> bool {
    true
}

/// Accepts `version: 1`, `version: 1.2` and `version: "1.2.0"` alike.
fn string_or_number<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    struct Visitor;

    impl de::Visitor<'_> for Visitor {
        type Value = Option<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a version string or number")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_owned()))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }

    deserializer.deserialize_any(Visitor)
}

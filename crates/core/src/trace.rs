//! The trace model: what happened in a run, as spans with parent ids.
//!
//! One model serves every backend (console lines, JSONL files, the session store, OpenTelemetry)
//! and `agentctl trace export`. A turn's trace is a tree: `session` (or `graph` → `node`) →
//! `run` → `llm` / `tool` / `guardrail`, a `handoff` between the runs of a chain, and the run of
//! a sub-agent task under the `tool` span of the `task` call that started it.
//!
//! The runtime does not trace; it only passes a run's [`TraceContext`] on to its tool calls
//! ([`TraceContext::for_tool_call`]), so a tool that starts a sub-agent knows where the child's
//! spans belong. Spans are built from the run's events by whoever watches them (the session
//! runner) and go through [`TraceContext::record`], the one place where the `events` filter,
//! secret masking and the size cap apply, before a [`SpanSink`] writes them.

use crate::context_mode::ContextMode;
use crate::conversation::ToolCall;
use crate::decision::Verdict;
use crate::guardrail::{GuardrailPolicy, GuardrailStage};
use crate::risk::RiskLevel;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};
use serde_json::Value;
use std::fmt;

mod context;

pub use context::{SpanSink, TraceContext, TracePolicy, bounded};

/// Largest text a span keeps in one field (prompt, response, tool input or output), in bytes.
/// Longer texts are cut at a character boundary and marked, so no backend ever receives a
/// megabyte tool output (OTLP collectors refuse large bodies) and trace memory stays bounded.
pub const MAX_SPAN_TEXT_BYTES: usize = 16 * 1024;

/// What a shortened text ends with.
pub const TRUNCATION_MARK: &str = "…[truncated]";

/// The 16-byte id shared by every span of one trace; 32 lowercase hex digits in JSON.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TraceId([u8; 16]);

/// The 8-byte id of one span; 16 lowercase hex digits in JSON.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpanId([u8; 8]);

impl TraceId {
    /// A new random id (never all zeroes, which OpenTelemetry treats as invalid).
    pub fn random() -> Self {
        loop {
            let bytes = fastrand::u128(..).to_be_bytes();
            if bytes != [0; 16] {
                return Self(bytes);
            }
        }
    }

    /// The id with these bytes.
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// The id's bytes.
    pub fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// Parses 32 hex digits.
    pub fn from_hex(text: &str) -> Option<Self> {
        let mut bytes = [0; 16];
        decode_hex(text, &mut bytes).then_some(Self(bytes))
    }
}

impl SpanId {
    /// A new random id (never all zeroes).
    pub fn random() -> Self {
        loop {
            let bytes = fastrand::u64(..).to_be_bytes();
            if bytes != [0; 8] {
                return Self(bytes);
            }
        }
    }

    /// The id of the span of tool call `call_id` of run `run_id` in `trace`: whoever needs it
    /// (the span builder, a sub-agent started by the call) computes it, so nothing has to be
    /// handed around.
    pub fn of_tool_call(trace: TraceId, run_id: &str, call_id: &str) -> Self {
        // FNV-1a, 64 bits: stable across builds and platforms, unlike std's hasher.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let parts: [&[u8]; 5] = [
            &trace.0,
            b"\0tool\0",
            run_id.as_bytes(),
            b"\0",
            call_id.as_bytes(),
        ];
        for byte in parts.into_iter().flatten() {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        Self(hash.max(1).to_be_bytes())
    }

    /// The id with these bytes.
    pub fn from_bytes(bytes: [u8; 8]) -> Self {
        Self(bytes)
    }

    /// The id's bytes.
    pub fn to_bytes(self) -> [u8; 8] {
        self.0
    }

    /// Parses 16 hex digits.
    pub fn from_hex(text: &str) -> Option<Self> {
        let mut bytes = [0; 8];
        decode_hex(text, &mut bytes).then_some(Self(bytes))
    }
}

fn decode_hex(text: &str, out: &mut [u8]) -> bool {
    if text.len() != out.len() * 2 || !text.is_ascii() {
        return false;
    }
    for (index, byte) in out.iter_mut().enumerate() {
        match u8::from_str_radix(&text[index * 2..index * 2 + 2], 16) {
            Ok(value) => *byte = value,
            Err(_) => return false,
        }
    }
    true
}

fn write_hex(bytes: &[u8], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    bytes.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
}

macro_rules! hex_id {
    ($type:ident, $what:literal) => {
        impl fmt::Display for $type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_hex(&self.0, f)
            }
        }

        impl fmt::Debug for $type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({self})", stringify!($type))
            }
        }

        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                Self::from_hex(&text)
                    .ok_or_else(|| de::Error::custom(format!("`{text}` is not {}", $what)))
            }
        }
    };
}

hex_id!(TraceId, "a trace id (32 hex digits)");
hex_id!(SpanId, "a span id (16 hex digits)");

/// The kinds of span, as `tracing.events` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    /// One turn of a session: a prompt and everything that answered it.
    Session,
    /// A graph run.
    Graph,
    /// One node of a graph run.
    Node,
    /// One agent run.
    Run,
    /// One model call.
    Llm,
    /// One tool call.
    Tool,
    /// Control passed from one agent to another.
    Handoff,
    /// One guardrail check.
    Guardrail,
}

impl SpanKind {
    /// Every kind, outermost first.
    pub const ALL: [SpanKind; 8] = [
        Self::Session,
        Self::Graph,
        Self::Node,
        Self::Run,
        Self::Llm,
        Self::Tool,
        Self::Handoff,
        Self::Guardrail,
    ];

    /// The name `tracing.events` and the JSON `type` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Graph => "graph",
            Self::Node => "node",
            Self::Run => "run",
            Self::Llm => "llm",
            Self::Tool => "tool",
            Self::Handoff => "handoff",
            Self::Guardrail => "guardrail",
        }
    }
}

impl fmt::Display for SpanKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a span ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanStatus {
    /// It did what it was for.
    Ok,
    /// It failed (the span's `error` says why).
    Error,
}

/// Tokens of a model call or a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanTokens {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
}

/// What a span is about, by kind: the JSON `type` and `data` of a span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SpanDetail {
    /// A turn of a session.
    Session {
        /// The user's prompt.
        prompt: String,
    },
    /// A graph run.
    Graph {
        /// The graph's name.
        graph: String,
        /// The branch of the session's graph runs.
        branch: u32,
    },
    /// A node of a graph run.
    Node {
        /// The graph's name.
        graph: String,
        /// The node's name.
        node: String,
        /// The node's agent.
        agent: String,
        /// The step the node's checkpoint got.
        step: u32,
    },
    /// One lane of a graph run's work side by side: a branch of a fan-out (its nodes are
    /// its children) or an element of a map (its node run is its child). Its siblings are
    /// the other branches or elements, under the same graph run; recorded with the node
    /// spans (its kind is [`SpanKind::Node`]).
    Branch {
        /// The graph's name.
        graph: String,
        /// The node whose edge fanned out, or the mapped node.
        from: String,
        /// The branch's first node (its name among the branches); for a map, the mapped node.
        branch: String,
        /// Its place among the branches (the element's in the list), from 0.
        index: u32,
        /// How many branches (elements) run side by side.
        of: u32,
    },
    /// An agent run.
    Run {
        /// The run's id (the store run's id when recorded).
        run_id: String,
        /// Resolved model, `provider:model`.
        model: String,
        /// Context mode in effect.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_mode: Option<ContextMode>,
        /// Model calls made.
        turns: u32,
        /// Tokens over all model calls.
        tokens: SpanTokens,
        /// Sub-agent nesting depth (0 for a run the user started).
        #[serde(default)]
        depth: u32,
    },
    /// A model call.
    Llm {
        /// Resolved model, `provider:model`.
        model: String,
        /// 1-based turn of the run.
        turn: u32,
        /// What the call added to the conversation: the user's prompt for the first call,
        /// the tool results of the previous turn for later ones.
        prompt: String,
        /// The answer's text.
        response: String,
        /// The tools the answer called.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// Tokens the provider reported.
        tokens: SpanTokens,
        /// Time from the request to the end of the answer.
        latency_ms: f64,
    },
    /// A tool call.
    Tool {
        /// The tool's name.
        name: String,
        /// The call's id.
        call_id: String,
        /// The arguments.
        input: Value,
        /// What the model read back.
        output: String,
        /// Time the tool itself ran (approval waits excluded).
        latency_ms: f64,
        /// Set when the call failed, was refused or was unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Risk of the call, when the approval gate rated it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        risk: Option<RiskLevel>,
        /// What the gate decided, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision: Option<Verdict>,
    },
    /// A handoff.
    Handoff {
        /// Agent handing off.
        from: String,
        /// Agent receiving the work.
        to: String,
        /// Why, as the model said.
        reason: String,
        /// The data passed along.
        payload: Value,
    },
    /// A guardrail check.
    Guardrail {
        /// The guardrail's name.
        name: String,
        /// `input` or `output`.
        stage: GuardrailStage,
        /// Whether the text passed.
        passed: bool,
        /// What a failure does.
        policy: GuardrailPolicy,
        /// Why it failed.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        errors: Vec<String>,
        /// 0 for the first answer, one more per repair.
        attempt: u32,
    },
}

impl SpanDetail {
    /// The span's kind.
    pub fn kind(&self) -> SpanKind {
        match self {
            Self::Session { .. } => SpanKind::Session,
            Self::Graph { .. } => SpanKind::Graph,
            Self::Node { .. } | Self::Branch { .. } => SpanKind::Node,
            Self::Run { .. } => SpanKind::Run,
            Self::Llm { .. } => SpanKind::Llm,
            Self::Tool { .. } => SpanKind::Tool,
            Self::Handoff { .. } => SpanKind::Handoff,
            Self::Guardrail { .. } => SpanKind::Guardrail,
        }
    }
}

/// One finished span.
///
/// ```
/// use agentctl_core::{Span, SpanDetail, SpanId, SpanKind, SpanStatus, TraceId};
///
/// let span = Span {
///     trace_id: TraceId::random(),
///     span_id: SpanId::random(),
///     parent_id: None,
///     links: Vec::new(),
///     session_id: Some("s1".into()),
///     agent: None,
///     start_unix_nano: 1_700_000_000_000_000_000,
///     duration_ms: 1200.0,
///     status: SpanStatus::Ok,
///     error: None,
///     detail: SpanDetail::Session { prompt: "Fix the bug".into() },
/// };
/// assert_eq!(span.kind(), SpanKind::Session);
/// let json = serde_json::to_value(&span)?;
/// assert_eq!((json["type"].as_str(), json["data"]["prompt"].as_str()), (Some("session"), Some("Fix the bug")));
/// assert_eq!(serde_json::from_value::<Span>(json)?, span);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Span {
    /// The trace the span belongs to.
    pub trace_id: TraceId,
    /// The span's own id.
    pub span_id: SpanId,
    /// The enclosing span; `None` for the root of a trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<SpanId>,
    /// Spans this one follows from without being inside them (a handoff target's run links
    /// to the handoff).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<SpanId>,
    /// The session (OpenTelemetry's `gen_ai.conversation.id`), when recorded in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The agent the span belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// When it started, in nanoseconds since the Unix epoch.
    pub start_unix_nano: u64,
    /// How long it took.
    pub duration_ms: f64,
    /// How it ended.
    pub status: SpanStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What it is about.
    #[serde(flatten)]
    pub detail: SpanDetail,
}

impl Span {
    /// The span's kind.
    pub fn kind(&self) -> SpanKind {
        self.detail.kind()
    }

    /// When it ended, in nanoseconds since the Unix epoch.
    pub fn end_unix_nano(&self) -> u64 {
        // Durations are far below 2^53 ms; the cast only drops sub-nanosecond noise.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let nanos = (self.duration_ms.max(0.0) * 1_000_000.0) as u64;
        self.start_unix_nano.saturating_add(nanos)
    }
}

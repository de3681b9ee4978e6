//! Shared helpers: providers pointed at a fake server, requests, delta collection.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a panic is a test failure"
)]

use agentctl_core::ModelProvider;
use agentctl_core::ToolRegistry;
use agentctl_core::{
    Message, ModelDelta, ModelRef, ModelRequest, ProviderConfig, ProviderKind, Settings, ToolSpec,
};
use agentctl_providers::{BuiltinProviders, Env, ProviderOptions, RetryPolicy, build_provider};
use agentctl_runtime::Runtime;
use agentctl_test_support::LookupTool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const KEY: &str = "sk-secret-test-key";

/// Options with tiny retry delays and a key for every provider.
pub fn options() -> ProviderOptions {
    ProviderOptions {
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(20),
        },
        request_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(10),
        env: Env::from_pairs([
            ("OPENAI_API_KEY", KEY),
            ("ANTHROPIC_API_KEY", KEY),
            ("GEMINI_API_KEY", KEY),
        ]),
        working_dir: None,
    }
}

/// Provider `name` (built in, so default key variables apply) at `base_url`.
pub fn provider_at(
    name: &str,
    kind: ProviderKind,
    base_url: &str,
    options: &ProviderOptions,
) -> Arc<dyn ModelProvider> {
    let mut settings = Settings::default();
    let config = ProviderConfig {
        kind,
        base_url: Some(base_url.to_owned()),
        ..Default::default()
    };
    settings.providers.insert(name.to_owned(), config);
    let model = ModelRef {
        provider: name.to_owned(),
        model: "test-model".to_owned(),
    };
    build_provider(&model, &settings, options).unwrap()
}

/// A one-message request offering one tool.
pub fn request(text: &str, stream: bool) -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        system: Some("You are terse.".into()),
        messages: vec![Message::user(text)],
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "Reads a file".into(),
            parameters: serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "additionalProperties": false,
            }),
        }]
        .into(),
        temperature: None,
        effort: None,
        max_tokens: None,
        stream,
    }
}

/// Collects deltas.
#[derive(Default)]
pub struct Deltas(Mutex<Vec<ModelDelta>>);

impl Deltas {
    pub fn sink(&self) -> impl Fn(ModelDelta) + Send + Sync + '_ {
        |delta| self.0.lock().unwrap().push(delta)
    }

    pub fn all(&self) -> Vec<ModelDelta> {
        self.0.lock().unwrap().clone()
    }

    pub fn texts(&self) -> Vec<String> {
        self.all()
            .into_iter()
            .filter_map(|delta| match delta {
                ModelDelta::Text { text } => Some(text),
                _ => None,
            })
            .collect()
    }
}

/// Every error's message is one line and never shows the key.
pub fn check_display(error: &impl std::fmt::Display) -> String {
    let text = error.to_string();
    assert!(!text.contains('\n'), "multi-line error: {text}");
    assert!(!text.contains(KEY), "error shows the key: {text}");
    text
}

/// An MCP tool name longer than the APIs' 64 characters.
pub const LONG_NAME: &str =
    "mcp.a_server_with_a_rather_long_name.a_tool_whose_name_goes_on_and_on_and_on";

/// Two names that clash once rewritten: `a.b` would become `a__b`, which is taken.
pub const CLASHING: [&str; 2] = ["a.b", "a__b"];

/// A tool taking one string argument.
pub fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("The {name} tool"),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        }),
    }
}

/// A request offering MCP tools with names no API accepts as they are, whose history already
/// holds a call of `mcp.everything.echo` and its result.
pub fn mcp_request(call_id: &str, stream: bool) -> ModelRequest {
    let mut tools = vec![
        tool("read_file"),
        tool("mcp.everything.echo"),
        tool(LONG_NAME),
    ];
    tools.extend(CLASHING.map(tool));
    ModelRequest {
        model: "test-model".into(),
        system: Some("You are terse.".into()),
        messages: vec![
            Message::user("echo hi"),
            Message::Assistant {
                content: None,
                tool_calls: vec![agentctl_core::ToolCall {
                    id: call_id.into(),
                    name: "mcp.everything.echo".into(),
                    arguments: serde_json::json!({"text": "hi"}),
                    signature: None,
                }],
            },
            Message::Tool {
                call_id: call_id.into(),
                name: "mcp.everything.echo".into(),
                content: "Echo: hi".into(),
                is_error: false,
            },
            Message::user("now the long one and both a's"),
        ],
        tools: tools.into(),
        temperature: None,
        effort: None,
        max_tokens: None,
        stream,
    }
}

/// True when every API accepts `name` (the intersection of their rules).
pub fn portable(name: &str) -> bool {
    name.len() <= 64
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Asserts the wire names of the offered tools: portable, distinct, `mcp.everything.echo` as
/// `mcp__everything__echo`, and returns them in the order offered.
pub fn check_wire_names(names: Vec<String>) -> Vec<String> {
    assert_eq!(names.len(), 5, "{names:?}");
    for name in &names {
        assert!(portable(name), "`{name}` is not a portable tool name");
    }
    let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
    assert_eq!(names[0], "read_file");
    assert_eq!(names[1], "mcp__everything__echo");
    assert_eq!(names[2], LONG_WIRE);
    assert_eq!(names[3], CLASHING_WIRE);
    assert_eq!(names[4], "a__b");
    names
}

/// The wire name of [`LONG_NAME`]: cut, with a hash suffix pinned here because it must be the
/// same on every run and platform (a conversation's history is re-sent under it).
pub const LONG_WIRE: &str = "mcp__a_server_with_a_rather_long_name__a_tool_whose_nam_294f5619";

/// The wire name of `a.b`, whose plain rewrite `a__b` is taken by the other tool.
pub const CLASHING_WIRE: &str = "a__b_0466522c";

/// A runtime with the `lookup` tool, its `openai` provider at `base_url` (no retries).
pub fn lookup_runtime(base_url: &str) -> Runtime {
    let options = ProviderOptions {
        retry: RetryPolicy::none(),
        env: Env::from_pairs([("OPENAI_API_KEY", "sk-test"), ("OPENAI_BASE_URL", base_url)]),
        ..ProviderOptions::default()
    };
    let mut tools = ToolRegistry::new();
    tools.register_typed(LookupTool);
    Runtime::new(Settings::default(), BuiltinProviders::new(options), tools)
}

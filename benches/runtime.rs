//! Per-call overhead of the agent loop: `Runtime::run_to_completion` against a local instant
//! OpenAI-compatible server, compared with a bare reqwest request loop against the same server.
//!
//! Run with `cargo bench --bench runtime`. The difference between `agent_loop_text` (one model
//! call per run) and `bare_reqwest` is what the runtime adds per call: model resolution, request
//! building, the provider's wire conversion, events and bookkeeping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, ProviderConfig, ProviderKind, Scope, Settings,
    SourceFormat,
};
use agentctl_core::{RunOptions, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use agentctl_providers::{BuiltinProviders, ProviderOptions, RetryPolicy};
use agentctl_runtime::Runtime;
use divan::Bencher;
use std::net::SocketAddr;
use std::sync::OnceLock;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn main() {
    divan::main();
}

/// The instant server, started once on its own thread.
fn server() -> SocketAddr {
    static ADDRESS: OnceLock<SocketAddr> = OnceLock::new();
    *ADDRESS.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                sender.send(listener.local_addr().unwrap()).unwrap();
                while let Ok((stream, _)) = listener.accept().await {
                    stream.set_nodelay(true).unwrap();
                    tokio::spawn(serve(stream));
                }
            });
        });
        receiver.recv().unwrap()
    })
}

const TEXT: &str = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"The value is Paris."},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":5}}"#;
const TOOL_CALL: &str = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"capital\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":5}}"#;

/// Keep-alive HTTP/1.1: answers a tool call when tools are offered and the last message is the
/// user's, else text.
async fn serve(mut stream: TcpStream) {
    let mut buffer = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
    loop {
        let (head_end, length) = loop {
            if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .and_then(|value| value.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                break (end + 4, length);
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
        };
        while buffer.len() < head_end + length {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
        }
        let body = String::from_utf8_lossy(&buffer[head_end..head_end + length]);
        let last_role = body
            .rfind("\"role\":\"")
            .map(|at| &body[at + 8..])
            .unwrap_or("");
        let answer = if body.contains("\"tools\":[") && last_role.starts_with("user") {
            TOOL_CALL
        } else {
            TEXT
        };
        buffer.drain(..head_end + length);
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if stream.write_all(reply.as_bytes()).await.is_err() {
            return;
        }
    }
}

fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The baseline: the same kind of request and JSON decoding, no agent loop.
#[divan::bench]
fn bare_reqwest(bencher: Bencher) {
    let url = format!("http://{}/v1/chat/completions", server());
    // Building the runtime's provider first installs the TLS crypto provider reqwest needs.
    let _ = agent_runtime();
    let client = reqwest::Client::new();
    let runtime = client_runtime();
    bencher.bench_local(|| {
        runtime.block_on(async {
            let body = serde_json::json!({
                "model": "gpt-4o-mini",
                "messages": [
                    {"role": "system", "content": "You answer from the table."},
                    {"role": "user", "content": "What is the capital?"}
                ],
                "stream": false,
            });
            let response = client.post(&url).json(&body).send().await.unwrap();
            let value: serde_json::Value = response.json().await.unwrap();
            assert!(value["choices"][0]["message"]["content"].is_string());
        })
    });
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    key: String,
}

struct Lookup;

#[async_trait::async_trait]
impl TypedTool for Lookup {
    type Args = LookupArgs;
    fn name(&self) -> &str {
        "lookup"
    }
    fn description(&self) -> &str {
        "Looks a key up."
    }
    async fn call(&self, args: LookupArgs, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(if args.key == "capital" {
            "Paris"
        } else {
            "?"
        }))
    }
}

fn agent_runtime() -> Runtime {
    let mut settings = Settings::default();
    settings.providers.insert(
        "local".into(),
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: Some(format!("http://{}/v1", server())),
            ..ProviderConfig::default()
        },
    );
    let mut tools = ToolRegistry::new();
    tools.register_typed(Lookup);
    let options = ProviderOptions {
        retry: RetryPolicy::none(),
        ..ProviderOptions::default()
    };
    Runtime::new(settings, BuiltinProviders::new(options), tools)
}

fn agent(tools: bool) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "bench".into(),
            model: Some("local:gpt-4o-mini".into()),
            tools: agentctl_core::ToolPolicy {
                allow: Some(if tools { vec!["lookup".into()] } else { vec![] }),
                deny: vec![],
            },
            ..AgentSpec::default()
        },
        system_prompt: "You answer from the table.".into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "bench.md".into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

/// One run = one model call (no tools offered).
#[divan::bench]
fn agent_loop_text(bencher: Bencher) {
    let runtime = client_runtime();
    let agents = agent_runtime();
    let agent = agent(false);
    bencher.bench_local(|| {
        runtime.block_on(async {
            let result = agents
                .run_to_completion(&agent, "What is the capital?", RunOptions::new())
                .await
                .unwrap();
            assert_eq!(result.metadata.iterations, 1);
        })
    });
}

/// One run = two model calls and one `lookup` call; divide by two for the per-call figure.
#[divan::bench]
fn agent_loop_tool(bencher: Bencher) {
    let runtime = client_runtime();
    let agents = agent_runtime();
    let agent = agent(true);
    bencher.bench_local(|| {
        runtime.block_on(async {
            let result = agents
                .run_to_completion(&agent, "What is the capital?", RunOptions::new())
                .await
                .unwrap();
            assert_eq!(result.metadata.iterations, 2);
        })
    });
}

/// The event-stream API (`Runtime::run`, spawned task and channel), one model call.
#[divan::bench]
fn agent_loop_events(bencher: Bencher) {
    let runtime = client_runtime();
    let agents = agent_runtime();
    let agent = agent(false);
    bencher.bench_local(|| {
        runtime.block_on(async {
            use futures_util::StreamExt;
            let mut handle = agents.run(&agent, "What is the capital?", RunOptions::new());
            let mut count = 0;
            while handle.next().await.is_some() {
                count += 1;
            }
            assert_eq!(count, 5);
        })
    });
}

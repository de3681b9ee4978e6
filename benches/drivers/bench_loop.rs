//! Bench driver of the single-agent loop (`benches/compare.sh`, `benches/cachegrind.sh` and
//! `benches/triage.sh` run it): an agent defined in code with one custom tool (`lookup`), its
//! runs made through [`Runtime`] against an OpenAI-compatible endpoint — two model calls a run,
//! the tool call and the answer. This is the timing harness `examples/embed.rs` used to carry,
//! kept here so that the embedding examples can be introductions.
//!
//! ```sh
//! cargo run --release --example bench_loop -- --base-url http://127.0.0.1:8080/v1 -n 20 -c 8
//! ```
//!
//! Runs `-n` scenarios one after another, then `-c` at once (each of those `--rounds` times in a
//! row), and prints runs per second and milliseconds per model call for each phase. Without
//! `--stream` a run is [`Runtime::run_to_completion`]; with it, [`Runtime::run`] with streaming
//! on, its events read as they come. The last line is machine-readable:
//! `RESULT {"scenarios":…,"seconds":…,"model_calls":…,"sequential_ms_per_call":…,"concurrent_ms_per_call":…}`.
//! The API key, if the endpoint needs one, is read from `OPENAI_API_KEY`.
//!
//! `benches/drivers/floor.rs` makes the same HTTP exchanges with a bare HTTP client.

use agentctl::core::{
    AgentDefinition, AgentSource, AgentSpec, ProviderConfig, ProviderKind, RiskLevel, RunEvent,
    RunOptions, RunResult, Scope, Settings, SourceFormat, ToolContext, ToolError, ToolOutput,
    ToolPolicy, ToolRegistry, TypedTool,
};
use agentctl::providers::{ProviderOptions, build_provider};
use agentctl::runtime::Runtime;
use anyhow::{Context as _, bail};
use futures_util::StreamExt;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Arguments of the `lookup` tool.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// The key to look up, e.g. `capital-of-france`.
    key: String,
}

/// A custom tool: an in-memory key → value table.
struct Lookup {
    table: BTreeMap<&'static str, &'static str>,
}

#[async_trait::async_trait]
impl TypedTool for Lookup {
    type Args = LookupArgs;

    fn name(&self) -> &str {
        "lookup"
    }

    fn description(&self) -> &str {
        "Look a key up in the reference table and return its value."
    }

    // Tools state their risk and whether they change anything; without it a tool is medium
    // and mutating (never auto-approved, never run concurrently).
    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: LookupArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        match self.table.get(args.key.as_str()) {
            Some(value) => Ok(ToolOutput::text(*value)),
            None => Err(ToolError::failed(format!(
                "no key `{}`; known keys: {}",
                args.key,
                self.table.keys().copied().collect::<Vec<_>>().join(", ")
            ))),
        }
    }
}

struct Args {
    base_url: String,
    model: String,
    sequential: usize,
    concurrent: usize,
    rounds: usize,
    stream: bool,
}

const USAGE: &str =
    "usage: bench_loop --base-url URL [--model M] [-n N] [-c C] [--rounds R] [--stream]";

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        base_url: String::new(),
        model: "gpt-4o-mini".into(),
        sequential: 20,
        concurrent: 8,
        rounds: 1,
        stream: false,
    };
    let mut raw = std::env::args().skip(1);
    while let Some(flag) = raw.next() {
        let mut value = || raw.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--base-url" => args.base_url = value()?,
            "--model" => args.model = value()?,
            "-n" => args.sequential = value()?.parse().context("-n takes a number")?,
            "-c" => args.concurrent = value()?.parse().context("-c takes a number")?,
            "--rounds" => args.rounds = value()?.parse().context("--rounds takes a number")?,
            "--stream" => args.stream = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument `{other}`; {USAGE}"),
        }
    }
    if args.base_url.is_empty() {
        bail!("--base-url is required, e.g. --base-url http://127.0.0.1:8080/v1");
    }
    Ok(args)
}

/// The agent, defined in code rather than in a Markdown file.
fn agent(model: &str) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "table-clerk".into(),
            description: Some("Answers questions from the reference table.".into()),
            model: Some(format!("local:{model}")),
            max_turns: Some(6),
            tools: ToolPolicy {
                allow: Some(vec!["lookup".into()]),
                deny: vec![],
            },
            ..AgentSpec::default()
        },
        system_prompt:
            "You answer questions using only the reference table. Call `lookup` with the \
                        key, then answer in one short sentence."
                .into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "bench_loop.rs".into(),
            scope: Scope::Project,
        },
        extra: BTreeMap::new(),
    }
}

fn runtime(base_url: &str) -> Runtime {
    let mut settings = Settings::default();
    settings.providers.insert(
        "local".into(),
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: Some(base_url.to_owned()),
            api_key_env: std::env::var_os("OPENAI_API_KEY").map(|_| "OPENAI_API_KEY".into()),
            ..ProviderConfig::default()
        },
    );
    let mut tools = ToolRegistry::new();
    tools.register_typed(Lookup {
        table: BTreeMap::from([
            ("capital-of-france", "Paris"),
            ("capital-of-japan", "Tokyo"),
            ("boiling-point-of-water", "100 °C at sea level"),
            ("speed-of-light", "299,792,458 m/s"),
        ]),
    });
    let options = ProviderOptions::default();
    Runtime::new(
        settings,
        move |model: &agentctl::core::ModelRef, settings: &Settings| {
            build_provider(model, settings, &options)
        },
        tools,
    )
}

const QUESTIONS: &[&str] = &[
    "What is the capital of France?",
    "What is the capital of Japan?",
    "At what temperature does water boil?",
    "How fast is light?",
];

fn report(phase: &str, runs: usize, seconds: f64, calls: u64) {
    println!(
        "{phase:<10} {runs:>4} runs in {seconds:>7.3} s: {:>8.1} runs/s, {:>7.3} ms per model call ({calls} calls)",
        runs as f64 / seconds,
        seconds * 1000.0 / calls.max(1) as f64,
    );
}

/// One run: its answer, either at the end or (streaming) assembled from the events, and the
/// model calls it made (from the run's own result).
async fn ask(
    runtime: &Runtime,
    agent: &AgentDefinition,
    question: &str,
    stream: bool,
) -> anyhow::Result<(String, u64)> {
    let calls = |result: &RunResult| u64::from(result.metadata.iterations);
    if !stream {
        let result = runtime
            .run_to_completion(agent, question, RunOptions::new())
            .await?;
        let made = calls(&result);
        return Ok((result.text, made));
    }
    let mut run = runtime.run(agent, question, RunOptions::new().stream(true));
    let mut answer = String::new();
    let mut made = 0;
    while let Some(event) = run.next().await {
        match event {
            // A front end would print these as they come.
            RunEvent::TextDelta { text, .. } => answer.push_str(&text),
            RunEvent::RunFinished { result } => made = calls(&result),
            RunEvent::RunFailed { error } => bail!(error),
            _ => {}
        }
    }
    Ok((answer, made))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    // The work runs on a worker thread, as a server's request handlers do: the main thread
    // `#[tokio::main]` drives is woken across threads for every event it waits for.
    tokio::spawn(scenarios(args)).await?
}

/// The sequential runs, then the concurrent ones, and the report.
async fn scenarios(args: Args) -> anyhow::Result<()> {
    let calls = Arc::new(AtomicU64::new(0));
    let runtime = runtime(&args.base_url);
    let agent = agent(&args.model);
    // The provider (its HTTP client, TLS roots and all) is built at a run's first use; built
    // here, before the clock starts, as `floor.rs` builds its client.
    let model = runtime.resolve_model(&agent, &RunOptions::new())?;
    runtime.provider_for(&model)?;
    let started = Instant::now();

    for index in 0..args.sequential {
        let question = QUESTIONS[index % QUESTIONS.len()];
        let (answer, made) = ask(&runtime, &agent, question, args.stream).await?;
        calls.fetch_add(made, Ordering::Relaxed);
        if index == 0 {
            println!("Q: {question}\nA: {}", answer.trim());
        }
    }
    let sequential_seconds = started.elapsed().as_secs_f64();
    let sequential_calls = calls.load(Ordering::Relaxed);
    report(
        "sequential",
        args.sequential,
        sequential_seconds,
        sequential_calls,
    );

    let concurrent_started = Instant::now();
    let tasks: Vec<_> = (0..args.concurrent)
        .map(|worker| {
            let runtime = runtime.clone();
            let agent = agent.clone();
            let (rounds, stream) = (args.rounds, args.stream);
            let calls = Arc::clone(&calls);
            tokio::spawn(async move {
                for round in 0..rounds {
                    let question = QUESTIONS[(worker + round) % QUESTIONS.len()];
                    let (_, made) = ask(&runtime, &agent, question, stream).await?;
                    calls.fetch_add(made, Ordering::Relaxed);
                }
                anyhow::Ok(())
            })
        })
        .collect();
    for task in tasks {
        task.await??;
    }
    let concurrent_seconds = concurrent_started.elapsed().as_secs_f64();
    let concurrent_calls = calls.load(Ordering::Relaxed) - sequential_calls;
    report(
        "concurrent",
        args.concurrent * args.rounds,
        concurrent_seconds,
        concurrent_calls,
    );

    println!(
        "RESULT {}",
        serde_json::json!({
            "scenarios": args.sequential + args.concurrent * args.rounds,
            "seconds": (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
            "model_calls": calls.load(Ordering::Relaxed),
            "sequential_ms_per_call": sequential_seconds * 1000.0 / sequential_calls.max(1) as f64,
            "concurrent_ms_per_call": concurrent_seconds * 1000.0 / concurrent_calls.max(1) as f64,
        })
    );
    Ok(())
}

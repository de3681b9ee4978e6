//! Memory under load: `-n` agent runs at once in one process, all idle while a local fake model
//! server holds its answers, and what each one costs in resident memory.
//!
//! ```sh
//! cargo run --release --example load -- -n 1000 --hold-ms 5000 --repeat 3
//! ```
//!
//! Each measurement is a fresh process (`--client runtime` or `--client raw`) talking to a fake
//! OpenAI-compatible server in a process of its own (`--serve`, the strict
//! `agentctl-test-support` server), so the server's memory never counts. A client warms up with
//! one complete run, reads its RSS (`VmRSS` in `/proc/self/status`), starts `-n` runs, waits
//! until the server has received all of them (each answer is held `--hold-ms`), reads RSS again
//! and then lets them finish, reading the peak (`VmHWM`, reset after the warm-up).
//!
//! * `runtime`: `Runtime::run` per prompt, the handles kept until the end (what a front end
//!   driving many runs does), the agent offered the built-in tools (`--tools none` for none).
//! * `raw`: the floor — the same number of bare reqwest requests to the same server, one
//!   spawned task each. Its cost per request is the connection's (socket buffers, the HTTP
//!   client's per-connection state, the task); `runtime − raw` is what agentctl itself holds
//!   per idle run.
//!
//! Besides RSS, each client counts its live heap bytes (a counting global allocator), and the
//! runtime client reports what one copy of the agent's tool specs holds on the heap.
//!
//! The last line is machine-readable: `RESULT {"runs":…,"runtime_idle_kb_per_run":…,…}`.

use agentctl::core::{
    AgentDefinition, AgentSource, AgentSpec, ProviderConfig, ProviderKind, RunOptions, Scope,
    Settings, SourceFormat, ToolRegistry, ToolSpec, spec_of,
};
use agentctl::providers::{ProviderOptions, build_provider};
use agentctl::runtime::Runtime;
use agentctl::tools::{BuiltinToolsConfig, register_builtin_tools};
use agentctl_test_support::{FakeServer, Reply, openai};
use anyhow::{Context as _, bail};
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use std::alloc::System;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Live heap bytes of the process.
fn heap() -> i64 {
    let stats = GLOBAL.stats();
    stats.bytes_allocated as i64 - stats.bytes_deallocated as i64 + stats.bytes_reallocated as i64
}

const MODEL: &str = "gpt-4o-mini";
const ANSWER: &str = "done";

#[derive(Debug, Clone)]
struct Args {
    runs: usize,
    hold: Duration,
    repeat: usize,
    builtin_tools: bool,
    stream: bool,
}

enum Role {
    /// Runs the clients one after another and prints the table.
    Lead,
    /// One measurement: `raw` or `runtime`.
    Client(String),
    /// The fake server.
    Serve,
}

const USAGE: &str =
    "usage: load [-n RUNS] [--hold-ms MS] [--repeat R] [--tools builtin|none] [--no-stream]";

fn parse_args() -> anyhow::Result<(Role, Args)> {
    let mut role = Role::Lead;
    let mut args = Args {
        runs: 1_000,
        hold: Duration::from_millis(5_000),
        repeat: 3,
        builtin_tools: true,
        stream: true,
    };
    let mut raw = std::env::args().skip(1);
    while let Some(flag) = raw.next() {
        let mut value = || raw.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "-n" => args.runs = value()?.parse().context("-n takes a number of runs")?,
            "--hold-ms" => {
                args.hold = Duration::from_millis(value()?.parse().context("--hold-ms takes ms")?)
            }
            "--repeat" => args.repeat = value()?.parse().context("--repeat takes a number")?,
            "--tools" => {
                args.builtin_tools = match value()?.as_str() {
                    "builtin" => true,
                    "none" => false,
                    other => bail!("--tools takes `builtin` or `none`, not `{other}`"),
                }
            }
            "--no-stream" => args.stream = false,
            "--client" => role = Role::Client(value()?),
            "--serve" => role = Role::Serve,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument `{other}`; {USAGE}"),
        }
    }
    if args.runs == 0 || args.repeat == 0 {
        bail!("-n and --repeat must be at least 1");
    }
    Ok((role, args))
}

/// The flags a child process gets again.
fn child_flags(args: &Args) -> Vec<String> {
    let mut flags = vec![
        "-n".to_owned(),
        args.runs.to_string(),
        "--hold-ms".to_owned(),
        args.hold.as_millis().to_string(),
        "--tools".to_owned(),
        if args.builtin_tools {
            "builtin"
        } else {
            "none"
        }
        .to_owned(),
    ];
    if !args.stream {
        flags.push("--no-stream".to_owned());
    }
    flags
}

fn main() -> anyhow::Result<()> {
    let (role, args) = parse_args()?;
    match role {
        Role::Lead => lead(&args),
        Role::Serve => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
            .block_on(serve(&args)),
        Role::Client(kind) => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(client(&kind, &args)),
    }
}

// ---- the fake server process ----

/// Answers one warm-up request at once and the next `runs` after `hold`; prints its base URL,
/// then `received` once every answer is taken; exits when its standard input closes.
async fn serve(args: &Args) -> anyhow::Result<()> {
    let server = FakeServer::openai().await;
    let answer = || {
        if args.stream {
            Reply::sse([
                openai::text_chunk(ANSWER),
                openai::finish_chunk("stop"),
                openai::done(),
            ])
        } else {
            Reply::json(200, &openai::text_response(ANSWER))
        }
    };
    server.push(answer());
    for _ in 0..args.runs {
        server.push(answer().delayed(args.hold));
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", server.base_url())?;
    out.flush()?;
    drop(out);
    // The client closes our standard input when it is done, or by exiting in any way.
    let mut stdin_closed = tokio::task::spawn_blocking(|| {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
    });
    loop {
        tokio::select! {
            _ = &mut stdin_closed => break,
            () = tokio::time::sleep(Duration::from_millis(5)) => {
                if server.pending() == 0 {
                    println!("received");
                    stdin_closed.await?;
                    break;
                }
            }
        }
    }
    server.assert_no_violations();
    Ok(())
}

/// The server process, its base URL, and its `received` line as a channel.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    base_url: String,
    received: Option<tokio::sync::oneshot::Receiver<()>>,
}

impl Server {
    fn start(args: &Args) -> anyhow::Result<Self> {
        let mut child = Command::new(std::env::current_exe()?)
            .arg("--serve")
            .args(child_flags(args))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start the fake server process")?;
        let stdin = child.stdin.take();
        let mut lines = BufReader::new(child.stdout.take().context("server stdout")?).lines();
        let base_url = lines
            .next()
            .context("the fake server exited before printing its address")??;
        let (sender, received) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut sender = Some(sender);
            for line in lines.map_while(Result::ok) {
                if line == "received"
                    && let Some(sender) = sender.take()
                {
                    let _ = sender.send(());
                }
            }
        });
        Ok(Self {
            child,
            stdin,
            base_url,
            received: Some(received),
        })
    }

    /// Waits until the server has taken every held request.
    async fn wait_received(&mut self, limit: Duration) -> anyhow::Result<()> {
        let received = self.received.take().context("already waited")?;
        tokio::time::timeout(limit, received)
            .await
            .context("the server did not receive every request within the hold time")?
            .context("the fake server process ended early")
    }

    fn stop(mut self) -> anyhow::Result<()> {
        drop(self.stdin.take());
        let status = self.child.wait()?;
        if !status.success() {
            bail!("the fake server process failed: {status}");
        }
        Ok(())
    }
}

// ---- a measuring client process ----

/// Resident and peak resident memory, in KiB, and live heap bytes.
#[derive(Debug, Clone, Copy)]
struct Memory {
    rss: u64,
    hwm: u64,
    heap: i64,
}

fn memory() -> anyhow::Result<Memory> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let field = |name: &str| -> anyhow::Result<u64> {
        let line = status
            .lines()
            .find(|line| line.starts_with(name))
            .with_context(|| format!("no {name} in /proc/self/status"))?;
        Ok(line
            .split_whitespace()
            .nth(1)
            .context("malformed /proc/self/status")?
            .parse()?)
    };
    Ok(Memory {
        rss: field("VmRSS:")?,
        hwm: field("VmHWM:")?,
        heap: heap(),
    })
}

/// Resets `VmHWM` to the current RSS, so the peak read later is the measured phase's.
fn reset_peak() -> anyhow::Result<()> {
    std::fs::write("/proc/self/clear_refs", "5").context("cannot reset VmHWM")
}

fn agent() -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "worker".into(),
            description: Some("Does one small task.".into()),
            model: Some(format!("local:{MODEL}")),
            max_turns: Some(4),
            ..AgentSpec::default()
        },
        system_prompt: "You are a careful assistant. Answer in one short sentence.".into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "load.rs".into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

fn runtime(base_url: &str, builtin_tools: bool) -> Runtime {
    let mut settings = Settings::default();
    settings.providers.insert(
        "local".into(),
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: Some(base_url.to_owned()),
            ..ProviderConfig::default()
        },
    );
    let mut tools = ToolRegistry::new();
    if builtin_tools {
        register_builtin_tools(&mut tools, &BuiltinToolsConfig::from_settings(&settings));
    }
    let options = ProviderOptions::default();
    Runtime::new(
        settings,
        move |model: &agentctl::core::ModelRef, settings: &Settings| {
            build_provider(model, settings, &options)
        },
        tools,
    )
}

/// The prompt of run `index`.
fn prompt(index: usize) -> String {
    format!("Task {index}: say that it is done.")
}

async fn client(kind: &str, args: &Args) -> anyhow::Result<()> {
    let mut server = Server::start(args)?;
    let measured = match kind {
        "runtime" => runtime_runs(&mut server, args).await?,
        "raw" => raw_requests(&mut server, args).await?,
        other => bail!("--client takes `runtime` or `raw`, not `{other}`"),
    };
    server.stop()?;
    println!("MEASURED {measured}");
    Ok(())
}

/// What one client measured, in KiB.
fn measured(before: Memory, idle: Memory, peak: Memory, started_in: Duration) -> Value {
    json!({
        "before_kb": before.rss,
        "idle_kb": idle.rss,
        "peak_kb": peak.hwm,
        "heap_before_kb": before.heap / 1024,
        "heap_idle_kb": idle.heap / 1024,
        "started_in_ms": started_in.as_millis() as u64,
    })
}

async fn runtime_runs(server: &mut Server, args: &Args) -> anyhow::Result<Value> {
    let runtime = runtime(&server.base_url, args.builtin_tools);
    let agent = agent();
    let options = RunOptions::new().stream(args.stream);
    // Builds the provider and its HTTP client, and touches every code path once.
    let warm = runtime
        .run_to_completion(&agent, &prompt(0), options.clone())
        .await?;
    if warm.text != ANSWER {
        bail!("warm-up run answered {:?}", warm.text);
    }
    // What one copy of the agent's tool specs holds, as each run's request carries them.
    let before_specs = heap();
    let specs: Vec<ToolSpec> = runtime
        .tools()
        .names()
        .filter_map(|name| runtime.tools().get(name))
        .map(|tool| spec_of(tool.as_ref()))
        .collect();
    let specs_heap = heap() - before_specs;
    let specs_json = serde_json::to_string(&specs)?.len();
    drop(specs);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = memory()?;
    reset_peak()?;
    let started = Instant::now();
    let handles: Vec<_> = (1..=args.runs)
        .map(|index| runtime.run(&agent, &prompt(index), options.clone()))
        .collect();
    server.wait_received(args.hold).await?;
    let started_in = started.elapsed();
    let idle = memory()?;
    let results = futures_util::future::join_all(handles.into_iter().map(|run| run.result())).await;
    let peak = memory()?;
    for result in results {
        let result = result?;
        if result.text != ANSWER {
            bail!("a run answered {:?}", result.text);
        }
    }
    let mut measured = measured(before, idle, peak, started_in);
    measured["tool_specs_heap_kb"] = json!(specs_heap as f64 / 1024.0);
    measured["tool_specs_json_kb"] = json!(specs_json as f64 / 1024.0);
    Ok(measured)
}

async fn raw_requests(server: &mut Server, args: &Args) -> anyhow::Result<Value> {
    // Building the provider installs the TLS crypto provider reqwest needs, as in a run.
    let runtime = runtime(&server.base_url, false);
    runtime.provider_for(&runtime.resolve_model(&agent(), &RunOptions::new())?)?;
    drop(runtime);
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url);
    let body = Arc::new(json!({
        "model": MODEL,
        "messages": [
            {"role": "system", "content": agent().system_prompt},
            {"role": "user", "content": prompt(0)},
        ],
        "stream": args.stream,
    }));
    let request = |client: reqwest::Client, url: String, body: Arc<Value>| async move {
        let response = client.post(url).json(&*body).send().await?;
        let status = response.status();
        let text = response.text().await?;
        if !status.is_success() || !text.contains(ANSWER) {
            bail!("the server answered {status}: {text}");
        }
        anyhow::Ok(())
    };
    request(client.clone(), url.clone(), Arc::clone(&body)).await?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = memory()?;
    reset_peak()?;
    let started = Instant::now();
    let tasks: Vec<_> = (0..args.runs)
        .map(|_| tokio::spawn(request(client.clone(), url.clone(), Arc::clone(&body))))
        .collect();
    server.wait_received(args.hold).await?;
    let started_in = started.elapsed();
    let idle = memory()?;
    for task in tasks {
        task.await??;
    }
    let peak = memory()?;
    Ok(measured(before, idle, peak, started_in))
}

// ---- the lead process ----

fn run_client(kind: &str, args: &Args) -> anyhow::Result<Value> {
    let output = Command::new(std::env::current_exe()?)
        .args(["--client", kind])
        .args(child_flags(args))
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start the {kind} client"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!("the {kind} client failed ({}): {stdout}", output.status);
    }
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("MEASURED "))
        .with_context(|| format!("the {kind} client printed no measurement: {stdout}"))?;
    Ok(serde_json::from_str(line)?)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn lead(args: &Args) -> anyhow::Result<()> {
    println!(
        "{} concurrent runs, answers held {} ms, {} tools, {}, {} repeats (median; min–max)",
        args.runs,
        args.hold.as_millis(),
        if args.builtin_tools { "built-in" } else { "no" },
        if args.stream {
            "streaming"
        } else {
            "not streaming"
        },
        args.repeat,
    );
    let per_run = |value: &Value, field: &str| {
        let kb = value[field].as_u64().unwrap_or(0) as f64;
        let before = value["before_kb"].as_u64().unwrap_or(0) as f64;
        (kb - before) / args.runs as f64
    };
    let mut figures = serde_json::Map::new();
    figures.insert("runs".into(), json!(args.runs));
    let mut idle_by_kind = Vec::new();
    for kind in ["raw", "runtime"] {
        let mut idle = Vec::new();
        let mut peak = Vec::new();
        let mut heap = Vec::new();
        let mut last = Value::Null;
        for _ in 0..args.repeat {
            let measured = run_client(kind, args)?;
            if measured["started_in_ms"].as_u64().unwrap_or(0) > args.hold.as_millis() as u64 / 2 {
                eprintln!("warning: starting the runs took over half the hold time: {measured}");
            }
            idle.push(per_run(&measured, "idle_kb"));
            peak.push(per_run(&measured, "peak_kb"));
            let heap_kb = |field: &str| measured[field].as_i64().unwrap_or(0) as f64;
            heap.push((heap_kb("heap_idle_kb") - heap_kb("heap_before_kb")) / args.runs as f64);
            last = measured;
        }
        let range = |values: &[f64]| {
            let min = values.iter().copied().fold(f64::INFINITY, f64::min);
            let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{min:.1}–{max:.1}")
        };
        let (idle_median, peak_median) = (median(idle.clone()), median(peak.clone()));
        println!(
            "{kind:<8} idle {idle_median:>6.1} KB per run ({}), peak {peak_median:>6.1} KB per run ({})",
            range(&idle),
            range(&peak),
        );
        let heap_median = median(heap.clone());
        println!(
            "{kind:<8} live heap {heap_median:>6.1} KB per idle run ({})",
            range(&heap)
        );
        if let (Some(heap), Some(json)) = (
            last["tool_specs_heap_kb"].as_f64(),
            last["tool_specs_json_kb"].as_f64(),
        ) {
            println!(
                "{kind:<8} one copy of the agent's tool specs: {heap:.1} KB of heap ({json:.1} KB as JSON)"
            );
            figures.insert("tool_specs_heap_kb".into(), json!(heap));
        }
        figures.insert(format!("{kind}_idle_kb_per_run"), json!(idle_median));
        figures.insert(format!("{kind}_peak_kb_per_run"), json!(peak_median));
        figures.insert(format!("{kind}_heap_kb_per_run"), json!(heap_median));
        idle_by_kind.push(idle_median);
    }
    let beyond = idle_by_kind[1] - idle_by_kind[0];
    println!("agentctl's own share of an idle run (runtime − raw): {beyond:.1} KB");
    figures.insert("agentctl_idle_kb_per_run".into(), json!(beyond));
    println!("RESULT {}", Value::Object(figures));
    Ok(())
}

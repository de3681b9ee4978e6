//! The floor of the bench drivers: the same HTTP exchanges as their agent runs, made with a
//! bare `reqwest` client and nothing else — no agent loop, no events, no tools. What
//! `benches/drivers/bench_loop.rs` (the single-agent loop) or `benches/drivers/bench_triage` (the triage
//! scenario) spends per model call above this is the library's overhead.
//!
//! Serve the instant fake server (the one the single-agent loop runs against), recording what
//! a client sends:
//!
//! ```sh
//! cargo run --release --example floor -- --serve --record bodies.jsonl
//! ```
//!
//! then run the single-agent loop against it once (`-n 4 -c 0`, one run per question), and
//! replay those exact request bodies, phase for phase as the loop runs them:
//!
//! ```sh
//! cargo run --release --example floor -- --base-url http://127.0.0.1:PORT/v1 --bodies bodies.jsonl -n 2000 -c 50 --rounds 40
//! ```
//!
//! A recorded run is its request bodies up to the one the server answered with text; the
//! answers (JSON, or SSE when the body asked for a stream) are read and parsed as a client
//! must. `benches/compare.sh` does all of this and prints the ratio; `benches/triage.sh` does
//! the same with the triage scenario's bodies, recorded by `bench_triage serve --record`.

use agentctl_test_support::{Exchange, InstantServer};
use anyhow::{Context as _, bail};
use bytes::Bytes;
use serde_json::Value;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One recorded run: its request bodies in order.
type Script = Vec<Bytes>;

struct Args {
    serve: bool,
    port: u16,
    record: Option<PathBuf>,
    base_url: String,
    bodies: Option<PathBuf>,
    sequential: usize,
    concurrent: usize,
    rounds: usize,
}

const USAGE: &str = "usage: floor --serve [--port P] [--record FILE] | \
     floor --base-url URL --bodies FILE [-n N] [-c C] [--rounds R]";

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        serve: false,
        port: 0,
        record: None,
        base_url: String::new(),
        bodies: None,
        sequential: 20,
        concurrent: 8,
        rounds: 1,
    };
    let mut raw = std::env::args().skip(1);
    while let Some(flag) = raw.next() {
        let mut value = || raw.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--serve" => args.serve = true,
            "--port" => args.port = value()?.parse().context("--port takes a number")?,
            "--record" => args.record = Some(value()?.into()),
            "--base-url" => args.base_url = value()?,
            "--bodies" => args.bodies = Some(value()?.into()),
            "-n" => args.sequential = value()?.parse().context("-n takes a number")?,
            "-c" => args.concurrent = value()?.parse().context("-c takes a number")?,
            "--rounds" => args.rounds = value()?.parse().context("--rounds takes a number")?,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument `{other}`; {USAGE}"),
        }
    }
    Ok(args)
}

fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    if args.serve {
        return serve(&args);
    }
    if args.base_url.is_empty() {
        bail!("--base-url is required, e.g. --base-url http://127.0.0.1:8080/v1");
    }
    let bodies = args
        .bodies
        .as_ref()
        .context("--bodies is required: the request bodies `--serve --record` wrote")?;
    let scripts = load_scripts(bodies)?;
    // The bench drivers' runtime flavor: `#[tokio::main]`, multi-threaded.
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        // On a worker, as the bench drivers run: a future `block_on` drives on the main
        // thread is woken across threads for every chunk of a streamed answer, which would
        // make this floor 2–3× slower than it need be.
        .block_on(async move {
            tokio::spawn(async move { replay(&args, Arc::new(scripts)).await }).await?
        })
}

/// Serves the instant server until killed; prints its base URL first.
fn serve(args: &Args) -> anyhow::Result<()> {
    let sink = match &args.record {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let file = Mutex::new(std::io::BufWriter::new(file));
            Some(Arc::new(move |exchange: &Exchange| {
                let line = serde_json::json!({
                    "final": exchange.final_answer,
                    "body": String::from_utf8_lossy(&exchange.body),
                });
                if let Ok(mut file) = file.lock() {
                    // Flushed per line: the server is stopped by a signal.
                    let _ = writeln!(file, "{line}").and_then(|()| file.flush());
                }
            }) as agentctl_test_support::ExchangeSink)
        }
        None => None,
    };
    let server = InstantServer::bind(SocketAddr::from(([127, 0, 0, 1], args.port)), sink)?;
    println!("{}", server.base_url());
    std::io::stdout().flush()?;
    server.wait();
    Ok(())
}

/// The recorded runs: request bodies grouped up to each final answer.
fn load_scripts(path: &PathBuf) -> anyhow::Result<Vec<Script>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut scripts = Vec::new();
    let mut current = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let value: Value = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: not JSON", path.display(), number + 1))?;
        let body = value["body"]
            .as_str()
            .with_context(|| format!("{}:{}: no `body`", path.display(), number + 1))?;
        current.push(Bytes::from(body.to_owned()));
        if value["final"].as_bool() == Some(true) {
            scripts.push(std::mem::take(&mut current));
        }
    }
    if scripts.is_empty() {
        bail!("{}: no complete run recorded", path.display());
    }
    Ok(scripts)
}

fn report(phase: &str, runs: usize, seconds: f64, calls: u64) {
    println!(
        "{phase:<10} {runs:>4} runs in {seconds:>7.3} s: {:>8.1} runs/s, {:>7.3} ms per model call ({calls} calls)",
        runs as f64 / seconds,
        seconds * 1000.0 / calls.max(1) as f64,
    );
}

async fn replay(args: &Args, scripts: Arc<Vec<Script>>) -> anyhow::Result<()> {
    // reqwest is built without a TLS crypto provider; agentctl installs ring, so does the floor.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .user_agent(concat!("agentctl/", env!("CARGO_PKG_VERSION")))
        .build()?;
    let url = format!("{}/chat/completions", args.base_url.trim_end_matches('/'));
    let started = Instant::now();
    let mut sequential_calls = 0;
    for index in 0..args.sequential {
        sequential_calls += run(&client, &url, &scripts[index % scripts.len()]).await?;
    }
    let sequential_seconds = started.elapsed().as_secs_f64();
    report(
        "sequential",
        args.sequential,
        sequential_seconds,
        sequential_calls,
    );

    let concurrent_started = Instant::now();
    let tasks: Vec<_> = (0..args.concurrent)
        .map(|worker| {
            let (client, url, scripts) = (client.clone(), url.clone(), Arc::clone(&scripts));
            let rounds = args.rounds;
            tokio::spawn(async move {
                let mut calls = 0;
                for round in 0..rounds {
                    let script = &scripts[(worker + round) % scripts.len()];
                    calls += run(&client, &url, script).await?;
                }
                anyhow::Ok(calls)
            })
        })
        .collect();
    let mut concurrent_calls = 0;
    for task in tasks {
        concurrent_calls += task.await??;
    }
    let concurrent_seconds = concurrent_started.elapsed().as_secs_f64();
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
            "model_calls": sequential_calls + concurrent_calls,
            "sequential_ms_per_call": sequential_seconds * 1000.0 / sequential_calls.max(1) as f64,
            "concurrent_ms_per_call": concurrent_seconds * 1000.0 / concurrent_calls.max(1) as f64,
        })
    );
    Ok(())
}

/// One run: each request of the script, its answer read and parsed; returns the calls made.
async fn run(client: &reqwest::Client, url: &str, script: &Script) -> anyhow::Result<u64> {
    for body in script {
        let response = client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.clone())
            .send()
            .await?
            .error_for_status()?;
        let streamed = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
        if streamed {
            read_events(response).await?;
        } else {
            let value: Value = serde_json::from_slice(&response.bytes().await?)?;
            if value.pointer("/choices/0").is_none() {
                bail!("no choices in {value}");
            }
        }
    }
    Ok(script.len() as u64)
}

/// Reads an SSE answer chunk by chunk, parsing each event's JSON, up to `[DONE]` and the end
/// of the body.
async fn read_events(mut response: reqwest::Response) -> anyhow::Result<()> {
    let mut pending: Vec<u8> = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&byte| byte == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let Some(data) = line.strip_prefix(b"data: ") else {
                continue;
            };
            let data = data.trim_ascii_end();
            if data == b"[DONE]" {
                return Ok(());
            }
            let _: Value = serde_json::from_slice(data)?;
        }
    }
    bail!("the stream ended without [DONE]")
}

//! Bench driver of the multi-agent path (`benches/triage.sh` runs it): the triage scenario of
//! `examples/triage.rs` — triage → `handoff_to_<specialist>` → `lookup` → answer, three model
//! calls — through the library, against an instant local OpenAI-compatible server that plays
//! the scenario.
//!
//! ```sh
//! bench_triage serve [--port P] [--strict] [--record FILE]
//! bench_triage run --base-url URL [-n N] [-c C] [--rounds R] [--sqlite | --postgres URL [--one-session]] [--stream] [--provider-per-runtime]
//! ```
//!
//! `serve` prints its base URL and serves until killed (`--strict`: every request checked
//! against the real API's rules, a broken one refused; `--record`: the request bodies written
//! for `benches/drivers/floor.rs` to replay). `run` plays `-n` scenarios one after another, then `-c`
//! at once, each of those `--rounds` in a row (unrecorded, every scenario a turn of one session
//! whose agents keep no context between runs; `--sqlite`: each scenario in a session of its own
//! in a SQLite store in a temporary folder, or with `--one-session` all of them recorded in the
//! one session; `--postgres URL`: the same in the PostgreSQL database at `URL`; `--provider-per-runtime`: providers built by a factory of the embedder's
//! instead of the runtime builder's), and checks with the server that each took exactly three
//! model calls and none was refused. Its last line is machine-readable:
//! `RESULT {"scenarios":…,"sequential_ms_per_call":…,"concurrent_ms_per_call":…,"model_calls":…,"connections":…,"rejected":…,"http_clients":…}`.

mod scenario;
mod server;

use agentctl::store::SessionStore;
use agentctl::store_postgres::PgStore;
use agentctl::store_sqlite::SqliteStore;
use agentctl_test_support::{Exchange, ExchangeSink};
use anyhow::{Context as _, bail};
use scenario::Scenarios;
use serde_json::Value;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Model calls of one scenario.
const CALLS: u64 = 3;

const USAGE: &str = "usage: bench_triage serve [--port P] [--strict] [--record FILE]\n       \
     bench_triage run --base-url URL [-n N] [-c C] [--rounds R] [--sqlite | --postgres URL [--one-session]] [--stream] [--provider-per-runtime]";

#[derive(Default)]
struct Args {
    port: u16,
    strict: bool,
    record: Option<PathBuf>,
    base_url: String,
    sequential: usize,
    concurrent: usize,
    rounds: usize,
    sqlite: bool,
    postgres: Option<String>,
    one_session: bool,
    stream: bool,
    factory: bool,
}

fn parse_args() -> anyhow::Result<(String, Args)> {
    let mut raw = std::env::args().skip(1);
    let command = raw.next().with_context(|| USAGE.to_owned())?;
    if matches!(command.as_str(), "-h" | "--help") {
        println!("{USAGE}");
        std::process::exit(0);
    }
    let mut args = Args {
        sequential: 20,
        concurrent: 8,
        rounds: 1,
        ..Args::default()
    };
    while let Some(flag) = raw.next() {
        let mut value = || raw.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--port" => args.port = value()?.parse().context("--port takes a number")?,
            "--strict" => args.strict = true,
            "--record" => args.record = Some(value()?.into()),
            "--base-url" => args.base_url = value()?,
            "-n" => args.sequential = value()?.parse().context("-n takes a number")?,
            "-c" => args.concurrent = value()?.parse().context("-c takes a number")?,
            "--rounds" => args.rounds = value()?.parse().context("--rounds takes a number")?,
            "--sqlite" => args.sqlite = true,
            "--postgres" => args.postgres = Some(value()?),
            "--one-session" => args.one_session = true,
            "--stream" => args.stream = true,
            "--provider-per-runtime" => args.factory = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    Ok((command, args))
}

fn main() -> anyhow::Result<()> {
    let (command, args) = parse_args()?;
    match command.as_str() {
        "serve" => serve(&args),
        "run" => {
            if args.base_url.is_empty() {
                bail!("--base-url is required, e.g. --base-url http://127.0.0.1:8080/v1");
            }
            // The floor's runtime flavor (`benches/drivers/floor.rs`), the work on a worker.
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?
                .block_on(async move { tokio::spawn(run(args)).await? })
        }
        other => bail!("unknown command `{other}`\n{USAGE}"),
    }
}

/// Serves until killed; prints the base URL first.
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
            }) as ExchangeSink)
        }
        None => None,
    };
    let options = server::Options {
        strict: args.strict,
        sink,
    };
    let address = SocketAddr::from(([127, 0, 0, 1], args.port));
    server::serve(address, options, |base_url| {
        println!("{base_url}");
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}

async fn run(args: Args) -> anyhow::Result<()> {
    let store_dir = args.sqlite.then(tempfile::tempdir).transpose()?;
    let store: Option<Arc<dyn SessionStore>> = match (&store_dir, &args.postgres) {
        (Some(_), Some(_)) => bail!("--sqlite and --postgres: choose one store\n{USAGE}"),
        (Some(dir), None) => {
            let path = dir.path().join("sessions.db");
            let store = SqliteStore::open(&path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            Some(Arc::new(store))
        }
        (None, Some(url)) => {
            let store = PgStore::connect(url).context("cannot connect to --postgres")?;
            Some(Arc::new(store))
        }
        (None, None) if args.one_session => {
            bail!("--one-session records in a store: add --sqlite or --postgres URL")
        }
        (None, None) => None,
    };
    let scenarios = Arc::new(
        Scenarios::new(
            &args.base_url,
            store,
            args.one_session,
            args.stream,
            args.factory,
        )
        .await?,
    );
    // Warm up, as the floor builds its client before its clock starts.
    for index in 0..scenario::REQUESTS.len() {
        scenarios.run(index).await?;
    }
    let before = stats(&args.base_url)?;

    let started = Instant::now();
    for index in 0..args.sequential {
        scenarios.run(index).await?;
    }
    let sequential = started.elapsed().as_secs_f64();
    report("sequential", args.sequential, sequential);

    let concurrent_started = Instant::now();
    let tasks: Vec<_> = (0..args.concurrent)
        .map(|worker| {
            let scenarios = Arc::clone(&scenarios);
            let rounds = args.rounds;
            tokio::spawn(async move {
                for round in 0..rounds {
                    scenarios.run(worker + round).await?;
                }
                anyhow::Ok(())
            })
        })
        .collect();
    for task in tasks {
        task.await??;
    }
    let concurrent = concurrent_started.elapsed().as_secs_f64();
    let concurrent_runs = args.concurrent * args.rounds;
    report("concurrent", concurrent_runs, concurrent);

    let after = stats(&args.base_url)?;
    let count = |name: &str| after[name].as_u64().unwrap_or(0) - before[name].as_u64().unwrap_or(0);
    let runs = (args.sequential + concurrent_runs) as u64;
    let (model_calls, rejected) = (count("requests"), count("rejected"));
    let per_call =
        |seconds: f64, runs: usize| seconds * 1000.0 / (runs.max(1) as u64 * CALLS) as f64;
    println!(
        "RESULT {}",
        serde_json::json!({
            "scenarios": runs,
            "sequential_ms_per_call": per_call(sequential, args.sequential),
            "concurrent_ms_per_call": per_call(concurrent, concurrent_runs),
            "model_calls": model_calls,
            "connections": count("connections"),
            "rejected": rejected,
            "http_clients": agentctl::providers::http_clients_built(),
        })
    );
    if model_calls != runs * CALLS || rejected != 0 {
        bail!(
            "{runs} scenarios made {model_calls} model calls (expected {}), {rejected} refused",
            runs * CALLS
        );
    }
    Ok(())
}

fn report(phase: &str, runs: usize, seconds: f64) {
    println!(
        "{phase:<10} {runs:>5} scenarios in {seconds:>7.3} s: {:>8.1} scenarios/s, {:>7.3} ms per scenario",
        runs as f64 / seconds,
        seconds * 1000.0 / runs.max(1) as f64,
    );
}

/// The server's counters (`GET /stats`), read over a connection of its own, outside the
/// clients measured.
fn stats(base_url: &str) -> anyhow::Result<Value> {
    let address = base_url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .with_context(|| format!("{base_url}: not an http:// URL"))?;
    let mut stream =
        TcpStream::connect(address).with_context(|| format!("cannot connect to {address}"))?;
    write!(
        stream,
        "GET /stats HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n\r\n"
    )?;
    let mut response = String::new();
    // The server keeps connections open: read up to the end of the body it announced.
    let mut buffer = [0u8; 4096];
    loop {
        let read = stream.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        response.push_str(&String::from_utf8_lossy(&buffer[..read]));
        if let Some((head, body)) = response.split_once("\r\n\r\n")
            && let Some(length) = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .and_then(|value| value.trim().parse::<usize>().ok())
            && body.len() >= length
        {
            return serde_json::from_str(&body[..length])
                .context("the server's stats are not JSON");
        }
    }
    bail!("the server closed the connection before its stats")
}

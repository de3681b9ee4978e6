//! A thousand triage scenarios through the library (`benches/drivers/bench_triage`: triage →
//! `handoff_to_<specialist>` → `lookup` → answer), a provider built for every agent runtime as
//! `examples/triage.rs` builds them: the process builds one HTTP client, and the server — which
//! holds every request to the real API's rules — accepts a handful of connections for three
//! thousand requests, refusing none. Counted, not timed.

use super::support::{example_binary, text};
use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};

/// Kills the bench server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_thousand_triage_scenarios_build_one_client_and_reuse_connections() {
    const CONCURRENT: u64 = 50;
    let bench = example_binary("bench_triage");
    let mut server = Server(
        Command::new(&bench)
            .args(["serve", "--strict"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut base_url = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut base_url)
        .unwrap();
    // 500 one after another, then 50 at once ten times over.
    let output = Command::new(&bench)
        .args([
            "run",
            "--base-url",
            base_url.trim(),
            "--provider-per-runtime",
        ])
        .args(["-n", "500", "-c", &CONCURRENT.to_string(), "--rounds", "10"])
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        text(&output.stderr)
    );
    let result = stdout
        .lines()
        .find_map(|line| line.strip_prefix("RESULT "))
        .unwrap();
    let result: serde_json::Value = serde_json::from_str(result).unwrap();
    assert_eq!(result["scenarios"], 1000, "{result}");
    assert_eq!(result["model_calls"], 3000, "{result}");
    assert_eq!(result["rejected"], 0, "{result}");
    // Two agent runtimes a scenario, each with a provider of its own: one client.
    assert_eq!(result["http_clients"], 1, "{result}");
    // Without reuse across conversations it would be two connections a scenario (2,000). A
    // connection goes back to the pool from a task of its own once its answer is read, so a
    // call that starts at once may find none idle and open one more — a bare reqwest client
    // does the same: 51–57 connections in release builds, 53–81 in debug ones. Bounded by the
    // scenarios running at once, never by scenarios, providers or handoffs.
    let connections = result["connections"].as_u64().unwrap();
    assert!(
        (1..=3 * CONCURRENT).contains(&connections),
        "{connections} connections: {result}"
    );
    drop(server);
}

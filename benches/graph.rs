//! What the graph engine costs per run, model calls excluded: a 3-node chain and a fan-out to
//! 5 branches joined by a sixth node, every node an agent of an in-process provider that
//! answers at once. Each iteration is one whole graph run (a new run in the same session):
//! its start checkpoint, every node's agent turn, the edges, the branches side by side, the
//! join, and a checkpoint after every node — in an in-memory SQLite store (`memory`, the least
//! a run can be recorded in: graph runs are always checkpointed) and in a SQLite file
//! (`sqlite`, as `agentctl graph run` records them).
//!
//! Run with `cargo bench --bench graph`, or `benches/graph.sh` for the figures the README
//! quotes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_core::{
    AgentSpec, DeltaSink, GraphSpec, ModelProvider, ModelRef, ModelRequest, ModelResponse,
    ProviderError, Settings, StopReason, Usage,
};
use agentctl_session::store::{SessionStore, in_memory_store};
use agentctl_session::{Agent, RuntimeBuilder, Session, Target, TurnOptions};
use divan::Bencher;
use std::sync::Arc;

fn main() {
    divan::main();
}

/// Answers every request at once with the same short text.
struct Instant;

#[async_trait::async_trait]
impl ModelProvider for Instant {
    fn name(&self) -> &str {
        "instant"
    }

    async fn complete(
        &self,
        _: &ModelRequest,
        _: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        Ok(ModelResponse {
            text: Some("Done.".to_owned()),
            tool_calls: Vec::new(),
            usage: Usage {
                input_tokens: 20,
                output_tokens: 2,
            },
            stop_reason: StopReason::EndTurn,
        })
    }
}

/// The graph agent `name` over `graph` (JSON as a graph file writes it).
fn graph_agent(name: &str, graph: serde_json::Value) -> Agent {
    let spec: GraphSpec = serde_json::from_value(graph).unwrap();
    let mut definition = Agent::new(name, "").definition().clone();
    definition.spec = AgentSpec {
        name: name.to_owned(),
        description: Some(format!("The {name} graph.")),
        graph: Some(spec),
        ..AgentSpec::default()
    };
    Agent::from(definition)
}

/// A session with the `chain` and `fanout` graphs and their node agent, recorded in `store`.
fn session(store: Arc<dyn SessionStore>) -> Session {
    let root = std::env::temp_dir();
    let factory = |_: &ModelRef, _: &Settings| Ok(Arc::new(Instant) as Arc<dyn ModelProvider>);
    let builder = RuntimeBuilder::with_settings(Settings::default(), &root)
        .provider_factory(Arc::new(factory));
    let worker = Agent::new("worker", "You are the worker.")
        .description("The worker agent.")
        .model("openai:gpt-4o-mini");
    let chain = graph_agent(
        "chain",
        serde_json::json!({
            "entry": "a",
            "nodes": [
                {"name": "a", "agent": "worker"},
                {"name": "b", "agent": "worker"},
                {"name": "c", "agent": "worker"}
            ],
            "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "END"}]
        }),
    );
    let branches = ["b1", "b2", "b3", "b4", "b5"];
    let mut nodes = vec![serde_json::json!({"name": "start", "agent": "worker"})];
    let mut edges = vec![serde_json::json!({"from": "start", "to": branches})];
    for branch in branches {
        nodes.push(serde_json::json!({"name": branch, "agent": "worker"}));
        edges.push(serde_json::json!({"from": branch, "to": "join"}));
    }
    nodes.push(serde_json::json!({"name": "join", "agent": "worker", "join": "all"}));
    edges.push(serde_json::json!({"from": "join", "to": "END"}));
    let fanout = graph_agent(
        "fanout",
        serde_json::json!({"entry": "start", "nodes": nodes, "edges": edges, "maxSteps": 10}),
    );
    Session::builder()
        .runtime(builder)
        .agent(worker)
        .agent(chain)
        .agent(fanout)
        .store(store)
        .build()
        .unwrap()
}

/// One run of graph `name`, every event read.
async fn run(session: &Session, name: &str) {
    let outcome = session
        .turn(Target::Graph(name.to_owned()), "Go.", TurnOptions::new())
        .finish()
        .await;
    assert_eq!(outcome.result.unwrap().text, "Done.");
}

fn bench_graph(bencher: Bencher, name: &str, store: impl FnOnce() -> Arc<dyn SessionStore>) {
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let session = tokio.block_on(async { session(store()) });
    bencher.bench_local(|| tokio.block_on(run(&session, name)));
}

fn file_store() -> Arc<dyn SessionStore> {
    let dir = tempfile::tempdir().unwrap().keep();
    Arc::new(agentctl_store_sqlite::SqliteStore::open(&dir.join("sessions.db")).unwrap())
}

/// Three nodes one after the other, in an in-memory store.
#[divan::bench]
fn chain3_memory(bencher: Bencher) {
    bench_graph(bencher, "chain", || in_memory_store().unwrap());
}

/// A node fanning out to five branches joined by a sixth, in an in-memory store.
#[divan::bench]
fn fanout5_join_memory(bencher: Bencher) {
    bench_graph(bencher, "fanout", || in_memory_store().unwrap());
}

/// The chain, checkpointed in a SQLite file.
#[divan::bench]
fn chain3_sqlite(bencher: Bencher) {
    bench_graph(bencher, "chain", file_store);
}

/// The fan-out, checkpointed in a SQLite file.
#[divan::bench]
fn fanout5_join_sqlite(bencher: Bencher) {
    bench_graph(bencher, "fanout", file_store);
}

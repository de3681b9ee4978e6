//! What a graph run costs, model calls excluded, in three layers: a 3-node chain and a fan-out
//! to 5 branches joined by a sixth node, each iteration one whole run.
//!
//! * `engine_*`: the graph executor alone ([`GraphExecutor`]), every node a function that
//!   answers at once, no store — scheduling, edges, branches side by side, the join, the
//!   state merge. What the compared engines (LangGraph, pydantic-graph) time.
//! * `checkpointed_*`: the same, with a checkpoint after every node in a SQLite file (one
//!   session, a new run each time), as `agentctl graph run` writes them.
//! * `agents_memory_*` / `agents_sqlite_*`: the whole path on the session engine, every node
//!   an agent turn of an in-process provider that answers at once (its run opened and closed
//!   in the store, its messages and events written, its tools and prompt assembled), in an
//!   in-memory SQLite store and in a SQLite file.
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
use agentctl_session::graph::Graph;
use agentctl_session::store::{SessionChoice, SessionStore, in_memory_store};
use agentctl_session::{
    Agent, GraphExecutor, RuntimeBuilder, Session, SessionHandle, Target, TurnOptions,
};
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

/// Three nodes one after the other.
fn chain_spec() -> serde_json::Value {
    serde_json::json!({
        "entry": "a",
        "nodes": [
            {"name": "a", "agent": "worker"},
            {"name": "b", "agent": "worker"},
            {"name": "c", "agent": "worker"}
        ],
        "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "END"}]
    })
}

/// A node fanning out to five branches, joined by a sixth.
fn fanout_spec() -> serde_json::Value {
    let branches = ["b1", "b2", "b3", "b4", "b5"];
    let mut nodes = vec![serde_json::json!({"name": "start", "agent": "worker"})];
    let mut edges = vec![serde_json::json!({"from": "start", "to": branches})];
    for branch in branches {
        nodes.push(serde_json::json!({"name": branch, "agent": "worker"}));
        edges.push(serde_json::json!({"from": branch, "to": "join"}));
    }
    nodes.push(serde_json::json!({"name": "join", "agent": "worker", "join": "all"}));
    edges.push(serde_json::json!({"from": "join", "to": "END"}));
    serde_json::json!({"entry": "start", "nodes": nodes, "edges": edges, "maxSteps": 10})
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
async fn session(store: Arc<dyn SessionStore>) -> Session {
    let root = std::env::temp_dir();
    let factory = |_: &ModelRef, _: &Settings| Ok(Arc::new(Instant) as Arc<dyn ModelProvider>);
    let builder = RuntimeBuilder::with_settings(Settings::default(), &root)
        .provider_factory(Arc::new(factory));
    let worker = Agent::new("worker", "You are the worker.")
        .description("The worker agent.")
        .model("openai:gpt-4o-mini");
    let chain = graph_agent("chain", chain_spec());
    let fanout = graph_agent("fanout", fanout_spec());
    Session::builder()
        .runtime(builder)
        .agent(worker)
        .agent(chain)
        .agent(fanout)
        .store(store)
        .build()
        .await
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

fn tokio() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn bench_graph(bencher: Bencher, name: &str, store: impl FnOnce() -> Arc<dyn SessionStore>) {
    let tokio = tokio();
    let session = tokio.block_on(async { session(store()).await });
    bencher.bench_local(|| tokio.block_on(run(&session, name)));
}

fn file_store() -> Arc<dyn SessionStore> {
    let dir = tempfile::tempdir().unwrap().keep();
    Arc::new(agentctl_store_sqlite::SqliteStore::open(&dir.join("sessions.db")).unwrap())
}

/// An executor of `spec` whose every node answers `"Done."` at once.
fn executor(spec: serde_json::Value) -> GraphExecutor {
    let spec: GraphSpec = serde_json::from_value(spec).unwrap();
    let graph = Graph::compile("bench", &spec).unwrap();
    GraphExecutor::new(graph, |_| {
        std::future::ready(Ok(serde_json::json!("Done.")))
    })
}

/// One executor run per iteration: on a current-thread runtime, as an embedder awaiting the
/// run inside its own task would.
fn bench_engine(bencher: Bencher, executor: GraphExecutor) {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    bencher.bench_local(|| {
        let outcome = tokio.block_on(executor.run("Go.")).unwrap();
        assert_eq!(outcome.text, "Done.");
    });
}

/// The executor checkpointing in a session of a SQLite file.
fn checkpointed(spec: serde_json::Value) -> GraphExecutor {
    let store = file_store();
    let session = SessionHandle::open(store, SessionChoice::New, None, Default::default()).unwrap();
    executor(spec).checkpoints(session).unwrap()
}

/// The engine alone: a 3-node chain of functions, no store.
#[divan::bench]
fn engine_chain3(bencher: Bencher) {
    bench_engine(bencher, executor(chain_spec()));
}

/// The engine alone: a fan-out to 5 branches + a join, no store.
#[divan::bench]
fn engine_fanout5_join(bencher: Bencher) {
    bench_engine(bencher, executor(fanout_spec()));
}

/// The chain of functions, checkpointed in a SQLite file.
#[divan::bench]
fn checkpointed_chain3(bencher: Bencher) {
    bench_engine(bencher, checkpointed(chain_spec()));
}

/// The fan-out of functions, checkpointed in a SQLite file.
#[divan::bench]
fn checkpointed_fanout5_join(bencher: Bencher) {
    bench_engine(bencher, checkpointed(fanout_spec()));
}

/// Instant agents on the session engine, in an in-memory store.
#[divan::bench]
fn agents_memory_chain3(bencher: Bencher) {
    bench_graph(bencher, "chain", || in_memory_store().unwrap());
}

/// The fan-out of instant agents, in an in-memory store.
#[divan::bench]
fn agents_memory_fanout5_join(bencher: Bencher) {
    bench_graph(bencher, "fanout", || in_memory_store().unwrap());
}

/// The chain of instant agents, checkpointed in a SQLite file.
#[divan::bench]
fn agents_sqlite_chain3(bencher: Bencher) {
    bench_graph(bencher, "chain", file_store);
}

/// The fan-out of instant agents, checkpointed in a SQLite file.
#[divan::bench]
fn agents_sqlite_fanout5_join(bencher: Bencher) {
    bench_graph(bencher, "fanout", file_store);
}

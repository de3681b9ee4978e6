//! Benchmarks of routing a prompt by triggers through 1,000 agents with five triggers each
//! (four keyword triggers, three keywords each, and one regular-expression trigger).
//!
//! Also: checking a `when` condition as a listing does, against compiling it.
//!
//! Run with `cargo bench --bench routing`.

use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, Scope, SourceFormat, Trigger};
use agentctl_routing::Router;

fn main() {
    divan::main();
}

const AGENTS: usize = 1_000;

/// Real words of the shared vocabulary; with 160 more domain terms it makes 200 words, each
/// in about 20 of the 4,000 keyword triggers.
const WORDS: [&str; 40] = [
    "bug",
    "error",
    "crash",
    "review",
    "deploy",
    "database",
    "migration",
    "latency",
    "refactor",
    "security",
    "docs",
    "release",
    "flaky",
    "login",
    "cache",
    "schema",
    "upgrade",
    "rollback",
    "benchmark",
    "memory leak",
    "pull request",
    "stack trace",
    "timeout",
    "regression",
    "api",
    "frontend",
    "backend",
    "css",
    "kubernetes",
    "docker",
    "terraform",
    "billing",
    "search",
    "index",
    "queue",
    "email",
    "auth",
    "oauth",
    "logging",
    "metrics",
];

fn shared_word(k: usize) -> String {
    WORDS
        .get(k % 200)
        .map_or_else(|| format!("domain{}", k % 200), |word| (*word).to_owned())
}

fn trigger(keywords: Vec<String>, regex: Vec<String>, priority: i32) -> Trigger {
    Trigger {
        intent: None,
        keywords,
        regex,
        priority,
        ..Trigger::default()
    }
}

fn agent(i: usize) -> AgentDefinition {
    let mut triggers: Vec<Trigger> = (0..4)
        .map(|t| {
            trigger(
                vec![
                    shared_word(i * 4 + t),
                    format!("widget{i}x{t}"),
                    format!("subsystem {i} part {t}"),
                ],
                Vec::new(),
                i32::try_from((i + t) % 10).unwrap_or(0),
            )
        })
        .collect();
    let pattern = if i.is_multiple_of(2) {
        format!(r"\bservice-{i}\b")
    } else {
        format!("fix.*test_{i}")
    };
    triggers.push(trigger(Vec::new(), vec![pattern], 5));
    AgentDefinition {
        spec: AgentSpec {
            name: format!("agent-{i:04}"),
            triggers,
            ..AgentSpec::default()
        },
        system_prompt: String::new(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("agent-{i:04}.md").into(),
            scope: if i.is_multiple_of(4) {
                Scope::Global
            } else {
                Scope::Project
            },
        },
        extra: Default::default(),
    }
}

fn agents() -> Vec<AgentDefinition> {
    (0..AGENTS).map(agent).collect()
}

/// A typical request: three shared words, one agent-specific phrase, one pattern (about 60
/// agents match).
const PROMPT: &str = "There's a bug in the login flow since the last deploy: the error \
points at subsystem 417 part 2, and please fix the flaky test_333 while you are at it.";

/// A broad request: ten shared words (about 200 agents match).
const BROAD: &str = "After the release the api times out: a crash in the backend queue, \
a memory leak in the cache, a regression in search, and the login page shows an error \
about auth and the database.";

/// A request no trigger matches.
const MISS: &str = "Could you summarise what this repository does and who maintains it? \
A short paragraph is enough, nothing else is needed right now.";

#[divan::bench(sample_count = 200)]
fn route_prompt_1000_agents(bencher: divan::Bencher<'_, '_>) {
    let router = Router::new(&agents());
    assert!(router.skipped().is_empty());
    let found = router.route(PROMPT);
    assert!((40..100).contains(&found.len()), "{}", found.len());
    bencher.bench_local(|| router.route(divan::black_box(PROMPT)));
}

#[divan::bench(sample_count = 200)]
fn route_broad_prompt_1000_agents(bencher: divan::Bencher<'_, '_>) {
    let router = Router::new(&agents());
    let found = router.route(BROAD);
    assert!((150..300).contains(&found.len()), "{}", found.len());
    bencher.bench_local(|| router.route(divan::black_box(BROAD)));
}

#[divan::bench(sample_count = 200)]
fn route_unmatched_prompt_1000_agents(bencher: divan::Bencher<'_, '_>) {
    let router = Router::new(&agents());
    assert!(router.route(MISS).is_empty());
    bencher.bench_local(|| router.route(divan::black_box(MISS)));
}

#[divan::bench(sample_count = 10)]
fn build_router_1000_agents(bencher: divan::Bencher<'_, '_>) {
    let agents = agents();
    bencher.bench_local(|| Router::new(divan::black_box(&agents)));
}

/// A handoff `when` of the plain form most conditions take.
const PLAIN_CONDITION: &str = "task.status == 'need-review' && !fix.applied";

/// Compiling a condition with the CEL parser (what a run does).
#[divan::bench(sample_count = 200)]
fn condition_parse(bencher: divan::Bencher<'_, '_>) {
    bencher.bench_local(|| agentctl_routing::Condition::parse(divan::black_box(PLAIN_CONDITION)));
}

/// Checking the same condition as a listing does (recognised without the parser).
#[divan::bench(sample_count = 200)]
fn condition_check(bencher: divan::Bencher<'_, '_>) {
    assert!(agentctl_routing::Condition::check(PLAIN_CONDITION).is_ok());
    bencher.bench_local(|| agentctl_routing::Condition::check(divan::black_box(PLAIN_CONDITION)));
}

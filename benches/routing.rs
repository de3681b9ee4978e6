//! Benchmarks of routing a prompt by triggers through 1,000 agents with five triggers each
//! (four keyword triggers, three keywords each, and one regular-expression trigger).
//!
//! Run with `cargo bench --bench routing`.

use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, Scope, SourceFormat, Trigger};
use agentctl_routing::Router;

fn main() {
    divan::main();
}

const AGENTS: usize = 1_000;

/// Words many agents share, so a prompt hits several agents at once.
const COMMON: [&str; 20] = [
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
];

fn trigger(keywords: Vec<String>, regex: Vec<String>, priority: i32) -> Trigger {
    Trigger {
        intent: None,
        keywords,
        regex,
        priority,
    }
}

fn agent(i: usize) -> AgentDefinition {
    let mut triggers: Vec<Trigger> = (0..4)
        .map(|t| {
            trigger(
                vec![
                    COMMON[(i + t * 7) % COMMON.len()].to_owned(),
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

/// A typical request: a few shared keywords, one agent-specific phrase and one pattern.
const PROMPT: &str = "There's a bug in the login flow since the last deploy: the stack trace \
points at subsystem 417 part 2, and please fix the flaky test_333 while you are at it.";

/// A request no trigger matches.
const MISS: &str = "Could you summarise what this repository does and who maintains it? \
A short paragraph is enough, nothing else is needed right now.";

#[divan::bench(sample_count = 100)]
fn route_prompt_1000_agents(bencher: divan::Bencher<'_, '_>) {
    let router = Router::new(&agents());
    assert!(router.skipped().is_empty());
    bencher.bench_local(|| {
        let found = router.route(divan::black_box(PROMPT));
        assert!(found.len() > 100);
        found
    });
}

#[divan::bench(sample_count = 100)]
fn route_unmatched_prompt_1000_agents(bencher: divan::Bencher<'_, '_>) {
    let router = Router::new(&agents());
    bencher.bench_local(|| {
        let found = router.route(divan::black_box(MISS));
        assert!(found.is_empty());
        found
    });
}

#[divan::bench(sample_count = 10)]
fn build_router_1000_agents(bencher: divan::Bencher<'_, '_>) {
    let agents = agents();
    bencher.bench_local(|| Router::new(divan::black_box(&agents)));
}

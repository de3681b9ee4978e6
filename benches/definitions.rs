//! Benchmarks of agent discovery, parsing and validation over 1,000 generated agent files.
//!
//! Run with `cargo bench --bench definitions`.

use agentctl_config::Locations;
use agentctl_core::{Scope, Settings, SourceFormat};
use agentctl_definitions::{LoadedAgent, discover, parse_str, validate};
use agentctl_session::semantic_checks;
use std::path::Path;

fn main() {
    divan::main();
}

const FILES: usize = 1_000;

fn native(i: usize) -> String {
    format!(
        "---\nname: agent-{i:04}\ntitle: Agent {i}\ndescription: Generated agent number {i} for benchmarks.\n\
         model: sonnet\ntools:\n  allow: [read_file, grep, glob, bash]\n  deny: [delete_file]\nmaxTurns: 10\n\
         triggers:\n  - keywords: [bench, agent{i}]\n    regex: ['agent {i}\\b']\n---\n\
         You are benchmark agent {i}. Read the code, answer briefly.\n"
    )
}

fn claude(i: usize) -> String {
    format!(
        "---\nname: claude-{i:04}\ndescription: Use this agent for task {i}. Use PROACTIVELY.\n\
         tools: Read, Write, Edit, Bash, Glob, Grep\nmodel: haiku\ncolor: blue\n---\n\nYou are Claude agent {i}.\n"
    )
}

/// A project with 800 native and 200 Claude Code agents, and an empty home.
fn project() -> (tempfile::TempDir, Locations) {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let native_dir = tmp.path().join("p/.agentctl/agents");
    let claude_dir = tmp.path().join("p/.claude/agents/group");
    for dir in [&native_dir, &claude_dir] {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    }
    for i in 0..FILES {
        let (dir, text) = if i % 5 == 0 {
            (&claude_dir, claude(i))
        } else {
            (&native_dir, native(i))
        };
        std::fs::write(dir.join(format!("agent-{i:04}.md")), text)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let locations = Locations {
        agentctl_home: tmp.path().join("h/.agentctl"),
        user_home: Some(tmp.path().join("h")),
        project_root: Some(tmp.path().join("p")),
    };
    (tmp, locations)
}

#[divan::bench(sample_count = 20)]
fn discover_1000_files(bencher: divan::Bencher<'_, '_>) {
    let (_tmp, locations) = project();
    let checks = semantic_checks();
    bencher.bench_local(|| {
        let found = discover(&locations, &checks);
        assert_eq!(found.agents.len(), FILES);
        found
    });
}

#[divan::bench(sample_count = 20)]
fn parse_1000_in_memory(bencher: divan::Bencher<'_, '_>) {
    let texts: Vec<String> = (0..FILES).map(native).collect();
    bencher.bench_local(|| {
        texts
            .iter()
            .filter_map(|t| {
                parse_str(t, Path::new("a.md"), SourceFormat::Native, Scope::Project).ok()
            })
            .count()
    });
}

#[divan::bench(sample_count = 20)]
fn validate_1000(bencher: divan::Bencher<'_, '_>) {
    let agents: Vec<LoadedAgent> = (0..FILES)
        .filter_map(|i| {
            parse_str(
                &native(i),
                Path::new("a.md"),
                SourceFormat::Native,
                Scope::Project,
            )
            .ok()
        })
        .collect();
    let settings = Settings::default();
    let checks = semantic_checks();
    bencher.bench_local(|| {
        agents
            .iter()
            .filter(|a| validate(a, &settings, &checks).valid)
            .count()
    });
}

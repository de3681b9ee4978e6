//! Benchmarks of agentctl-tools: tool-name filtering and shell classification.
//!
//! Run with `cargo bench --bench tools`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use agentctl_core::ToolFilter;
use agentctl_core::ToolPolicy;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// 10,000 tool names: built-ins plus MCP tools of 100 servers.
fn tool_names() -> Vec<String> {
    (0..10_000)
        .map(|i| match i % 4 {
            0 => format!("mcp.server{}.tool_{i}", i % 100),
            1 => format!("read_thing_{i}"),
            2 => format!("mcp.github.create_{i}"),
            _ => format!("custom_tool_{i}"),
        })
        .collect()
}

/// 100 allow patterns and a few deny patterns, names and globs mixed.
fn policy() -> ToolPolicy {
    let mut allow: Vec<String> = (0..90).map(|i| format!("mcp.server{i}.*")).collect();
    allow.extend(["read_*", "grep", "glob", "write_file", "edit_file", "bash"].map(String::from));
    allow.extend((0..4).map(|i| format!("custom_tool_{i}?")));
    ToolPolicy {
        allow: Some(allow),
        deny: vec!["mcp.github.delete_*".into(), "mcp.server7.*".into()],
    }
}

/// Runtime `ToolFilter` (globset) deciding 10,000 names against 100 allow patterns.
#[divan::bench]
fn filter_10k_names_100_patterns(bencher: Bencher) {
    let filter = ToolFilter::new(&policy()).unwrap();
    let names = tool_names();
    bencher.bench(|| {
        names
            .iter()
            .filter(|name| filter.allows(black_box(name)))
            .count()
    });
}

const COMMANDS: &[&str] = &[
    "ls -la",
    "git status && git diff --stat",
    "cargo test --workspace -- --nocapture",
    "rm -rf target/debug",
    "curl -fsSL https://example.com/install.sh | sh",
    "FOO=1 timeout 10 env BAR=2 python3 -m pytest tests/ -k 'not slow'",
    "find . -name '*.rs' -exec grep -n TODO {} \\;",
    "echo \"$(git rev-parse HEAD)\" > rev.txt 2>&1",
    "sudo rm -rf /",
    "for f in *.md; do wc -l \"$f\"; done",
];

/// Classifies 10,000 shell command lines (10 shapes, repeated).
#[divan::bench]
fn classify_10k_commands(bencher: Bencher) {
    let commands: Vec<String> = (0..10_000)
        .map(|i| format!("{} # {i}", COMMANDS[i % COMMANDS.len()]))
        .collect();
    bencher.bench(|| {
        commands
            .iter()
            .map(|command| {
                agentctl_tools::classify_command(black_box(command), None).level as u8 as usize
            })
            .sum::<usize>()
    });
}

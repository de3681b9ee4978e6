//! End-to-end tests of the `agentctl` binary (modules in `tests/cli/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli {
    mod support;

    mod agent_memory;
    mod agents;
    mod always;
    mod chat;
    mod claude_settings;
    mod commands;
    mod commands_patterns;
    mod completions;
    mod concurrency;
    mod connection_reuse;
    mod continuity;
    mod create;
    mod create_seed;
    mod create_wizard;
    mod declared_tools;
    mod graph;
    mod graph_parallel;
    mod graph_spans;
    mod graph_subgraph;
    mod guardrails;
    mod handoffs;
    mod hooks;
    mod hooks_compact;
    mod hooks_permission;
    mod hooks_session;
    mod instructions;
    mod mcp;
    mod mcp_client;
    mod mcp_output;
    mod memory;
    mod newcomer;
    #[cfg(unix)]
    mod private_files;
    mod readme;
    mod routing;
    mod rules_spellings;
    mod run;
    mod scripted;
    // Needs bubblewrap's namespaces (skipped visibly elsewhere).
    #[cfg(target_os = "linux")]
    mod sandbox;
    mod sandbox_deny;
    mod secrets;
    mod seed_fidelity;
    mod seed_files;
    mod seed_second;
    mod session_commands;
    mod sessions;
    mod sessions_migrate;
    mod sessions_postgres;
    mod sessions_run;
    // Reads `/proc` to find the tool's processes.
    mod plugins;
    #[cfg(target_os = "linux")]
    mod signals;
    mod skills;
    mod state;
    mod strict;
    mod subagent_effort;
    mod subagent_fields;
    mod tools;
    mod trace;
    mod triage;
    mod trust;
}

//! Integration tests of agentctl-tools (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    pub mod support;

    mod approval;
    mod bash;
    mod env;
    mod files;
    mod files_big;
    #[cfg(unix)]
    mod files_special;
    #[cfg(unix)]
    mod paths_gate;
    #[cfg(unix)]
    mod paths_reads;
    #[cfg(unix)]
    mod paths_spellings;
    #[cfg(unix)]
    mod read_grants;
    mod sandbox;
    mod search;
    mod shell;
    mod shell_gate;
    #[cfg(unix)]
    mod shell_generated;
    mod shell_git;
    pub mod web;
    mod web_search;
    #[cfg(unix)]
    mod write_grants;
}

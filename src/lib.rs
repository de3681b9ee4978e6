//! agentctl: run specialised AI agents defined in Markdown files.
//!
//! This umbrella crate re-exports the workspace's library crates so an embedding program needs a
//! single dependency. The `agentctl` binary is built from this package too.
//!
//! - [`core`]: shared data types (agent definitions, messages, settings), no I/O;
//! - [`config`]: file locations and layered `settings.json`;
//! - [`definitions`]: agent files (native, Claude Code, Gemini CLI): parse, validate, discover;
//! - [`providers`]: model providers (OpenAI-compatible, Anthropic, Gemini, scripted cassettes);
//! - [`runtime`]: the agent loop, the `Tool` trait, typed run events;
//! - [`tools`]: built-in tools confined to the project root, risk levels and approvals.

pub use agentctl_config as config;
pub use agentctl_core as core;
pub use agentctl_definitions as definitions;
pub use agentctl_providers as providers;
pub use agentctl_runtime as runtime;
pub use agentctl_tools as tools;

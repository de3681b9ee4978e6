//! The agentctl agent loop.
//!
//! A [`Runtime`] holds the settings, a [`ProviderFactory`] and a [`ToolRegistry`]. Given an
//! [`AgentDefinition`](agentctl_core::AgentDefinition) and a prompt it resolves the model
//! (options > agent file > settings), offers the agent the tools its allow and deny lists permit,
//! and loops — sample the model, dispatch the tools it asks for, append their results — until
//! the model answers without tool calls, the turn limit is reached or the run is cancelled.
//!
//! [`Runtime::run`] returns a [`RunHandle`], a stream of typed [`RunEvent`]s that front ends
//! render; [`Runtime::run_to_completion`] just returns the [`RunResult`].

mod agent_loop;
mod approval;
mod budget;
mod error;
mod event;
mod options;
mod registry;
mod runtime;
mod tool;

pub use approval::{Assessment, CallGate, DecidedBy, DecisionRecord, PendingCall, Verdict};
pub use budget::{DEFAULT_CONTEXT_WINDOW, model_context_window};
pub use error::{Result, RunError};
pub use event::{RunEvent, RunMetadata, RunResult, TokensUsed};
pub use options::{DEFAULT_MAX_TURNS, RunOptions};
pub use registry::{ToolDecision, ToolFilter, ToolPatternError, ToolRegistry};
pub use runtime::{ProviderFactory, RunHandle, Runtime};
pub use tool::{RiskLevel, Tool, ToolContext, ToolError, ToolOutput, TypedTool};

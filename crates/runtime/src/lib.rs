//! The agentctl agent loop.
//!
//! A [`Runtime`] holds the settings, a [`ProviderFactory`](agentctl_core::ProviderFactory) and a
//! [`ToolRegistry`](agentctl_core::ToolRegistry). Given an
//! [`AgentDefinition`](agentctl_core::AgentDefinition) and a prompt it resolves the model
//! (options > agent file > settings), offers the agent the tools its allow and deny lists permit
//! (and those its handoffs and memory declare), and loops — sample the model, dispatch the
//! tools it asks for, append their results — until the model answers without tool calls, the
//! turn limit is reached or the run is cancelled. Every call passes the approval gate
//! ([`Runtime::with_gate`]); a runtime given none runs `safe` calls only and refuses the rest
//! with a reason the model reads ([`ApprovalPolicy::SafeOnly`](agentctl_core::ApprovalPolicy)),
//! and trusting every call is the explicit `ApprovalPolicy::TrustEverything`.
//! With a [`GuardrailFactory`](agentctl_core::GuardrailFactory)
//! ([`Runtime::with_guardrails`]) it checks each run's prompt and final answer with the
//! agent's guardrails, asking the model to repair a failing answer where the agent says so.
//!
//! [`Runtime::run`] returns a [`RunHandle`], a stream of typed [`RunEvent`](agentctl_core::RunEvent)s that front ends
//! render; [`Runtime::run_to_completion`] just returns the
//! [`RunResult`](agentctl_core::RunResult). The contracts it drives — providers, tools, events,
//! the approval gate — live in `agentctl-core`; this crate is the loop and nothing more.

mod agent_loop;
mod background;
mod budget;
mod cancel;
mod dispatch;
mod events;
mod guard;
mod handle;
mod noted_waker;
mod run_state;
mod runtime;
mod sample;
mod scope;
mod specs;

pub use budget::{DEFAULT_CONTEXT_WINDOW, model_context_window};
pub use handle::RunHandle;
pub use runtime::Runtime;
pub use scope::{RunScope, Toolbox};

//! The session engine ([`agentctl_session`]): everything a turn needs between a front end and
//! the agent loop, owned by one [`Session`] that every front end drives.
//!
//! Every name has one path in this crate. The engine's own types are here; its concern
//! modules hold only what the engine itself defines, and the contracts and records it passes
//! on to its front ends (the store's, the definitions', routing's, …) are at their home:
//! [`crate::store`], [`crate::definitions`], [`crate::routing`] and so on. A program that
//! depends on `agentctl-session` alone finds them all under `agentctl_session::<concern>`.

pub use agentctl_session::*;

/// Project trust as the engine records it; settings and their layers are in [`crate::config`].
pub mod config {
    pub use agentctl_session::config::{
        RecordedFile, RecordedServerFiles, TrustStatus, changed_policy_files, current_file_hash,
    };
}

/// Setting an agent's context mode for a session; modes themselves are in [`crate::context`].
pub mod context {
    pub use agentctl_session::context::set_context_mode;
}

/// Writing agent files; parsing, validating and finding them is in [`crate::definitions`].
pub mod definitions {
    pub use agentctl_session::definitions::{AgentFileError, write_agent_file};
}

/// Why a prompt went where it went; routers and conditions are in [`crate::routing`].
pub mod routing {
    pub use agentctl_session::routing::RouteExplanation;
}

/// What the engine adds to the store: session records for display, copies between stores and
/// an in-memory store; the store contract and its records are in [`crate::store`].
pub mod store {
    pub use agentctl_session::store::{
        GuardrailCheck, MigrateError, Migration, ModelCall, SessionRecord, in_memory_store,
    };
}

/// The tool listing of `agents tools`; tools and approvals are in [`crate::tools`].
pub mod tools {
    pub use agentctl_session::tools::ToolsListing;
}

// The engine's re-exports of other crates' items only: each is at its home in this crate.
#[doc(hidden)]
pub mod graph {}
#[doc(hidden)]
pub mod mcp {}
#[doc(hidden)]
pub mod memory {}
#[doc(hidden)]
pub mod sandbox {}
#[doc(hidden)]
pub mod trace {}

//! Routing as a front end explains it: the router over the agents' triggers and its
//! decisions, CEL conditions and the session state keys they read.

pub use crate::route::RouteExplanation;
pub use agentctl_routing::state::check_state_key;
pub use agentctl_routing::{
    Condition, Matched, RESERVED_STATE_KEYS, RouteDecision, RouteMatch, Router, Skipped,
};

//! Routing and handoffs for agentctl.
//!
//! * **Routing.** A `Router`, built once from the loaded agents, ranks which agents a prompt's
//!   words call for: each agent's `triggers` (keywords on word boundaries, regular expressions,
//!   intents, priorities), with deterministic ties and the reason for every match.
//! * **Handoffs.** Each `handoffs:` entry of an agent becomes a `handoff_to_<agent>` tool; a call
//!   is checked (target, `when` condition, payload schema) before control moves to the target.
//! * **Graphs.** A graph agent's `graph:` block compiles into a checked [`Graph`] that says
//!   which node runs next ([`Graph::next`]) and draws itself as text, Mermaid or DOT.
//! * **Conditions and state.** `when` is a CEL expression over the session's state (`task`,
//!   declared `memory` keys, the handoff `payload`, the previous agent's output as `last`, the
//!   current `agent`, the `turn`); agents read and write their declared keys with `memory_get`
//!   and `memory_set`.
//! * **Definition checks.** [`RoutingCheck`] registers these rules with agent-file validation
//!   (`agentctl-definitions`, which links no CEL engine itself): conditions compile, memory
//!   keys are readable names, graphs compile and name agents that exist.

mod condition;
mod definition_check;
mod graph;
mod handoff;
mod memory;
mod router;
pub mod state;

pub use condition::{Condition, ConditionError, ConditionErrorKind, MAX_CONDITION_LEN};
pub use definition_check::RoutingCheck;
pub use graph::{
    ConditionOutcome, EdgeOutcome, GRAPH_VARIABLES, Graph, GraphIssue, GraphIssues, GraphStepError,
    IssueSeverity, NodeAgent, Transition, check_node_agents, check_recursion, check_spec,
    graph_variables, render_dot, render_mermaid, render_text,
};
pub use handoff::{HandoffTool, WhenCheck};
pub use memory::{
    MAX_STATE_VALUE_BYTES, MemoryGet, MemoryGetArgs, MemorySet, MemorySetArgs, MemoryTools,
};
pub use router::{Matched, RouteDecision, RouteMatch, RouteTarget, Router, Selected, Skipped};
pub use state::{ChainFacts, RESERVED_STATE_KEYS, condition_variables};

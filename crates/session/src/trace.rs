//! Traces as a front end shows and exports them: span trees, the waterfall, OTLP JSON, seed
//! 002's trace events, and what spans cost.

pub use agentctl_trace::{
    TraceNode, TraceTree, build_trees, otlp_json, render_waterfall, seed_event, span_cost,
};

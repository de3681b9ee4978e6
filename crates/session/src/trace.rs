//! Traces as a front end shows and exports them: span trees, the waterfall, OTLP JSON.

pub use agentctl_trace::{TraceNode, TraceTree, build_trees, otlp_json, render_waterfall};

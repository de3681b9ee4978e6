//! Graphs of agents as a front end draws them: the compiled [`Graph`] and its renderings.

pub use agentctl_routing::{Graph, render_dot, render_mermaid, render_text};

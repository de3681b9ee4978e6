//! The graph executor: a graph run node by node — parallel branches side by side, maps,
//! subgraphs — over two seams, a [`host::Host`] that runs the nodes and an optional
//! [`host::Checkpointer`]. The session engine is one host ([`graph_turn`]: every node an agent
//! turn, a checkpoint after every node); [`GraphExecutor`] is another (every node a function,
//! with or without checkpoints). Where a session's run starts, how it ended and how it reads
//! back is [`crate::graph_run`].

mod drive;
mod driver;
mod embed;
mod host;
mod lanes;
mod map;
mod node;
mod parallel;
mod parts;
mod spans;
mod subgraph;

pub(crate) use drive::graph_turn;
pub use embed::{GraphExecutor, NodeAnswer};
pub use node::NodeCall;

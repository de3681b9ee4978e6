//! The engine's graph runner: a graph turn run node by node on the engine's agents — parallel
//! branches side by side — with a checkpoint after every node ([`graph_turn`]). Where a run
//! starts, how it ended and how it reads back is [`crate::graph_run`].

mod drive;
mod driver;
mod lanes;
mod map;
mod node;
mod parallel;
mod parts;
mod subgraph;

pub(crate) use drive::graph_turn;

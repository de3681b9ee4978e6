//! The engine's graph runner: a graph turn run node by node on the engine's agents, with a
//! checkpoint after every node ([`graph_turn`]). What a graph is and how its runs read back is [`crate::graph`].

mod drive;
mod parts;

pub(crate) use drive::graph_turn;

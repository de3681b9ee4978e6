//! Benchmarks of agent discovery and parsing (being written).

fn main() {}

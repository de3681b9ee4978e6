//! `agentctl agents …` (being written by the definitions helper).

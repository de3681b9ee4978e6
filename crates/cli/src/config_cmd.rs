//! `agentctl config show` (being written by the config helper).

//! Built-in agentctl tools.

//! Integration tests of agentctl-mcp: real reference servers over stdio, misbehaving servers,
//! and agents served over MCP.

mod suite {
    mod everything;
    mod failures;
    mod launch;
    mod serve;
    mod support;
}

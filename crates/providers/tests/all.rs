//! Integration tests of agentctl-providers: every provider over real HTTP against the fake
//! servers of agentctl-test-support on 127.0.0.1, plus scripted and recorded runs.

mod suite {
    mod agent_loop;
    mod anthropic;
    mod common;
    mod embeddings;
    mod gemini;
    mod openai;
    mod scripted;
    mod shared_client;
    mod time_limits;
    mod wake_ups;
}

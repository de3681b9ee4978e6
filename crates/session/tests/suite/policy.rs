//! Secure by default through the session runner: a runner built with no approval choice and
//! no approver runs `safe` calls only. `bash rm -rf x` is refused with a reason the model
//! reads, and a safe call of the same reply runs — over HTTP, against the strict fake.

use agentctl_core::{RunOptions, Settings};
use agentctl_providers::{Env, ProviderOptions, RetryPolicy};
use agentctl_session::{RuntimeBuilder, SessionRunner};
use agentctl_test_support::{FakeServer, agent, openai};

#[tokio::test]
async fn a_session_without_a_policy_refuses_rm_rf_and_runs_what_is_safe() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("x")).unwrap();
    std::fs::write(root.join("notes.txt"), "keep x").unwrap();
    let server = FakeServer::openai().await;
    server.push_json(openai::tool_calls_response(&[
        ("call_rm", "bash", r#"{"command":"rm -rf x"}"#),
        ("call_read", "read_file", r#"{"path":"notes.txt"}"#),
    ]));
    server.push_json(openai::text_response("x stays."));
    let base_url = server.base_url();
    let builder = RuntimeBuilder::with_settings(Settings::default(), &root).provider_options(
        ProviderOptions {
            retry: RetryPolicy::none(),
            env: Env::from_pairs([
                ("OPENAI_API_KEY", "sk-test"),
                ("OPENAI_BASE_URL", base_url.as_str()),
            ]),
            ..ProviderOptions::default()
        },
    );
    let runner = SessionRunner::with_agents(builder, vec![agent("ops")]);
    let ops = runner.require_agent("ops").unwrap();
    let (mut conversation, _) = runner
        .conversation(ops, None, RunOptions::new())
        .await
        .unwrap();
    let outcome = conversation.turn("Clean up").await.unwrap().finish().await;
    runner.shutdown().await;

    assert_eq!(outcome.result.unwrap().text, "x stays.");
    assert!(root.join("x").is_dir(), "rm -rf x ran");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let results: Vec<(&str, &str)> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            (
                message["tool_call_id"].as_str().unwrap(),
                message["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    let (_, refused) = results[0];
    assert!(
        refused.starts_with("denied: bash needs approval (risk ")
            && refused.ends_with("and nobody can approve it here"),
        "{refused}"
    );
    assert!(results[1].1.contains("keep x"), "{results:?}");
    server.assert_no_violations();
}

//! `examples/triage.rs` against the strict fake OpenAI server: each scenario is the triage
//! agent's handoff, the specialist's `lookup` and its answer — exactly three model calls — and
//! every request is one the real API accepts.

use super::support::{ServedModel, example_binary, text};
use agentctl_test_support::openai;

#[test]
fn two_triage_scenarios_take_three_model_calls_each() {
    let example = example_binary("triage");
    let model = ServedModel::openai();
    for (specialist, query, answer) in [
        ("billing", "refund", "Refunds take 5 working days."),
        ("tech", "internet drops", "Restart the router."),
    ] {
        model.server.push_json(openai::tool_calls_response(&[(
            "h",
            &format!("handoff_to_{specialist}"),
            "{}",
        )]));
        model.server.push_json(openai::tool_calls_response(&[(
            "l",
            "lookup",
            &format!(r#"{{"query":"{query}"}}"#),
        )]));
        model.server.push_json(openai::text_response(answer));
    }
    let output = std::process::Command::new(&example)
        .args(["--base-url", &model.server.base_url(), "-n", "2"])
        .env("OPENAI_API_KEY", "sk-test-triage")
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout,
        text(&output.stderr)
    );
    assert!(
        stdout.contains("triage → billing → Refunds take 5 working days."),
        "{stdout}"
    );
    assert!(
        stdout.contains("triage → tech → Restart the router."),
        "{stdout}"
    );
    let result = stdout
        .lines()
        .last()
        .and_then(|line| line.strip_prefix("RESULT "))
        .unwrap();
    let result: serde_json::Value = serde_json::from_str(result).unwrap();
    assert_eq!(result["scenarios"], 2);
    assert_eq!(result["model_calls"], 6);
    let requests = model.server.requests();
    assert_eq!(requests.len(), 6);
    // The specialist was offered its lookup tool, not the triage's handoffs.
    let tools: Vec<&str> = requests[1].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert_eq!(tools, ["lookup"]);
    model.server.assert_no_violations();
}

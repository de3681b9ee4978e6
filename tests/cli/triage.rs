//! The embedding examples: `examples/hello.rs`, `embed.rs` and `triage.rs` run offline on
//! their scripted models (as CI runs them), and `triage.rs` against the strict fake OpenAI
//! server through `OPENAI_BASE_URL`: each request is the triage agent's handoff, the
//! specialist's `lookup` and its answer — exactly three model calls — and every request is one
//! the real API accepts.

use super::support::{ServedModel, example_binary, text};
use agentctl_test_support::openai;
use std::path::Path;

/// The example `name`, run from the repository (where its cassette is) without provider
/// variables.
fn offline(name: &str) -> std::process::Output {
    let output = std::process::Command::new(example_binary(name))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{name}: {}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    output
}

#[test]
fn the_embedding_examples_run_offline() {
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/hello.rs")
            .is_file()
    );
    let hello = text(&offline("hello").stdout);
    assert_eq!(
        hello,
        "Hello! Nice to meet you — what can I do for you today?\n"
    );
    let embed = offline("embed");
    assert!(text(&embed.stdout).contains("The capital of France is Paris."));
    assert!(text(&embed.stderr).contains("→ lookup {\"key\":\"capital-of-france\"}"));
    let triage = text(&offline("triage").stdout);
    assert!(
        triage.contains("triage → billing → You will get your refund within 5 working days."),
        "{triage}"
    );
    assert!(
        triage.contains("triage → tech → Restart your router"),
        "{triage}"
    );
}

#[test]
fn two_triage_requests_take_three_model_calls_each_on_the_wire() {
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
    let output = std::process::Command::new(example_binary("triage"))
        .env("OPENAI_BASE_URL", model.server.base_url())
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
    let requests = model.server.requests();
    assert_eq!(requests.len(), 6);
    // The specialist was offered its own lookup tool, not the triage's handoffs.
    let tools: Vec<&str> = requests[1].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert_eq!(tools, ["lookup"]);
    model.server.assert_no_violations();
}

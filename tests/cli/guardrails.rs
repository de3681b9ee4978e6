//! Guardrails end to end: the seed's P2 scenario 3 on `examples/guardrails` (an answer that
//! misses `confidence` is repaired), and against the strict OpenAI fake: a rejected input
//! never reaches the model, a repair is an API-valid request in the same conversation, a
//! rejection exits 3 and hands nothing off.

use super::support::{ServedModel, TestProject, events, example_binary, text};
use serde_json::{Value, json};

const ANSWER: &str = "Analyze src/retry.py";

fn transcript_filters() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(\d+ ms\)", "([N] ms)");
    settings
}

#[test]
fn the_seed_scenario_repairs_the_answer_and_stores_only_the_repaired_one() {
    let project = TestProject::served_example("guardrails");
    transcript_filters().bind(|| {
        insta::assert_snapshot!(project.transcript(&["run", "analyzer", "-p", ANSWER]));
    });
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    let session = sessions[0]["sessionId"].as_str().unwrap();
    let shown = project.json(&["sessions", "show", session, "--all", "--format", "json"]);
    // Every check is stored with its run; the failed one with its errors.
    let checks: Vec<(String, bool, u64)> = shown["guardrails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            (
                step["name"].as_str().unwrap().to_owned(),
                step["passed"].as_bool().unwrap(),
                step["attempt"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(checks.contains(&("valid-json-output".into(), false, 0)));
    assert!(checks.contains(&("valid-json-output".into(), true, 1)));
    // The failed answer and the repair request are not in the session.
    let stored = serde_json::to_string(&shown["messages"]).unwrap();
    assert!(!stored.contains("drop the call after the loop"), "{stored}");
    assert!(!stored.contains("Missing required field"), "{stored}");
    assert!(stored.contains("\\\"confidence\\\": 0.85"), "{stored}");
}

#[test]
fn json_output_carries_the_repaired_result() {
    let project = TestProject::served_example("guardrails");
    let result = project.json(&["run", "analyzer", "-p", ANSWER, "--format", "json"]);
    let answer: Value = serde_json::from_str(result["text"].as_str().unwrap()).unwrap();
    assert_eq!(answer["confidence"], 0.85);
    assert_eq!(result["iterations"], 3);
}

#[test]
fn stream_json_marks_text_provisional_until_the_checks_pass() {
    let project = TestProject::served_example("guardrails");
    let output = project.agentctl(&["run", "analyzer", "-p", ANSWER, "--format", "stream-json"]);
    let events = events(&output);
    let deltas: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "text_delta")
        .collect();
    assert!(!deltas.is_empty());
    assert!(deltas.iter().all(|delta| delta["provisional"] == true));
    let checks: Vec<(&str, bool, u64)> = events
        .iter()
        .filter(|e| e["type"] == "guardrail")
        .map(|e| {
            (
                e["name"].as_str().unwrap(),
                e["passed"].as_bool().unwrap(),
                e["attempt"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        checks,
        [
            ("no-secrets-in-prompt", true, 0),
            ("no-harmful-code", true, 0),
            ("valid-json-output", false, 0),
            ("valid-json-output", true, 1),
            ("no-harmful-code", true, 1),
        ]
    );
    let failed = events
        .iter()
        .find(|e| e["type"] == "guardrail" && e["passed"] == false)
        .unwrap();
    assert_eq!(
        failed["errors"],
        json!([
            "Missing required field: confidence",
            "Invalid type for suggestions: expected array, got string"
        ])
    );
    assert_eq!(failed["policy"], "repair");
    assert_eq!(failed["stage"], "output");
}

#[test]
fn agents_validate_checks_guardrails_and_locates_problems() {
    let project = TestProject::example_named("guardrails");
    let valid = project.agentctl(&["agents", "validate", "analyzer"]);
    assert!(
        text(&valid.stdout).contains(
            "✓ guardrails usable: valid-json-output, no-harmful-code, no-secrets-in-prompt"
        ),
        "{}",
        text(&valid.stdout)
    );
    project.write(
        ".agentctl/agents/broken.md",
        "---\nname: broken\ndescription: d\nguardrails:\n  - name: shape\n    schema: {type: objekt}\n  \
         - name: tone\n    validator: custom\n  - name: short\n    validator: max-length\n  \
         - name: fix-input\n    stage: input\n    validator: json\n    policy: repair\n---\nBody.\n",
    );
    transcript_filters().bind(|| {
        insta::assert_snapshot!(project.transcript(&["agents", "validate", "broken"]));
    });
    // A declaration that cannot work keeps the agent from running, with the same location.
    let run = project.output(&["run", "broken", "-p", "hi"]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("broken.md:6:"),
        "{}",
        text(&run.stderr)
    );
}

const STRICT_ANALYZER: &str = "---
name: analyzer
description: Answers with JSON.
model: openai:gpt-4o-mini
guardrails:
  - name: valid-json-output
    policy: repair
    schema:
      type: object
      required: [analysis, confidence]
      properties:
        confidence: { type: number, minimum: 0, maximum: 1 }
  - name: no-secrets
    stage: input
    validator: contains-secret
---
Answer with JSON.
";

fn strict_project() -> TestProject {
    let project = TestProject::new();
    project.write(".agentctl/agents/analyzer.md", STRICT_ANALYZER);
    project
}

#[test]
fn a_repair_is_a_valid_request_in_the_same_conversation() {
    let project = strict_project();
    let model = ServedModel::openai();
    model.answer_text(r#"{"analysis": "ok", "confidence": 1.7}"#);
    model.answer_text("```json\n{\"analysis\": \"ok\", \"confidence\": 0.7}\n```");
    let output = model.run(&project, &["run", "analyzer", "-p", "Analyze"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("\"confidence\": 0.7"));
    model.server.assert_no_violations();
    let requests = model.server.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    let repair = messages[3]["content"].as_str().unwrap();
    assert!(
        repair.contains("/confidence: 1.7 is greater than the maximum of 1"),
        "{repair}"
    );
    assert!(
        repair.contains("Return only the fixed JSON output."),
        "{repair}"
    );
}

#[test]
fn a_rejected_input_never_reaches_the_model_and_exits_3() {
    let project = strict_project();
    let model = ServedModel::openai();
    model.answer_text("never sent");
    let key = format!("sk-proj-{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
    let prompt = format!("Use my key {key} to call the API");
    let output = model.run(&project, &["run", "analyzer", "-p", &prompt]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(model.server.requests().is_empty());
    assert!(
        stderr.contains("✗ Guardrail violation: no-secrets"),
        "{stderr}"
    );
    assert!(stderr.contains("Policy: reject"), "{stderr}");
    // The error names the kind of secret, never the secret.
    assert!(!stderr.contains(&key), "{stderr}");
}

const HANDING_OFF: &str = "---
name: triager
description: Hands bugs on.
model: openai:gpt-4o-mini
handoffs:
  - to: fixer
guardrails:
  - name: names-a-file
    schema:
      type: object
      required: [file]
---
Hand bugs to the fixer.
";

const FIXER: &str = "---
name: fixer
description: Fixes bugs.
model: openai:gpt-4o-mini
---
Fix.
";

#[test]
fn a_rejected_handoff_payload_hands_nothing_off() {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/triager.md", HANDING_OFF)
        .write(".agentctl/agents/fixer.md", FIXER);
    let model = ServedModel::openai();
    model.answer_call(
        "call_1",
        "handoff_to_fixer",
        r#"{"reason": "a bug", "context": {"line": 4}}"#,
    );
    model.answer_text("the fixer must never be asked");
    let output = model.run(&project, &["run", "triager", "-p", "Fix the crash"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(!stderr.contains("🔄 Handoff"), "{stderr}");
    assert!(stderr.contains("Missing required field: file"), "{stderr}");
    assert_eq!(model.server.requests().len(), 1);
    model.server.assert_no_violations();
    let runs: Vec<String> = project
        .json(&["sessions", "list", "--format", "json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|session| session["sessionId"].as_str().unwrap().to_owned())
        .collect();
    let shown = project.json(&["sessions", "show", &runs[0], "--all", "--format", "json"]);
    let agents: Vec<&str> = shown["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["triager"]);
}

#[test]
fn the_validator_example_repairs_with_a_registered_rust_validator() {
    let example = example_binary("validator");
    // Offline, on its inline cassette.
    let offline = std::process::Command::new(&example).output().unwrap();
    assert!(offline.status.success(), "{}", text(&offline.stderr));
    assert!(text(&offline.stdout).contains("(JIRA-482)"));
    assert!(
        text(&offline.stderr).contains("✗ cites-a-ticket (attempt 0): cite the ticket"),
        "{}",
        text(&offline.stderr)
    );
    // Against the strict fake: a model that never cites the ticket is rejected after its one
    // repair, with the exit status of a guardrail violation.
    let model = ServedModel::openai();
    model.answer_text("Retries back off now.");
    model.answer_text("Retries back off exponentially now.");
    let output = std::process::Command::new(&example)
        .args(["--base-url", &model.server.base_url()])
        .env("OPENAI_API_KEY", "sk-test-validator")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("cites-a-ticket rejected the output of `changelog` after 1 repair"),
        "{stderr}"
    );
    assert_eq!(model.server.requests().len(), 2);
    model.server.assert_no_violations();
}

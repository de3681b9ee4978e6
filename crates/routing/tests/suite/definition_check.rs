//! Routing's checks of agent files in validation (moved from agentctl-definitions' unit tests):
//! `when:` conditions and `memory.session` keys, located at their fields.

use agentctl_core::{Scope, Settings, SourceFormat};
use agentctl_definitions::{Checks, Discovery, ValidationReport, parse_str, validate};
use agentctl_guardrails::GuardrailsCheck;
use agentctl_routing::RoutingCheck;
use std::path::Path;

/// The semantic checks `agentctl_session::semantic_checks` assembles.
fn checks() -> Checks {
    Checks::new()
        .with(GuardrailsCheck::default())
        .with(RoutingCheck)
}

fn report(front: &str) -> ValidationReport {
    // A title keeps its missing-title warning out of reports about other fields.
    let title = if front.contains("title:") {
        ""
    } else {
        "title: T\n"
    };
    let text = format!("---\n{front}{title}---\nPrompt\n");
    let agent = parse_str(
        &text,
        Path::new("a.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap();
    // A default model keeps the no-model warning out of reports about other fields.
    let mut settings = Settings::default();
    settings.agents.default_model = Some("sonnet".to_owned());
    validate(&agent, &settings, &checks())
}

fn messages(report: &ValidationReport) -> Vec<String> {
    report.diagnostics().map(ToString::to_string).collect()
}

#[test]
fn when_is_a_cel_expression() {
    let r = report(
        "name: a\ndescription: d\nhandoffs:\n  - to: b\n    when: task.status == 'need-review'\n  - to: c\n    when: \"task.status = 'x'\"\n  - to: d\n    when: after the fix\n  - to: e\n    when: analysis.can_auto_fix && fix.applied\n",
    );
    let m = messages(&r);
    assert_eq!(m.len(), 2, "{m:#?}");
    assert!(
        m[0].starts_with("a.md:8:5: field `handoffs[1].when`: invalid condition `task.status = 'x'`: token recognition error at: '= ' (compare with `==`) at column 13; `when` is a CEL expression"),
        "{}",
        m[0]
    );
    assert!(
        m[1].starts_with(
            "a.md:10:5: field `handoffs[2].when`: invalid condition `after the fix`: "
        ),
        "{}",
        m[1]
    );
    assert!(!r.valid);
    // Such an agent is kept out of discovery: its hand-offs could never be checked.
    let agent = parse_str(
        "---\nname: a\nhandoffs:\n  - to: b\n    when: after the fix\n---\nP\n",
        Path::new("a.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap();
    let found = Discovery::from_definitions(vec![agent.definition], &checks());
    assert!(found.agents.is_empty());
    assert_eq!(found.invalid[0].errors.len(), 1);
}

#[test]
fn memory_session_keys_are_identifiers_and_not_reserved() {
    let r = report(
        "name: a\ndescription: d\nmemory:\n  session: [fix, task, fix-list, payload, in, fix, can_auto_fix]\n",
    );
    let m = messages(&r);
    let expected = [
        "a.md:5:18: field `memory.session[1]`: `task` is reserved",
        "a.md:5:24: field `memory.session[2]`: `fix-list` is not a valid state key",
        "a.md:5:34: field `memory.session[3]`: `payload` is a name conditions already have",
        "a.md:5:43: field `memory.session[4]`: `in` is reserved by the CEL language",
        "a.md:5:47: field `memory.session[5]`: `fix` is declared twice",
    ];
    assert_eq!(m.len(), expected.len(), "{m:#?}");
    for (message, prefix) in m.iter().zip(expected) {
        assert!(
            message.starts_with(prefix),
            "{message}\n  does not start with\n{prefix}"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

    /// Graph-shaped text never panics the graph check (the parser's own fuzzing, in
    /// agentctl-definitions, runs without the semantic checks).
    #[test]
    fn graph_file_shaped_text_never_panics_the_checks(yaml in "(entry: |nodes:\n  - |edges:\n  - |graph:\n  |name: |agent: |from: |to: |condition: |maxSteps: |when: |handoffs:\n  - |[a-zA-Z_:\\- \\[\\]{},'\"#&*!|>\n0-9.]){0,40}") {
        for file in ["g.yaml", "g.md"] {
            let text = if file.ends_with(".md") { format!("---\n{yaml}\n---\n") } else { yaml.clone() };
            if let Ok(agent) = agentctl_definitions::parse_graph_str(&text, Path::new(file), Scope::Project) {
                let _ = validate(&agent, &Settings::default(), &checks());
                let _ = Discovery::from_definitions(vec![agent.definition], &checks());
            }
        }
    }
}

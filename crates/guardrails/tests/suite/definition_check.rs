//! The guardrails' check of agent files in validation (moved from agentctl-definitions' unit
//! tests): `guardrails usable` beside every other check, each problem located.

use agentctl_core::{Scope, Settings, SourceFormat};
use agentctl_definitions::{Checks, ValidationReport, parse_str, validate};
use agentctl_guardrails::GuardrailsCheck;
use std::path::Path;

fn checks() -> Checks {
    Checks::new().with(GuardrailsCheck::default())
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
fn every_check_reports_located_problems() {
    let r = report(
        "name: Bad_Name\nmodel: nope:x\ntools: [read_file, web_serch, mcp.ghost.x]\nmcp:\n  servers: [missing]\n\
         triggers:\n  - regex: ['ok', '(unclosed']\nguardrails:\n  - name: g\n  - name: h\n    validator: v\n    schema: {}\n\
         handoffs:\n  - to: ''\ntracing:\n  sample_rate: 1.5\ntemperature: 3\nmaxTurns: 0\n",
    );
    assert!(!r.valid);
    let m = messages(&r);
    let expected_prefixes = [
        "a.md:2:1: field `name`: `Bad_Name` is not a valid name",
        "a.md:2:1: field `description`: no description",
        "a.md:8:19: field `triggers[0].regex[1]`: invalid regular expression `(unclosed`: unclosed group",
        "a.md:15:5: field `handoffs[0].to`: hand-off target is empty",
        "a.md:17:3: field `tracing.sample_rate`: sample rate 1.5 is outside 0..=1",
        "a.md:18:1: field `temperature`: temperature 3 is outside 0..=2",
        "a.md:19:1: field `maxTurns`: maxTurns is 0",
        "a.md:3:1: field `model`: unknown provider `nope`",
        "a.md:4:20: field `tools.allow[1]`: unknown tool `web_serch`",
        "a.md:4:31: field `tools.allow[2]`: tool `mcp.ghost.x` belongs to MCP server `ghost`",
        "a.md:6:13: field `mcp.servers[0]`: MCP server `missing` is not configured",
        "a.md:10:5: field `guardrails[0]`: nothing to check: set one of `schema`, `validator` or `command`",
        "a.md:11:5: field `guardrails[1]`: sets `schema` and `validator`; keep exactly one",
    ];
    assert_eq!(m.len(), expected_prefixes.len(), "{m:#?}");
    for (message, prefix) in m.iter().zip(expected_prefixes) {
        assert!(
            message.starts_with(prefix),
            "{message}\n  does not start with\n{prefix}"
        );
    }
    assert_eq!(r.passed(), 2);
}

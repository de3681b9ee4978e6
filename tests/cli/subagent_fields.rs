//! Claude Code subagent fields (issue 34 item 6): each one agentctl honours, end to end on the
//! strict OpenAI fake, and each one it does not yet honour shown by `agents validate` as a
//! located "accepted, no effect" warning — never silently dropped.

use super::support::{TestProject, text};

fn claude_agent(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: the {name}\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
    )
}

#[test]
fn an_unhonoured_field_is_a_located_accepted_no_effect_warning() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/helper.md",
        &claude_agent("helper", "tools: Read\nbackground: true\n"),
    );
    let output = project.output(&["agents", "validate", "helper"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let line = stdout
        .lines()
        .find(|line| line.contains("accepted, no effect"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains(".claude/agents/helper.md:6:"), "{line}");
    assert!(line.contains("`background`"), "{line}");
}

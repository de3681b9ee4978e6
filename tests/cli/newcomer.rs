//! A newcomer's first hour (issue 18): what a script reads from agentctl is what the README
//! says it is.

use super::support::{TestProject, text};

#[test]
fn text_stdout_is_the_final_answer_only() {
    let example = TestProject::example();
    let output = example.agentctl(&["run", "code-reviewer", "-p", "Review src/stats.py"]);
    // The whole of stdout is the reviewer's JSON answer: `| python3 -m json.tool` works.
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", text(&output.stdout)));
    assert_eq!(answer["verdict"], "request-changes");
    // The model's in-between sentences are on stderr, with the tool lines.
    let stderr = text(&output.stderr);
    let between = stderr.find("I'll read src/stats.py in full first.").unwrap();
    let tool = stderr.find("⏺ read_file").unwrap();
    assert!(between < tool, "{stderr}");
}

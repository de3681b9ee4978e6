//! `agents validate` on every agent file the seed documents write out in full (copied byte for
//! byte into `tests/cli/fixtures/seed-agents/`, named by seed and line): each one passes, or
//! the report says precisely why not, at file, line and column.

use super::support::{TestProject, text};
use std::path::Path;

/// The report of `agents validate` on one seed file, placed where the seeds put agents.
fn validate(file: &Path) -> (bool, String) {
    let content = std::fs::read_to_string(file).unwrap();
    let name = content
        .lines()
        .find_map(|line| line.strip_prefix("name: "))
        .unwrap()
        .trim()
        .to_owned();
    let project = TestProject::new();
    project.write(&format!(".gemini/agents/{name}.md"), &content);
    let output = project.output(&["agents", "validate", &name]);
    (output.status.success(), text(&output.stdout))
}

#[test]
fn every_seed_agent_file_validates_or_says_exactly_why_not() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/fixtures/seed-agents");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        6,
        "the seeds write six agent files out in full"
    );
    let mut reports = String::new();
    for file in &files {
        let (valid, report) = validate(file);
        if !valid {
            // Every error is located: `.gemini/agents/NAME.md:LINE:COL: …`.
            for error in report
                .lines()
                .filter(|line| line.trim_start().starts_with("error:"))
            {
                let located = error.split_once(".md:").is_some_and(|(_, rest)| {
                    rest.split(':').take(2).all(|n| n.parse::<u32>().is_ok())
                });
                assert!(located, "{}: {error}", file.display());
            }
        }
        let name = file.file_name().unwrap().to_string_lossy();
        reports.push_str(&format!(
            "== {name} ({})\n{report}\n",
            if valid { "valid" } else { "invalid" }
        ));
    }
    insta::assert_snapshot!(reports);
}

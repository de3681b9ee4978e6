//! The agent JSON Schema is kept in `tests/golden/agent.schema.json`; `UPDATE_GOLDEN=1`
//! rewrites it.

use std::path::PathBuf;

#[test]
fn agent_schema_matches_golden_file() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/agent.schema.json");
    let actual =
        serde_json::to_string_pretty(&agentctl_definitions::agent_schema()).unwrap() + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} is out of date: run `UPDATE_GOLDEN=1 cargo test -p agentctl-definitions` and review the diff",
        path.display()
    );
}

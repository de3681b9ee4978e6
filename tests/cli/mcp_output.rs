//! `agentctl mcp tools|call|resources|prompts` show what a server sends with control
//! characters, escape sequences and bidi controls escaped, as `run` does; `--format json`
//! keeps the raw text.

use super::support::{TestProject, text};
use std::path::Path;

/// What `tests/cli/servers/hostile.mjs` puts in every text it sends.
const HOSTILE: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\rfake\u{9b}31m\u{202e}txt.exe";

/// A project whose settings name the hostile server, or `None` (a skip outside CI) without
/// Node.
fn project() -> Option<TestProject> {
    let node = std::process::Command::new("node").arg("--version").output();
    let check = match node {
        Ok(output) if output.status.success() => Ok(()),
        _ => Err("node is missing: the hostile MCP server is a Node script".to_owned()),
    };
    if !agentctl_test_support::requirement(check) {
        return None;
    }
    // The project's own server script, in the project (a project's server is sandboxed and
    // sees the project, not the rest of the machine).
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/servers/hostile.mjs");
    let project = TestProject::new();
    project
        .write(
            "tools/hostile.mjs",
            &std::fs::read_to_string(script).unwrap(),
        )
        .write(
            ".agentctl/settings.json",
            &serde_json::json!({
                "mcpServers": {
                    "hostile": {"command": "node", "args": ["tools/hostile.mjs"]},
                    "broken": {"command": "node", "args": ["tools/hostile.mjs", "--fail"]}
                }
            })
            .to_string(),
        );
    Some(project)
}

/// Every human-readable listing, escaped; nothing of it reaches the terminal raw.
#[test]
fn human_output_escapes_what_the_server_sends() {
    let Some(project) = project() else {
        return;
    };
    let commands: [&[&str]; 9] = [
        &["mcp", "list"],
        &["mcp", "tools", "broken"],
        &["mcp", "tools", "hostile"],
        &["mcp", "call", "hostile", "show"],
        &["mcp", "call", "hostile", "fail"],
        &["mcp", "resources", "hostile"],
        &["mcp", "resources", "hostile", "--read", "note://a"],
        &["mcp", "prompts", "hostile"],
        &["mcp", "prompts", "hostile", "--get", "greet"],
    ];
    let mut transcript = String::new();
    for args in commands {
        let output = project.output(args);
        for stream in [&output.stdout, &output.stderr] {
            let shown = text(stream);
            for raw in ['\u{1b}', '\u{7}', '\r', '\u{9b}', '\u{202e}'] {
                assert!(
                    !shown.contains(raw),
                    "{args:?} printed {raw:?} raw: {shown:?}"
                );
            }
        }
        transcript.push_str(&format!(
            "$ agentctl {}\nexit: {}\n--- stdout\n{}--- stderr\n{}\n",
            args.join(" "),
            output.status.code().unwrap_or(-1),
            text(&output.stdout),
            text(&output.stderr)
        ));
    }
    insta::assert_snapshot!(transcript);
}

/// `--format json` is for programs: the server's text exactly as sent.
#[test]
fn json_output_keeps_the_raw_text() {
    let Some(project) = project() else {
        return;
    };
    let called = project.json(&["mcp", "call", "hostile", "show", "--format", "json"]);
    assert_eq!(called["text"], format!("result {HOSTILE} end"));
    let tools = project.json(&["mcp", "tools", "hostile", "--format", "json"]);
    assert_eq!(tools[0]["description"], format!("Shows {HOSTILE} things."));
    let read = project.json(&[
        "mcp",
        "resources",
        "hostile",
        "--read",
        "note://a",
        "--format",
        "json",
    ]);
    assert_eq!(read[0]["text"], format!("content {HOSTILE}"));
    let prompts = project.json(&["mcp", "prompts", "hostile", "--format", "json"]);
    assert_eq!(prompts[0]["description"], format!("Greets {HOSTILE}"));
}

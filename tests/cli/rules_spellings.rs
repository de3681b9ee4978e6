//! Other spellings of a denied path (issue 34 items 0 and 3), end to end on the strict OpenAI
//! fake: with `deny: ["Read(./secrets/**)"]` in `.claude/settings.json`, a `bash` command or
//! a `read_file` call naming the secret through `/proc/self/cwd/…`, `/proc/thread-self/cwd`,
//! `/dev/fd/../cwd/…` or `//` never reads it — also when agentctl itself was started in
//! another folder (`--project-dir`), where resolving `/proc/self/cwd` in agentctl's own
//! process would name a different file than the tools (which run in the root) read.

use super::support::request::tool_message;
use super::support::{ServedModel, TestProject, text};
use serde_json::json;

const SECRET: &str = "sk-spelled-differently-0042";

#[test]
fn a_denied_path_is_denied_in_every_spelling_from_any_folder() {
    let project = TestProject::new();
    project
        .write(
            ".claude/settings.json",
            &json!({"permissions": {"deny": ["Read(./secrets/**)"]}}).to_string(),
        )
        .write("secrets/key.txt", &format!("{SECRET}\n"))
        .write(
            ".agentctl/agents/reader.md",
            "---\nname: reader\ndescription: Reads\nmodel: openai:gpt-4o-mini\ntools:\n  allow: [bash, read_file]\n---\nRead.\n",
        );
    project.trust();
    let spellings = [
        "/proc/self/cwd/secrets/key.txt",
        "/proc/thread-self/cwd/secrets/key.txt",
        "/dev/fd/../cwd/secrets/key.txt",
        "/proc/self/cwd/./secrets//key.txt",
        "secrets//key.txt",
        "./secrets/../secrets/key.txt",
    ];
    let model = ServedModel::openai();
    let mut ids = Vec::new();
    for (index, path) in spellings.iter().enumerate() {
        let bash = format!("b{index}");
        let command = json!({ "command": format!("cat {path}") }).to_string();
        model.answer_call(&bash, "bash", &command);
        let read = format!("r{index}");
        model.answer_call(&read, "read_file", &json!({ "path": path }).to_string());
        ids.push((bash, *path));
        ids.push((read, *path));
    }
    model.answer_text("Nothing read.");
    // Started in another folder: the tools still run in the project root.
    let mut command = project.command(&["run", "--yes", "reader", "-p", "read the key"]);
    command.current_dir(&project.home);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    let last = &requests[ids.len()].body;
    for (id, path) in &ids {
        let result = tool_message(last, id);
        assert!(!result.contains(SECRET), "{id} {path}: {result}");
        assert!(result.contains("denied"), "{id} {path}: {result}");
    }
    // The bash calls are refused by the rule itself, not by chance.
    for (id, path) in ids.iter().filter(|(id, _)| id.starts_with('b')) {
        let result = tool_message(last, id);
        assert!(
            result.contains("Read(./secrets/**)"),
            "{id} {path}: {result}"
        );
    }
}

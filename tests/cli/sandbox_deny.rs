//! Claude Code's `Read(…)`/`Edit(…)` deny rules held by the OS for `bash`, end to end on the
//! strict OpenAI fake with a real shell: with `deny: ["Read(./secrets/**)",
//! "Edit(./locked/**)"]` in `.claude/settings.json`, the ways a shell gets around a parser (a
//! `cd`, a glob, a substitution, `find -exec`, `grep -r`, `tar`, a symbolic link it makes)
//! print nothing of the secret, even approved (`--yes`), and leave the locked folder as it
//! was; the files next to them still read and write.

use super::support::request::tool_message;
use super::support::{ServedModel, TestProject, text};
use agentctl_core::SandboxMode;
use agentctl_sandbox::{SandboxPolicy, probe};
use serde_json::json;

const SECRET: &str = "sk-os-enforced-7731";

const AGENT: &str = "---
name: prober
description: Tries every way around a deny rule.
model: openai:gpt-4o-mini
tools:
  allow: [bash]
---
Probe.
";

/// Runs each of `commands` as one `bash` call of an approved run; the tool results by call.
fn run_commands(project: &TestProject, commands: &[&str]) -> Vec<(String, String)> {
    let model = ServedModel::openai();
    for (index, command) in commands.iter().enumerate() {
        let arguments = json!({ "command": command }).to_string();
        model.answer_call(&format!("c{index}"), "bash", &arguments);
    }
    model.answer_text("Done.");
    let mut command = project.command(&["run", "--yes", "prober", "-p", "probe"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    let last = &requests[commands.len()].body;
    commands
        .iter()
        .enumerate()
        .map(|(index, command)| {
            (
                (*command).to_owned(),
                tool_message(last, &format!("c{index}")),
            )
        })
        .collect()
}

fn project() -> Option<TestProject> {
    let status = probe(&SandboxPolicy::new(SandboxMode::WorkspaceWrite));
    let enforced = match status.is_enforced() {
        true => Ok(()),
        false => Err(format!("the sandbox does not confine here: {status}")),
    };
    if !agentctl_test_support::requirement(enforced) {
        return None;
    }
    let project = TestProject::new();
    let deny = json!({"permissions": {"deny": ["Read(./secrets/**)", "Edit(./locked/**)"]}});
    project
        .write(".claude/settings.json", &deny.to_string())
        .write(".agentctl/agents/prober.md", AGENT)
        .write("secrets/key.txt", &format!("TOKEN={SECRET}\n"))
        .write("secrets/deep/more.txt", &format!("TOKEN={SECRET}\n"))
        .write("config/app.toml", "name = \"allowed-config\"\n")
        .write("locked/f", "original\n");
    project.trust();
    Some(project)
}

#[test]
fn no_way_around_a_read_deny_rule_prints_the_secret() {
    let Some(project) = project() else { return };
    let results = run_commands(
        &project,
        &[
            "cat secrets/key.txt",
            "cd secrets && cat key.txt",
            "cat sec*/key.txt",
            "cat $(printf secrets)/key.txt",
            "find . -type f -exec cat {} +",
            "grep -r TOKEN .",
            "tar c . 2>/dev/null | tar x -O",
            "ln -s secrets s && cat s/key.txt",
            "ln -s secrets/deep d; cat d/more.txt",
            "cat config/app.toml",
        ],
    );
    for (command, result) in &results {
        assert!(!result.contains(SECRET), "{command}: {result}");
    }
    // The rule itself refuses what names the folder, before anything runs.
    assert!(results[0].1.contains("Read(./secrets/**)"), "{results:?}");
    assert!(results[1].1.contains("Read(./secrets/**)"), "{results:?}");
    // A computed path near the folder is asked, and nobody can approve it here.
    assert!(results[3].1.contains("computed"), "{results:?}");
    // The file beside them still reads.
    assert!(results[9].1.contains("allowed-config"), "{results:?}");
    assert!(
        std::fs::read_to_string(project.root.join("secrets/key.txt"))
            .unwrap()
            .contains(SECRET)
    );
}

#[test]
fn an_edit_deny_rule_keeps_the_folder_unwritten() {
    let Some(project) = project() else { return };
    let results = run_commands(
        &project,
        &[
            "bash -c 'echo x > locked/f'",
            "cd locked; echo x > f",
            "echo x > $(printf lock)ed/new",
            "ln -s locked l && echo x > l/f",
            "echo beside > config/new.txt && echo WROTE",
        ],
    );
    // The rule refuses what names the folder, the sandbox what reaches it another way.
    assert!(results[0].1.contains("Edit(./locked/**)"), "{results:?}");
    assert!(results[1].1.contains("Edit(./locked/**)"), "{results:?}");
    assert!(
        results[3].1.contains("Read-only file system"),
        "{results:?}"
    );
    let root = &project.root;
    assert_eq!(
        std::fs::read_to_string(root.join("locked/f")).unwrap(),
        "original\n"
    );
    assert!(!root.join("locked/new").exists(), "{results:?}");
    assert!(results[4].1.contains("WROTE"), "{results:?}");
    assert!(root.join("config/new.txt").exists());
}

#[test]
fn a_hook_runs_under_the_same_deny_rules() {
    let Some(project) = project() else { return };
    // A PreToolUse hook that tries to show the secret and a file beside it to the model: its
    // stderr, when it exits 2, is what the model reads.
    let hook = "cat secrets/key.txt >&2; cd secrets && cat key.txt >&2; cd ..; \
                find . -name '*.txt' -exec cat {} + >&2; cat config/app.toml >&2; exit 2\n";
    let settings = json!({
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "sh hooks/hook.sh"}]}]}
    });
    project
        .write(".agentctl/settings.json", &settings.to_string())
        .write("hooks/hook.sh", hook);
    project.trust();
    let results = run_commands(&project, &["echo hi"]);
    let (_, result) = &results[0];
    assert!(result.contains("Blocked by a PreToolUse hook"), "{result}");
    assert!(result.contains("allowed-config"), "{result}");
    assert!(!result.contains(SECRET), "{result}");
}

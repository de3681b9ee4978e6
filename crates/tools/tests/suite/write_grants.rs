//! `write_file` and `edit_file` in a folder granted to the calling agent for writing (its
//! memory folder): written without a question, confined to that folder, attacked with the
//! other ways out (symlinks leading out, `..`, other agents, protected names inside).

use super::support::write;
use agentctl_core::{
    Decision, PendingCall, PermissionMode, Tool, ToolCall, ToolContext, ToolFilter, ToolRegistry,
};
use agentctl_tools::{
    AutoApprove, BuiltinToolsConfig, Gate, ReadGrants, RiskClassifier, register_builtin_tools,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn tool(grants: &ReadGrants, name: &str) -> Arc<dyn Tool> {
    let mut registry = ToolRegistry::new();
    let config = BuiltinToolsConfig::default().with_read_grants(grants.clone());
    register_builtin_tools(&mut registry, &config);
    registry.get(name).cloned().unwrap()
}

async fn run(
    tool: &Arc<dyn Tool>,
    root: &Path,
    agent: &str,
    args: Value,
) -> Result<String, String> {
    let ctx = ToolContext::new("run", agent, "call", root, CancellationToken::new());
    tool.call(args, &ctx)
        .await
        .map(|out| out.content)
        .map_err(|error| error.to_string())
}

fn decide(
    gate: &Gate,
    tool: &Arc<dyn Tool>,
    agent: &str,
    args: Value,
    mode: PermissionMode,
) -> Decision {
    let filter = ToolFilter::allow_all();
    let call = ToolCall {
        id: "c1".into(),
        name: tool.name().into(),
        arguments: args,
        signature: None,
    };
    let pending = PendingCall {
        agent,
        filter: &filter,
        call: &call,
        tool: tool.as_ref(),
    };
    gate.decide_in(&pending, mode)
}

#[tokio::test]
async fn an_agent_writes_its_memory_folder_unasked_and_nothing_around_it() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let project = base.join("project");
    let memory = project.join(".claude/agent-memory/reviewer");
    let user = base.join("home/.claude/agent-memory/reviewer");
    write(&project, ".claude/settings.json", "{}\n");
    write(&memory, "MEMORY.md", "# notes\n");
    write(&user, "MEMORY.md", "# mine\n");
    std::os::unix::fs::symlink(
        project.join(".claude/settings.json"),
        memory.join("settings"),
    )
    .unwrap();
    std::os::unix::fs::symlink(project.join(".claude"), memory.join("up")).unwrap();
    let grants = ReadGrants::default();
    grants.grant_writes("reviewer", &memory).unwrap();
    grants.grant_writes("reviewer", &user).unwrap();
    let gate = Gate::new(
        AutoApprove::default(),
        RiskClassifier::new().with_root(&project),
    )
    .with_grants(grants.clone());
    let write_file = tool(&grants, "write_file");
    let edit_file = tool(&grants, "edit_file");
    let note = |path: &str| json!({"path": path, "content": "PWNED\n"});
    let default = PermissionMode::Default;

    // Inside: relative to the project, or absolute (the user's folder too), unasked.
    let user_note = format!("{}/topics/style.md", user.display());
    for path in [".claude/agent-memory/reviewer/notes.md", user_note.as_str()] {
        let decision = decide(&gate, &write_file, "reviewer", note(path), default);
        assert!(
            matches!(decision, Decision::Allow { .. }),
            "{path}: {decision:?}"
        );
        run(&write_file, &project, "reviewer", note(path))
            .await
            .unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(memory.join("notes.md")).unwrap(),
        "PWNED\n"
    );
    assert_eq!(
        std::fs::read_to_string(user.join("topics/style.md")).unwrap(),
        "PWNED\n"
    );
    let edit = json!({"path": ".claude/agent-memory/reviewer/MEMORY.md", "old_string": "notes", "new_string": "lessons"});
    assert!(matches!(
        decide(&gate, &edit_file, "reviewer", edit.clone(), default),
        Decision::Allow { .. }
    ));
    run(&edit_file, &project, "reviewer", edit).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(memory.join("MEMORY.md")).unwrap(),
        "# lessons\n"
    );

    // Plan mode stays read-only; another agent gets no grant.
    let plan = decide(
        &gate,
        &write_file,
        "reviewer",
        note(".claude/agent-memory/reviewer/n.md"),
        PermissionMode::Plan,
    );
    assert!(!matches!(plan, Decision::Allow { .. }), "{plan:?}");
    let other = decide(
        &gate,
        &write_file,
        "writer",
        note(".claude/agent-memory/reviewer/n.md"),
        default,
    );
    assert!(
        matches!(other, Decision::Ask { .. } | Decision::Deny { .. }),
        "{other:?}"
    );
    let refused = run(&write_file, &project, "writer", note(&user_note))
        .await
        .unwrap_err();
    assert!(refused.contains("escapes the project root"), "{refused}");

    // Ways out: symlinks in the folder leading out, `..`, a protected name inside.
    for path in [
        ".claude/agent-memory/reviewer/settings",
        ".claude/agent-memory/reviewer/up/settings.json",
        ".claude/agent-memory/reviewer/../other/n.md",
        ".claude/agent-memory/reviewer/.git/config",
        ".claude/settings.json",
    ] {
        let decision = decide(&gate, &write_file, "reviewer", note(path), default);
        assert!(
            !matches!(decision, Decision::Allow { .. }),
            "{path}: {decision:?}"
        );
    }
    for path in [
        ".claude/agent-memory/reviewer/settings",
        ".claude/agent-memory/reviewer/up/settings.json",
    ] {
        let refused = run(&write_file, &project, "reviewer", note(path))
            .await
            .unwrap_err();
        assert!(refused.contains("escapes"), "{path}: {refused}");
    }
    assert_eq!(
        std::fs::read_to_string(project.join(".claude/settings.json")).unwrap(),
        "{}\n"
    );
    let outside = format!("{}/../outside.md", user.display());
    assert!(
        run(&write_file, &project, "reviewer", note(&outside))
            .await
            .is_err()
    );
    assert!(!base.join("home/.claude/agent-memory/outside.md").exists());
}

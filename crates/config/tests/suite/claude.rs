//! Claude Code's settings files as layers (issue 34 item 0): `~/.claude/settings.json`,
//! `<project>/.claude/settings.json`, `<project>/.claude/settings.local.json` and `.mcp.json`,
//! each below agentctl's own file of the same scope; permission rules joined across layers
//! with their files; an untrusted project's `allow` rules, `env` and servers held back; its
//! hooks joined to agentctl's (a project's held back until it is trusted).

use super::support::Sandbox;
use agentctl_config::{ConfigWarning, Locations, SettingsLayer, load_settings};
use std::path::PathBuf;

#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
fn write(path: PathBuf, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
fn with_home(sandbox: &Sandbox) -> (Locations, PathBuf) {
    let user = sandbox.home.join("user");
    std::fs::create_dir_all(&user).unwrap();
    let locations = Locations {
        user_home: Some(user.clone()),
        ..sandbox.locations()
    };
    (locations, user)
}

const PROJECT: &str = r#"{
  "permissions": {
    "allow": ["Bash(npm test:*)"],
    "deny": ["Bash(rm:*)", "Task(reviewer)"]
  },
  "env": {"NODE_ENV": "test"},
  "model": "claude-sonnet-4-5",
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}
}"#;

#[test]
fn rules_join_across_layers_and_each_shows_its_file() {
    let sandbox = Sandbox::new();
    let (locations, user) = with_home(&sandbox);
    let user_file = write(
        user.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Read(~/.ssh/**)"], "allow": ["Bash(ls:*)"]}}"#,
    );
    let project = write(sandbox.project.join(".claude/settings.json"), PROJECT);
    let local = write(
        sandbox.project.join(".claude/settings.local.json"),
        r#"{"permissions": {"ask": ["Bash(git push:*)"]}}"#,
    );
    sandbox.trust();
    let loaded = load_settings(&locations).unwrap();
    let permissions = &loaded.settings.permissions;
    assert_eq!(permissions.deny, ["Read(~/.ssh/**)", "Bash(rm:*)"]);
    assert_eq!(permissions.allow, ["Bash(ls:*)", "Bash(npm test:*)"]);
    assert_eq!(permissions.ask, ["Bash(git push:*)"]);
    let origins: Vec<(String, String, SettingsLayer)> = loaded
        .entries()
        .into_iter()
        .filter(|entry| entry.key.starts_with("permissions."))
        .map(|entry| {
            (
                entry.key,
                entry.value.as_str().unwrap_or_default().to_owned(),
                entry.origin.clone(),
            )
        })
        .collect();
    assert!(origins.contains(&(
        "permissions.deny".into(),
        "Bash(rm:*)".into(),
        SettingsLayer::ClaudeProject(project.clone())
    )));
    assert!(origins.contains(&(
        "permissions.deny".into(),
        "Read(~/.ssh/**)".into(),
        SettingsLayer::ClaudeGlobal(user_file)
    )));
    assert!(origins.contains(&(
        "permissions.ask".into(),
        "Bash(git push:*)".into(),
        SettingsLayer::ClaudeLocal(local)
    )));
    assert_eq!(
        loaded.settings.agents.default_model.as_deref(),
        Some("claude-sonnet-4-5")
    );
    assert_eq!(loaded.settings.env.set["NODE_ENV"], "test");
    // Its hooks join agentctl's, with the file they came from.
    assert_eq!(loaded.settings.hooks["PreToolUse"][0]["matcher"], "Bash");
    let origins = &loaded.settings.hook_origins["PreToolUse"];
    assert_eq!(origins.len(), 1);
    assert!(origins[0].contains(".claude/settings.json"), "{origins:?}");
    // The rule agentctl cannot map is reported with its file, and left out.
    assert!(loaded.warnings.iter().any(|warning| matches!(
        warning,
        ConfigWarning::UnmappedRule { path, rule, .. } if path == &project && rule == "Task(reviewer)"
    )));
}

#[test]
fn an_untrusted_project_keeps_its_deny_rules_but_not_its_allow_rules() {
    let sandbox = Sandbox::new();
    let (locations, _) = with_home(&sandbox);
    write(sandbox.project.join(".claude/settings.json"), PROJECT);
    write(
        sandbox.project.join(".mcp.json"),
        r#"{"mcpServers": {"leak": {"command": "node", "args": ["s.js"], "env": {"T": "${GITHUB_TOKEN}"}}}}"#,
    );
    let loaded = load_settings(&locations).unwrap();
    assert_eq!(loaded.settings.permissions.deny, ["Bash(rm:*)"]);
    assert!(loaded.settings.permissions.allow.is_empty());
    assert!(loaded.settings.env.set.is_empty());
    assert!(!loaded.settings.mcp_servers.contains_key("leak"));
    let ignored: Vec<&str> = loaded.ignored().map(|l| l.key.as_str()).collect();
    assert!(ignored.contains(&"permissions.allow"), "{ignored:?}");
    assert!(ignored.contains(&"env.set.NODE_ENV"), "{ignored:?}");
    // Its hooks run commands: they wait for trust too.
    assert!(!loaded.settings.hooks.contains_key("PreToolUse"));
    // Both Claude Code files and `.mcp.json` are covered by the project's trust.
    for file in [".claude/settings.json", ".mcp.json"] {
        assert!(loaded.policy_hashes.contains_key(file), "{file}");
    }
    sandbox.trust();
    let loaded = load_settings(&locations).unwrap();
    assert_eq!(loaded.settings.permissions.allow, ["Bash(npm test:*)"]);
    assert!(loaded.settings.mcp_servers.contains_key("leak"));
    // A change to `.mcp.json` withdraws the trust.
    write(sandbox.project.join(".mcp.json"), r#"{"mcpServers": {}}"#);
    let loaded = load_settings(&locations).unwrap();
    assert!(loaded.settings.permissions.allow.is_empty());
}

#[test]
fn a_project_file_cannot_drop_the_users_deny_rules() {
    let sandbox = Sandbox::new();
    let (locations, _) = with_home(&sandbox);
    sandbox.write_global(r#"{"permissions": {"deny": ["Bash(curl:*)"]}}"#);
    write(
        sandbox.project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": []}}"#,
    );
    sandbox.trust();
    let loaded = load_settings(&locations).unwrap();
    assert_eq!(loaded.settings.permissions.deny, ["Bash(curl:*)"]);
}

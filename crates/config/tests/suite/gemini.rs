//! Gemini CLI's settings files as layers (seed 000 §5, seed 002 §5.4): what the seeds configure
//! there is read below agentctl's own file of the same scope, Gemini CLI's own settings are
//! said not to be read, and a project's file is reviewed — and hashed for trust — as
//! agentctl's own project file is.

use super::support::Sandbox;
use agentctl_config::{ConfigWarning, Locations, SettingsLayer, load_settings};
use agentctl_core::ContextMode;
use std::path::PathBuf;

#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
fn write(path: PathBuf, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// The sandbox with a user home (for `~/.gemini`).
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

#[test]
fn seed_000s_gemini_settings_are_read_below_agentctls_own() {
    let sandbox = Sandbox::new();
    let (locations, user) = with_home(&sandbox);
    // Seed 000 §5, as written.
    let gemini = write(
        user.join(".gemini/settings.json"),
        r#"{
  "agents": {
    "defaultContextMode": "isolated",
    "allowSharedContext": true
  }
}"#,
    );
    let loaded = load_settings(&locations).unwrap();
    assert_eq!(
        loaded.settings.agents.default_context_mode,
        ContextMode::Isolated
    );
    assert_eq!(
        loaded.origin("agents.defaultContextMode"),
        &SettingsLayer::GeminiGlobal(gemini.clone())
    );

    // agentctl's own global file wins over Gemini CLI's.
    let global = sandbox.write_global(r#"{"agents": {"defaultContextMode": "shared"}}"#);
    let loaded = load_settings(&locations).unwrap();
    assert_eq!(
        loaded.settings.agents.default_context_mode,
        ContextMode::Shared
    );
    assert_eq!(
        loaded.layers,
        [
            SettingsLayer::Default,
            SettingsLayer::GeminiGlobal(gemini),
            SettingsLayer::Global(global),
        ]
    );
    assert!(loaded.settings.agents.allow_shared_context);
}

#[test]
fn gemini_clis_own_settings_are_said_not_read_and_missing_files_are_not_listed() {
    let sandbox = Sandbox::new();
    let (locations, user) = with_home(&sandbox);
    let loaded = load_settings(&locations).unwrap();
    assert!(
        loaded
            .missing
            .iter()
            .all(|layer| !layer.name().starts_with("gemini"))
    );

    write(
        user.join(".gemini/settings.json"),
        r#"{"theme": "Dracula", "general": {"vimMode": true}, "agents": {"autoRoute": true}}"#,
    );
    let loaded = load_settings(&locations).unwrap();
    assert!(loaded.settings.agents.auto_route);
    let not_read: Vec<&Vec<String>> = loaded
        .warnings
        .iter()
        .filter_map(|warning| match warning {
            ConfigWarning::NotRead { keys, .. } => Some(keys),
            _ => None,
        })
        .collect();
    assert_eq!(not_read, [&vec!["general".to_owned(), "theme".to_owned()]]);
}

#[test]
fn a_projects_gemini_settings_are_reviewed_and_trusted_like_its_own() {
    let sandbox = Sandbox::new();
    let (locations, _) = with_home(&sandbox);
    let gemini = write(
        sandbox.project.join(".gemini/settings.json"),
        r#"{"agents": {"autoRoute": true},
            "mcpServers": {"github": {"command": "npx", "args": ["-y", "server-github"],
                                      "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}"#,
    );
    let loaded = load_settings(&locations).unwrap();
    // Not trusted: what loosens the user's policy is not applied, the rest is.
    assert!(loaded.settings.agents.auto_route);
    assert!(
        loaded.warnings.iter().any(
            |warning| matches!(warning, ConfigWarning::Untrusted { path, .. } if *path == gemini)
        ),
        "{:?}",
        loaded.warnings
    );
    assert!(loaded.policy_hashes.contains_key(".gemini/settings.json"));
    assert!(!loaded.settings.mcp_servers.contains_key("github"));

    // Trusted, it applies; changed, it is not trusted any more.
    let trusted = |locations: &Locations| {
        let loaded = load_settings(locations).unwrap();
        agentctl_config::TrustStore::new(&sandbox.home)
            .trust_files(&sandbox.project, loaded.policy_hashes)
            .unwrap();
    };
    trusted(&locations);
    let loaded = load_settings(&locations).unwrap();
    assert!(loaded.trust.is_trusted());
    assert!(loaded.settings.mcp_servers.contains_key("github"));
    assert!(loaded.project_servers.contains("github"));
    write(gemini, r#"{"agents": {"autoRoute": false}}"#);
    assert!(!load_settings(&locations).unwrap().trust.is_trusted());
}

//! Precedence of the layers, merging of maps, and the origin of every value.

use super::support::Sandbox;
use agentctl_config::{ConfigWarning, Locations, SettingsLayer, load_settings, settings_schema};
use agentctl_core::{ContextMode, ProviderKind, Scope, Settings};
use serde_json::json;

#[test]
fn without_files_the_defaults_apply_and_both_files_are_missing() {
    let sandbox = Sandbox::new();
    let loaded = load_settings(&sandbox.locations()).unwrap();
    assert_eq!(loaded.settings, Settings::default());
    assert_eq!(loaded.layers, [SettingsLayer::Default]);
    assert_eq!(
        loaded.missing,
        [
            SettingsLayer::Global(sandbox.global_file()),
            SettingsLayer::Project(sandbox.project_file()),
        ]
    );
    assert!(
        loaded
            .entries()
            .iter()
            .all(|entry| entry.origin == &SettingsLayer::Default)
    );
}

#[test]
fn outside_a_project_only_the_global_file_is_read() {
    let sandbox = Sandbox::new();
    sandbox.write_global(r#"{"agents": {"autoRoute": true}}"#);
    let locations = Locations {
        project_root: None,
        ..sandbox.locations()
    };
    let loaded = load_settings(&locations).unwrap();
    assert!(loaded.settings.agents.auto_route);
    assert_eq!(loaded.layers.len(), 2);
    assert!(loaded.missing.is_empty());
}

#[test]
fn project_wins_over_global_which_wins_over_defaults() {
    let sandbox = Sandbox::new();
    let global = sandbox.write_global(
        r#"{
          "agents": {"defaultContextMode": "shared", "tracing": true, "defaultModel": "openai:gpt-4o"},
          "aliases": {"fast": "openai:gpt-4o-mini", "smart": "openai:gpt-4o"},
          "approvals": {"autoApprove": ["safe", "low"]}
        }"#,
    );
    let project = sandbox.write_project(
        r#"{
          "agents": {"defaultContextMode": "run", "sharedContextMaxMessages": 20, "defaultScope": "global"},
          "aliases": {"smart": "anthropic:claude-sonnet-4-5"},
          "approvals": {"autoApprove": ["safe"]}
        }"#,
    );
    let loaded = load_settings(&sandbox.locations()).unwrap();
    let agents = &loaded.settings.agents;
    assert_eq!(agents.default_context_mode, ContextMode::Run);
    assert!(agents.tracing.enabled);
    assert_eq!(agents.shared_context_max_messages, 20);
    assert_eq!(agents.default_scope, Scope::Global);
    assert_eq!(agents.default_model.as_deref(), Some("openai:gpt-4o"));
    assert!(agents.allow_shared_context, "untouched default");
    assert_eq!(loaded.settings.aliases["fast"], "openai:gpt-4o-mini");
    assert_eq!(
        loaded.settings.aliases["smart"],
        "anthropic:claude-sonnet-4-5"
    );
    assert_eq!(
        loaded.settings.approvals.auto_approve,
        ["safe"],
        "arrays are replaced"
    );

    let global = SettingsLayer::Global(global);
    let project = SettingsLayer::Project(project);
    assert_eq!(
        loaded.layers,
        [SettingsLayer::Default, global.clone(), project.clone()]
    );
    assert_eq!(loaded.origin("agents.defaultContextMode"), &project);
    assert_eq!(loaded.origin("agents.tracing"), &global);
    assert_eq!(loaded.origin("agents.defaultModel"), &global);
    assert_eq!(
        loaded.origin("agents.allowSharedContext"),
        &SettingsLayer::Default
    );
    assert_eq!(loaded.origin("aliases.fast"), &global);
    assert_eq!(loaded.origin("aliases.smart"), &project);
    assert_eq!(loaded.origin("approvals.autoApprove"), &project);
    assert_eq!(loaded.origin("no.such.key"), &SettingsLayer::Default);
}

#[test]
fn entries_list_every_leaf_sorted_with_value_and_origin() {
    let sandbox = Sandbox::new();
    let global = sandbox.write_global(
        r#"{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                            "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}"#,
    );
    let loaded = load_settings(&sandbox.locations()).unwrap();
    let entries = loaded.entries();
    let keys: Vec<_> = entries.iter().map(|entry| entry.key.as_str()).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    for key in [
        "agents.defaultContextMode",
        "agents.sharedContextMaxMessages",
        "aliases",
        "mcpServers.github.args",
        "mcpServers.github.command",
        "mcpServers.github.env.GITHUB_TOKEN",
        "providers",
        "tools.risk",
    ] {
        assert!(keys.contains(&key), "{key} missing from {keys:?}");
    }
    assert!(
        !keys.contains(&"mcpServers"),
        "a map with entries is not a leaf"
    );
    let command = entries
        .iter()
        .find(|entry| entry.key == "mcpServers.github.command")
        .unwrap();
    assert_eq!(command.value, json!("npx"));
    assert_eq!(command.origin, &SettingsLayer::Global(global));
    let aliases = entries.iter().find(|entry| entry.key == "aliases").unwrap();
    assert_eq!(aliases.value, json!({}));
    assert_eq!(aliases.origin, &SettingsLayer::Default);
}

#[test]
fn mcp_servers_merge_per_entry_and_an_entry_is_replaced_whole() {
    let sandbox = Sandbox::new();
    let global = sandbox.write_global(
        r#"{"mcpServers": {
             "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
             "postgres": {"command": "uvx", "args": ["mcp-server-postgres"], "trust": true}}}"#,
    );
    let project = sandbox.write_project(
        r#"{"mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/",
                                      "headers": {"Authorization": "Bearer ${GITHUB_PAT}"}}}}"#,
    );
    // Replacing the user's server is the project's to do once trusted.
    sandbox.trust();
    let loaded = load_settings(&sandbox.locations()).unwrap();
    let servers = &loaded.settings.mcp_servers;
    assert_eq!(servers.len(), 2);
    assert_eq!(
        servers["github"].command, None,
        "not mixed with the global stdio server"
    );
    assert!(servers["github"].args.is_empty());
    assert_eq!(servers["github"].transport.as_deref(), Some("http"));
    assert_eq!(servers["postgres"].command.as_deref(), Some("uvx"));
    assert!(servers["postgres"].trust);
    assert_eq!(
        loaded.origin("mcpServers.github.url"),
        &SettingsLayer::Project(project)
    );
    assert_eq!(
        loaded.origin("mcpServers.github.command"),
        &SettingsLayer::Default
    );
    assert_eq!(
        loaded.origin("mcpServers.postgres.trust"),
        &SettingsLayer::Global(global)
    );
}

#[test]
fn providers_merge_field_by_field() {
    let sandbox = Sandbox::new();
    sandbox.write_global(
        r#"{"providers": {"anthropic": {"kind": "anthropic", "apiKeyEnv": "ANTHROPIC_API_KEY"},
                          "local": {"baseUrl": "http://localhost:11434/v1"}}}"#,
    );
    let project = sandbox.write_project(
        r#"{"providers": {"anthropic": {"baseUrl": "https://proxy.internal/anthropic",
                                        "headers": {"x-team": "search"}}}}"#,
    );
    // Sending the user's key elsewhere is the project's to do once trusted.
    sandbox.trust();
    let loaded = load_settings(&sandbox.locations()).unwrap();
    let anthropic = &loaded.settings.providers["anthropic"];
    assert_eq!(anthropic.kind, ProviderKind::Anthropic);
    assert_eq!(anthropic.api_key_env.as_deref(), Some("ANTHROPIC_API_KEY"));
    assert_eq!(
        anthropic.base_url.as_deref(),
        Some("https://proxy.internal/anthropic")
    );
    assert_eq!(anthropic.headers["x-team"], "search");
    let local = &loaded.settings.providers["local"];
    assert_eq!(local.kind, ProviderKind::Openai, "kind defaults to openai");
    assert_eq!(
        loaded.origin("providers.anthropic.baseUrl"),
        &SettingsLayer::Project(project)
    );
    assert_eq!(
        loaded.origin("providers.local.kind"),
        &SettingsLayer::Default
    );
}

#[test]
fn empty_and_null_mean_not_set() {
    let sandbox = Sandbox::new();
    sandbox.write_global(r#"{"agents": {"tracing": true, "defaultModel": "openai:gpt-4o"}}"#);
    sandbox.write_project("  \n");
    let loaded = load_settings(&sandbox.locations()).unwrap();
    assert_eq!(
        loaded.layers.len(),
        3,
        "an empty file is a layer that sets nothing"
    );
    assert!(loaded.settings.agents.tracing.enabled);

    sandbox.write_project(r#"{"agents": {"tracing": null, "defaultModel": null}}"#);
    let loaded = load_settings(&sandbox.locations()).unwrap();
    assert!(loaded.settings.agents.tracing.enabled);
    assert_eq!(
        loaded.settings.agents.default_model.as_deref(),
        Some("openai:gpt-4o")
    );
}

#[test]
fn a_home_pointing_at_the_project_is_read_once() {
    let sandbox = Sandbox::new();
    sandbox.write_project(r#"{"agents": {"autoRoute": true}}"#);
    let locations = Locations {
        agentctl_home: sandbox.project.join(".agentctl"),
        ..sandbox.locations()
    };
    let loaded = load_settings(&locations).unwrap();
    assert_eq!(loaded.layers.len(), 2);
    assert_eq!(loaded.layers[1].name(), "global");
}

#[test]
fn unknown_keys_are_warnings_naming_file_and_key() {
    let sandbox = Sandbox::new();
    let project = sandbox.write_project(
        r#"{"$schema": "./settings.schema.json",
            "agents": {"defaultContextMod": "shared", "tracing": true},
            "theme": "dark",
            "mcpServers": {"x": {"command": "x", "oauth": {"clientId": "abc"}}}}"#,
    );
    let loaded = load_settings(&sandbox.locations()).unwrap();
    assert!(loaded.settings.agents.tracing.enabled);
    assert_eq!(
        loaded.warnings,
        [
            ConfigWarning::UnknownKey {
                path: project.clone(),
                key: "agents.defaultContextMod".into()
            },
            ConfigWarning::UnknownKey {
                path: project.clone(),
                key: "theme".into()
            },
        ],
        "fields of other tools' MCP formats are kept, not warned about"
    );
    assert_eq!(
        loaded.warnings[1].to_string(),
        format!("{}: unknown key `theme` ignored", project.display())
    );
    assert!(
        loaded
            .entries()
            .iter()
            .all(|entry| !entry.key.starts_with("theme"))
    );
    assert_eq!(
        loaded.settings.mcp_servers["x"].extra["oauth"],
        json!({"clientId": "abc"})
    );
}

#[test]
fn the_schema_describes_every_section() {
    let schema = settings_schema();
    let properties = schema["properties"].as_object().unwrap();
    for key in [
        "agents",
        "mcpServers",
        "providers",
        "aliases",
        "tools",
        "approvals",
        "sandbox",
        "env",
    ] {
        assert!(properties.contains_key(key), "{key}");
    }
}

#[test]
fn sandbox_env_and_timeouts_layer_with_their_origins() {
    let sandbox = Sandbox::new();
    sandbox.write_global(
        r#"{"sandbox": {"network": false, "writableRoots": ["~/.cargo"]},
            "env": {"passthrough": ["GITHUB_TOKEN"]},
            "tools": {"timeoutSeconds": 300, "timeouts": {"bash": 900}}}"#,
    );
    sandbox.write_project(
        r#"{"sandbox": {"mode": "read-only"}, "tools": {"timeouts": {"grep": 30}}}"#,
    );
    let loaded = load_settings(&sandbox.locations()).unwrap();
    let settings = &loaded.settings;
    assert_eq!(settings.sandbox.mode, agentctl_core::SandboxMode::ReadOnly);
    assert_eq!(settings.sandbox.network, agentctl_core::NetworkAccess::Off);
    assert!(!settings.sandbox.mcp_servers.confine);
    assert_eq!(settings.sandbox.writable_roots, ["~/.cargo"]);
    assert_eq!(settings.env.passthrough, ["GITHUB_TOKEN"]);
    assert_eq!(settings.tools.timeout_for("bash").as_secs(), 900);
    assert_eq!(settings.tools.timeout_for("grep").as_secs(), 30);
    assert_eq!(settings.tools.timeout_for("read_file").as_secs(), 300);
    assert_eq!(loaded.origin("sandbox.mode").name(), "project");
    assert_eq!(loaded.origin("sandbox.network").name(), "global");
    assert_eq!(
        loaded.origin("sandbox.mcpServers.confine").name(),
        "default"
    );
    assert_eq!(loaded.origin("tools.timeouts.bash").name(), "global");
    assert_eq!(loaded.origin("tools.timeouts.grep").name(), "project");
    assert_eq!(loaded.origin("env.passthrough").name(), "global");
}

#[test]
fn defaults_sandbox_with_network_and_ten_minute_timeouts() {
    let entries = agentctl_config::LoadedSettings::new(Settings::default());
    let value = entries.to_value();
    assert_eq!(
        value["sandbox"],
        json!({"mode": "workspace-write", "network": true, "writableRoots": [],
               "readableRoots": [], "protectedPaths": [],
               "mcpServers": {"confine": false, "unconfined": []}})
    );
    assert_eq!(value["env"], json!({"passthrough": []}));
    assert_eq!(value["tools"]["timeoutSeconds"], 600);
}

#[test]
fn the_store_url_layers_and_its_password_is_never_listed() {
    let sandbox = Sandbox::new();
    sandbox
        .write_global(r#"{"store": {"url": "postgres://team:s3cret-pw@db.internal:5432/agents"}}"#);
    let loaded = load_settings(&sandbox.locations()).unwrap();
    // The resolved value keeps the password: the store connects with it.
    assert_eq!(
        loaded.settings.store.url.as_deref(),
        Some("postgres://team:s3cret-pw@db.internal:5432/agents")
    );
    let listed = loaded.to_value().to_string();
    assert!(!listed.contains("s3cret-pw"), "{listed}");
    let entry = loaded
        .entries()
        .into_iter()
        .find(|entry| entry.key == "store.url")
        .unwrap();
    assert_eq!(
        entry.value,
        json!("postgres://team:***@db.internal:5432/agents")
    );
    // A project's plain path overrides it; unset, the key is not listed at all.
    sandbox.write_project(r#"{"store": {"url": "sqlite://.agentctl/team.db"}}"#);
    let loaded = load_settings(&sandbox.locations()).unwrap();
    assert_eq!(
        loaded.settings.store.url.as_deref(),
        Some("sqlite://.agentctl/team.db")
    );
    let empty = Sandbox::new();
    let loaded = load_settings(&empty.locations()).unwrap();
    assert!(
        loaded
            .entries()
            .iter()
            .all(|entry| !entry.key.starts_with("store"))
    );
}

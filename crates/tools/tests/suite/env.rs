//! What commands see of the environment: secrets are scrubbed unless passed through.

use super::support::{bash_with, ctx};
use agentctl_core::Settings;
use agentctl_tools::BuiltinToolsConfig;
use serde_json::json;

const SECRETS: [(&str, &str); 3] = [
    ("OPENAI_API_KEY", "sk-value-1"),
    ("MY_SECRET", "secret-value-2"),
    ("GITHUB_TOKEN", "gh-value-3"),
];

fn config(passthrough: &[&str]) -> BuiltinToolsConfig {
    let mut settings = Settings::default();
    settings.env.passthrough = passthrough.iter().map(|name| (*name).to_owned()).collect();
    let path = std::env::var("PATH").unwrap_or_default();
    let mut base = vec![("PATH", path.as_str()), ("LANG", "C.UTF-8")];
    base.extend(SECRETS);
    BuiltinToolsConfig::from_settings(&settings).with_base_env(base)
}

async fn run(config: &BuiltinToolsConfig, command: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    bash_with(config)
        .call(json!({"command": command}), &ctx(dir.path()))
        .await
        .unwrap()
        .content
}

#[tokio::test]
async fn printenv_and_env_never_show_secrets() {
    let config = config(&[]);
    for command in [
        "printenv",
        "env",
        "set",
        "cat /proc/self/environ | tr '\\0' '\\n'",
    ] {
        let out = run(&config, command).await;
        assert!(
            out.contains("LANG") && out.contains("C.UTF-8"),
            "{command}: {out}"
        );
        for (name, value) in SECRETS {
            assert!(!out.contains(value), "{command} shows {name}: {out}");
        }
    }
    let out = run(&config, "printenv TMPDIR").await;
    assert!(out.contains("agentctl-bash-"), "{out}");
}

#[tokio::test]
async fn passthrough_lets_named_variables_through() {
    let out = run(&config(&["GITHUB_TOKEN"]), "env").await;
    assert!(out.contains("GITHUB_TOKEN=gh-value-3"), "{out}");
    assert!(
        !out.contains("sk-value-1") && !out.contains("secret-value-2"),
        "{out}"
    );
}

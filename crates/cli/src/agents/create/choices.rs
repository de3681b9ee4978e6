//! What the wizard offers to pick from: models (the default, aliases, the configured providers'
//! models) and tools (the built-in ones and each configured MCP server's).

use agentctl_core::{BUILTIN_ALIASES, BUILTIN_TOOLS, ProviderKind, Settings, resolve_model};

/// Models the wizard lists for each kind of provider. agentctl does not ask providers which
/// models they serve (that would need a key and a request before the file exists), so these
/// are the current models of each public API; any other is typed in.
const KNOWN_MODELS: &[(ProviderKind, &[&str])] = &[
    (
        ProviderKind::Anthropic,
        &["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"],
    ),
    (
        ProviderKind::Openai,
        &["gpt-4.1", "gpt-4.1-mini", "gpt-4o-mini"],
    ),
    (
        ProviderKind::Gemini,
        &["gemini-2.5-pro", "gemini-2.5-flash"],
    ),
];

/// One line of the model list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ModelPick {
    /// No `model:` field: the agent uses `agents.defaultModel` or its caller's model.
    Default,
    /// This model reference, as written in the file.
    Model(String),
    /// The user types one.
    Other,
}

/// The model list: the default first, then the settings' aliases, the built-in aliases of
/// configured providers, each configured provider's known models, and "another".
/// `has_env` tells whether an environment variable is set (a provider key).
pub(super) fn model_choices(
    settings: &Settings,
    has_env: &dyn Fn(&str) -> bool,
) -> Vec<(String, ModelPick)> {
    let default = match &settings.agents.default_model {
        Some(model) => format!("default: {model} (settings agents.defaultModel)"),
        None => "default: the caller's model (no model: field)".to_owned(),
    };
    let mut out = vec![(default, ModelPick::Default)];
    let mut seen: Vec<String> = Vec::new();
    let mut push = |out: &mut Vec<(String, ModelPick)>, label: String, value: String| {
        if !seen.contains(&value) {
            seen.push(value.clone());
            out.push((label, ModelPick::Model(value)));
        }
    };
    for (alias, target) in &settings.aliases {
        push(&mut out, format!("{alias} → {target}"), alias.clone());
    }
    let providers = configured_providers(settings, has_env);
    for (alias, target) in BUILTIN_ALIASES {
        let served = resolve_model(target, settings, None)
            .is_ok_and(|model| providers.iter().any(|(name, _)| *name == model.provider));
        if served && !settings.aliases.contains_key(*alias) {
            push(&mut out, format!("{alias} → {target}"), (*alias).to_owned());
        }
    }
    for (provider, kind) in &providers {
        let Some(kind) = kind else { continue };
        let models = KNOWN_MODELS
            .iter()
            .find(|(k, _)| k == kind)
            .map_or(&[][..], |(_, models)| *models);
        for model in models {
            let value = format!("{provider}:{model}");
            push(&mut out, value.clone(), value);
        }
    }
    out.push((
        "another model… (type provider:model or an alias)".to_owned(),
        ModelPick::Other,
    ));
    out
}

/// Providers the user can call, with the kind of public API whose models we know (`None` for
/// an endpoint of its own, such as Ollama or vLLM, whose models only it knows): every
/// `providers.*` of the settings, and the built-in ones whose key is in the environment.
fn configured_providers(
    settings: &Settings,
    has_env: &dyn Fn(&str) -> bool,
) -> Vec<(String, Option<ProviderKind>)> {
    let mut out: Vec<(String, Option<ProviderKind>)> = settings
        .providers
        .iter()
        .map(|(name, config)| {
            let public = config.base_url.is_none() && name != "ollama";
            (name.clone(), public.then_some(config.kind))
        })
        .collect();
    let builtin: [(&str, ProviderKind, &[&str], &str); 3] = [
        (
            "anthropic",
            ProviderKind::Anthropic,
            &["ANTHROPIC_API_KEY"],
            "ANTHROPIC_BASE_URL",
        ),
        (
            "openai",
            ProviderKind::Openai,
            &["OPENAI_API_KEY"],
            "OPENAI_BASE_URL",
        ),
        (
            "gemini",
            ProviderKind::Gemini,
            &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            "GEMINI_BASE_URL",
        ),
    ];
    for (name, kind, keys, base_url) in builtin {
        if !settings.providers.contains_key(name) && keys.iter().any(|key| has_env(key)) {
            out.push((name.to_owned(), (!has_env(base_url)).then_some(kind)));
        }
    }
    out
}

/// Tools the pickers list: the built-in ones, then `mcp.<server>.*` for each MCP server of the
/// settings.
pub(super) fn tool_choices(settings: &Settings) -> Vec<String> {
    BUILTIN_TOOLS
        .iter()
        .map(|tool| (*tool).to_owned())
        .chain(
            settings
                .mcp_servers
                .keys()
                .map(|server| format!("mcp.{server}.*")),
        )
        .collect()
}

/// The built-in tools that only read, ticked at first in the wizard's allow list.
pub(super) const READ_ONLY_TOOLS: &[&str] = &["read_file", "read_many_files", "grep", "glob"];

/// The MCP server a tool entry belongs to (`mcp.github.*` → `github`).
pub(super) fn mcp_server_of(tool: &str) -> Option<&str> {
    tool.strip_prefix("mcp.")?
        .split('.')
        .next()
        .filter(|s| !s.is_empty())
}

/// `debug-analyzer` → `Debug Analyzer`.
pub(super) fn title_case(name: &str) -> String {
    name.split('-')
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect::<String>()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::ProviderConfig;

    fn values(choices: &[(String, ModelPick)]) -> Vec<String> {
        choices
            .iter()
            .map(|(_, pick)| match pick {
                ModelPick::Default => "<default>".to_owned(),
                ModelPick::Model(model) => model.clone(),
                ModelPick::Other => "<other>".to_owned(),
            })
            .collect()
    }

    #[test]
    fn without_providers_only_the_default_aliases_and_another() {
        let mut settings = Settings::default();
        settings
            .aliases
            .insert("local".into(), "ollama:qwen3".into());
        let choices = model_choices(&settings, &|_| false);
        assert_eq!(values(&choices), ["<default>", "local", "<other>"]);
        assert_eq!(choices[1].0, "local → ollama:qwen3");
    }

    #[test]
    fn keyed_and_configured_providers_list_their_models() {
        let mut settings = Settings::default();
        settings.agents.default_model = Some("sonnet".into());
        settings.providers.insert(
            "vllm".into(),
            ProviderConfig {
                base_url: Some("http://127.0.0.1:8000/v1".into()),
                ..ProviderConfig::default()
            },
        );
        settings.providers.insert(
            "work".into(),
            ProviderConfig {
                kind: ProviderKind::Gemini,
                ..ProviderConfig::default()
            },
        );
        let choices = model_choices(&settings, &|var| var == "ANTHROPIC_API_KEY");
        assert_eq!(
            choices[0].0,
            "default: sonnet (settings agents.defaultModel)"
        );
        // vllm has a base URL of its own: its models are typed in.
        assert_eq!(
            values(&choices),
            [
                "<default>",
                "sonnet",
                "opus",
                "haiku",
                "work:gemini-2.5-pro",
                "work:gemini-2.5-flash",
                "anthropic:claude-sonnet-4-5",
                "anthropic:claude-opus-4-1",
                "anthropic:claude-haiku-4-5",
                "<other>",
            ]
        );
    }

    #[test]
    fn tools_and_names() {
        let mut settings = Settings::default();
        settings.mcp_servers.insert(
            "github".into(),
            serde_json::from_str(r#"{"command":"gh"}"#).unwrap(),
        );
        let tools = tool_choices(&settings);
        assert_eq!(tools.last().map(String::as_str), Some("mcp.github.*"));
        assert_eq!(mcp_server_of("mcp.github.*"), Some("github"));
        assert_eq!(mcp_server_of("grep"), None);
        assert_eq!(title_case("debug-analyzer"), "Debug Analyzer");
        assert_eq!(title_case("a2a"), "A2a");
    }
}

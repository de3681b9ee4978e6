//! The file format of one `settings.json`, kept apart from the resolved [`Settings`].
//!
//! Every key is optional so that a layer says only what it sets: a key that is absent (or
//! `null`) leaves the lower layers' value in place. Each file is deserialised on its own into
//! [`RawSettings`], which is what gives errors their file, line, column and key path.
//!
//! [`Settings`]: agentctl_core::Settings

mod claude;
mod gemini;
mod permissions;
mod tracing;
mod web;

use super::{ConfigError, ConfigWarning};
use agentctl_core::{
    ContextMode, McpServerConfig, NetworkAccess, ProviderKind, SandboxMode, Scope,
};
pub(super) use claude::{parse_claude_layer, parse_mcp_json};
pub(super) use gemini::parse_gemini_layer;
use permissions::RawPermissions;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroU64;
use std::path::Path;
use tracing::RawTracing;

/// One settings file as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSettings {
    /// Editors' schema hint; accepted without a warning, not used.
    #[serde(default, rename = "$schema", skip_serializing)]
    _schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agents: Option<Object<RawAgents>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mcp_servers: Option<BTreeMap<String, McpServerConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    providers: Option<BTreeMap<String, Object<RawProvider>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    aliases: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tools: Option<Object<RawTools>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    approvals: Option<Object<RawApprovals>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sandbox: Option<Object<RawSandbox>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    env: Option<Object<RawEnv>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    web: Option<Object<web::RawWeb>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    store: Option<Object<RawStore>>,
    /// Claude Code's hooks: checked by the hook loader, which reports what it cannot use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hooks: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    permissions: Option<Object<RawPermissions>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context: Option<Object<RawContext>>,
}

/// `context.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawContext {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    instruction_files: Option<Vec<String>>,
}

/// `store.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawStore {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

/// `agents.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawAgents {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default_context_mode: Option<ContextMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow_shared_context: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shared_context_max_messages: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    auto_route: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default_scope: Option<Scope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context_persistence: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    continue_session: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tracing: Option<RawTracing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default_agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_handoffs: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_parallel: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    orchestrator_note: Option<String>,
}

/// One value or a list of them, kept as written.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for Visitor<T> {
            type Value = OneOrMany<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name or a list of names")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<OneOrMany<T>, E> {
                T::deserialize(de::value::StrDeserializer::new(value)).map(OneOrMany::One)
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<OneOrMany<T>, A::Error> {
                Vec::<T>::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(OneOrMany::Many)
            }
        }

        deserializer.deserialize_any(Visitor(PhantomData))
    }
}

/// A number from 0 to 1 (a sample rate).
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub(super) struct UnitInterval(f64);

impl<'de> Deserialize<'de> for UnitInterval {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        if (0.0..=1.0).contains(&value) {
            Ok(Self(value))
        } else {
            Err(de::Error::custom(format!(
                "sample rate {value} is outside 0..=1 (0 traces no run, 1 every run)"
            )))
        }
    }
}

/// `providers.<name>` as written: fields merge one by one across layers.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawProvider {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kind: Option<ProviderKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    api_key_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    headers: Option<BTreeMap<String, String>>,
}

/// `tools.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTools {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    risk: Option<BTreeMap<String, String>>,
    /// Zero is refused here, with the file and line: a tool that must finish in no time
    /// cannot run at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout_seconds: Option<NonZeroU64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeouts: Option<BTreeMap<String, NonZeroU64>>,
}

/// `sandbox.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSandbox {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<SandboxMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network: Option<NetworkAccess>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    writable_roots: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    readable_roots: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    protected_paths: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mcp_servers: Option<RawMcpSandbox>,
}

/// `sandbox.mcpServers` as written: `true`/`false` sets `confine` only, so a later layer's
/// boolean does not drop the `unconfined` list of an earlier one.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct RawMcpSandbox {
    #[serde(skip_serializing_if = "Option::is_none")]
    confine: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unconfined: Option<Vec<String>>,
}

/// `sandbox.mcpServers` written as an object.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMcpSandboxObject {
    #[serde(default)]
    confine: Option<bool>,
    #[serde(default)]
    unconfined: Option<Vec<String>>,
}

impl<'de> Deserialize<'de> for RawMcpSandbox {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> de::Visitor<'de> for Visitor {
            type Value = RawMcpSandbox;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or an object {confine, unconfined}")
            }

            fn visit_bool<E: de::Error>(self, value: bool) -> Result<RawMcpSandbox, E> {
                Ok(RawMcpSandbox {
                    confine: Some(value),
                    unconfined: None,
                })
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RawMcpSandbox, A::Error> {
                let object =
                    RawMcpSandboxObject::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(RawMcpSandbox {
                    confine: object.confine,
                    unconfined: object.unconfined,
                })
            }
        }

        deserializer.deserialize_any(Visitor)
    }
}

/// `env.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEnv {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    passthrough: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    set: Option<BTreeMap<String, String>>,
}

/// `approvals.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawApprovals {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    auto_approve: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow_bypass_permissions: Option<bool>,
}

/// A struct that must be written as a JSON object.
///
/// Derived struct deserialisers also accept a JSON array, matching its items to the fields by
/// position, so `"agents": ["shared"]` would quietly set `agents.defaultContextMode`. Going
/// through `deserialize_map` refuses anything but an object, with a located error.
#[derive(Debug, Default, Serialize)]
#[serde(transparent)]
pub(super) struct Object<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }

        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

/// A settings file checked against the file format.
#[derive(Debug)]
pub(super) struct ParsedLayer {
    /// The keys the file sets, unknown keys and `null`s removed.
    pub value: Map<String, Value>,
    /// Keys agentctl does not know, which were ignored.
    pub warnings: Vec<ConfigWarning>,
}

/// Checks the text of the settings file at `path` and returns the keys it sets.
///
/// Empty or whitespace-only text counts as `{}`.
pub(super) fn parse_layer(path: &Path, text: &str) -> Result<ParsedLayer, ConfigError> {
    let (mut raw, unknown) = parse_as::<Object<RawSettings>>(path, text)?;
    let agents = raw.0.agents.as_mut().map(|agents| &mut agents.0);
    let mut warnings = unknown_keys(path, unknown);
    warnings.extend(unknown_values(path, agents));
    if let Some(permissions) = raw.0.permissions.as_mut() {
        warnings.extend(permissions.0.take_unmapped(path));
    }
    Ok(ParsedLayer {
        value: to_map(&raw),
        warnings,
    })
}

/// The text of a settings file as `T`, with the dotted paths of the keys `T` ignored.
fn parse_as<T: DeserializeOwned>(path: &Path, text: &str) -> Result<(T, Vec<String>), ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = if text.trim().is_empty() { "{}" } else { text };
    let mut unknown = Vec::new();
    let mut json = serde_json::Deserializer::from_str(text);
    let mut note_unknown = |key: serde_ignored::Path<'_>| unknown.push(dotted(&key));
    let tracked = serde_ignored::Deserializer::new(&mut json, &mut note_unknown);
    let raw: T = serde_path_to_error::deserialize(tracked).map_err(|error| located(path, error))?;
    json.end().map_err(|error| parse_error(path, &error))?;
    Ok((raw, unknown))
}

/// The keys a parsed layer sets.
fn to_map(raw: &impl Serialize) -> Map<String, Value> {
    match serde_json::to_value(raw) {
        Ok(Value::Object(map)) => map,
        // Serialising these types cannot fail (every map key is a string) and always gives
        // an object; fall back to "sets nothing" rather than panic.
        _ => Map::new(),
    }
}

fn unknown_keys(path: &Path, keys: Vec<String>) -> Vec<ConfigWarning> {
    keys.into_iter()
        .map(|key| ConfigWarning::UnknownKey {
            path: path.to_path_buf(),
            key,
        })
        .collect()
}

/// Values left out of `agents` because agentctl does not know them (tracing backends).
fn unknown_values(path: &Path, agents: Option<&mut RawAgents>) -> Vec<ConfigWarning> {
    agents
        .and_then(|agents| agents.tracing.as_mut())
        .map(RawTracing::take_unknown_backends)
        .unwrap_or_default()
        .into_iter()
        .map(|value| ConfigWarning::UnknownValue {
            path: path.to_path_buf(),
            key: "agents.tracing.backend".to_owned(),
            value,
            expected: tracing::BACKENDS_EXPECTED.to_owned(),
        })
        .collect()
}

/// `agents.colour` for serde_ignored's path (whose own rendering shows `Option`s as `?`).
fn dotted(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    let (parent, segment) = match path {
        Path::Root => return String::new(),
        Path::Seq { parent, index } => (parent, index.to_string()),
        Path::Map { parent, key } => (parent, key.clone()),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => return dotted(parent),
    };
    let parent = dotted(parent);
    if parent.is_empty() {
        segment
    } else {
        format!("{parent}.{segment}")
    }
}

fn located(path: &Path, error: serde_path_to_error::Error<serde_json::Error>) -> ConfigError {
    let key = error.path().to_string();
    let inner = error.into_inner();
    if !inner.is_data() {
        return parse_error(path, &inner);
    }
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line: inner.line(),
        column: inner.column(),
        key: (key != ".").then_some(key),
        message: bare_message(&inner),
    }
}

fn parse_error(path: &Path, error: &serde_json::Error) -> ConfigError {
    ConfigError::Parse {
        path: path.to_path_buf(),
        line: error.line(),
        column: error.column(),
        message: bare_message(error),
    }
}

/// serde_json's message without the ` at line L column C` it appends; the error carries the
/// position in its own fields.
fn bare_message(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(bare) => bare.to_owned(),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Result<ParsedLayer, ConfigError> {
        parse_layer(Path::new("/p/settings.json"), text)
    }

    #[test]
    fn empty_text_sets_nothing() {
        for text in ["", "  \n\t", "\u{feff}", "{}"] {
            let layer = parse(text).unwrap();
            assert!(layer.value.is_empty(), "{text:?}");
            assert!(layer.warnings.is_empty());
        }
    }

    #[test]
    fn only_written_keys_are_kept() {
        let layer = parse(
            r#"{"$schema": "x", "agents": {"tracing": true, "defaultModel": null},
                "providers": {"local": {"baseUrl": "http://localhost:11434/v1"}}}"#,
        )
        .unwrap();
        assert_eq!(
            Value::Object(layer.value),
            json!({"agents": {"tracing": true},
                   "providers": {"local": {"baseUrl": "http://localhost:11434/v1"}}})
        );
    }

    #[test]
    fn unknown_keys_are_warnings_with_their_path() {
        let layer = parse(r#"{"agents": {"tracing": true, "colour": "red"}, "theme": 1}"#).unwrap();
        let keys: Vec<_> = layer
            .warnings
            .iter()
            .map(|warning| match warning {
                ConfigWarning::UnknownKey { key, .. } => key.as_str(),
                other => panic!("not an unknown key: {other}"),
            })
            .collect();
        assert_eq!(keys, ["agents.colour", "theme"]);
        assert_eq!(
            Value::Object(layer.value),
            json!({"agents": {"tracing": true}})
        );
    }

    #[test]
    fn sandbox_env_and_timeouts_are_read() {
        let layer = parse(
            r#"{"sandbox": {"mode": "read-only", "network": false, "writableRoots": ["~/.cargo"],
                            "mcpServers": true, "colour": 1},
                "env": {"passthrough": ["GITHUB_TOKEN"]},
                "tools": {"timeoutSeconds": 30, "timeouts": {"bash": 900}}}"#,
        )
        .unwrap();
        assert_eq!(
            Value::Object(layer.value),
            json!({"sandbox": {"mode": "read-only", "network": false,
                               "writableRoots": ["~/.cargo"], "mcpServers": {"confine": true}},
                   "env": {"passthrough": ["GITHUB_TOKEN"]},
                   "tools": {"timeoutSeconds": 30, "timeouts": {"bash": 900}}})
        );
        assert_eq!(
            layer.warnings,
            [ConfigWarning::UnknownKey {
                path: "/p/settings.json".into(),
                key: "sandbox.colour".into()
            }]
        );
    }

    #[test]
    fn sandbox_network_allow_lists_and_roots_are_read() {
        let layer = parse(
            r#"{"sandbox": {"network": {"allow": ["*.Example.org", "localhost:8443"], "x": 1},
                            "readableRoots": ["~/.config/gh"], "protectedPaths": ["deploy"]}}"#,
        )
        .unwrap();
        assert_eq!(
            Value::Object(layer.value),
            json!({"sandbox": {"network": {"allow": ["*.example.org", "localhost:8443"]},
                               "readableRoots": ["~/.config/gh"], "protectedPaths": ["deploy"]}})
        );
        assert_eq!(
            layer.warnings,
            [ConfigWarning::UnknownKey {
                path: "/p/settings.json".into(),
                key: "sandbox.network.x".into()
            }]
        );
        let error = parse(r#"{"sandbox": {"network": {"allow": ["*.10.0.0.1"]}}}"#).unwrap_err();
        assert!(
            error.to_string().contains("sandbox.network.allow[0]")
                || error.to_string().contains("sandbox.network.allow.0"),
            "{error}"
        );
        let error = parse(r#"{"sandbox": {"network": "yes"}}"#).unwrap_err();
        assert!(error.to_string().contains("sandbox.network"), "{error}");
    }

    #[test]
    fn bad_sandbox_mode_and_zero_timeouts_are_located_errors() {
        let error = parse(r#"{"sandbox": {"mode": "yolo"}}"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "/p/settings.json:1:27: sandbox.mode: unknown variant `yolo`, expected one of \
             `workspace-write`, `read-only`, `off`"
        );
        let error = parse(r#"{"tools": {"timeouts": {"bash": 0}}}"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "/p/settings.json:1:33: tools.timeouts.bash: invalid value: integer `0`, expected a nonzero u64"
        );
        let error = parse(r#"{"tools": {"timeoutSeconds": -5}}"#).unwrap_err();
        assert!(
            error.to_string().contains("tools.timeoutSeconds"),
            "{error}"
        );
    }

    #[test]
    fn orchestrator_note_is_read_and_a_non_string_is_a_located_error() {
        let layer = parse(r#"{"agents": {"orchestratorNote": "Prefer reviewers."}}"#).unwrap();
        assert_eq!(
            Value::Object(layer.value),
            json!({"agents": {"orchestratorNote": "Prefer reviewers."}})
        );
        let error = parse("{\"agents\": {\n  \"orchestratorNote\": [1]}}").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/p/settings.json:2:22: agents.orchestratorNote: invalid type: sequence, expected a string"
        );
    }

    #[test]
    fn trailing_text_is_a_syntax_error() {
        let error = parse("{} x").unwrap_err();
        assert!(
            matches!(
                error,
                ConfigError::Parse {
                    line: 1,
                    column: 4,
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn a_non_object_file_is_a_type_error_without_key() {
        let error = parse("[1]").unwrap_err();
        assert!(
            matches!(error, ConfigError::Invalid { key: None, .. }),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .ends_with("invalid type: sequence, expected an object")
        );
    }

    #[test]
    fn a_section_written_as_an_array_is_refused() {
        let error = parse("{\n  \"agents\": [\"shared\"]\n}").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/p/settings.json:2:12: agents: invalid type: sequence, expected an object"
        );
    }
}

//! Errors name the file, the line and column, and for a value of the wrong type the key.

use super::support::Sandbox;
use agentctl_config::{ConfigError, load_settings};

#[test]
fn bad_json_names_file_line_and_column() {
    let sandbox = Sandbox::new();
    let path = sandbox.write_project(
        "{\n  \"agents\": {\n    \"tracing\": true,\n    \"autoRoute\": true \"x\"\n  }\n}\n",
    );
    let error = load_settings(&sandbox.locations()).unwrap_err();
    assert!(
        matches!(
            error,
            ConfigError::Parse {
                line: 4,
                column: 23,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!("{}:4:23: expected `,` or `}}`", path.display())
    );
}

#[test]
fn truncated_json_is_a_parse_error() {
    let sandbox = Sandbox::new();
    let path = sandbox.write_global("{\"agents\": {");
    let error = load_settings(&sandbox.locations()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{}:1:12: EOF while parsing an object", path.display())
    );
}

#[test]
fn a_wrong_type_names_file_position_and_key() {
    let sandbox = Sandbox::new();
    let path = sandbox
        .write_project("{\n  \"agents\": {\n    \"sharedContextMaxMessages\": \"many\"\n  }\n}\n");
    let error = load_settings(&sandbox.locations()).unwrap_err();
    let ConfigError::Invalid { key, line, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(key.as_deref(), Some("agents.sharedContextMaxMessages"));
    assert_eq!(*line, 3);
    assert_eq!(
        error.to_string(),
        format!(
            "{}:3:38: agents.sharedContextMaxMessages: invalid type: string \"many\", expected u32",
            path.display()
        )
    );
}

#[test]
fn bad_values_deep_in_maps_and_enums_are_located() {
    let cases = [
        (
            r#"{"agents": {"defaultContextMode": "parallel"}}"#,
            "agents.defaultContextMode: unknown variant `parallel`, expected one of `isolated`, `shared`, `run`",
        ),
        (
            r#"{"providers": {"local": {"kind": "ollama"}}}"#,
            "providers.local.kind: unknown variant `ollama`, expected one of `openai`, `anthropic`, `gemini`",
        ),
        (
            r#"{"aliases": {"fast": 3}}"#,
            "aliases.fast: invalid type: integer `3`, expected a string",
        ),
        (
            r#"{"approvals": {"autoApprove": "safe"}}"#,
            "approvals.autoApprove: invalid type: string \"safe\", expected a sequence",
        ),
        (
            r#"{"agents": {"sharedContextMaxMessages": -1}}"#,
            "agents.sharedContextMaxMessages: invalid value: integer `-1`, expected u32",
        ),
        (
            r#"{"tools": true}"#,
            "tools: invalid type: boolean `true`, expected an object",
        ),
    ];
    for (text, expected) in cases {
        let sandbox = Sandbox::new();
        sandbox.write_global(text);
        let error = load_settings(&sandbox.locations()).unwrap_err().to_string();
        assert!(
            error.ends_with(expected),
            "{text}\n  gave {error}\n  want …{expected}"
        );
        assert!(
            error.starts_with(&format!("{}:1:", sandbox.global_file().display())),
            "{error}"
        );
    }
}

#[test]
fn a_directory_in_place_of_the_file_names_its_path() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.global_file()).unwrap();
    let error = load_settings(&sandbox.locations()).unwrap_err();
    assert!(matches!(error, ConfigError::Read(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is a directory, not a regular file",
            sandbox.global_file().display()
        )
    );
}

#[test]
fn non_utf8_text_is_a_located_read_error() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.project_file(), b"{\"aliases\": {\"x\": \"\xff\"}}").unwrap();
    let error = load_settings(&sandbox.locations()).unwrap_err();
    assert!(matches!(error, ConfigError::Read(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "{}:1:20: the file is not valid UTF-8 (byte offset 19): save it as UTF-8",
            sandbox.project_file().display()
        )
    );
}

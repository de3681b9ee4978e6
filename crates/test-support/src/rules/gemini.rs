//! Gemini `generateContent` / `streamGenerateContent` (`POST /v1beta/models/{model}:…`).
//!
//! Rules and wording, from the API reference (`generativelanguage.v1beta`) and the errors it is
//! known to return:
//! - `FunctionDeclaration.name`: "Must start with a letter or an underscore. Must be a-z, A-Z,
//!   0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64";
//! - `parameters` is a `Schema`, a subset of OpenAPI 3.0: any other key is refused
//!   (`Invalid JSON payload received. Unknown name "additionalProperties" at '…': Cannot find
//!   field.`), `type` is one name, not a list (`Proto field is not repeating, cannot start
//!   list`), `enum` values are strings, and `…properties: should be non-empty for OBJECT type`;
//! - `Please use a valid role: user, model.`, `contents.parts must not be empty`, and a part
//!   carries exactly one kind of data (`required oneof field 'data' must have one initialized
//!   field`; an empty `text` counts as none);
//! - `parametersJsonSchema` (JSON Schema, "must describe an object") is the alternative to
//!   `parameters`: "This field is mutually exclusive with parameters";
//! - `Please ensure that function call turn comes immediately after a user turn or after a
//!   function response turn.`, `Please ensure that function response turn comes immediately
//!   after a function call turn.`, `Please ensure that the number of function response parts
//!   is equal to the number of function call parts of the function call turn.`; responses are
//!   matched to calls by name, and `functionResponse.response` is a JSON object (a `Struct`);
//! - Gemini 3 and later: in the current turn (since the last user prompt), each model step
//!   that calls functions carries the `thoughtSignature` it came with on its first
//!   `functionCall` part — else `Function call is missing a thought_signature in functionCall
//!   parts.` (earlier models do not check).

use super::{Checker, NameRule, duplicates, kind, str_at};
use crate::wire::RecordedRequest;
use serde_json::{Map, Value};

const NAMES: NameRule = NameRule {
    extra: "_.:-",
    letter_first: true,
    max: 64,
};

/// The fields of `generativelanguage.v1beta.Schema`.
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

const TYPES: &[&str] = &[
    "TYPE_UNSPECIFIED",
    "STRING",
    "NUMBER",
    "INTEGER",
    "BOOLEAN",
    "ARRAY",
    "OBJECT",
    "NULL",
];

/// Data fields of a `Part` (exactly one must be set).
const PART_DATA: &[&str] = &[
    "text",
    "inlineData",
    "functionCall",
    "functionResponse",
    "fileData",
    "executableCode",
    "codeExecutionResult",
];

pub(super) fn check(request: &RecordedRequest, checker: &mut Checker) {
    let path = request.path.split('?').next().unwrap_or_default();
    let (model, method) = path
        .strip_prefix("/v1beta/models/")
        .and_then(|rest| rest.split_once(':'))
        .unzip();
    if !matches!(method, Some("generateContent" | "streamGenerateContent")) {
        checker.fail(
            "path",
            format!(
                "Not Found: POST {} (expected /v1beta/models/MODEL:generateContent or :streamGenerateContent)",
                request.path
            ),
        );
        return;
    }
    let body = &request.body;
    if let Some(tools) = body.get("tools") {
        check_tools(tools, checker);
    }
    if let Some(system) = body.get("systemInstruction") {
        check_parts("systemInstruction", system, checker);
    }
    if let Some(config) = body.get("generationConfig") {
        if let Some(temperature) = config.get("temperature")
            && !temperature
                .as_f64()
                .is_some_and(|value| (0.0..=2.0).contains(&value))
        {
            checker.fail("generationConfig.temperature", format!("* GenerateContentRequest.generation_config.temperature: must be between 0 and 2 (got {temperature})"));
        }
        if let Some(tokens) = config.get("maxOutputTokens")
            && tokens.as_u64().is_none_or(|tokens| tokens == 0)
        {
            checker.fail("generationConfig.maxOutputTokens", format!("* GenerateContentRequest.generation_config.max_output_tokens: must be a positive integer (got {tokens})"));
        }
    }
    match body.get("contents").and_then(Value::as_array) {
        Some(contents) if !contents.is_empty() => {
            check_contents(contents, checker);
            if model.is_some_and(signs_calls) {
                check_signatures(contents, checker);
            }
        }
        _ => checker.fail(
            "contents",
            "* GenerateContentRequest.contents: contents is not specified",
        ),
    }
}

fn check_name(at: &str, name: Option<&str>, checker: &mut Checker) {
    if name.is_none_or(|name| NAMES.check(name).is_some()) {
        checker.fail(at, format!("* GenerateContentRequest.{at}: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64 (got {name:?})."));
    }
}

fn check_tools(tools: &Value, checker: &mut Checker) {
    let mut names = Vec::new();
    for (t, tool) in tools.as_array().into_iter().flatten().enumerate() {
        let declarations = tool.get("functionDeclarations").and_then(Value::as_array);
        for (d, declaration) in declarations.into_iter().flatten().enumerate() {
            let at = format!("tools[{t}].function_declarations[{d}]");
            let name = str_at(declaration, "name");
            check_name(&format!("{at}.name"), name, checker);
            names.extend(name);
            if let Some(parameters) = declaration.get("parameters") {
                let at = format!("{at}.parameters");
                if !str_at(parameters, "type")
                    .is_some_and(|kind| kind.eq_ignore_ascii_case("object"))
                {
                    checker.fail(&at, format!("* GenerateContentRequest.{at}.type: parameters must be an OBJECT schema (got {})", parameters.get("type").map_or("nothing".into(), Value::to_string)));
                }
                check_schema(&at, parameters, checker);
            }
            if let Some(schema) = declaration.get("parametersJsonSchema") {
                if declaration.get("parameters").is_some() {
                    checker.fail(format!("{at}.parametersJsonSchema"), format!("* GenerateContentRequest.{at}: parameters and parameters_json_schema are mutually exclusive"));
                }
                if str_at(schema, "type") != Some("object") {
                    checker.fail(format!("{at}.parametersJsonSchema"), format!("* GenerateContentRequest.{at}.parameters_json_schema: the schema must describe an object (got type {})", schema.get("type").map_or("nothing".into(), Value::to_string)));
                }
            }
        }
    }
    for name in duplicates(names) {
        checker.fail(
            "tools",
            format!("* GenerateContentRequest.tools: Duplicate function declaration found: {name}"),
        );
    }
}

/// One `Schema`, recursively.
fn check_schema(at: &str, schema: &Value, checker: &mut Checker) {
    let Some(map) = schema.as_object() else {
        checker.fail(
            at,
            format!(
                "Invalid JSON payload received. Expected an object at '{at}' (got {}).",
                kind(schema)
            ),
        );
        return;
    };
    for (key, value) in map {
        if !SCHEMA_KEYS.contains(&key.as_str()) {
            checker.fail(
                format!("{at}.{key}"),
                format!("Invalid JSON payload received. Unknown name \"{key}\" at '{at}': Cannot find field."),
            );
            continue;
        }
        match key.as_str() {
            "type" => match value.as_str() {
                Some(name) if TYPES.iter().any(|known| known.eq_ignore_ascii_case(name)) => {}
                Some(name) => checker.fail(format!("{at}.type"), format!("Invalid value at '{at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), \"{name}\"")),
                None if value.is_array() => checker.fail(format!("{at}.type"), format!("Invalid JSON payload received. Unknown name \"type\" at '{at}': Proto field is not repeating, cannot start list.")),
                None => checker.fail(format!("{at}.type"), format!("Invalid value at '{at}.type': expected a type name (got {})", kind(value))),
            },
            "enum"
                if !value
                    .as_array()
                    .is_some_and(|values| values.iter().all(Value::is_string)) =>
            {
                checker.fail(format!("{at}.enum"), format!("Invalid value at '{at}.enum' (TYPE_STRING): enum values must be strings (got {value})"));
            }
            "properties" => {
                for (name, property) in value.as_object().into_iter().flatten() {
                    check_schema(&format!("{at}.properties[\"{name}\"]"), property, checker);
                }
            }
            "items" => check_schema(&format!("{at}.items"), value, checker),
            "anyOf" => {
                for (i, option) in value.as_array().into_iter().flatten().enumerate() {
                    check_schema(&format!("{at}.anyOf[{i}]"), option, checker);
                }
            }
            _ => {}
        }
    }
    let is_object = map
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.eq_ignore_ascii_case("object"));
    let no_properties = map
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if is_object && no_properties {
        checker.fail(
            format!("{at}.properties"),
            format!(
                "* GenerateContentRequest.{at}.properties: should be non-empty for OBJECT type"
            ),
        );
    }
}

/// A `Content`'s parts: present, non-empty, one kind of data each.
fn check_parts(at: &str, content: &Value, checker: &mut Checker) -> Vec<Value> {
    let parts = content
        .get("parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if parts.is_empty() {
        checker.fail(
            format!("{at}.parts"),
            format!("* GenerateContentRequest.{at}.parts: contents.parts must not be empty."),
        );
    }
    for (p, part) in parts.iter().enumerate() {
        let set: Vec<&str> = PART_DATA
            .iter()
            .copied()
            .filter(|field| match part.get(*field) {
                None | Some(Value::Null) => false,
                Some(Value::String(text)) => !text.is_empty(),
                Some(_) => true,
            })
            .collect();
        if set.len() != 1 {
            checker.fail(
                format!("{at}.parts[{p}]"),
                format!("* GenerateContentRequest.{at}.parts[{p}].data: required oneof field 'data' must have one initialized field (found {set:?})"),
            );
        }
    }
    parts
}

/// What a turn is, for the pairing rules.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Turn {
    /// A user turn with no function responses.
    User,
    /// A model turn calling these functions.
    Calls(Vec<String>),
    /// A model turn without calls.
    Model,
    /// A user turn answering with these functions' responses.
    Responses(Vec<String>),
}

fn check_contents(contents: &[Value], checker: &mut Checker) {
    let mut previous: Option<Turn> = None;
    for (i, content) in contents.iter().enumerate() {
        let at = format!("contents[{i}]");
        let role = str_at(content, "role").unwrap_or("user");
        if role != "user" && role != "model" {
            checker.fail(
                format!("{at}.role"),
                format!("Please use a valid role: user, model. (got '{role}' at {at})"),
            );
        }
        let parts = check_parts(&at, content, checker);
        let mut calls = Vec::new();
        let mut responses = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            if let Some(call) = part.get("functionCall") {
                let name = str_at(call, "name");
                check_name(
                    &format!("{at}.parts[{p}].function_call.name"),
                    name,
                    checker,
                );
                calls.extend(name.map(str::to_owned));
                if let Some(args) = call.get("args")
                    && !args.is_object()
                {
                    checker.fail(format!("{at}.parts[{p}].functionCall.args"), format!("Invalid value at '{at}.parts[{p}].function_call.args' (type.googleapis.com/google.protobuf.Struct), {args}"));
                }
            }
            if let Some(response) = part.get("functionResponse") {
                let name = str_at(response, "name");
                check_name(
                    &format!("{at}.parts[{p}].function_response.name"),
                    name,
                    checker,
                );
                responses.extend(name.map(str::to_owned));
                if !response.get("response").is_some_and(Value::is_object) {
                    checker.fail(format!("{at}.parts[{p}].functionResponse.response"), format!("Invalid value at '{at}.parts[{p}].function_response.response' (type.googleapis.com/google.protobuf.Struct): must be a JSON object (got {})", response.get("response").map_or("nothing", kind)));
                }
            }
        }
        if role == "model" && !responses.is_empty() {
            checker.fail(
                format!("{at}.parts"),
                format!(
                    "{at}: a model turn cannot carry functionResponse parts; they go in a user turn"
                ),
            );
        }
        if role == "user" && !calls.is_empty() {
            checker.fail(
                format!("{at}.parts"),
                format!(
                    "{at}: a user turn cannot carry functionCall parts; they go in a model turn"
                ),
            );
        }
        let turn = match (role, calls.is_empty(), responses.is_empty()) {
            ("model", false, _) => Turn::Calls(calls),
            ("model", true, _) => Turn::Model,
            (_, _, false) => Turn::Responses(responses),
            _ => Turn::User,
        };
        check_order(i, previous.as_ref(), &turn, checker);
        previous = Some(turn);
    }
}

/// Whether `model` signs its function calls and checks the signatures: Gemini 3 and later.
fn signs_calls(model: &str) -> bool {
    model
        .strip_prefix("gemini-")
        .and_then(|rest| rest.split(['.', '-']).next())
        .and_then(|major| major.parse::<u32>().ok())
        .is_some_and(|major| major >= 3)
}

/// Each step of the current turn that calls functions carries its signature on its first
/// call (the turn starts at the last user content that is not function responses).
fn check_signatures(contents: &[Value], checker: &mut Checker) {
    let parts = |content: &Value| {
        content
            .get("parts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let prompt = contents.iter().rposition(|content| {
        str_at(content, "role").unwrap_or("user") == "user"
            && !parts(content)
                .iter()
                .any(|part| part.get("functionResponse").is_some())
    });
    let start = prompt.map_or(0, |index| index + 1);
    for (i, content) in contents.iter().enumerate().skip(start) {
        let parts = parts(content);
        let Some((p, part)) = parts
            .iter()
            .enumerate()
            .find(|(_, part)| part.get("functionCall").is_some())
        else {
            continue;
        };
        if part
            .get("thoughtSignature")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            let name = part
                .pointer("/functionCall/name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            checker.fail(
                format!("contents[{i}].parts[{p}].thoughtSignature"),
                format!("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:{name}` , position {}.", p + 1),
            );
        }
    }
}

fn check_order(i: usize, previous: Option<&Turn>, turn: &Turn, checker: &mut Checker) {
    match (previous, turn) {
        (Some(Turn::User | Turn::Responses(_)), Turn::Calls(_)) => {}
        (_, Turn::Calls(_)) => checker.fail(format!("contents[{i}]"), format!("Please ensure that function call turn comes immediately after a user turn or after a function response turn. (contents[{i}])")),
        (Some(Turn::Calls(calls)), Turn::Responses(responses)) => {
            if calls.len() != responses.len() {
                checker.fail(format!("contents[{i}]"), format!("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. (contents[{i}] has {} responses for {} calls)", responses.len(), calls.len()));
            } else {
                let mut expected = calls.clone();
                let mut got = responses.clone();
                expected.sort();
                got.sort();
                if expected != got {
                    checker.fail(format!("contents[{i}]"), format!("contents[{i}]: the function responses ({}) do not match the calls of the previous turn ({})", got.join(", "), expected.join(", ")));
                }
            }
        }
        (_, Turn::Responses(_)) => checker.fail(format!("contents[{i}]"), format!("Please ensure that function response turn comes immediately after a function call turn. (contents[{i}])")),
        _ => {}
    }
}

#[cfg(test)]
mod tests;

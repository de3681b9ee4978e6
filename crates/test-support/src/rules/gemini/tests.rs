//! Each Gemini rule: a request it accepts and one it refuses.

use crate::WireFormat;
use crate::rules::testing;
use serde_json::{Value, json};

const PATH: &str = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";

fn valid() -> Value {
    json!({
        "contents": [
            {"role": "user", "parts": [{"text": "read both"}]},
            {"role": "model", "parts": [
                {"text": "Reading."},
                {"functionCall": {"name": "read_file", "args": {"path": "a"}}},
                {"functionCall": {"name": "mcp.s.tool", "args": {}}},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "mcp.s.tool", "response": {"error": "gone"}}},
                {"functionResponse": {"name": "read_file", "response": {"result": "A"}}},
            ]},
            {"role": "model", "parts": [{"text": "Done."}]},
            {"role": "user", "parts": [{"text": "thanks"}]},
        ],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [{"functionDeclarations": [
            {"name": "read_file", "description": "Reads a file", "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "nullable": true},
                               "mode": {"type": "STRING", "enum": ["a", "b"]}},
                "required": ["path"]}},
            {"name": "mcp.s.tool", "description": "Takes no arguments"},
        ]}],
        "generationConfig": {"temperature": 0.5, "maxOutputTokens": 100},
    })
}

fn accepted(change: impl FnOnce(&mut Value)) {
    let mut body = valid();
    change(&mut body);
    testing::accepted(WireFormat::Gemini, PATH, body);
}

fn refused(change: impl FnOnce(&mut Value), at: &str, text: &str) {
    testing::refused(WireFormat::Gemini, PATH, valid(), change, at, text);
}

const DECLARATION: &str = "tools[0].function_declarations[0]";

#[test]
fn a_well_formed_conversation_is_accepted() {
    accepted(|_| {});
    testing::accepted(
        WireFormat::Gemini,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        valid(),
    );
}

#[test]
fn function_names_follow_geminis_rule() {
    // Dots, colons and dashes are fine; the first character is a letter or `_`.
    accepted(|body| body["tools"][0]["functionDeclarations"][0]["name"] = json!("_a.b:c-d"));
    refused(
        |body| body["tools"][0]["functionDeclarations"][0]["name"] = json!("7zip"),
        &format!("{DECLARATION}.name"),
        "Invalid function name. Must start with a letter or an underscore.",
    );
    refused(
        |body| body["tools"][0]["functionDeclarations"][0]["name"] = json!("a/b"),
        &format!("{DECLARATION}.name"),
        "Invalid function name",
    );
    accepted(|body| body["tools"][0]["functionDeclarations"][0]["name"] = json!("a".repeat(64)));
    refused(
        |body| body["tools"][0]["functionDeclarations"][0]["name"] = json!("a".repeat(65)),
        &format!("{DECLARATION}.name"),
        "with a maximum length of 64",
    );
    refused(
        |body| body["contents"][1]["parts"][1]["functionCall"]["name"] = json!("read file"),
        "contents[1].parts[1].function_call.name",
        "Invalid function name",
    );
}

#[test]
fn declarations_are_unique() {
    refused(
        |body| {
            let declarations = body["tools"][0]["functionDeclarations"]
                .as_array_mut()
                .unwrap();
            declarations.push(declarations[0].clone());
        },
        "tools",
        "Duplicate function declaration found: read_file",
    );
}

#[test]
fn parameters_use_the_openapi_subset() {
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][0]["parameters"]["additionalProperties"] =
                json!(false)
        },
        &format!("{DECLARATION}.parameters.additionalProperties"),
        "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters': Cannot find field.",
    );
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["path"]["type"] =
                json!(["string", "null"])
        },
        &format!("{DECLARATION}.parameters.properties[\"path\"].type"),
        "Proto field is not repeating, cannot start list.",
    );
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["mode"]["enum"] =
                json!([1, 2])
        },
        &format!("{DECLARATION}.parameters.properties[\"mode\"].enum"),
        "enum values must be strings",
    );
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["path"]["type"] =
                json!("text")
        },
        &format!("{DECLARATION}.parameters.properties[\"path\"].type"),
        "Invalid value at",
    );
}

#[test]
fn object_schemas_have_properties() {
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][0]["parameters"] =
                json!({"type": "object", "properties": {}})
        },
        &format!("{DECLARATION}.parameters.properties"),
        "parameters.properties: should be non-empty for OBJECT type",
    );
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["meta"] =
                json!({"type": "OBJECT"})
        },
        &format!("{DECLARATION}.parameters.properties[\"meta\"].properties"),
        "should be non-empty for OBJECT type",
    );
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][0]["parameters"] = json!({"type": "string"})
        },
        &format!("{DECLARATION}.parameters"),
        "parameters must be an OBJECT schema",
    );
}

#[test]
fn roles_are_user_or_model() {
    refused(
        |body| body["contents"][3]["role"] = json!("assistant"),
        "contents[3].role",
        "Please use a valid role: user, model.",
    );
}

#[test]
fn parts_are_present_and_hold_one_thing() {
    refused(
        |body| body["contents"][3]["parts"] = json!([]),
        "contents[3].parts",
        "contents.parts must not be empty.",
    );
    refused(
        |body| body["contents"][4]["parts"][0]["text"] = json!(""),
        "contents[4].parts[0]",
        "required oneof field 'data' must have one initialized field",
    );
    refused(
        |body| body["contents"] = json!([]),
        "contents",
        "contents is not specified",
    );
}

#[test]
fn function_responses_pair_with_the_calls_before_them() {
    refused(
        |body| {
            body["contents"][2]["parts"].as_array_mut().unwrap().pop();
        },
        "contents[2]",
        "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    );
    refused(
        |body| body["contents"][2]["parts"][0]["functionResponse"]["name"] = json!("other"),
        "contents[2]",
        "do not match the calls of the previous turn",
    );
    refused(
        |body| body["contents"][4] = valid()["contents"][2].clone(),
        "contents[4]",
        "Please ensure that function response turn comes immediately after a function call turn.",
    );
    refused(
        |body| body["contents"][2]["parts"][0]["functionResponse"]["response"] = json!("text"),
        "contents[2].parts[0].functionResponse.response",
        "must be a JSON object",
    );
}

#[test]
fn function_calls_follow_a_user_turn_or_responses() {
    refused(
        |body| {
            let contents = body["contents"].as_array_mut().unwrap();
            contents.insert(1, json!({"role": "model", "parts": [{"text": "Hm."}]}));
        },
        "contents[2]",
        "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
    );
}

#[test]
fn the_path_and_generation_config_are_checked() {
    let found = testing::violations(WireFormat::Gemini, "/v1/models/x:generate", valid());
    assert_eq!(found[0].at, "path", "{found:?}");
    refused(
        |body| body["generationConfig"]["temperature"] = json!(3),
        "generationConfig.temperature",
        "must be between 0 and 2",
    );
}

#[test]
fn json_schema_parameters_describe_an_object_and_come_alone() {
    let schema = json!({"type": "object", "properties": {"env": {"type": "object",
                        "additionalProperties": {"type": "string"}}}});
    accepted(|body| {
        let declaration = &mut body["tools"][0]["functionDeclarations"][0];
        declaration.as_object_mut().unwrap().remove("parameters");
        declaration["parametersJsonSchema"] = schema.clone();
    });
    refused(
        |body| body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"] = schema.clone(),
        &format!("{DECLARATION}.parametersJsonSchema"),
        "parameters and parameters_json_schema are mutually exclusive",
    );
    refused(
        |body| {
            body["tools"][0]["functionDeclarations"][1]["parametersJsonSchema"] =
                json!({"type": "string"})
        },
        "tools[0].function_declarations[1].parametersJsonSchema",
        "the schema must describe an object",
    );
}

#[test]
fn gemini_3_calls_of_the_current_turn_carry_their_signatures() {
    const GEMINI_3: &str = "/v1beta/models/gemini-3-pro-preview:generateContent";
    // The current turn: the prompt, a step calling two functions, their responses.
    let turn = || {
        let mut body = valid();
        body["contents"].as_array_mut().unwrap().truncate(3);
        body
    };
    let missing = "Function call is missing a thought_signature in functionCall parts.";
    testing::refused(
        WireFormat::Gemini,
        GEMINI_3,
        turn(),
        |_| {},
        "contents[1].parts[1].thoughtSignature",
        missing,
    );
    // Signed on its first call: parallel calls after it need none.
    let mut signed = turn();
    signed["contents"][1]["parts"][1]["thoughtSignature"] = json!("c2lnbmF0dXJl");
    testing::accepted(WireFormat::Gemini, GEMINI_3, signed);
    testing::refused(
        WireFormat::Gemini,
        "/v1beta/models/gemini-3.1-flash:streamGenerateContent",
        turn(),
        |body| body["contents"][1]["parts"][1]["thoughtSignature"] = json!(""),
        "contents[1].parts[1].thoughtSignature",
        missing,
    );
    // Calls of earlier turns (before the last prompt) are not checked; nor are earlier models.
    testing::accepted(WireFormat::Gemini, GEMINI_3, valid());
    testing::accepted(WireFormat::Gemini, PATH, turn());
}

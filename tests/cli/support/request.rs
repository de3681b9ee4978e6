//! Reading the requests the strict OpenAI fake received (Chat Completions bodies).

use serde_json::Value;

/// The names of the tools a request offered, in order.
pub fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The tool results a request carried, in order.
pub fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The system prompt (the first message).
pub fn system_prompt(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_owned()
}

/// Every message a request carried, as one string (system prompt and history).
pub fn messages_text(body: &Value) -> String {
    body["messages"].to_string()
}

/// The content of the tool message answering `call_id` in a request.
pub fn tool_message(body: &Value, call_id: &str) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool" && message["tool_call_id"] == call_id)
        .and_then(|message| message["content"].as_str())
        .unwrap_or_else(|| panic!("no result of {call_id} in {body}"))
        .to_owned()
}

//! Turning MCP results into text for the model, and rmcp's types into agentctl's own (so that
//! rmcp never leaks through the public API).

use serde::Serialize;
use serde_json::Value;

/// One resource a server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, if the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// The content of a resource (one of possibly several parts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContent {
    /// URI of this part.
    pub uri: String,
    /// MIME type, if the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text of a text resource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 data of a binary resource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// A prompt template a server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptInfo {
    /// The prompt's name.
    pub name: String,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    pub arguments: Vec<PromptArgumentInfo>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgumentInfo {
    /// Argument name.
    pub name: String,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

/// One message of a rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptMessageInfo {
    /// `user` or `assistant`.
    pub role: String,
    /// The message's content as text.
    pub text: String,
}

/// The outcome of a tool call, as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallOutcome {
    /// The content blocks rendered as text, one after the other.
    pub text: String,
    /// True when the server reported the call as failed (`isError`).
    pub is_error: bool,
}

pub(crate) fn resource_info(resource: &rmcp::model::Resource) -> ResourceInfo {
    ResourceInfo {
        uri: resource.uri.clone(),
        name: resource.name.clone(),
        description: resource.description.clone(),
        mime_type: resource.mime_type.clone(),
    }
}

pub(crate) fn resource_content(contents: &rmcp::model::ResourceContents) -> ResourceContent {
    let value = serde_json::to_value(contents).unwrap_or(Value::Null);
    let field = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    ResourceContent {
        uri: field("uri").unwrap_or_default(),
        mime_type: field("mimeType"),
        text: field("text"),
        blob: field("blob"),
    }
}

pub(crate) fn prompt_info(prompt: &rmcp::model::Prompt) -> PromptInfo {
    PromptInfo {
        name: prompt.name.clone(),
        description: prompt.description.clone(),
        arguments: prompt
            .arguments
            .iter()
            .flatten()
            .map(|argument| PromptArgumentInfo {
                name: argument.name.clone(),
                description: argument.description.clone(),
                required: argument.required.unwrap_or(false),
            })
            .collect(),
    }
}

pub(crate) fn prompt_message(message: &rmcp::model::PromptMessage) -> PromptMessageInfo {
    let role = serde_json::to_value(&message.role)
        .ok()
        .and_then(|role| role.as_str().map(str::to_owned))
        .unwrap_or_else(|| "user".into());
    PromptMessageInfo {
        role,
        text: block_text(&message.content),
    }
}

pub(crate) fn call_outcome(result: &rmcp::model::CallToolResult) -> CallOutcome {
    let mut parts: Vec<String> = result.content.iter().map(block_text).collect();
    if parts.is_empty()
        && let Some(structured) = &result.structured_content
    {
        parts.push(structured.to_string());
    }
    CallOutcome {
        text: parts.join("\n"),
        is_error: result.is_error.unwrap_or(false),
    }
}

/// A content block as text: text as is, other kinds summarised (models cannot read base64).
fn block_text(block: &rmcp::model::ContentBlock) -> String {
    let value = serde_json::to_value(block).unwrap_or(Value::Null);
    let field = |value: &Value, key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match value.get("type").and_then(Value::as_str) {
        Some("text") => field(&value, "text"),
        Some("image") | Some("audio") => format!(
            "[{} content, {}, {} bytes of base64]",
            field(&value, "type"),
            field(&value, "mimeType"),
            field(&value, "data").len()
        ),
        Some("resource") => {
            let resource = value.get("resource").cloned().unwrap_or(Value::Null);
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => format!("[resource {}]\n{text}", field(&resource, "uri")),
                None => format!("[binary resource {}]", field(&resource, "uri")),
            }
        }
        Some("resource_link") => format!("[resource link {}]", field(&value, "uri")),
        _ => value.to_string(),
    }
}

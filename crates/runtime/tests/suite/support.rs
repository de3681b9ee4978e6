//! A scripted in-test provider and agent builders.

use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, ModelDelta, ModelRequest, ModelResponse, Scope,
    Settings, SourceFormat, StopReason, ToolCall, Usage,
};
use agentctl_providers::{DeltaSink, ModelProvider, ProviderError};
use agentctl_runtime::{RunEvent, Runtime, ToolRegistry};
use futures_util::StreamExt;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Answers from a queue and records every request.
#[derive(Default)]
pub struct Queue {
    pub responses: Mutex<VecDeque<ModelResponse>>,
    pub requests: Mutex<Vec<ModelRequest>>,
}

impl Queue {
    pub fn new(responses: Vec<ModelResponse>) -> Arc<Self> {
        Arc::new(Self {
            responses: Mutex::new(responses.into()),
            requests: Mutex::default(),
        })
    }

    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl ModelProvider for Queue {
    fn name(&self) -> &str {
        "queue"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        self.requests.lock().unwrap().push(request.clone());
        let response = self
            .responses
            .lock()
            .unwrap()
            .pop_front()
            .ok_or_else(|| ProviderError::Script("queue exhausted".into()))?;
        if request.stream
            && let Some(text) = &response.text
        {
            for word in text.split_inclusive(' ') {
                on_delta(ModelDelta::Text {
                    text: word.to_owned(),
                });
            }
        }
        Ok(response)
    }
}

pub fn text(text: &str) -> ModelResponse {
    ModelResponse {
        text: Some(text.into()),
        tool_calls: vec![],
        usage: Usage {
            input_tokens: 10,
            output_tokens: 5,
        },
        stop_reason: StopReason::EndTurn,
    }
}

pub fn calls(calls: &[(&str, &str, Value)]) -> ModelResponse {
    ModelResponse {
        text: None,
        tool_calls: calls
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: (*id).into(),
                name: (*name).into(),
                arguments: arguments.clone(),
            })
            .collect(),
        usage: Usage {
            input_tokens: 20,
            output_tokens: 7,
        },
        stop_reason: StopReason::ToolUse,
    }
}

pub fn agent(name: &str) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            model: Some("openai:gpt-4o-mini".into()),
            ..Default::default()
        },
        system_prompt: "You are a test agent.".into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("{name}.md").into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

pub fn runtime(provider: Arc<Queue>, tools: ToolRegistry) -> Runtime {
    runtime_with(Settings::default(), provider, tools)
}

pub fn runtime_with(settings: Settings, provider: Arc<Queue>, tools: ToolRegistry) -> Runtime {
    Runtime::new(
        settings,
        move |_: &agentctl_core::ModelRef, _: &Settings| {
            Ok(Arc::clone(&provider) as Arc<dyn ModelProvider>)
        },
        tools,
    )
}

/// Collects every event of a handle.
pub async fn collect(mut handle: agentctl_runtime::RunHandle) -> Vec<RunEvent> {
    let mut events = Vec::new();
    while let Some(event) = handle.next().await {
        events.push(event);
    }
    events
}

/// Event types, for order assertions.
pub fn kinds(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            serde_json::to_value(event).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

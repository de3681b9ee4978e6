//! In-process fakes for tests of the loop and everything above it: model providers that answer
//! from a queue or a routing function (or never), tools with a chosen risk, mutability and
//! behaviour, and builders for agents and model answers.
//!
//! These fakes skip the wire format; tests of what reaches an API use the HTTP fakes
//! ([`FakeServer`](crate::FakeServer)), which reject what the real APIs reject.

use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, DeltaSink, Message, ModelDelta, ModelProvider,
    ModelRequest, ModelResponse, ProviderError, RiskLevel, RunEvent, Scope, SourceFormat,
    StopReason, Tool, ToolCall, ToolContext, ToolError, ToolOutput, TypedTool, Usage,
};
use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// A model that answers from a queue and records every request; streamed requests get the
/// answer's text as one delta per word.
#[derive(Default)]
pub struct QueueProvider {
    responses: Mutex<VecDeque<ModelResponse>>,
    requests: Mutex<Vec<ModelRequest>>,
}

impl QueueProvider {
    /// A provider answering `responses` in order; an exhausted queue is a script error.
    pub fn new(responses: Vec<ModelResponse>) -> Arc<Self> {
        Arc::new(Self {
            responses: Mutex::new(responses.into()),
            requests: Mutex::default(),
        })
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait::async_trait]
impl ModelProvider for QueueProvider {
    fn name(&self) -> &str {
        "queue"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request.clone());
        let response = self
            .responses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
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

/// How a [`RoutedProvider`] answers a request.
pub type Route = dyn Fn(&ModelRequest) -> ModelResponse + Send + Sync;

/// A model that answers by looking at the request (for runs whose calls interleave, where a
/// queue would not do), recording every request.
pub struct RoutedProvider {
    route: Box<Route>,
    requests: Mutex<Vec<ModelRequest>>,
}

impl RoutedProvider {
    /// A provider answering with `route`.
    pub fn new(
        route: impl Fn(&ModelRequest) -> ModelResponse + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            route: Box::new(route),
            requests: Mutex::default(),
        })
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait::async_trait]
impl ModelProvider for RoutedProvider {
    fn name(&self) -> &str {
        "routed"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        _on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request.clone());
        Ok((self.route)(request))
    }
}

/// A model that never answers (for cancellation tests).
#[derive(Debug, Default)]
pub struct HangingProvider;

#[async_trait::async_trait]
impl ModelProvider for HangingProvider {
    fn name(&self) -> &str {
        "hang"
    }

    async fn complete(
        &self,
        _: &ModelRequest,
        _: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        std::future::pending().await
    }
}

/// A final answer with text.
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

/// An answer calling tools: `(id, name, arguments)`.
pub fn calls(calls: &[(&str, &str, Value)]) -> ModelResponse {
    ModelResponse {
        text: None,
        tool_calls: calls
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: (*id).into(),
                name: (*name).into(),
                arguments: arguments.clone(),
                signature: None,
            })
            .collect(),
        usage: Usage {
            input_tokens: 20,
            output_tokens: 7,
        },
        stop_reason: StopReason::ToolUse,
    }
}

/// A native project agent called `name` on `openai:gpt-4o-mini`, every tool allowed.
pub fn agent(name: &str) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            model: Some("openai:gpt-4o-mini".into()),
            ..Default::default()
        },
        system_prompt: format!("You are {name}."),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("{name}.md").into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

/// The text of the first user message of a request.
pub fn first_user(request: &ModelRequest) -> &str {
    match request.messages.first() {
        Some(Message::User { content }) => content,
        _ => "",
    }
}

/// What a [`FakeTool`] does when called.
#[derive(Clone)]
pub enum Behaviour {
    /// Answers this text.
    Reply(String),
    /// Sleeps this long, or until the run is cancelled.
    Sleep(Duration),
    /// Signals the notify, then waits until the run is cancelled.
    WaitForCancel(Arc<tokio::sync::Notify>),
    /// Passes only when every party is in flight at once (5 s limit).
    Rendezvous(Rendezvous),
}

/// Counters of a [`Behaviour::Rendezvous`].
#[derive(Clone)]
pub struct Rendezvous {
    barrier: Arc<tokio::sync::Barrier>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

impl Rendezvous {
    /// A rendezvous of `parties` calls.
    pub fn new(parties: usize) -> Self {
        Self {
            barrier: Arc::new(tokio::sync::Barrier::new(parties)),
            in_flight: Arc::default(),
            max_in_flight: Arc::default(),
        }
    }

    /// Most calls ever in flight at once.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }
}

/// A tool with a chosen name, risk, mutability and behaviour.
#[derive(Clone)]
pub struct FakeTool {
    name: String,
    risk: RiskLevel,
    mutating: bool,
    behaviour: Behaviour,
}

impl FakeTool {
    /// A safe, non-mutating tool answering `reply`.
    pub fn new(name: &str, behaviour: Behaviour) -> Self {
        Self {
            name: name.to_owned(),
            risk: RiskLevel::Safe,
            mutating: false,
            behaviour,
        }
    }

    /// The same tool at `risk`.
    pub fn risk(mut self, risk: RiskLevel) -> Self {
        self.risk = risk;
        self
    }

    /// The same tool, mutating.
    pub fn mutating(mut self) -> Self {
        self.mutating = true;
        self
    }

    /// As a shared tool object.
    pub fn shared(self) -> Arc<dyn Tool> {
        Arc::new(self)
    }
}

#[async_trait::async_trait]
impl Tool for FakeTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        "A fake tool."
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }

    fn risk(&self) -> RiskLevel {
        self.risk
    }

    fn is_mutating(&self) -> bool {
        self.mutating
    }

    async fn call(&self, _args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        match &self.behaviour {
            Behaviour::Reply(text) => Ok(ToolOutput::text(text.clone())),
            Behaviour::Sleep(duration) => tokio::select! {
                () = ctx.cancellation().cancelled() => Err(ToolError::Cancelled),
                () = tokio::time::sleep(*duration) => Ok(ToolOutput::text("slept")),
            },
            Behaviour::WaitForCancel(notify) => {
                notify.notify_one();
                ctx.cancellation().cancelled().await;
                Err(ToolError::Cancelled)
            }
            Behaviour::Rendezvous(meeting) => {
                let now = meeting.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                meeting.max_in_flight.fetch_max(now, Ordering::SeqCst);
                let met =
                    tokio::time::timeout(Duration::from_secs(5), meeting.barrier.wait()).await;
                meeting.in_flight.fetch_sub(1, Ordering::SeqCst);
                met.map(|_| ToolOutput::text("met"))
                    .map_err(|_| ToolError::failed("the calls did not run at the same time"))
            }
        }
    }
}

/// Arguments of [`LookupTool`].
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct LookupArgs {
    /// Key to look up (`capital` is known).
    pub key: String,
}

/// A safe, read-only typed tool `lookup`: `capital` answers `Paris`, any other key is a tool
/// error `no such key: …` — a tool with a real argument schema, for tests of what models are
/// offered and how arguments and errors travel.
#[derive(Debug, Clone, Copy, Default)]
pub struct LookupTool;

#[async_trait::async_trait]
impl TypedTool for LookupTool {
    type Args = LookupArgs;

    fn name(&self) -> &str {
        "lookup"
    }

    fn description(&self) -> &str {
        "Looks a key up in the table."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: LookupArgs, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        match args.key.as_str() {
            "capital" => Ok(ToolOutput::text("Paris")),
            other => Err(ToolError::failed(format!("no such key: {other}"))),
        }
    }
}

/// Every event of a run's stream.
pub async fn collect(mut events: impl Stream<Item = RunEvent> + Unpin) -> Vec<RunEvent> {
    let mut all = Vec::new();
    while let Some(event) = events.next().await {
        all.push(event);
    }
    all
}

/// Event types (`run_started`, `tool_call`, …), for order assertions.
pub fn kinds(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            serde_json::to_value(event)
                .ok()
                .and_then(|value| value["type"].as_str().map(str::to_owned))
                .unwrap_or_default()
        })
        .collect()
}

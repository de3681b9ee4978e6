//! Records a real run as a cassette that [`ScriptedProvider`](crate::ScriptedProvider) replays.
//!
//! Only conversation content is written: the request's last user text or tool result (as an
//! `expect` hint) and the answer. Headers, keys and environment never reach the recorder, and
//! secret values the conversation happens to contain are masked by the recorder's
//! [`Redactor`](agentctl_core::Redactor) when the cassette is written.

use agentctl_cassette::request_hint;
use agentctl_cassette::{
    Cassette, Expect, ScriptedCall, ScriptedError, ScriptedResponse, Turn, TurnOrder,
};
use agentctl_core::{DeltaSink, ModelProvider, ProviderError, Redactor};
use agentctl_core::{ModelRequest, ModelResponse};
use agentctl_private_files::write_private;
use async_trait::async_trait;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// Wraps a provider and records every exchange.
///
/// Keep an `Arc<RecordingProvider>` to call [`save`](Self::save) after the run; pass a clone as
/// the `Arc<dyn ModelProvider>` the run uses.
pub struct RecordingProvider {
    inner: Arc<dyn ModelProvider>,
    recorded: Mutex<Cassette>,
    redactor: Redactor,
}

impl RecordingProvider {
    /// Records calls made through `inner`.
    pub fn new(inner: Arc<dyn ModelProvider>) -> Self {
        Self {
            inner,
            recorded: Mutex::new(Cassette {
                version: 1,
                model: None,
                order: TurnOrder::Strict,
                turns: Vec::new(),
            }),
            redactor: Redactor::default(),
        }
    }

    /// The same recorder, masking the secrets `redactor` knows in the cassette.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// Number of exchanges recorded so far.
    pub fn len(&self) -> usize {
        self.lock().turns.len()
    }

    /// True when nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The recording as cassette YAML, secrets masked.
    pub fn to_yaml(&self) -> Result<String, ProviderError> {
        let cassette = self.lock().clone();
        Ok(self.redactor.redact(&cassette.to_yaml()?).into_owned())
    }

    /// Writes the recording to `path` (replayable with `scripted:PATH`). The cassette holds the
    /// conversation: it is written `0600` whatever the umask, atomically (a new file renamed
    /// over any old one, whose wider permissions do not carry over).
    pub fn save(&self, path: &Path) -> Result<(), ProviderError> {
        let yaml = self.to_yaml()?;
        write_private(path, yaml.as_bytes()).map_err(|error| {
            ProviderError::Script(format!("cannot write cassette {}: {error}", path.display()))
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cassette> {
        self.recorded.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl ModelProvider for RecordingProvider {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        let result = self.inner.complete(request, on_delta).await;
        let (last_user_contains, last_tool_result_contains) = request_hint(request);
        let expect = Expect {
            last_user_contains,
            last_tool_result_contains,
            tools_include: Vec::new(),
            ..Expect::default()
        };
        let turn = match &result {
            Ok(response) => Turn {
                expect,
                response: Some(ScriptedResponse {
                    text: response.text.clone(),
                    tool_calls: response
                        .tool_calls
                        .iter()
                        .map(|call| ScriptedCall {
                            id: Some(call.id.clone()),
                            name: call.name.clone(),
                            arguments: call.arguments.clone(),
                        })
                        .collect(),
                    usage: Some(response.usage),
                }),
                error: None,
            },
            Err(ProviderError::Status {
                status, message, ..
            }) => Turn {
                expect,
                response: None,
                error: Some(ScriptedError {
                    status: *status,
                    message: message.clone(),
                }),
            },
            // Transport failures say nothing about the model: not worth replaying.
            Err(_) => return result,
        };
        let mut recorded = self.lock();
        if recorded.model.is_none() {
            recorded.model = Some(format!("{}:{}", self.inner.name(), request.model));
        }
        recorded.turns.push(turn);
        drop(recorded);
        result
    }
}

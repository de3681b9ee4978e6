//! The scripted provider: replays a YAML cassette (model string `scripted:PATH`), so agent runs
//! and tests work offline and deterministically. The cassette's format and its replay are
//! `agentctl-cassette`'s; this provider reads the file within agentctl's input limits and
//! streams the replayed answers.

use agentctl_cassette::{CassetteReplay, ReplayedTurn, split_text};
use agentctl_config::{InputLimit, MAX_CASSETTE_ALIAS_VALUES, check_yaml_aliases, read_input_file};
use agentctl_core::{DeltaSink, ModelProvider, ProviderError};
use agentctl_core::{ModelDelta, ModelRequest, ModelResponse};
use async_trait::async_trait;
use std::path::Path;

/// The text of a cassette file: a regular file of at most
/// [`MAX_CASSETTE_BYTES`](agentctl_config::MAX_CASSETTE_BYTES), never a FIFO or device.
pub(crate) fn read_cassette(path: &Path) -> Result<String, ProviderError> {
    read_input_file(path, InputLimit::CASSETTE)
        .map_err(|error| ProviderError::Script(format!("cannot read cassette {error}")))
}

/// A cassette's replay, its YAML aliases first held to
/// [`MAX_CASSETTE_ALIAS_VALUES`](agentctl_config::MAX_CASSETTE_ALIAS_VALUES).
pub(crate) fn replay_of(yaml: &str, origin: &str) -> Result<CassetteReplay, ProviderError> {
    check_yaml_aliases(yaml, MAX_CASSETTE_ALIAS_VALUES).map_err(|error| {
        ProviderError::Script(format!(
            "{origin}:{}:{}: invalid cassette: {error}",
            error.line, error.column
        ))
    })?;
    CassetteReplay::from_yaml(yaml, origin)
}

/// Answers model calls from a cassette, one turn per call, in order.
///
/// The cursor is shared by every caller of one instance (behind a mutex), so concurrent use is
/// safe and still consumes turns in order. A request that fails the turn's `expect` matcher, or
/// comes after the last turn, gets a [`ProviderError::Script`] saying which turn, what was
/// expected and what the request had. `error:` turns come back as [`ProviderError::Status`],
/// without retries. The matching is [`CassetteReplay`]'s.
///
/// ```
/// use agentctl_core::{Message, ModelProvider, ModelRequest};
/// use agentctl_providers::ScriptedProvider;
///
/// let yaml = r#"
/// version: 1
/// turns:
///   - expect: { lastUserContains: hello }
///     response: { text: Hi there! }
/// "#;
/// let provider = ScriptedProvider::from_yaml(yaml, "inline").unwrap();
/// let request = ModelRequest {
///     model: "inline".into(),
///     system: None,
///     messages: vec![Message::user("hello")],
///     tools: Default::default(),
///     temperature: None,
///     effort: None,
///     max_tokens: None,
///     stream: false,
/// };
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let response = runtime.block_on(provider.complete(&request, &|_| {})).unwrap();
/// assert_eq!(response.text.as_deref(), Some("Hi there!"));
/// assert!(runtime.block_on(provider.complete(&request, &|_| {})).is_err()); // exhausted
/// ```
#[derive(Debug)]
pub struct ScriptedProvider {
    replay: CassetteReplay,
}

impl ScriptedProvider {
    /// Parses a cassette; `origin` (a path or a label) names it in errors.
    pub fn from_yaml(yaml: &str, origin: &str) -> Result<Self, ProviderError> {
        replay_of(yaml, origin).map(|replay| Self { replay })
    }

    /// Reads a cassette file: a regular file of at most 16 MiB (FIFOs and devices are refused
    /// unread).
    pub fn from_file(path: &Path) -> Result<Self, ProviderError> {
        let yaml = read_cassette(path)?;
        Self::from_yaml(&yaml, &path.display().to_string())
    }

    /// Turns not yet used.
    pub fn remaining(&self) -> usize {
        self.replay.remaining()
    }
}

#[async_trait]
impl ModelProvider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        let mut response = match self.replay.next(request)? {
            ReplayedTurn::Response { response, .. } => response,
            ReplayedTurn::Error {
                turn,
                status,
                message,
            } => {
                return Err(ProviderError::Status {
                    provider: "scripted".to_owned(),
                    model: request.model.clone(),
                    status,
                    message,
                    hint: format!(" (scripted turn {turn})"),
                    retry_after: None,
                });
            }
        };
        if request.stream {
            if let Some(text) = &response.text {
                for piece in split_text(text, 3) {
                    on_delta(ModelDelta::Text {
                        text: piece.to_owned(),
                    });
                }
            }
            for (index, call) in response.tool_calls.iter().enumerate() {
                on_delta(ModelDelta::ToolCallStart {
                    index,
                    id: call.id.clone(),
                    name: call.name.clone(),
                });
                on_delta(ModelDelta::ToolCallArguments {
                    index,
                    fragment: call.arguments.to_string(),
                });
            }
        }
        response.text = response.text.filter(|text| !text.is_empty());
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Reads on another thread, so that a regression fails the test instead of hanging it.
    fn read_or_hang(path: &Path) -> Result<String, ProviderError> {
        let path = path.to_path_buf();
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(read_cassette(&path));
        });
        receive
            .recv_timeout(Duration::from_secs(60))
            .expect("reading the cassette hung")
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_cassette_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("c.yaml");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let error = read_or_hang(&fifo).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "cannot read cassette {}: is a FIFO, not a regular file",
                fifo.display()
            )
        );
    }

    #[test]
    fn an_oversized_cassette_is_refused_without_being_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.yaml");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(64 << 30)
            .unwrap();
        let error = read_or_hang(&path).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "cannot read cassette {}: is 64 GiB; cassettes are limited to 16 MiB",
                path.display()
            )
        );
    }

    #[test]
    fn an_alias_bomb_is_refused_before_it_expands() {
        let items = vec!["x"; 2000].join(",");
        let refs = vec!["*a"; 1000].join(",");
        let yaml = format!(
            "version: 1\nturns:\n  - response:\n      text: hi\n      toolCalls:\n        - name: t\n          arguments: {{a: &a [{items}], b: [{refs}]}}\n"
        );
        let error = replay_of(&yaml, "bomb.yaml").unwrap_err().to_string();
        assert!(error.starts_with("bomb.yaml:7:"), "{error}");
        assert!(error.contains("more than 1000000 values"), "{error}");
        // Ordinary reuse is fine.
        let reuse = "version: 1\nturns:\n  - response: &r {text: hi}\n  - response: *r\n";
        assert_eq!(replay_of(reuse, "r.yaml").unwrap().remaining(), 2);
    }
}

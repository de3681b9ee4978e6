//! Per-run options: everything a caller can override for one run.

use crate::context_mode::ContextMode;
use crate::conversation::Message;
use crate::effort::Effort;
use crate::trace::TraceContext;
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;

/// Turn limit when neither the options nor the agent file set one.
pub const DEFAULT_MAX_TURNS: u32 = 25;

/// Options of one run. `Default` gives a non-streamed run with the agent's own settings.
///
/// Precedence: a field set here wins over the agent file, which wins over the settings.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Ask the provider to stream (text deltas arrive as the model writes).
    pub stream: bool,
    /// Upper bound on output tokens per model call.
    pub max_tokens: Option<u32>,
    /// Token budget of the run, input and output over all model calls (else the agent's
    /// `maxTokens`).
    pub token_budget: Option<u64>,
    /// Cost budget of the run in US dollars (else the agent's `maxCost`).
    pub cost_budget: Option<f64>,
    /// Sampling temperature (else the agent's `temperature`).
    pub temperature: Option<f32>,
    /// Reasoning effort (else the agent's `effort`).
    pub effort: Option<Effort>,
    /// Turn limit (else the agent's `maxTurns`, else [`DEFAULT_MAX_TURNS`]).
    pub max_turns: Option<u32>,
    /// Context mode (else the agent's `contextMode`, else `agents.defaultContextMode`).
    pub context_mode: Option<ContextMode>,
    /// Model string (else the agent's `model`, else `agents.defaultModel`).
    pub model: Option<String>,
    /// Prior messages, e.g. the previous turns of a REPL. Ignored in `run` context mode, where
    /// every run starts fresh.
    pub history: Vec<Message>,
    /// Cancels the run when fired; the run's handle can also cancel it.
    pub cancel: Option<CancellationToken>,
    /// Directory tools resolve relative paths against (default: the current directory).
    pub working_dir: Option<PathBuf>,
    /// Nesting depth of the run: 0 for a top-level run, the parent's depth + 1 for a sub-agent
    /// run started by a tool. Tools read it from [`ToolContext::depth`](crate::ToolContext::depth)
    /// to refuse nesting beyond a limit.
    pub depth: u32,
    /// Id for the run instead of a generated one (`run-…`); it must be unique among the
    /// runtime's runs. Lets a caller key state by the id before the run's first tool call.
    pub run_id: Option<String>,
    /// The trace the run belongs to, when it is traced. The run does not trace itself: whoever
    /// watches its events builds its spans; the run passes the context on to its tool calls
    /// ([`ToolContext::trace`](crate::ToolContext::trace)) so a sub-agent's spans land under
    /// the call that started it.
    pub trace: Option<TraceContext>,
}

impl RunOptions {
    /// Default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`RunOptions::stream`].
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Sets [`RunOptions::model`].
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets [`RunOptions::max_turns`].
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Sets [`RunOptions::history`].
    pub fn history(mut self, history: Vec<Message>) -> Self {
        self.history = history;
        self
    }

    /// Sets [`RunOptions::cancel`].
    pub fn cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sets [`RunOptions::depth`].
    pub fn depth(mut self, depth: u32) -> Self {
        self.depth = depth;
        self
    }

    /// Sets [`RunOptions::run_id`].
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        self.run_id = Some(id.into());
        self
    }

    /// Sets [`RunOptions::context_mode`].
    pub fn context_mode(mut self, mode: ContextMode) -> Self {
        self.context_mode = Some(mode);
        self
    }

    /// Sets [`RunOptions::working_dir`].
    pub fn working_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_dir = Some(dir.into());
        self
    }
}

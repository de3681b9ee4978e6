//! Flags of a conversation turn, shared by `run` and `chat`.

use super::{ApprovalArgs, RunFormat};
use agentctl_core::Effort;
use clap::Args;
use std::path::PathBuf;

/// How one invocation talks: the prompt, the model, the session, the output.
#[derive(Debug, Args)]
pub(crate) struct TurnArgs {
    /// The prompt. Without it: an interactive session on a terminal, else the prompt is read
    /// from stdin.
    #[arg(short = 'p', long)]
    pub prompt: Option<String>,
    /// Model (`provider:model` or alias), instead of the agent's.
    #[arg(long)]
    pub model: Option<String>,
    /// Turn limit, instead of the agent's `maxTurns` (default 25).
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,
    /// Token budget of each run (input and output over its model calls), instead of the
    /// agent's `maxTokens`: the run stops before the model call after the one that reaches it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: Option<u64>,
    /// Cost budget of each run in US dollars (list prices of the model catalogue), instead of
    /// the agent's `maxCost`.
    #[arg(long, value_name = "USD", value_parser = positive_dollars)]
    pub max_cost: Option<f64>,
    /// Sampling temperature (0 to 2), instead of the agent's `temperature`.
    #[arg(long, value_name = "T", value_parser = temperature)]
    pub temperature: Option<f32>,
    /// Reasoning effort of the agent the prompt goes to, instead of its `effort`: minimal, low,
    /// medium, high, xhigh or max. Sent in the provider's own parameter to models that reason;
    /// a model the catalogue says does not reason gets none (with a notice).
    #[arg(long, value_name = "LEVEL", value_parser = effort)]
    pub effort: Option<Effort>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: RunFormat,
    /// Save the model calls as a cassette replayable with `--model scripted:PATH`.
    #[arg(long, value_name = "PATH")]
    pub record: Option<PathBuf>,
    /// Ask the model for the whole answer at once instead of streaming it.
    #[arg(long)]
    pub no_stream: bool,
    /// Keep talking: one prompt per line; `exit` quits, `context` shows the conversation,
    /// `@agent-name PROMPT` runs that agent in the same session, `/help` lists the commands
    /// (`/agents run|context|list`, `/clear`, `/exit`).
    #[arg(long, short = 'i')]
    pub interactive: bool,
    /// Record into (and resume) this session; see `agentctl sessions list`.
    #[arg(long, value_name = "ID", conflicts_with = "continue_session")]
    pub session: Option<String>,
    /// Resume the latest session of this project (or start one). This is the default unless
    /// `agents.continueSession` is false.
    #[arg(long = "continue", short = 'c', conflicts_with = "new_session")]
    pub continue_session: bool,
    /// Start a new session instead of continuing the project's current one; it becomes the
    /// current session.
    #[arg(long = "new", conflicts_with = "session")]
    pub new_session: bool,
    /// Trace the run: print model calls, tool calls, handoffs and guardrails on stderr as they
    /// finish, and keep the trace in the session for `agentctl trace show|export`.
    #[arg(long)]
    pub trace: bool,
    #[command(flatten)]
    pub approvals: ApprovalArgs,
}

/// `agentctl chat`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  agentctl chat\n  agentctl chat -p 'What does src/stats.py do?'\n  \
agentctl chat --continue\n  agentctl chat --model sonnet\n\n\
The main conversation has no agent file: it talks to the default model (`agents.defaultModel`,\n\
or --model) in the session's main timeline, with the tools the settings allow. Agents with\n\
`contextMode: shared` see it; isolated agents do not. In the interactive session,\n\
`@agent-name PROMPT` runs that agent in the same session, and `@agent-name --shared PROMPT`\n\
runs it in the shared context for that turn. A line starting with `/` is a command:\n\
`/agents run NAME PROMPT [--context MODE]`, `/agents context NAME [--mode MODE]`, `/agents list`,\n\
`/help`, `/clear` (the screen only), `/exit`.\n\n\
Exit status: 0 done; 1 error; 2 bad usage; 3 a guardrail rejected the input or the output;\n\
128+N stopped by signal N (130 for Ctrl-C)."
)]
pub(crate) struct ChatArgs {
    #[command(flatten)]
    pub turn: TurnArgs,
}

/// `--max-cost`: a positive number of dollars.
fn positive_dollars(text: &str) -> Result<f64, String> {
    match text.trim().trim_start_matches('$').parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!(
            "`{text}` is not a positive number of US dollars (e.g. 0.50)"
        )),
    }
}

/// `--effort`: a level of [`Effort`].
fn effort(text: &str) -> Result<Effort, String> {
    text.trim()
        .parse()
        .map_err(|error: agentctl_core::UnknownEffort| error.to_string())
}

/// `--temperature`: 0 to 2.
fn temperature(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(value) if (0.0..=2.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a temperature from 0 to 2")),
    }
}

//! Arguments of `agentctl route`.

use super::TextFormat;
use clap::Args;

/// `agentctl route PROMPT`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  agentctl route \"There's a bug in the login flow\"\n  \
agentctl route 'Review PR 42' --format json\n\n\
Each agent's `triggers:` are matched against the prompt: keywords as whole words, ignoring\n\
case (`bug` does not match `debug`; a phrase like `stack trace` matches across line breaks),\n\
regular expressions anywhere, ignoring case. Agents are ranked by the priority of their best\n\
matching trigger, then by how many of its keywords and patterns matched, then project before\n\
global, then by name. The first is the one `agentctl run --auto` (or `agents.autoRoute`)\n\
picks; when nothing matches, `agents.defaultAgent` is the fallback. The exit status is 0\n\
either way."
)]
pub(crate) struct RouteArgs {
    /// The prompt to route.
    pub prompt: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

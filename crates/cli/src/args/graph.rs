//! Arguments of `agentctl graph …` (also `agentctl agents graph …`, the seed's spelling).

use super::{ApprovalArgs, RunFormat, TableFormat, TextFormat};
use clap::{Args, Subcommand, ValueEnum};

/// `agentctl graph …`.
#[derive(Debug, Subcommand)]
pub(crate) enum GraphCommand {
    /// List the graphs: agent files with a `graph:` block and `.agentctl/graphs/` files.
    #[command(after_help = "Examples:\n  agentctl graph list\n  agentctl graph list --format json")]
    List(GraphListArgs),
    /// Run a graph from its entry on a prompt, checkpointing after every node.
    #[command(
        after_help = "Examples:\n  agentctl graph run debug-flow -p 'Fix the crash after login'\n  \
agentctl graph run debug-flow -p 'Fix the crash after login' --format stream-json\n\n\
Each node's agent runs with its own tools, model, guardrails and context mode, on the prompt\n\
and the graph state; its answer (parsed when it is JSON) is stored under the node's `output`\n\
key, and the first edge whose condition holds picks the next node. After every node the\n\
state is saved in the session: `agentctl graph resume --session ID` continues a run that\n\
stopped, `--from-step N` re-runs from an earlier step into a new branch.\n\n\
Exit status: 0 done; 1 error (a node failed, a condition could not be evaluated, maxSteps\n\
reached); 2 bad usage; 3 a guardrail rejected a node's input or output; 128+N signal N."
    )]
    Run(GraphRunArgs),
    /// Continue a graph run from its last checkpoint, or re-run from an earlier step.
    #[command(
        after_help = "Examples:\n  agentctl graph resume --session 20260101-120000-ab12\n  \
agentctl graph resume --session 20260101-120000-ab12 --from-step 1\n\n\
Without --from-step the newest branch continues where it stopped: the node that was running\n\
runs again, finished nodes do not. With --from-step N the run goes on from checkpoint N into\n\
a new branch; the original branch stays readable (`graph replay --branch B`)."
    )]
    Resume(GraphResumeArgs),
    /// Show a recorded graph run from the session store: nodes, tools, answers, handoffs,
    /// guardrails (no model is called).
    #[command(
        after_help = "Examples:\n  agentctl graph replay --session 20260101-120000-ab12\n  \
agentctl graph replay --session 20260101-120000-ab12 --branch 0 --format json"
    )]
    Replay(GraphReplayArgs),
    /// Draw a graph (or a plain agent's handoffs) as text, Mermaid or Graphviz DOT.
    #[command(after_help = "Examples:\n  agentctl graph visualize debug-flow\n  \
agentctl graph visualize debug-flow --format mermaid\n  \
agentctl graph visualize debug-flow --format dot | dot -Tsvg > debug-flow.svg\n  \
agentctl graph visualize debug-flow --format dot --session 20260101-120000-ab12")]
    Visualize(GraphVisualizeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct GraphListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

/// Flags of a graph run shared by `run` and `resume`.
#[derive(Debug, Args)]
pub(crate) struct GraphRunFlags {
    /// Model (`provider:model` or alias) for every node, instead of each agent's.
    #[arg(long)]
    pub model: Option<String>,
    /// Turn limit of each node's run, instead of the agents' `maxTurns`.
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: RunFormat,
    /// Ask the model for whole answers instead of streaming them.
    #[arg(long)]
    pub no_stream: bool,
    /// Trace the run: print each node's model calls, tool calls and handoffs on stderr, and
    /// keep the trace in the session for `agentctl trace show|export`.
    #[arg(long)]
    pub trace: bool,
    #[command(flatten)]
    pub approvals: ApprovalArgs,
}

#[derive(Debug, Args)]
pub(crate) struct GraphRunArgs {
    /// The graph's name.
    pub name: String,
    /// The request. Without it, read from stdin.
    #[arg(short = 'p', long)]
    pub prompt: Option<String>,
    /// Record into this session instead of a new one.
    #[arg(long, value_name = "ID", conflicts_with = "continue_session")]
    pub session: Option<String>,
    /// Record into the latest session of this project.
    #[arg(long = "continue", short = 'c')]
    pub continue_session: bool,
    #[command(flatten)]
    pub flags: GraphRunFlags,
}

#[derive(Debug, Args)]
pub(crate) struct GraphResumeArgs {
    /// The session the graph ran in.
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// The branch to continue or fork from (default: the newest).
    #[arg(long, value_name = "B")]
    pub branch: Option<u32>,
    /// Re-run from checkpoint N (0 is the input) into a new branch.
    #[arg(long, value_name = "N")]
    pub from_step: Option<u32>,
    #[command(flatten)]
    pub flags: GraphRunFlags,
}

#[derive(Debug, Args)]
pub(crate) struct GraphReplayArgs {
    /// The session the graph ran in.
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// The branch to show (default: the newest).
    #[arg(long, value_name = "B")]
    pub branch: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

/// How `graph visualize` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum DiagramFormat {
    /// The seed's text form: entry, nodes, edges with `[if: …]`.
    #[default]
    Text,
    /// A Mermaid flowchart.
    Mermaid,
    /// Graphviz DOT (`dot -Tsvg`).
    Dot,
}

#[derive(Debug, Args)]
pub(crate) struct GraphVisualizeArgs {
    /// A graph, or a plain agent (its handoffs are drawn as edges).
    pub name: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: DiagramFormat,
    /// Highlight the path the graph took in this session (Mermaid and DOT).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

//! What a user can do about an error, as data: each front end words it (a command line names
//! its flags and commands, an editor its buttons), so no library error carries UI wording.

/// A step that would get past an error, for the front end to word. Library errors offer one
/// through their `hint()` method; their message states what went wrong and what to change in
/// files or settings, never how to drive a particular front end.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hint {
    /// Name a model for this run (the command line's `--model`).
    ChooseModel,
    /// Allow the run more turns (the command line's `--max-turns`).
    RaiseMaxTurns,
    /// Allow the run a larger budget (the command line's `--max-tokens` / `--max-cost`).
    RaiseBudget,
    /// Look up the ids of the memories kept, of one agent when one is named.
    ListMemories {
        /// The agent the lookup was limited to.
        agent: Option<String>,
    },
    /// Forget some of an agent's memories by id (after listing them).
    ForgetMemories {
        /// The agent.
        agent: String,
    },
    /// Start a graph run in the session (there is none to continue).
    StartGraph,
    /// Continue the session's graph run from its last checkpoint.
    ResumeGraph,
    /// Run the graph again from an earlier step of its checkpointed branch.
    RerunFromStep,
    /// Record the run in a named session (persistence is off).
    NameSession,
}

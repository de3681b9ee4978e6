//! How the command line shows a session's events: a run's events as text or JSON lines, a
//! graph's, the notices, approval questions, the spinner and the conversation so far. The
//! front ends (`run`, `chat`, the REPL, `graph`) decide nothing here: they pass each event
//! of the session on.

mod events;
mod graph;
mod history;
mod question;
mod spinner;
mod turn;

pub(crate) use graph::print_outcome;
pub(crate) use history::print_context;
pub(crate) use question::{parse_answer, render_prompt};
pub(crate) use spinner::Spinner;
pub(crate) use turn::notice_line;
pub(crate) use turn::{ContextLine, TurnView};

//! Driving a session's turns from the terminal, for every front end that does (`run`, `chat`,
//! the REPL, `graph run`, `graph resume`): the session built with the flags' choices
//! ([`Invocation`]), each turn submitted and rendered as its events come, its questions asked
//! on the terminal and answered with an operation ([`Desk`]), Ctrl-C interrupting it, and how
//! its outcome ends the command ([`Ending`]).

mod desk;
mod input;
mod signals;

pub(crate) use desk::Desk;
pub(crate) use input::Input;
pub(crate) use signals::stop_signal;

use crate::args::{ApprovalArgs, RunFormat};
use crate::render::{ContextLine, Spinner, TurnView};
use agentctl_core::RunError;
use agentctl_session::sandbox::SandboxStatus;
use agentctl_session::store::{SessionChoice, Source};
use agentctl_session::{
    GraphError, Op, Project, Questions, Recording, Session, SessionError, TurnOutcome,
};
use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

/// Exit status of a run a guardrail rejected (documented in `run --help` and the README).
const GUARDRAIL_EXIT: u8 = 3;

/// How the invocation ended.
pub(crate) enum Ending {
    /// Every turn ran (in the REPL: the user left).
    Done,
    /// A turn failed; the message says why.
    Failed(String),
    /// A guardrail rejected the answer.
    Guardrail(String),
    /// A signal stopped the turn; exit with 128 + its number.
    Signalled(i32, String),
}

/// The exit status of `ending`, its message printed.
pub(crate) fn exit(ending: Ending) -> anyhow::Result<ExitCode> {
    match ending {
        Ending::Done => Ok(ExitCode::SUCCESS),
        Ending::Signalled(signal, message) => {
            crate::output::print_error(&anyhow::anyhow!(message));
            Ok(ExitCode::from(
                u8::try_from(128 + signal).unwrap_or(u8::MAX),
            ))
        }
        Ending::Guardrail(message) => {
            crate::output::print_error(&anyhow::anyhow!(message));
            Ok(ExitCode::from(GUARDRAIL_EXIT))
        }
        // The message already names the cause: one line, without a `caused by` chain.
        Ending::Failed(message) => Err(anyhow::anyhow!(message)),
    }
}

/// What an invocation sets the session up with.
pub(crate) struct Invocation<'a> {
    pub project: &'a Project,
    pub approvals: &'a ApprovalArgs,
    pub session: SessionChoice,
    /// A new session is titled with it.
    pub title: Option<&'a str>,
    pub source: Option<Source>,
    pub trace: bool,
    pub recording: Option<Recording>,
    /// The agent the conversation talks to.
    pub active: Option<String>,
}

impl Invocation<'_> {
    /// The session (asking on the terminal when stdin and stderr are one, else refusing at
    /// once what needs a person), its event stream and the terminal's input; warns once when
    /// commands will run unconfined.
    pub(crate) async fn start(self) -> anyhow::Result<Desk> {
        let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        let questions = if terminal {
            Questions::Ask
        } else {
            Questions::Refuse
        };
        let mut builder = Session::from_project(self.project)
            .approvals(crate::approvals::choice(self.approvals)?)
            .questions(questions)
            .tracing(self.trace, None)
            .session(self.session);
        if let Some(title) = self.title {
            builder = builder.title_from(title);
        }
        if let Some(source) = self.source {
            builder = builder.source(source);
        }
        if let Some(recording) = self.recording {
            builder = builder.record(recording);
        }
        if let Some(agent) = self.active {
            builder = builder.active(agent);
        }
        let session = builder.build().await?;
        // Said before the run, not after its output.
        crate::output::report_tightened();
        match session.sandbox_status() {
            SandboxStatus::Unavailable { reason } => warn(&format!(
                "commands run without a sandbox ({reason}); the approval prompt is the only defence"
            )),
            status if !status.gaps().is_empty() => warn(&format!("sandbox {status}")),
            _ => {}
        }
        let events = session.events()?;
        Ok(Desk {
            session,
            events,
            input: Input::new(),
        })
    }
}

/// One turn: submitted, driven, its result printed in `format` (the answer streamed in text,
/// the result object in `json`; a graph's last answer or outcome at the end).
pub(crate) async fn once(desk: &mut Desk, op: Op, format: RunFormat) -> anyhow::Result<Ending> {
    let id = desk.session.submit(op)?;
    let session_id = desk.session.id().map(str::to_owned);
    let mut view =
        TurnView::new(format, Spinner::default(), session_id.clone()).context(ContextLine::Plain);
    let (outcome, signal) = desk.drive(id, &mut view).await;
    if let Ok(result) = &outcome.result {
        match &outcome.graph {
            Some(graph) => crate::render::print_outcome(graph, format)?,
            None if format == RunFormat::Json => {
                crate::output::print_json(&crate::wire::RunResultJson {
                    session_id: session_id.as_deref(),
                    agents: &outcome.agents,
                    result: result.into(),
                })?
            }
            None => {}
        }
    }
    Ok(ending(outcome, signal))
}

/// How a turn's outcome ends the invocation.
pub(crate) fn ending(outcome: TurnOutcome, signal: Option<i32>) -> Ending {
    let Err(error) = outcome.result else {
        return Ending::Done;
    };
    match error {
        SessionError::Run(RunError::Cancelled) => {
            Ending::Signalled(signal.unwrap_or(2), "run cancelled".to_owned())
        }
        SessionError::Run(RunError::Guardrail(violation)) => {
            Ending::Guardrail(violation.to_string())
        }
        SessionError::Graph(error) => match *error {
            GraphError::Cancelled => {
                Ending::Signalled(signal.unwrap_or(2), crate::advice::with_advice(&*error))
            }
            error if matches!(error.run_error(), Some(RunError::Guardrail(_))) => {
                Ending::Guardrail(error.to_string())
            }
            GraphError::NotAGraph { agent } => Ending::Failed(format!(
                "`{agent}` is an agent, not a graph (it has no `graph:` block): run it with `agentctl run {agent}`"
            )),
            GraphError::Invalid {
                graph,
                file,
                issues,
            } => Ending::Failed(format!(
                "graph `{graph}` ({}) is invalid:\n{issues}\ncheck it with `agentctl agents validate {graph}`",
                file.display()
            )),
            error => Ending::Failed(crate::advice::with_advice(&error)),
        },
        SessionError::Agent(lookup) => Ending::Failed(crate::lookup::lookup_message(&lookup)),
        other => Ending::Failed(crate::advice::with_advice(&other)),
    }
}

/// A warning line on stderr.
pub(crate) fn warn(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
}

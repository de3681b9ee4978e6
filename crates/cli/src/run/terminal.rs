//! What a run shows on the terminal besides its events: the "thinking…" spinner, and approval
//! questions.
//!
//! Questions are asked by the render loop, not by the tool gate directly: the gate's
//! [`DeskApprover`] hands each question to the [`Desk`], and the loop (which prefers pending
//! events) asks it once everything the run emitted before it is on screen and the spinner is
//! gone. Sub-agents' questions reach the same desk.

use agentctl_tools::{
    ApprovalAnswer, ApprovalRequest, Approver, NonTerminalApprover, TerminalApprover,
};
use async_trait::async_trait;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// The "thinking…" spinner on stderr.
#[derive(Clone, Default)]
pub(super) struct Spinner(Arc<Mutex<Option<ProgressBar>>>);

impl Spinner {
    /// Shows the spinner, if it is not shown yet.
    pub(super) fn start(&self) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_some() {
            return;
        }
        let spinner = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
            spinner.set_style(style);
        }
        spinner.set_message("thinking…");
        spinner.enable_steady_tick(Duration::from_millis(100));
        *slot = Some(spinner);
    }

    /// Clears the spinner, if one is shown.
    pub(super) fn stop(&self) {
        let spinner = self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(spinner) = spinner {
            spinner.finish_and_clear();
        }
    }
}

/// An approval question waiting for the render loop.
pub(super) struct Question {
    /// What to ask.
    pub request: ApprovalRequest,
    /// Where the answer goes.
    pub reply: oneshot::Sender<ApprovalAnswer>,
}

/// The render loop's end of the question channel, and the terminal it asks on.
#[derive(Clone)]
pub(super) struct Desk {
    questions: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Question>>>,
    terminal: Arc<TerminalApprover>,
}

impl Desk {
    /// The questions, for one render loop at a time.
    pub(super) async fn questions(
        &self,
    ) -> tokio::sync::MutexGuard<'_, mpsc::UnboundedReceiver<Question>> {
        self.questions.lock().await
    }

    /// Asks on the terminal (stderr, stdin).
    pub(super) async fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        self.terminal.ask(request).await
    }
}

/// The gate's side: sends questions to the desk and waits for the answer.
struct DeskApprover {
    questions: mpsc::UnboundedSender<Question>,
}

#[async_trait]
impl Approver for DeskApprover {
    async fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        let (reply, answer) = oneshot::channel();
        let question = Question {
            request: request.clone(),
            reply,
        };
        if self.questions.send(question).is_err() {
            return ApprovalAnswer::No;
        }
        // A desk that went away without answering is a no, never a yes.
        answer.await.unwrap_or(ApprovalAnswer::No)
    }
}

/// The spinner and, on a terminal, the approval desk of one invocation.
#[derive(Clone, Default)]
pub(super) struct Frontend {
    /// The spinner.
    pub spinner: Spinner,
    /// Where questions are asked; `None` without a terminal.
    pub desk: Option<Desk>,
}

impl Frontend {
    /// A front end for this process, and the approver the tool gate should use: questions on
    /// the terminal when stdin and stderr are one, otherwise refused at once.
    pub(super) fn new() -> (Self, Arc<dyn Approver>) {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return (Self::default(), Arc::new(NonTerminalApprover));
        }
        let (sender, receiver) = mpsc::unbounded_channel();
        let desk = Desk {
            questions: Arc::new(tokio::sync::Mutex::new(receiver)),
            terminal: Arc::new(TerminalApprover::new()),
        };
        let frontend = Self {
            spinner: Spinner::default(),
            desk: Some(desk),
        };
        (frontend, Arc::new(DeskApprover { questions: sender }))
    }
}

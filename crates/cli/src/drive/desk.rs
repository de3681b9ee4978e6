//! One turn on the terminal: the session's events rendered as they come, each question asked
//! once the events before it are shown and answered with an operation, and Ctrl-C, SIGTERM or
//! SIGHUP interrupting the turn (the signal is returned).

use super::input::Input;
use super::signals::stop_signal;
use crate::render::TurnView;
use agentctl_core::RunError;
use agentctl_session::tools::ApprovalAnswer;
use agentctl_session::{
    EventMsg, EventStream, Notice, Op, Session, SessionError, TurnId, TurnOutcome,
};

/// The session, its event stream and the terminal: what drives its turns.
pub(crate) struct Desk {
    pub session: Session,
    pub events: EventStream,
    pub input: Input,
}

impl Desk {
    /// Drives the turn `id` (submitted already) to its end.
    pub(crate) async fn drive(
        &mut self,
        id: TurnId,
        view: &mut TurnView,
    ) -> (TurnOutcome, Option<i32>) {
        let mut signal = None;
        let mut stop = Box::pin(stop_signal());
        loop {
            tokio::select! {
                // Events first: a signal never cuts a question off from what came before it.
                biased;
                event = self.events.recv() => {
                    let Some(event) = event else {
                        view.finish();
                        return (ended(), signal);
                    };
                    match event.msg {
                        EventMsg::TurnFinished(outcome) if event.turn == id => {
                            view.finish();
                            return (*outcome, signal);
                        }
                        EventMsg::ApprovalRequested(request) => {
                            view.pause();
                            let answer = tokio::select! {
                                answer = self.input.answer(&request) => answer,
                                number = &mut stop, if signal.is_none() => {
                                    signal = Some(number);
                                    self.interrupt(id);
                                    ApprovalAnswer::Deny
                                }
                            };
                            let call_id = request.call_id;
                            let _ = self.session.submit(Op::Approve { call_id, answer });
                        }
                        msg => view.show(&msg),
                    }
                }
                number = &mut stop, if signal.is_none() => {
                    signal = Some(number);
                    self.interrupt(id);
                }
            }
        }
    }

    /// Waits for the notice of the operation `id` (one that is not a turn, such as
    /// [`Op::SetContextMode`]); `None` when the session ends first.
    pub(crate) async fn settle(&mut self, id: TurnId) -> Option<Notice> {
        while let Some(event) = self.events.recv().await {
            if let (EventMsg::Notice(notice), true) = (event.msg, event.turn == id) {
                return Some(notice);
            }
        }
        None
    }

    fn interrupt(&self, id: TurnId) {
        let _ = self.session.submit(Op::Interrupt { turn: Some(id) });
    }
}

/// The outcome of a turn whose session went away before it ended (it cannot, while the desk
/// holds the session).
fn ended() -> TurnOutcome {
    let error = RunError::Aborted("the session ended before the turn".into());
    TurnOutcome::failed(SessionError::Run(error))
}

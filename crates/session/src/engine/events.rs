//! Where a turn's events go: the session's one stream, a turn's own stream ([`Turn`]), or —
//! for [`Session::ask`](crate::Session::ask), which reads none of them — nowhere but the
//! questions, which still reach the session's stream so that whoever answers them can.

use super::protocol::{EventMsg, SessionEvent, TurnId, TurnOutcome};
use agentctl_core::{GraphEvent, RunEvent};
use agentctl_tools::ApprovalRequest;
use futures_util::Stream;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio_util::sync::CancellationToken;

/// Where one turn's events go.
#[derive(Clone)]
pub(crate) struct Sink {
    turn: TurnId,
    to: To,
}

#[derive(Clone)]
enum To {
    /// Every event, to this stream (the session's, or the turn's own).
    All(UnboundedSender<SessionEvent>),
    /// Only questions, to the session's stream.
    Questions(UnboundedSender<SessionEvent>),
    /// Nothing (a sub-agent's graph: its questions reach its turn through the gate).
    Nowhere,
}

impl Sink {
    /// Every event of `turn` to `stream`.
    pub(crate) fn all(turn: TurnId, stream: UnboundedSender<SessionEvent>) -> Self {
        Self {
            turn,
            to: To::All(stream),
        }
    }

    /// Only the questions of `turn`, to `session`'s stream.
    pub(crate) fn questions(turn: TurnId, session: UnboundedSender<SessionEvent>) -> Self {
        Self {
            turn,
            to: To::Questions(session),
        }
    }

    /// Nothing of `turn`.
    pub(crate) fn nowhere(turn: TurnId) -> Self {
        Self {
            turn,
            to: To::Nowhere,
        }
    }

    /// Whether anybody reads the events (else they need not be built).
    pub(crate) fn reads_events(&self) -> bool {
        matches!(self.to, To::All(_))
    }

    /// Sends one event.
    pub(crate) fn emit(&self, msg: EventMsg) {
        if let To::All(stream) = &self.to {
            // A reader that went away takes nothing more; the turn goes on to its end.
            let _ = stream.send(SessionEvent {
                turn: self.turn,
                msg,
            });
        }
    }

    /// Sends a question: wherever it can be answered.
    pub(crate) fn question(&self, request: ApprovalRequest) {
        let msg = EventMsg::ApprovalRequested(request);
        match &self.to {
            To::All(stream) | To::Questions(stream) => {
                let _ = stream.send(SessionEvent {
                    turn: self.turn,
                    msg,
                });
            }
            To::Nowhere => {}
        }
    }
}

/// How a run's events are framed: as the turn's own, or as a graph node's.
#[derive(Debug, Clone)]
pub(crate) enum Frame {
    /// The turn's agent (or one a handoff started).
    Turn,
    /// The agent of a graph's node.
    Node(String),
}

impl Frame {
    /// `event`, framed.
    pub(crate) fn wrap(&self, event: RunEvent) -> EventMsg {
        match self {
            Frame::Turn => EventMsg::Run(event),
            Frame::Node(node) => EventMsg::Graph(GraphEvent::Run {
                node: node.clone(),
                event,
            }),
        }
    }
}

/// The session's stream of events, from every turn submitted with
/// [`Session::submit`](crate::Session::submit), and the questions of
/// [`Session::ask`](crate::Session::ask)'s turns.
#[derive(Debug)]
pub struct EventStream {
    events: UnboundedReceiver<SessionEvent>,
}

impl EventStream {
    pub(crate) fn new(events: UnboundedReceiver<SessionEvent>) -> Self {
        Self { events }
    }

    /// The next event; `None` once the session is gone.
    pub async fn recv(&mut self) -> Option<SessionEvent> {
        self.events.recv().await
    }
}

impl Stream for EventStream {
    type Item = SessionEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<SessionEvent>> {
        self.events.poll_recv(cx)
    }
}

/// One turn with a stream of its own ([`Session::turn`](crate::Session::turn)): its events,
/// ending with [`EventMsg::TurnFinished`]. Owned: it can be moved into a task. Dropping it
/// cancels the turn.
#[derive(Debug)]
pub struct Turn {
    id: TurnId,
    events: UnboundedReceiver<SessionEvent>,
    cancel: CancellationToken,
    done: bool,
}

impl Turn {
    pub(crate) fn new(
        id: TurnId,
        events: UnboundedReceiver<SessionEvent>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            id,
            events,
            cancel,
            done: false,
        }
    }

    /// The turn's id (answers to its questions go through the session with
    /// [`Op::Approve`](crate::Op::Approve)).
    pub fn id(&self) -> TurnId {
        self.id
    }

    /// A token that cancels the turn, whichever agent is working (for Ctrl-C and signals).
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Reads the turn to its end (its remaining events are dropped) and returns how it ended.
    pub async fn finish(mut self) -> TurnOutcome {
        while let Some(event) = self.events.recv().await {
            if let EventMsg::TurnFinished(outcome) = event.msg {
                self.done = true;
                return *outcome;
            }
        }
        self.done = true;
        TurnOutcome {
            result: Err(crate::SessionError::Run(agentctl_core::RunError::Aborted(
                "the turn ended without an outcome".into(),
            ))),
            agents: Vec::new(),
            graph: None,
        }
    }
}

impl Stream for Turn {
    type Item = SessionEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<SessionEvent>> {
        if self.done {
            return Poll::Ready(None);
        }
        let polled = self.events.poll_recv(cx);
        if let Poll::Ready(Some(SessionEvent {
            msg: EventMsg::TurnFinished(_),
            ..
        })) = &polled
        {
            self.done = true;
        }
        polled
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if !self.done {
            self.cancel.cancel();
        }
    }
}

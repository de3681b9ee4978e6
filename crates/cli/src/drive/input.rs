//! The terminal's input: the REPL's lines and the answers to approval questions, read from one
//! reader of stdin (two readers would each buffer lines meant for the other).

use crate::render::{parse_answer, render_prompt};
use agentctl_session::tools::{ApprovalAnswer, ApprovalRequest};
use std::io::Write as _;
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};

/// Lines of stdin.
pub(crate) struct Input {
    lines: Lines<BufReader<Stdin>>,
}

impl Input {
    pub(crate) fn new() -> Self {
        Self {
            lines: BufReader::new(tokio::io::stdin()).lines(),
        }
    }

    /// The next line; `None` at the end of input or on a read error.
    pub(crate) async fn line(&mut self) -> Option<String> {
        self.lines.next_line().await.ok().flatten()
    }

    /// Asks `request` on stderr and reads the answer. The end of input, a read error or three
    /// unreadable answers are a no, never a yes.
    pub(crate) async fn answer(&mut self, request: &ApprovalRequest) -> ApprovalAnswer {
        let mut question = render_prompt(request);
        for _ in 0..3 {
            {
                let mut err = std::io::stderr().lock();
                if err
                    .write_all(question.as_bytes())
                    .and_then(|()| err.flush())
                    .is_err()
                {
                    return ApprovalAnswer::Deny;
                }
            }
            let Some(line) = self.line().await else {
                return ApprovalAnswer::Deny;
            };
            if let Some(answer) = parse_answer(&line) {
                return answer;
            }
            question = "Please answer y, n or a: ".to_owned();
        }
        ApprovalAnswer::Deny
    }
}

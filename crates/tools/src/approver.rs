//! Asking the user: the [`Approver`] trait, a terminal approver and a non-terminal one that
//! refuses at once (never a hang, never a silent yes).

use agentctl_core::RiskLevel;
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use std::io::{BufRead, IsTerminal as _, Write};
use std::sync::{Arc, Mutex};

/// A call waiting for the user's decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalRequest {
    /// The agent making the call.
    pub agent: String,
    /// The tool called.
    pub tool: String,
    /// The call's risk.
    pub risk: RiskLevel,
    /// Why it is that risky.
    pub reason: String,
    /// The model's arguments.
    pub arguments: Value,
}

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalAnswer {
    /// Run this call.
    Yes,
    /// Refuse this call.
    No,
    /// Run this call and further calls of the tool up to this risk, for the session.
    Always,
}

/// Something that can ask the user about a call.
#[async_trait]
pub trait Approver: Send + Sync {
    /// Asks about one call.
    async fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer;

    /// False when nobody can answer (no terminal): the gate then refuses without asking.
    fn is_interactive(&self) -> bool {
        true
    }
}

/// Longest argument listing shown in the prompt, in lines.
const MAX_ARGUMENT_LINES: usize = 40;
/// Longest string value shown in the prompt, in characters.
const MAX_STRING_CHARS: usize = 2_000;

/// The prompt text the terminal approver shows; a pure function so it can be snapshot-tested.
pub fn render_prompt(request: &ApprovalRequest) -> String {
    let shown = clip_strings(&request.arguments);
    let pretty = serde_json::to_string_pretty(&shown).unwrap_or_else(|_| shown.to_string());
    let lines: Vec<&str> = pretty.lines().collect();
    let mut arguments = String::new();
    for line in lines.iter().take(MAX_ARGUMENT_LINES) {
        arguments.push_str("    ");
        arguments.push_str(line);
        arguments.push('\n');
    }
    if lines.len() > MAX_ARGUMENT_LINES {
        arguments.push_str(&format!(
            "    … ({} more lines)\n",
            lines.len() - MAX_ARGUMENT_LINES
        ));
    }
    format!(
        "Agent `{agent}` wants to run `{tool}`\n  risk:      {risk} ({reason})\n  arguments:\n{arguments}Allow? [y]es, [n]o, [a]lways allow {tool} this session: ",
        agent = request.agent,
        tool = request.tool,
        risk = request.risk,
        reason = request.reason,
    )
}

fn clip_strings(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > MAX_STRING_CHARS => {
            let head: String = text.chars().take(MAX_STRING_CHARS).collect();
            let rest = text.chars().count() - MAX_STRING_CHARS;
            Value::String(format!("{head}… ({rest} more characters)"))
        }
        Value::Array(items) => Value::Array(items.iter().map(clip_strings).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), clip_strings(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Parses an answer line: `y`/`yes`, `n`/`no`, `a`/`always`; anything else is `None`.
pub fn parse_answer(line: &str) -> Option<ApprovalAnswer> {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(ApprovalAnswer::Yes),
        "n" | "no" => Some(ApprovalAnswer::No),
        "a" | "always" => Some(ApprovalAnswer::Always),
        _ => None,
    }
}

type Io = (Box<dyn BufRead + Send>, Box<dyn Write + Send>);

/// Asks on a terminal: writes the prompt to stderr and reads the answer from stdin (or from
/// the reader and writer given to [`TerminalApprover::with_io`]). End of input or a read error
/// is a no; after three unreadable answers it is a no too.
pub struct TerminalApprover {
    io: Arc<Mutex<Io>>,
}

impl std::fmt::Debug for TerminalApprover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TerminalApprover")
    }
}

impl Default for TerminalApprover {
    fn default() -> Self {
        Self::new()
    }
}

impl TerminalApprover {
    /// Asks on stdin and stderr.
    pub fn new() -> Self {
        Self::with_io(
            Box::new(std::io::BufReader::new(std::io::stdin())),
            Box::new(std::io::stderr()),
        )
    }

    /// Asks on the given reader and writer (tests, other front ends).
    pub fn with_io(reader: Box<dyn BufRead + Send>, writer: Box<dyn Write + Send>) -> Self {
        Self {
            io: Arc::new(Mutex::new((reader, writer))),
        }
    }
}

#[async_trait]
impl Approver for TerminalApprover {
    async fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        let prompt = render_prompt(request);
        let io = Arc::clone(&self.io);
        let answer = tokio::task::spawn_blocking(move || {
            let Ok(mut io) = io.lock() else {
                return ApprovalAnswer::No;
            };
            let (reader, writer) = &mut *io;
            for attempt in 0..3 {
                let text = if attempt == 0 {
                    prompt.as_str()
                } else {
                    "Please answer y, n or a: "
                };
                if writer
                    .write_all(text.as_bytes())
                    .and_then(|()| writer.flush())
                    .is_err()
                {
                    return ApprovalAnswer::No;
                }
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => return ApprovalAnswer::No,
                    Ok(_) => {
                        if let Some(answer) = parse_answer(&line) {
                            return answer;
                        }
                    }
                }
            }
            ApprovalAnswer::No
        })
        .await;
        answer.unwrap_or(ApprovalAnswer::No)
    }
}

/// For runs without a terminal: every question is answered no, at once.
#[derive(Debug, Clone, Copy, Default)]
pub struct NonTerminalApprover;

#[async_trait]
impl Approver for NonTerminalApprover {
    async fn ask(&self, _request: &ApprovalRequest) -> ApprovalAnswer {
        ApprovalAnswer::No
    }

    fn is_interactive(&self) -> bool {
        false
    }
}

/// A terminal approver when stdin and stderr are terminals, otherwise the non-terminal one.
pub fn default_approver() -> Arc<dyn Approver> {
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Arc::new(TerminalApprover::new())
    } else {
        Arc::new(NonTerminalApprover)
    }
}

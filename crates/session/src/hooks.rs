//! Hooks: Claude Code's `hooks` (settings and agent front matter), with Gemini CLI's event
//! names as aliases — commands run at points of a run, that can block a tool call, rewrite
//! its input, add context, or make an agent go on before it stops.
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
//!   "hooks": [{"type": "command", "command": "./check.sh", "timeout": 60}]}]}}
//! ```
//!
//! [`HookSet::load`] reads one such value with its origin (a settings layer, an agent file),
//! so every source feeds the same loader after its own merge; what cannot be used is a
//! [`HookWarning`] naming the origin, never dropped silently. The session gives each run the
//! set of the settings plus its agent's own ([`SessionHooks`]), which the agent loop calls for
//! every agent of a tree alike: the turn's agent, handoff targets, graph nodes and sub-agents.
//!
//! Commands run like the `bash` tool's: `sh -c` in the project root, confined by the sandbox,
//! with the scrubbed environment (plus `CLAUDE_PROJECT_DIR` and `AGENTCTL_PROJECT_DIR`), a
//! timeout (default 60 s) after which their process group is killed, and bounded output.

mod decide;
mod matcher;
mod run;

pub use matcher::Matcher;
pub(crate) use run::{AgentHooks, HookRunner, SessionHooks};
pub use run::{MAX_HOOK_STDERR_BYTES, MAX_HOOK_STDOUT_BYTES};

use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Seconds a hook runs at most when it sets no `timeout`.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 60;
/// The longest `timeout` taken, in seconds (ten minutes).
pub const MAX_HOOK_TIMEOUT_SECS: u64 = 600;

/// A point of a run where hooks fire, by Claude Code's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before a tool call meets the approval gate (Gemini CLI: `BeforeTool`).
    PreToolUse,
    /// After a tool call ran (Gemini CLI: `AfterTool`).
    PostToolUse,
    /// When a prompt is submitted, before the agent sees it (Gemini CLI: `BeforeAgent`).
    UserPromptSubmit,
    /// When the turn's agent is about to give its final answer (Gemini CLI: `AfterAgent`).
    Stop,
    /// When a sub-agent is about to give its final answer.
    SubagentStop,
    /// When a session starts.
    SessionStart,
    /// When a session ends.
    SessionEnd,
    /// Before a conversation is compacted (Gemini CLI: `PreCompress`).
    PreCompact,
    /// When agentctl notifies the user.
    Notification,
    /// When a person is asked to approve a call.
    PermissionRequest,
}

impl HookEvent {
    /// Every event, in Claude Code's order.
    pub const ALL: [HookEvent; 10] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PreCompact,
        HookEvent::Notification,
        HookEvent::PermissionRequest,
    ];

    /// Claude Code's name of the event.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
            HookEvent::PermissionRequest => "PermissionRequest",
        }
    }

    /// The event a Claude Code or Gemini CLI name stands for.
    ///
    /// ```
    /// use agentctl_session::HookEvent;
    /// assert_eq!(HookEvent::parse("PreToolUse"), Some(HookEvent::PreToolUse));
    /// assert_eq!(HookEvent::parse("BeforeTool"), Some(HookEvent::PreToolUse));
    /// assert_eq!(HookEvent::parse("AfterAgent"), Some(HookEvent::Stop));
    /// assert_eq!(HookEvent::parse("BeforeModel"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Self> {
        let gemini = match name {
            "BeforeTool" => Some(HookEvent::PreToolUse),
            "AfterTool" => Some(HookEvent::PostToolUse),
            "BeforeAgent" => Some(HookEvent::UserPromptSubmit),
            "AfterAgent" => Some(HookEvent::Stop),
            "PreCompress" => Some(HookEvent::PreCompact),
            _ => None,
        };
        gemini.or_else(|| Self::ALL.into_iter().find(|event| event.name() == name))
    }

    /// Whether its matchers are matched against tool names.
    pub fn matches_tools(self) -> bool {
        matches!(
            self,
            HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PermissionRequest
        )
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One `type: command` hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// The event it fires on.
    pub event: HookEvent,
    /// Which tools (or sources) it fires for.
    pub matcher: Matcher,
    /// The shell command line.
    pub command: String,
    /// How long it may run.
    pub timeout: Duration,
    /// Where it was declared (`project: /p/.agentctl/settings.json`, `agent reviewer: …`).
    pub origin: String,
    /// A folder outside the project its command may read besides what the `bash` sandbox
    /// allows: a plugin's own folder, where its hook scripts are.
    pub readable: Option<PathBuf>,
    /// Declared under a Gemini CLI name whose hooks only observe (`PreCompress`): what it
    /// answers cannot stop anything, as in Gemini CLI.
    pub advisory: bool,
}

/// Something of a `hooks` value that cannot be used, with where it was declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookWarning {
    /// Where the value was declared.
    pub origin: String,
    /// The key path inside `hooks` (`PreToolUse[0].matcher`).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for HookWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: hooks.{}: {} (ignored)",
            self.origin, self.key, self.message
        )
    }
}

/// The hooks of some sources, in the order they were added (settings first, lowest layer
/// first, then an agent's own).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookSet {
    commands: Vec<HookCommand>,
}

impl HookSet {
    /// Reads a `hooks` value (`{Event: [{matcher, hooks: [{type, command, timeout}]}]}`)
    /// declared at `origin`; what cannot be used is a warning.
    ///
    /// ```
    /// use agentctl_session::{HookEvent, HookSet};
    ///
    /// let value = serde_json::json!({"BeforeTool": [{"matcher": "Bash",
    ///     "hooks": [{"type": "command", "command": "./check.sh"}]}]});
    /// let (hooks, warnings) = HookSet::load(&value, "project");
    /// assert!(warnings.is_empty());
    /// assert_eq!(hooks.for_tool(HookEvent::PreToolUse, "bash").count(), 1);
    /// assert_eq!(hooks.for_tool(HookEvent::PreToolUse, "read_file").count(), 0);
    /// ```
    pub fn load(value: &Value, origin: &str) -> (Self, Vec<HookWarning>) {
        let mut loader = Loader {
            origin,
            set: Self::default(),
            warnings: Vec::new(),
        };
        match value {
            Value::Object(events) => {
                for (name, groups) in events {
                    loader.event(name, groups);
                }
            }
            Value::Null => {}
            other => loader.warn(String::new(), format!("expected an object, found {other}")),
        }
        (loader.set, loader.warnings)
    }

    /// The same hooks, each allowed to read `folder` (a plugin's, for the scripts it ships).
    pub fn reading(mut self, folder: &Path) -> Self {
        for hook in &mut self.commands {
            hook.readable = Some(folder.to_path_buf());
        }
        self
    }

    /// Adds `other`'s hooks after this set's.
    pub fn extend(&mut self, other: HookSet) {
        self.commands.extend(other.commands);
    }

    /// Whether there is no hook at all.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Every hook, in order.
    pub fn commands(&self) -> &[HookCommand] {
        &self.commands
    }

    /// Whether some hook fires on `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.commands.iter().any(|hook| hook.event == event)
    }

    /// The hooks of `event` whose matcher takes the tool `tool` (agentctl's name).
    pub fn for_tool(&self, event: HookEvent, tool: &str) -> impl Iterator<Item = &HookCommand> {
        self.commands
            .iter()
            .filter(move |hook| hook.event == event && hook.matcher.matches_tool(tool))
    }

    /// The hooks of `event` (matchers of events without a subject are not consulted).
    pub fn for_event(&self, event: HookEvent) -> impl Iterator<Item = &HookCommand> {
        self.commands.iter().filter(move |hook| hook.event == event)
    }
}

/// Reads one `hooks` value.
struct Loader<'a> {
    origin: &'a str,
    set: HookSet,
    warnings: Vec<HookWarning>,
}

impl Loader<'_> {
    fn warn(&mut self, key: String, message: String) {
        self.warnings.push(HookWarning {
            origin: self.origin.to_owned(),
            key,
            message,
        });
    }

    fn event(&mut self, name: &str, groups: &Value) {
        let Some(event) = HookEvent::parse(name) else {
            let message = match name {
                "BeforeModel" | "AfterModel" | "BeforeToolSelection" => {
                    "a Gemini CLI event agentctl has no counterpart for".to_owned()
                }
                _ => format!(
                    "unknown event (expected one of {})",
                    HookEvent::ALL.map(HookEvent::name).join(", ")
                ),
            };
            self.warn(name.to_owned(), message);
            return;
        };
        let Some(groups) = groups.as_array() else {
            self.warn(name.to_owned(), "expected a list of matcher groups".into());
            return;
        };
        // Gemini CLI's `PreCompress` hooks are advisory there; Claude Code's `PreCompact` may block.
        let advisory = name == "PreCompress";
        for (index, group) in groups.iter().enumerate() {
            self.group(event, advisory, &format!("{name}[{index}]"), group);
        }
    }

    fn group(&mut self, event: HookEvent, advisory: bool, key: &str, group: &Value) {
        let matcher = match group.get("matcher") {
            None | Some(Value::Null) => Ok(Matcher::all()),
            Some(Value::String(pattern)) => Matcher::new(pattern),
            Some(other) => Err(format!("expected a string, found {other}")),
        };
        let matcher = match matcher {
            Ok(matcher) => matcher,
            Err(message) => return self.warn(format!("{key}.matcher"), message),
        };
        let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
            return self.warn(format!("{key}.hooks"), "expected a list of hooks".into());
        };
        for (index, hook) in hooks.iter().enumerate() {
            let key = format!("{key}.hooks[{index}]");
            match command_of(hook) {
                Ok((command, timeout)) => self.set.commands.push(HookCommand {
                    event,
                    matcher: matcher.clone(),
                    command,
                    timeout,
                    origin: self.origin.to_owned(),
                    readable: None,
                    advisory,
                }),
                Err(message) => self.warn(key, message),
            }
        }
    }
}

/// The command line and timeout of one hook.
fn command_of(hook: &Value) -> Result<(String, Duration), String> {
    match hook.get("type").and_then(Value::as_str) {
        Some("command") => {}
        Some(other) => return Err(format!("hooks of type `{other}` are not supported")),
        None => return Err("`type` must be `command`".into()),
    }
    let command = hook
        .get("command")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|command| !command.is_empty())
        .ok_or("`command` must be a non-empty string")?;
    let seconds = match hook.get("timeout") {
        None | Some(Value::Null) => DEFAULT_HOOK_TIMEOUT_SECS,
        Some(value) => value
            .as_u64()
            .filter(|seconds| *seconds > 0)
            .ok_or("`timeout` must be a positive number of seconds")?,
    };
    let seconds = seconds.min(MAX_HOOK_TIMEOUT_SECS);
    Ok((command.to_owned(), Duration::from_secs(seconds)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn loads_claude_and_gemini_names_and_reports_the_rest() {
        let value = json!({
            "PreToolUse": [{"matcher": "Edit|Write", "hooks": [
                {"type": "command", "command": "a", "timeout": 5},
                {"type": "prompt", "prompt": "x"}]}],
            "AfterTool": [{"hooks": [{"type": "command", "command": "b"}]}],
            "BeforeModel": [],
            "Stopp": [],
            "Stop": [{"matcher": "(", "hooks": []}]
        });
        let (set, warnings) = HookSet::load(&value, "global");
        assert_eq!(set.commands().len(), 2);
        assert_eq!(set.commands()[0].timeout, Duration::from_secs(5));
        assert_eq!(set.commands()[1].event, HookEvent::PostToolUse);
        assert_eq!(
            set.commands()[1].timeout,
            Duration::from_secs(DEFAULT_HOOK_TIMEOUT_SECS)
        );
        let keys: Vec<&str> = warnings.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "PreToolUse[0].hooks[1]",
                "BeforeModel",
                "Stopp",
                "Stop[0].matcher"
            ]
        );
        assert!(warnings[0].to_string().starts_with("global: hooks."));
    }

    #[test]
    fn gemini_pre_compress_hooks_are_advisory_and_claude_pre_compact_ones_are_not() {
        let hook = json!([{"matcher": "auto", "hooks": [{"type": "command", "command": "a"}]}]);
        let (set, warnings) = HookSet::load(&json!({"PreCompress": hook, "PreCompact": hook}), "x");
        assert!(warnings.is_empty());
        let advisory: Vec<bool> = set
            .for_event(HookEvent::PreCompact)
            .map(|hook| hook.advisory)
            .collect();
        assert_eq!(advisory.len(), 2);
        assert_eq!(advisory.iter().filter(|advisory| **advisory).count(), 1);
        assert!(
            set.commands()
                .iter()
                .all(|hook| hook.matcher.matches("auto"))
        );
        assert!(!set.commands()[0].matcher.matches("manual"));
    }

    #[test]
    fn timeouts_are_positive_and_capped() {
        let value = json!({"Stop": [{"hooks": [
            {"type": "command", "command": "a", "timeout": 0},
            {"type": "command", "command": "b", "timeout": 100000}]}]});
        let (set, warnings) = HookSet::load(&value, "x");
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            set.commands()[0].timeout,
            Duration::from_secs(MAX_HOOK_TIMEOUT_SECS)
        );
    }
}

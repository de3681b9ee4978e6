//! Running hooks for the runs of a turn: [`SessionHooks`] holds the settings' hooks, where
//! and how commands run, and where problems are told; [`SessionHooks::for_agent`] gives each
//! run the settings' hooks plus its agent's own, as the agent loop's
//! [`RunHooks`](agentctl_core::RunHooks).

use super::decide::{self, Reply};
use super::matcher::names_of;
use super::{HookCommand, HookEvent, HookSet, HookWarning};
use crate::engine::{EventMsg, Notice, Sink};
use agentctl_core::{
    AfterTool, AgentDefinition, BeforeTool, HookCall, PermissionMode, RunHooks, Scope, StopVerdict,
};
use agentctl_guardrails::{CommandEnvironment, ShellRun};
use async_trait::async_trait;
use futures_util::future::join_all;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes of a hook's stdout read (as JSON or context); the rest is read and dropped.
pub const MAX_HOOK_STDOUT_BYTES: usize = 64 * 1024;
/// Bytes of a hook's stderr kept (the reason of a block).
pub const MAX_HOOK_STDERR_BYTES: usize = 16 * 1024;

/// Where and how the hooks of a session run.
#[derive(Debug)]
pub(crate) struct HookRunner {
    /// The settings' hooks (a project's only once the project is trusted).
    pub(crate) settings: HookSet,
    /// What of the settings' hooks cannot be used, told with the first turn.
    pub(crate) warnings: Vec<HookWarning>,
    /// Whether the warnings were told.
    pub(crate) told: AtomicBool,
    /// Whether the `SessionStart` hooks ran (once per session, with its first turn).
    pub(crate) started: AtomicBool,
    /// The sandbox and environment of the `bash` tool's commands.
    pub(crate) environment: CommandEnvironment,
    /// The project root: the hooks' working directory.
    pub(crate) root: PathBuf,
    /// Whether hooks of the project's own agent files may run (the project is trusted).
    pub(crate) project_trusted: bool,
}

/// The hooks of one turn's runs.
pub(crate) struct SessionHooks {
    runner: Arc<HookRunner>,
    session_id: String,
    /// Where problems of hooks are told (nowhere for a sub-agent's graph).
    sink: Sink,
}

impl SessionHooks {
    pub(crate) fn new(runner: Arc<HookRunner>, session_id: String, sink: Sink) -> Self {
        let hooks = Self {
            runner,
            session_id,
            sink,
        };
        if !hooks.runner.warnings.is_empty() && !hooks.runner.told.swap(true, Ordering::Relaxed) {
            for warning in &hooks.runner.warnings {
                hooks.warn(warning);
            }
        }
        hooks
    }

    /// The hooks of a run of `agent` in permission `mode`: the settings' and the agent's own
    /// front matter's (those of a project agent file only when the project is trusted);
    /// `None` when there are none.
    pub(crate) fn for_agent(
        self: &Arc<Self>,
        agent: &AgentDefinition,
        mode: PermissionMode,
    ) -> Option<Arc<AgentHooks>> {
        let mut set = self.runner.settings.clone();
        if let Some(value) = agent.extra.get("hooks") {
            let origin = format!("agent {}: {}", agent.name(), agent.source.path.display());
            let project = agent.source.scope == Scope::Project;
            if project && !self.runner.project_trusted {
                self.tell(
                    HookEvent::PreToolUse,
                    &origin,
                    "",
                    "the agent's hooks do not run: the project is not trusted (agentctl trust)",
                );
            } else {
                let (own, warnings) = HookSet::load(value, &origin);
                for warning in &warnings {
                    self.warn(warning);
                }
                set.extend(own);
            }
        }
        if set.is_empty() {
            return None;
        }
        Some(Arc::new(AgentHooks {
            turn: Arc::clone(self),
            set,
            mode,
        }))
    }

    /// Runs the `UserPromptSubmit` hooks on `prompt`: the reason it is refused, or the
    /// context to add to it.
    pub(crate) async fn user_prompt(
        &self,
        agent: &str,
        mode: PermissionMode,
        prompt: &str,
    ) -> Result<Option<String>, String> {
        let hooks: Vec<&HookCommand> = self
            .runner
            .settings
            .for_event(HookEvent::UserPromptSubmit)
            .collect();
        if hooks.is_empty() {
            return Ok(None);
        }
        let input = self.input(
            HookEvent::UserPromptSubmit,
            agent,
            mode,
            json!({"prompt": prompt}),
        );
        decide::prompt(&self.run_all(&hooks, &input).await)
    }

    /// Runs the `SessionStart` hooks once per session, with its first turn: `source` is
    /// `startup` for a new session and `resume` for one continued (the matcher is tried on
    /// it, as Claude Code does). What they print is context for the first prompt.
    pub(crate) async fn session_start(
        &self,
        agent: &str,
        mode: PermissionMode,
        resumed: bool,
    ) -> Option<String> {
        if self.runner.started.swap(true, Ordering::Relaxed) {
            return None;
        }
        let source = if resumed { "resume" } else { "startup" };
        let hooks: Vec<&HookCommand> = self
            .runner
            .settings
            .for_event(HookEvent::SessionStart)
            .filter(|hook| hook.matcher.matches(source))
            .collect();
        if hooks.is_empty() {
            return None;
        }
        let input = self.input(
            HookEvent::SessionStart,
            agent,
            mode,
            json!({"source": source}),
        );
        // SessionStart cannot block: a refusal is context like any other output.
        let replies = self.run_all(&hooks, &input).await;
        decide::prompt(&replies).unwrap_or_else(Some)
    }

    /// Runs the `SessionEnd` hooks when the session ends (`reason`: `prompt_input_exit`
    /// when the user left, else `other`); they cannot stop it.
    pub(crate) async fn session_end(&self, reason: &str) {
        // Once, and only for a session that started.
        if !self.runner.started.swap(false, Ordering::Relaxed) {
            return;
        }
        let hooks: Vec<&HookCommand> = self
            .runner
            .settings
            .for_event(HookEvent::SessionEnd)
            .filter(|hook| hook.matcher.matches(reason))
            .collect();
        if !hooks.is_empty() {
            let fields = json!({"reason": reason});
            let input = self.input(HookEvent::SessionEnd, "", PermissionMode::Default, fields);
            self.run_all(&hooks, &input).await;
        }
    }

    /// Runs the `PreCompact` hooks of the settings (Gemini CLI's `PreCompress` too) before a
    /// workspace is compacted: `trigger` is `manual` (asked for) or `auto` (the workspace
    /// outgrew the window), tried on the matcher; `custom_instructions` what the user gave a
    /// manual compaction. `Err(reason)` when one blocks it (exit code 2, `decision: block`,
    /// `continue: false`) — never one declared under `PreCompress`, advisory in Gemini CLI;
    /// an automatic compaction held back is told to the user.
    pub(crate) async fn pre_compact(
        &self,
        agent: &str,
        mode: PermissionMode,
        trigger: &str,
        custom_instructions: &str,
    ) -> Result<(), String> {
        let hooks: Vec<&HookCommand> = self
            .runner
            .settings
            .for_event(HookEvent::PreCompact)
            .filter(|hook| hook.matcher.matches(trigger))
            .collect();
        if hooks.is_empty() {
            return Ok(());
        }
        let fields = json!({"trigger": trigger, "custom_instructions": custom_instructions});
        let input = self.input(HookEvent::PreCompact, agent, mode, fields);
        let replies = self.run_all(&hooks, &input).await;
        let obeyed = hooks
            .iter()
            .zip(&replies)
            .filter(|(hook, _)| !hook.advisory)
            .map(|(_, reply)| reply);
        match decide::blocked(obeyed) {
            // An automatic compaction held back is told here (the run goes on); a manual
            // one's refusal is its caller's answer.
            Some(reason) if trigger == "auto" => {
                self.tell(
                    HookEvent::PreCompact,
                    "",
                    "",
                    &format!("compaction held back by a PreCompact hook: {reason}"),
                );
                Err(reason)
            }
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    /// Whether some `PreCompact` hook of the settings fires for `trigger`.
    pub(crate) fn has_pre_compact(&self, trigger: &str) -> bool {
        self.runner
            .settings
            .for_event(HookEvent::PreCompact)
            .any(|hook| hook.matcher.matches(trigger))
    }

    /// Runs the `Notification` hooks of the settings (matched on `kind`, Claude Code's
    /// `notification_type`: `permission_prompt`) with `message`, in the background: a
    /// notification never holds anything up.
    pub(crate) fn notify(
        self: &Arc<Self>,
        agent: &str,
        mode: PermissionMode,
        kind: &str,
        message: String,
    ) {
        let hooks: Vec<HookCommand> = self
            .runner
            .settings
            .for_event(HookEvent::Notification)
            .filter(|hook| hook.matcher.matches(kind))
            .cloned()
            .collect();
        if hooks.is_empty() {
            return;
        }
        let input = self.input(
            HookEvent::Notification,
            agent,
            mode,
            json!({"message": message, "notification_type": kind}),
        );
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let hooks: Vec<&HookCommand> = hooks.iter().collect();
            this.run_all(&hooks, &input).await;
        });
    }

    /// The JSON a hook reads on stdin: Claude Code's common fields (`permission_mode` the
    /// one the agent's calls are judged in), then the event's.
    fn input(&self, event: HookEvent, agent: &str, mode: PermissionMode, fields: Value) -> Value {
        let mut input = json!({
            "session_id": self.session_id,
            "cwd": self.runner.root,
            "hook_event_name": event.name(),
            "permission_mode": mode.as_str(),
            "agent_name": agent,
        });
        if let (Some(input), Value::Object(fields)) = (input.as_object_mut(), fields) {
            input.extend(fields);
        }
        input
    }

    /// Runs `hooks` at once on `input`; tells the user what went wrong.
    async fn run_all(&self, hooks: &[&HookCommand], input: &Value) -> Vec<Reply> {
        let stdin = input.to_string();
        let runs = hooks
            .iter()
            .map(|hook| self.run_one(hook, stdin.as_bytes()));
        let replies = join_all(runs).await;
        for (hook, reply) in hooks.iter().zip(&replies) {
            if let Some(problem) = &reply.problem {
                self.tell(hook.event, &hook.origin, &hook.command, problem);
            }
        }
        replies
    }

    async fn run_one(&self, hook: &HookCommand, stdin: &[u8]) -> Reply {
        let root = self.runner.root.as_os_str().to_owned();
        let run = ShellRun {
            line: &hook.command,
            working_dir: &self.runner.root,
            readable: hook.readable.as_deref(),
            stdin,
            timeout: hook.timeout,
            vars: vec![
                ("CLAUDE_PROJECT_DIR".into(), root.clone()),
                ("AGENTCTL_PROJECT_DIR".into(), root),
            ],
            max_stdout: MAX_HOOK_STDOUT_BYTES,
            max_stderr: MAX_HOOK_STDERR_BYTES,
        };
        Reply::of(self.runner.environment.run_shell(run).await)
    }

    /// Tells the user of a declaration that cannot be used.
    fn warn(&self, warning: &HookWarning) {
        let event = warning.key.split(['[', '.']).next().unwrap_or_default();
        self.sink.emit(EventMsg::Notice(Notice::Hook {
            event: event.to_owned(),
            origin: warning.origin.clone(),
            command: String::new(),
            message: format!("hooks.{}: {} (ignored)", warning.key, warning.message),
        }));
    }

    fn tell(&self, event: HookEvent, origin: &str, command: &str, message: &str) {
        self.sink.emit(EventMsg::Notice(Notice::Hook {
            event: event.name().to_owned(),
            origin: origin.to_owned(),
            command: command.to_owned(),
            message: message.to_owned(),
        }));
    }
}

/// The hooks of one run: the settings' and its agent's own, in its permission mode.
pub(crate) struct AgentHooks {
    turn: Arc<SessionHooks>,
    set: HookSet,
    mode: PermissionMode,
}

impl AgentHooks {
    /// Whether some `PermissionRequest` hook would be asked about `tool`.
    pub(crate) fn answers_permission(&self, tool: &str) -> bool {
        self.set
            .for_tool(HookEvent::PermissionRequest, tool)
            .next()
            .is_some()
    }

    /// Runs the `PermissionRequest` hooks (the settings', the plugins' and the agent file's)
    /// for a question about `tool` (its matcher is tried on the tool's names):
    /// `Some(Ok(reason))` when one allows it, `Some(Err(reason))` when one denies it, `None`
    /// to ask the person. The caller decides what an allow may answer.
    pub(crate) async fn permission_request(
        &self,
        agent: &str,
        tool: &str,
        input: &Value,
    ) -> Option<Result<String, String>> {
        let hooks: Vec<&HookCommand> = self
            .set
            .for_tool(HookEvent::PermissionRequest, tool)
            .collect();
        if hooks.is_empty() {
            return None;
        }
        let names = names_of(tool);
        let fields = json!({
            "tool_name": names.get(1).unwrap_or(&names[0]),
            "agentctl_tool_name": tool,
            "tool_input": input,
        });
        let input = self
            .turn
            .input(HookEvent::PermissionRequest, agent, self.mode, fields);
        decide::permission_request(&self.turn.run_all(&hooks, &input).await)
    }

    /// The fields of a call: Claude Code's tool name (agentctl's where it has none), the
    /// input, the call's id.
    fn call_fields(call: &HookCall<'_>) -> Value {
        let names = names_of(&call.call.name);
        let claude = names.get(1).unwrap_or(&names[0]);
        json!({
            "tool_name": claude,
            "agentctl_tool_name": call.call.name,
            "tool_input": call.call.arguments,
            "tool_use_id": call.call.id,
            "agent_depth": call.depth,
        })
    }
}

#[async_trait]
impl RunHooks for AgentHooks {
    async fn before_tool(&self, call: &HookCall<'_>) -> BeforeTool {
        let event = HookEvent::PreToolUse;
        let hooks: Vec<&HookCommand> = self.set.for_tool(event, &call.call.name).collect();
        if hooks.is_empty() {
            return BeforeTool::default();
        }
        let input = self
            .turn
            .input(event, call.agent, self.mode, Self::call_fields(call));
        decide::before_tool(&self.turn.run_all(&hooks, &input).await)
    }

    async fn after_tool(&self, call: &HookCall<'_>, result: &str, failed: bool) -> AfterTool {
        let event = HookEvent::PostToolUse;
        let hooks: Vec<&HookCommand> = self.set.for_tool(event, &call.call.name).collect();
        if hooks.is_empty() {
            return AfterTool::default();
        }
        let mut fields = Self::call_fields(call);
        if let Some(fields) = fields.as_object_mut() {
            fields.insert(
                "tool_response".into(),
                json!({"content": result, "is_error": failed}),
            );
        }
        let input = self.turn.input(event, call.agent, self.mode, fields);
        decide::after_tool(&self.turn.run_all(&hooks, &input).await)
    }

    async fn stop(&self, agent: &str, depth: u32, answer: &str, continued: bool) -> StopVerdict {
        let event = if depth == 0 {
            HookEvent::Stop
        } else {
            HookEvent::SubagentStop
        };
        let hooks: Vec<&HookCommand> = self.set.for_event(event).collect();
        if hooks.is_empty() {
            return StopVerdict::Stop;
        }
        let fields = json!({
            "stop_hook_active": continued,
            "last_assistant_message": answer,
            "agent_depth": depth,
        });
        let input = self.turn.input(event, agent, self.mode, fields);
        decide::stop(&self.turn.run_all(&hooks, &input).await)
    }
}

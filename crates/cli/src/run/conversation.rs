//! One agent talking in one session, turn after turn: the context mode is resolved once, each
//! turn's prompt gets its `@file:` references expanded, its history comes from the session
//! (or from memory when nothing is persisted), and its events are rendered and recorded.

use super::render::run_turn;
use super::session::RunSession;
use super::terminal::Frontend;
use crate::args::RunFormat;
use agentctl_context::{
    ContextError, ModeInputs, ProviderSummarizer, Summarizer, SummaryRequest, TaskTool,
    expand_file_references, resolve_mode,
};
use agentctl_core::{AgentDefinition, ContextMode, Message, ModelRef, Settings};
use agentctl_providers::{ProviderOptions, build_provider};
use agentctl_runtime::{RunError, RunOptions, RunResult, Runtime, model_context_window};
use async_trait::async_trait;
use std::io::Write as _;
use std::path::PathBuf;

/// An agent, its session and its context mode.
pub(super) struct Conversation<'a> {
    runtime: &'a Runtime,
    agent: &'a AgentDefinition,
    /// Options every turn starts from (model, turn limit, working directory…).
    options: RunOptions,
    session: Option<RunSession>,
    /// The session's `task` tool, told which run is the parent of the sub-agents it starts.
    tasks: Option<TaskTool>,
    mode: ContextMode,
    /// The conversation so far when no session records it.
    memory: Vec<Message>,
    root: PathBuf,
    frontend: Frontend,
}

impl<'a> Conversation<'a> {
    /// Resolves the agent's context mode: `--context` > session override > agent file >
    /// settings > isolated (shared refused when the settings forbid it).
    pub(super) fn new(
        runtime: &'a Runtime,
        agent: &'a AgentDefinition,
        options: RunOptions,
        session: Option<(RunSession, TaskTool)>,
        root: PathBuf,
        frontend: Frontend,
    ) -> anyhow::Result<Self> {
        let (session, tasks) = session.unzip();
        let flag = options.context_mode;
        let mode = match &session {
            Some(session) => session.mode(agent, flag)?.mode,
            None => {
                let inputs = ModeInputs {
                    flag,
                    session_override: None,
                    agent_file: agent.spec.context_mode,
                };
                resolve_mode(agent.name(), inputs, &runtime.settings().agents)?.mode
            }
        };
        Ok(Self {
            runtime,
            agent,
            options,
            session,
            tasks,
            mode,
            memory: Vec::new(),
            root,
            frontend,
        })
    }

    /// The session's id, when the conversation is recorded.
    pub(super) fn session_id(&self) -> Option<&str> {
        self.session.as_ref().map(RunSession::id)
    }

    /// What the agent would see before the next prompt.
    pub(super) fn history(&self) -> anyhow::Result<Vec<Message>> {
        match &self.session {
            Some(session) => session.history(self.agent.name(), self.mode),
            None if self.mode == ContextMode::Run => Ok(Vec::new()),
            None => Ok(self.memory.clone()),
        }
    }

    /// Compacts the agent's workspace with its own model when it outgrew the context window.
    async fn compact(&self, options: &RunOptions) -> anyhow::Result<()> {
        let Some(session) = &self.session else {
            return Ok(());
        };
        // Without a resolvable model the run itself reports the problem.
        let Ok(model) = self.runtime.resolve_model(self.agent, options) else {
            return Ok(());
        };
        let summarizer = ModelSummarizer {
            model: model.clone(),
            settings: self.runtime.settings().clone(),
            options: ProviderOptions {
                working_dir: Some(self.root.clone()),
                ..ProviderOptions::default()
            },
        };
        let window = model_context_window(&model.model);
        if session
            .compact(self.agent.name(), self.mode, &summarizer, window)
            .await?
        {
            let _ = writeln!(
                std::io::stderr(),
                "note: older messages of `{}` were summarised to fit the context window",
                self.agent.name()
            );
        }
        Ok(())
    }

    /// Runs one prompt. The outer error is a session problem before the run started; the
    /// inner one is the run's own outcome (already recorded).
    pub(super) async fn turn(
        &mut self,
        prompt: &str,
        format: RunFormat,
    ) -> anyhow::Result<Result<RunResult, RunError>> {
        let expansion = expand_file_references(&self.root, prompt);
        for warning in &expansion.warnings {
            let _ = writeln!(std::io::stderr(), "warning: {warning}");
        }
        let mut options = self.options.clone();
        options.context_mode = Some(self.mode);
        self.compact(&options).await?;
        options.history = self.history()?;
        let mut recorder = match &self.session {
            Some(session) => {
                let model = self
                    .runtime
                    .resolve_model(self.agent, &options)
                    .ok()
                    .map(|model| model.to_string());
                let recorder =
                    session.start(self.agent.name(), self.mode, model, &expansion.text)?;
                if let Some(tasks) = &self.tasks {
                    tasks.set_parent_run(recorder.run().id);
                }
                Some(recorder)
            }
            None => None,
        };
        let outcome = run_turn(
            self.runtime,
            self.agent,
            &expansion.text,
            options,
            format,
            &self.frontend,
            recorder.as_mut(),
        )
        .await;
        if let Some(recorder) = recorder {
            recorder.finish(&outcome);
        }
        if let Ok(result) = &outcome
            && self.session.is_none()
        {
            self.memory.clone_from(&result.messages);
        }
        Ok(outcome)
    }
}

/// Summarises with the agent's own model; the provider is only built when a scope actually
/// needs compacting.
struct ModelSummarizer {
    model: ModelRef,
    settings: Settings,
    options: ProviderOptions,
}

#[async_trait]
impl Summarizer for ModelSummarizer {
    async fn summarize(&self, request: SummaryRequest<'_>) -> agentctl_context::Result<String> {
        let provider =
            build_provider(&self.model, &self.settings, &self.options).map_err(|error| {
                ContextError::Summarizer {
                    scope: request.scope.to_string(),
                    message: error.to_string(),
                }
            })?;
        ProviderSummarizer::new(provider, self.model.model.clone())
            .summarize(request)
            .await
    }
}

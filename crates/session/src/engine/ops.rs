//! The operations that are not turns: setting an agent's context mode for the session and
//! compacting workspaces on demand. Their store work runs on the store thread, in order with
//! the turns' writes.

use super::approvals::agent_mode;
use super::events::Sink;
use super::locking::lock;
use super::protocol::Notice;
use super::state::Engine;
use crate::error::SessionError;
use crate::hooks::SessionHooks;
use agentctl_context::{CompactionPolicy, PendingCompaction, ProviderSummarizer, ResolvedMode};
use agentctl_core::{AgentDefinition, ContextMode, ModelRef, PermissionMode, RunOptions};
use agentctl_runtime::model_context_window;
use agentctl_store::ContextScope;
use std::sync::Arc;

impl Engine {
    /// Sets (or with `None` clears) `agent`'s context mode for the rest of the session.
    pub(crate) async fn set_context_mode(
        &self,
        agent: String,
        mode: Option<ContextMode>,
    ) -> Result<Notice, SessionError> {
        // The agent must exist, so a typo is not silently kept; a mode its runs would refuse
        // (`agents.allowSharedContext: false`) is refused now, not at its next run.
        let definition = self.shared.require_agent(&agent)?;
        if let Some(mode) = mode {
            let inputs = agentctl_context::ModeInputs {
                session_override: Some(mode),
                agent_file: definition.spec.context_mode,
                ..agentctl_context::ModeInputs::default()
            };
            agentctl_context::resolve_mode(&agent, inputs, &self.shared.settings)?;
        }
        match &self.store {
            Some(store) => {
                let session = store.session.clone();
                let name = agent.clone();
                store
                    .writer
                    .call(move |_| -> Result<(), SessionError> {
                        Ok(session
                            .store()
                            .set_mode_override(session.id(), &name, mode)?)
                    })
                    .await?;
            }
            None => {
                let mut modes = lock(&self.conversation.modes);
                match mode {
                    Some(mode) => modes.insert(agent.clone(), mode),
                    None => modes.remove(&agent),
                };
            }
        }
        Ok(Notice::ContextModeSet { agent, mode })
    }

    /// Summarises the older messages of `agent`'s workspace now, whatever their size, with its
    /// model (else `agents.defaultModel`); every workspace of the session when `None`.
    pub(crate) async fn compact(&self, agent: Option<String>) -> Result<Vec<Notice>, SessionError> {
        let Some(store) = &self.store else {
            // Nothing is recorded: there is no workspace to compact.
            return Ok(Vec::new());
        };
        let (model, scope) = self.compaction_model(agent.as_deref())?;
        let provider = self.runtime.provider_for(&model)?;
        self.pre_compact(scope.as_ref()).await?;
        let summarizer = ProviderSummarizer::new(provider, model.model.clone());
        let policy = CompactionPolicy {
            force: true,
            ..CompactionPolicy::for_context_window(model_context_window(&model.model))
        };
        // What is due is read on the store thread; the model summarises here, off it (it
        // writes for every session of a SQLite store); the summaries are saved there again.
        let session = store.session.clone();
        let pending = store
            .writer
            .call(move |_| -> Result<Vec<PendingCompaction>, SessionError> {
                let scopes = match scope {
                    None => session.store().scopes(session.id())?,
                    Some(agent) => match session.mode(&agent, None)?.mode {
                        ContextMode::Shared => vec![ContextScope::Main],
                        ContextMode::Isolated => vec![ContextScope::agent(agent.name())],
                        ContextMode::Run => Vec::new(),
                    },
                };
                let store = session.store().as_ref();
                let mut pending = Vec::new();
                for scope in &scopes {
                    pending.extend(PendingCompaction::read(
                        store,
                        session.id(),
                        scope,
                        &policy,
                    )?);
                }
                Ok(pending)
            })
            .await?;
        let mut summaries = Vec::with_capacity(pending.len());
        for compaction in pending {
            let text = compaction.summarize(&summarizer).await?;
            summaries.push((compaction, text));
        }
        let session = store.session.clone();
        store
            .writer
            .call(move |_| -> Result<Vec<Notice>, SessionError> {
                let mut notices = Vec::new();
                for (compaction, text) in &summaries {
                    if session.save_compaction(compaction, text)? {
                        notices.push(Notice::Compacted {
                            agent: compaction.scope().to_string(),
                        });
                    }
                }
                Ok(notices)
            })
            .await
    }
}

impl Engine {
    /// The model that summarises `agent`'s workspace (its own), or every workspace
    /// (`agents.defaultModel`), with the agent.
    fn compaction_model(
        &self,
        agent: Option<&str>,
    ) -> Result<(ModelRef, Option<AgentDefinition>), SessionError> {
        if let Some(name) = agent {
            let definition = self.shared.require_agent(name)?;
            let model = self
                .runtime
                .resolve_model(&definition, &RunOptions::new())?;
            return Ok((model, Some(definition)));
        }
        let model = crate::maintenance::compaction_model(self.shared.builder.settings(), None)?;
        Ok((model, None))
    }

    /// Runs the `PreCompact` hooks of a compaction asked for (`manual`) of `agent`'s
    /// workspace (every workspace when `None`); a hook that blocks refuses it.
    async fn pre_compact(&self, agent: Option<&AgentDefinition>) -> Result<(), SessionError> {
        let hooks = SessionHooks::new(
            Arc::clone(&self.hooks),
            self.session()
                .map(|s| s.id().to_owned())
                .unwrap_or_default(),
            Sink::all(self.turns.id(), self.hub.sender.clone()),
        );
        let bypass = self.approvals.gate.bypass_allowed();
        let (name, mode) = agent.map_or((String::new(), PermissionMode::Default), |agent| {
            (agent.name().to_owned(), agent_mode(agent, bypass))
        });
        hooks
            .pre_compact(&name, mode, "manual", "")
            .await
            .map_err(SessionError::CompactionRefused)
    }

    /// What `target`'s agent would see before the next prompt, in its context mode.
    pub(crate) async fn history(
        &self,
        target: &super::protocol::Target,
    ) -> Result<Vec<agentctl_core::Message>, SessionError> {
        use super::protocol::Target;
        let target = match target {
            Target::Active => self.active(),
            other => other.clone(),
        };
        let (agent, main) = match &target {
            Target::Agent(name) | Target::Graph(name) => (self.shared.require_agent(name)?, false),
            _ => (crate::main_agent(self.shared.builder.settings()), true),
        };
        let window = self
            .runtime
            .resolve_model(&agent, &RunOptions::new())
            .ok()
            .map(|model| model_context_window(&model.model));
        match &self.store {
            Some(store) => {
                let session = store.session.clone();
                store
                    .writer
                    .call(move |_| -> Result<_, SessionError> {
                        let mode = match main {
                            true => ContextMode::Shared,
                            false => session.mode(&agent, None)?.mode,
                        };
                        session.history(&agent, mode, window)
                    })
                    .await
            }
            None => {
                let mode = match main {
                    true => ContextMode::Shared,
                    false => {
                        let inputs = agentctl_context::ModeInputs {
                            flag: None,
                            session_override: lock(&self.conversation.modes)
                                .get(agent.name())
                                .copied(),
                            agent_file: agent.spec.context_mode,
                        };
                        agentctl_context::resolve_mode(agent.name(), inputs, &self.shared.settings)?
                            .mode
                    }
                };
                if mode == ContextMode::Run {
                    return Ok(Vec::new());
                }
                Ok(lock(&self.conversation.memory)
                    .get(agent.name())
                    .cloned()
                    .unwrap_or_default())
            }
        }
    }
    /// How `agent`'s context mode is decided in this session now (its override, file,
    /// settings), without a `--context` flag.
    pub(crate) async fn context_mode(&self, agent: &str) -> Result<ResolvedMode, SessionError> {
        let definition = self.shared.require_agent(agent)?;
        match &self.store {
            Some(store) => {
                let session = store.session.clone();
                store
                    .writer
                    .call(move |_| session.mode(&definition, None))
                    .await
            }
            None => {
                let inputs = agentctl_context::ModeInputs {
                    flag: None,
                    session_override: lock(&self.conversation.modes).get(agent).copied(),
                    agent_file: definition.spec.context_mode,
                };
                Ok(agentctl_context::resolve_mode(
                    agent,
                    inputs,
                    &self.shared.settings,
                )?)
            }
        }
    }
}

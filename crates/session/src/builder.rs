//! The one runtime builder: the built-in providers (recorded for `--record`), the tools, and
//! the approval gate of the settings and the front end's choices.

use crate::error::SessionError;
use crate::project::Project;
use crate::secrets::{env_policy_of, secrets_of};
use crate::store_location::TightenedFiles;
use agentctl_core::{
    CallGate, Embedder, ModelProvider, ModelRef, ProviderError, ProviderFactory, Redactor,
    RiskLevel, Settings, Tool, ToolRegistry, resolve_embedding_model,
};
use agentctl_guardrails::{CommandEnvironment, Guardrails, ValidatorRegistry};
use agentctl_providers::{ProviderOptions, RecordingProvider, build_embedder, build_provider};
use agentctl_runtime::Runtime;
use agentctl_sandbox::EnvPolicy;
use agentctl_tools::{AutoApprove, Gate, PermissionRules, RiskClassifier};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What the front end chose about approvals: the levels to approve instead of the settings'
/// (`--approve`), and whether to approve everything below critical (`--yes`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApprovalChoice {
    /// Replaces `approvals.autoApprove` when set.
    pub replace: Option<Vec<RiskLevel>>,
    /// Adds safe up to high.
    pub yes: bool,
}

impl ApprovalChoice {
    /// Every risk level approved without asking, `critical` included: the explicit, named
    /// choice to trust every call the agents' tool lists allow (tests, a throw-away machine).
    /// Writes to protected paths are still asked about, and the sandbox still confines what
    /// commands can reach.
    ///
    /// ```
    /// use agentctl_core::{RiskLevel, Settings};
    /// use agentctl_session::ApprovalChoice;
    ///
    /// let levels = ApprovalChoice::trust_everything().levels(&Settings::default()).unwrap();
    /// assert!(levels.contains(RiskLevel::Critical));
    /// ```
    pub fn trust_everything() -> Self {
        Self {
            replace: Some(RiskLevel::ALL.to_vec()),
            yes: false,
        }
    }

    /// The auto-approved levels: the settings' `approvals.autoApprove`, replaced and widened
    /// by this choice.
    pub fn levels(&self, settings: &Settings) -> Result<AutoApprove, SessionError> {
        Ok(AutoApprove::from_settings(&settings.approvals)?
            .with_overrides(self.replace.as_deref(), self.yes))
    }
}

/// A cassette being recorded: every model call of the runtimes built with it, compaction
/// included, goes through one [`RecordingProvider`].
#[derive(Clone, Default)]
pub struct Recording {
    slot: Arc<Mutex<Option<Arc<RecordingProvider>>>>,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recording")
    }
}

impl Recording {
    /// An empty recording.
    pub fn new() -> Self {
        Self::default()
    }

    fn wrap(
        &self,
        provider: Arc<dyn ModelProvider>,
        redactor: &Redactor,
    ) -> Arc<dyn ModelProvider> {
        let recording = Arc::new(RecordingProvider::new(provider).with_redactor(redactor.clone()));
        *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&recording));
        recording
    }

    /// Writes the cassette.
    pub fn save(&self, path: &Path) -> Result<(), SessionError> {
        let recording = self
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(recording) = recording else {
            return Err(SessionError::NothingRecorded(path.to_path_buf()));
        };
        recording
            .save(path)
            .map_err(|error| SessionError::Recording {
                path: path.to_path_buf(),
                message: error.to_string(),
            })
    }
}

/// Builds runtimes for a project. The one way agentctl builds a [`Runtime`].
#[derive(Clone)]
pub struct RuntimeBuilder {
    settings: Settings,
    root: PathBuf,
    approvals: ApprovalChoice,
    /// A person answers the gate's questions (through the session's events).
    asking: bool,
    recording: Option<Recording>,
    provider_options: ProviderOptions,
    /// Replaces the built-in providers (tests, embedders with their own models).
    providers: Option<Arc<dyn ProviderFactory>>,
    /// Tools of the embedder, offered besides the built-in ones (agents' allow lists apply).
    tools: Vec<Arc<dyn Tool>>,
    redactor: Redactor,
    /// What `command:` validators see of the environment.
    env: EnvPolicy,
    /// Files made private as stores opened (shared with the project's).
    tightened: TightenedFiles,
    /// Validators of the embedder, named by agents' guardrails.
    validators: ValidatorRegistry,
}

impl std::fmt::Debug for RuntimeBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeBuilder")
            .field("root", &self.root)
            .field("approvals", &self.approvals)
            .finish_non_exhaustive()
    }
}

impl RuntimeBuilder {
    /// A builder for `project`: its settings, tools confined to its root, cassettes relative
    /// to it, nobody to ask about approvals until [`asking`](Self::asking) says otherwise.
    pub fn new(project: &Project) -> Self {
        let mut builder = Self::with_settings(project.settings().clone(), project.root());
        builder.tightened = project.tightened_files().clone();
        builder.validators = project.validator_programs().0;
        builder
    }

    /// A builder from settings and a root, for embedders without a project on disk. Secrets
    /// are those of the settings and of this process's environment ([`secrets_of`]); the
    /// variables agentctl consumes are withheld from validators ([`env_policy_of`]).
    pub fn with_settings(settings: Settings, root: &Path) -> Self {
        let redactor = secrets_of(&settings, &[], std::env::vars_os());
        Self {
            redactor,
            env: env_policy_of(&settings, &[]),
            tightened: TightenedFiles::default(),
            providers: None,
            tools: Vec::new(),
            validators: ValidatorRegistry::new(),
            settings,
            root: root.to_path_buf(),
            approvals: ApprovalChoice::default(),
            asking: false,
            recording: None,
            provider_options: ProviderOptions {
                working_dir: Some(root.to_path_buf()),
                ..ProviderOptions::default()
            },
        }
    }

    /// The front end's approval choices.
    pub fn approvals(mut self, approvals: ApprovalChoice) -> Self {
        self.approvals = approvals;
        self
    }

    /// Whether a person answers the gate's questions; when nobody does (the default), a call
    /// that needs approval is refused at once with a hint.
    pub fn asking(mut self, asking: bool) -> Self {
        self.asking = asking;
        self
    }

    /// Records every model call into `recording`.
    pub fn record(mut self, recording: Recording) -> Self {
        self.recording = Some(recording);
        self
    }

    /// Masks these secrets in tool results, cassettes and errors (replacing the ones found in
    /// the settings and environment).
    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// The secrets masked.
    pub fn secrets(&self) -> &Redactor {
        &self.redactor
    }

    /// The files made private as the stores of runs built here opened (the project's list,
    /// for a builder made from a project).
    pub fn tightened_files(&self) -> &TightenedFiles {
        &self.tightened
    }

    /// What `command:` validators see of the environment (replacing the settings' policy; a
    /// session sets the one of its agents too).
    pub fn env_policy(mut self, env: EnvPolicy) -> Self {
        self.env = env;
        self
    }

    /// Provider options (keys and base URLs from another environment, retries).
    pub fn provider_options(mut self, options: ProviderOptions) -> Self {
        self.provider_options = ProviderOptions {
            working_dir: options
                .working_dir
                .clone()
                .or_else(|| Some(self.root.clone())),
            ..options
        };
        self
    }

    /// Builds providers with `factory` instead of the built-in ones (a `--record` recording
    /// still wraps them).
    pub fn provider_factory(mut self, factory: Arc<dyn ProviderFactory>) -> Self {
        self.providers = Some(factory);
        self
    }

    /// Offers `tool` to every agent whose allow list lets it through (an embedder's own
    /// tools; a tool that does not state its risk is medium and mutating).
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// The embedder's guardrail validators: an agent's `validator: NAME` (or `validator:
    /// custom` on a guardrail called NAME) runs the one registered as NAME.
    pub fn validators(mut self, validators: ValidatorRegistry) -> Self {
        self.validators = validators;
        self
    }

    /// The guardrail factory of the runtimes: the registered validators, and `command:`
    /// validators under the tools' sandbox and environment policy.
    pub fn guardrails(&self) -> Guardrails {
        // The settings' sandbox, with the environment policy that withholds what agentctl
        // consumes.
        Guardrails::new(self.validators.clone(), self.command_environment())
    }

    /// Where commands other than tools run (`command:` validators, hooks): the settings'
    /// sandbox, with the environment policy that withholds what agentctl consumes — as the
    /// `bash` tool's commands.
    pub(crate) fn command_environment(&self) -> CommandEnvironment {
        let sandbox = CommandEnvironment::from_settings(&self.settings)
            .sandbox()
            .clone();
        CommandEnvironment::new(sandbox, self.env.clone())
    }

    /// The settings runtimes get.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The embedding model `model` names (long-term memory's `embedding_model`), with the
    /// providers' settings, keys and base URLs of the runtimes' own providers.
    pub fn embedder(&self, model: &str) -> Result<Arc<dyn Embedder>, ProviderError> {
        let model = resolve_embedding_model(model, &self.settings)
            .map_err(|error| ProviderError::Config(format!("embedding model: {error}")))?;
        build_embedder(&model, &self.settings, &self.provider_options)
    }

    /// The approval gate: the chain of the settings and choices; its questions are left to
    /// a person when [`asking`](Self::asking).
    pub fn gate(&self) -> Result<Gate, SessionError> {
        let levels = self.approvals.levels(&self.settings)?;
        let classifier = RiskClassifier::from_settings(&self.settings)?.with_root(&self.root);
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let rules = PermissionRules::new(&self.settings.permissions, &self.root, home.as_deref())?;
        Ok(Gate::new(levels, classifier)
            .with_rules(rules)
            .allowing_bypass(self.settings.approvals.allow_bypass_permissions)
            .asking(self.asking))
    }

    /// A runtime offering `tools` (and the embedder's tools given with
    /// [`tool`](Self::tool)), behind the gate, checking the agents' guardrails.
    pub fn build(&self, mut tools: ToolRegistry) -> Result<Runtime, SessionError> {
        for tool in &self.tools {
            tools.register_arc(Arc::clone(tool));
        }
        let gate: Arc<dyn CallGate> = Arc::new(self.gate()?);
        Ok(self.runtime(tools, gate))
    }

    /// The embedder's tools given with [`tool`](Self::tool).
    pub(crate) fn embedder_tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// A runtime offering `tools` behind `gate`: the built-in providers (or the factory
    /// given), each built once for the runtime's life, recorded when recording.
    pub(crate) fn runtime(&self, tools: ToolRegistry, gate: Arc<dyn CallGate>) -> Runtime {
        let options = self.provider_options.clone();
        let custom = self.providers.clone();
        let recording = self.recording.clone();
        let redactor = self.redactor.clone();
        let factory = move |model: &ModelRef,
                            settings: &Settings|
              -> Result<Arc<dyn ModelProvider>, ProviderError> {
            let provider = match &custom {
                Some(factory) => factory.build(model, settings)?,
                None => build_provider(model, settings, &options)?,
            };
            Ok(match &recording {
                Some(recording) => recording.wrap(provider, &redactor),
                None => provider,
            })
        };
        Runtime::new(self.settings.clone(), factory, tools)
            .with_gate(gate)
            .with_redactor(self.redactor.clone())
            .with_guardrails(Arc::new(self.guardrails()))
    }
}

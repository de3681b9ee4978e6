//! The one policy pipeline every tool call passes, and the gate that asks a person.
//!
//! [`Gate::evaluate`] is the ordered chain — the agent's tool list, the risk rating, the
//! protected paths, the auto-approve levels, the answers the user gave "always" to — and
//! answers one [`Decision`]: allow, deny (with a reason and a hint), or ask. The agent loop
//! reaches it through the [`CallGate`] trait ([`Runtime::with_gate`]); `agents tools` lists an
//! agent's tools through the same chain ([`Gate::list`]), so the listing shows the real policy.
//! When a person must answer and nobody can (no terminal, an MCP client), the call is refused
//! at once with an [`ApprovalHint`] the front end words. A gate built [`asking`](Gate::asking)
//! leaves the question to its caller — a session sends it to its front end and brings the
//! answer back through [`Gate::answer`], which remembers an "always" for the gate's life.
//!
//! A write or edit inside the calling agent's own memory folder ([`ReadGrants::grant_writes`])
//! runs unasked, as in Claude Code, unless a `deny` or `ask` rule or the agent's permission
//! mode (`plan`) says otherwise; the folder's name (`.claude/`) does not make it a protected
//! write, but a protected name inside it (`.git/`) still does.
//!
//! [`Runtime::with_gate`]: https://docs.rs/agentctl-runtime

use crate::approval::{ApprovalAnswer, ApprovalRequest};
use crate::grants::ReadGrants;
use crate::levels::AutoApprove;
use crate::mode;
use crate::paths::{LastLink, ProjectRoot};
use crate::protected::{Protection, judge_anywhere, protection};
use crate::risk::RiskClassifier;
use crate::rules::{PermissionRules, RuleVerdict};
use crate::shell::RiskAssessment;
use agentctl_core::{
    ApprovalHint, CallGate, DecidedBy, Decision, PendingCall, PermissionMode, RiskLevel, Tool,
    ToolFilter, not_allowed,
};
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Rating, levels, whether a person answers, and what the user said "always" to in this
/// session.
pub struct Gate {
    auto: AutoApprove,
    classifier: RiskClassifier,
    /// A person answers the questions (through the gate's caller).
    asks: bool,
    /// Tool → highest risk the user approved for the whole session.
    always: Mutex<BTreeMap<String, RiskLevel>>,
    /// `permissions.allow/ask/deny`.
    rules: PermissionRules,
    /// The user's own settings let agents run in `bypassPermissions`.
    bypass: bool,
    /// The folders each agent may write besides the project (its memory folder).
    grants: ReadGrants,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("auto", &self.auto)
            .field("classifier", &self.classifier)
            .field("always", &self.always)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// One tool as an agent sees it, from [`Gate::list`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolListing {
    /// Tool name.
    pub name: String,
    /// Whether it changes anything.
    pub mutating: bool,
    /// Whether the agent's allow and deny lists let it through.
    pub allowed: bool,
    /// What a call would meet (for `bash`, each command is rated again when called).
    #[serde(flatten)]
    pub decision: Decision,
}

/// A call, or (without arguments) a tool, as the chain sees it.
struct Facts<'a> {
    filter: &'a ToolFilter,
    tool: &'a dyn Tool,
    arguments: Option<&'a Value>,
    /// The calling agent's permission mode.
    mode: PermissionMode,
    /// The calling agent, when a call is judged.
    agent: Option<&'a str>,
}

impl Gate {
    /// A gate with these auto-approved levels and rating; nobody answers its questions (a call
    /// that needs a person is refused at once) until [`asking`](Self::asking) says otherwise.
    ///
    /// ```
    /// use agentctl_core::{Decision, RiskLevel, ToolFilter, ToolPolicy};
    /// use agentctl_tools::{AutoApprove, Gate, RiskClassifier, builtin_tools};
    ///
    /// let gate = Gate::new(AutoApprove::default(), RiskClassifier::new());
    /// let filter = ToolFilter::new(&ToolPolicy { allow: Some(vec!["read_*".into()]), deny: vec![] }).unwrap();
    /// let listing = gate.list(&filter, &builtin_tools());
    /// let read = listing.iter().find(|tool| tool.name == "read_file").unwrap();
    /// assert!(matches!(read.decision, Decision::Allow { risk: RiskLevel::Safe, .. }));
    /// let write = listing.iter().find(|tool| tool.name == "write_file").unwrap();
    /// assert_eq!(write.decision.reason(), "Tool not allowed for this agent: write_file");
    /// ```
    pub fn new(auto: AutoApprove, classifier: RiskClassifier) -> Self {
        Self {
            auto,
            classifier,
            asks: false,
            always: Mutex::new(BTreeMap::new()),
            rules: PermissionRules::default(),
            bypass: false,
            grants: ReadGrants::default(),
        }
    }

    /// The same gate, knowing the folders each agent may write besides the project (the
    /// grants the file tools were built with): writes inside an agent's own memory folder
    /// run unasked.
    pub fn with_grants(mut self, grants: ReadGrants) -> Self {
        self.grants = grants;
        self
    }

    /// The same gate, where agents may run in `bypassPermissions` when `allowed` — which only
    /// the user's own settings may say, never a project's.
    pub fn allowing_bypass(mut self, allowed: bool) -> Self {
        self.bypass = allowed;
        self
    }

    /// Whether agents may run in `bypassPermissions`.
    pub fn bypass_allowed(&self) -> bool {
        self.bypass
    }

    /// The same gate with permission rules (`permissions.*`): a `deny` refuses a call
    /// before anything else is considered, an `ask` asks whatever levels are auto-approved,
    /// an `allow` lets a call of any risk but critical run unasked.
    pub fn with_rules(mut self, rules: PermissionRules) -> Self {
        self.rules = rules;
        self
    }

    /// The same gate, whose questions a person answers when `asks`: [`decide`](CallGate::decide)
    /// then leaves them as [`Decision::Ask`] for the caller to put ([`question`](Self::question))
    /// and apply ([`answer`](Self::answer)).
    pub fn asking(mut self, asks: bool) -> Self {
        self.asks = asks;
        self
    }

    /// The auto-approved levels.
    pub fn auto_approve(&self) -> &AutoApprove {
        &self.auto
    }

    /// The chain for one call, without asking anybody: `Ask` when a person must answer.
    pub fn evaluate(&self, filter: &ToolFilter, tool: &dyn Tool, arguments: &Value) -> Decision {
        self.chain(&Facts {
            filter,
            tool,
            arguments: Some(arguments),
            mode: PermissionMode::Default,
            agent: None,
        })
    }

    /// [`decide`](CallGate::decide) for an agent running in permission `mode`: the same
    /// chain, where `plan` refuses every call above `safe` and `acceptEdits` /
    /// `bypassPermissions` approve what the levels would have asked about.
    pub fn decide_in(&self, call: &PendingCall<'_>, mode: PermissionMode) -> Decision {
        match self.judge_in(call, mode) {
            Decision::Ask { risk, reason } if !self.asks => self.nobody(call, risk, &reason),
            decision => decision,
        }
    }

    /// The chain for `call` in permission `mode`, leaving `Ask` as it is even when nobody
    /// answers: for a caller that lets something else answer (a `PermissionRequest` hook),
    /// then refuses what is left with [`refuse_unasked`](Self::refuse_unasked).
    pub fn judge_in(&self, call: &PendingCall<'_>, mode: PermissionMode) -> Decision {
        self.chain(&Facts {
            filter: call.filter,
            tool: call.tool,
            arguments: Some(&call.call.arguments),
            mode,
            agent: Some(call.agent),
        })
    }

    /// Whether a person answers this gate's questions ([`asking`](Self::asking)).
    pub fn asks(&self) -> bool {
        self.asks
    }

    /// The refusal of `call`, which a person must approve, when nobody can: the reason and
    /// the hint saying what would let it run.
    pub fn refuse_unasked(
        &self,
        call: &PendingCall<'_>,
        risk: RiskLevel,
        reason: &str,
    ) -> Decision {
        self.nobody(call, risk, reason)
    }

    /// Every tool of `tools`, sorted by name, with what the agent of `filter` may do with it
    /// (the same chain as a call, without arguments).
    pub fn list(&self, filter: &ToolFilter, tools: &[Arc<dyn Tool>]) -> Vec<ToolListing> {
        let mut listing: Vec<ToolListing> = tools
            .iter()
            .map(|tool| ToolListing {
                name: tool.name().to_owned(),
                mutating: tool.is_mutating(),
                allowed: filter.allows(tool.name()),
                decision: self.chain(&Facts {
                    filter,
                    tool: tool.as_ref(),
                    arguments: None,
                    mode: PermissionMode::Default,
                    agent: None,
                }),
            })
            .collect();
        listing.sort_by(|a, b| a.name.cmp(&b.name));
        listing
    }

    /// The ordered chain: tool list → `deny` rules → risk → protected paths → `ask` rules →
    /// `allow` rules → levels → remembered answers.
    fn chain(&self, facts: &Facts<'_>) -> Decision {
        let name = facts.tool.name();
        let rating = self.classifier.rate(facts.tool, facts.arguments);
        if !facts.filter.allows(name) {
            return Decision::deny(rating.level, not_allowed(name));
        }
        let verdict = self.rules.judge(facts.tool, facts.arguments);
        if let Some(RuleVerdict::Deny { rule }) = &verdict {
            return Decision::deny(
                rating.level,
                format!("denied by the permission rule `{rule}`"),
            );
        }
        let (rating, protected) = match self.rate_protected(facts, rating) {
            Ok(rated) => rated,
            Err(refused) => return refused,
        };
        if let Some(refused) = mode::refusal(facts.mode, name, &rating) {
            return refused;
        }
        // A command the rater marks as writing a protected path (`bash`) is asked like a
        // file tool's protected write: every time, whatever levels are auto-approved.
        let protected = protected || rating.protected.is_some();
        if protected {
            return Decision::Ask {
                risk: rating.level,
                reason: rating.reason,
            };
        }
        match verdict {
            Some(RuleVerdict::Ask { rule, unsure }) => {
                let reason = match unsure {
                    Some(why) => format!("the permission rule `{rule}` may match ({why})"),
                    None => format!("the permission rule `{rule}` asks"),
                };
                return Decision::Ask {
                    risk: rating.level,
                    reason,
                };
            }
            Some(RuleVerdict::Allow { rule }) if rating.level < RiskLevel::Critical => {
                return Decision::allow(
                    rating.level,
                    format!("allowed by the permission rule `{rule}`"),
                );
            }
            _ => {}
        }
        if self.own_memory(facts) {
            return Decision::allow(
                rating.level,
                format!("{name} changes the agent's own memory folder"),
            );
        }
        if let Some(approved) = mode::approval(facts.mode, name, &rating) {
            return approved;
        }
        if self.auto.contains(rating.level) {
            return Decision::allow(rating.level, format!("{} is auto-approved", rating.level));
        }
        if self.remembered(name, rating.level) {
            return Decision::Allow {
                risk: rating.level,
                reason: format!("{name} was approved for this session"),
                by: DecidedBy::User,
            };
        }
        Decision::Ask {
            risk: rating.level,
            reason: rating.reason,
        }
    }

    /// `rating` raised to `high` when the call changes a protected path (the protected folder
    /// is the reason given unless the rating is higher still), with whether it does; the
    /// refusal when it changes the session database.
    fn rate_protected(
        &self,
        facts: &Facts<'_>,
        rating: RiskAssessment,
    ) -> Result<(RiskAssessment, bool), Decision> {
        let reason = match self.protected(facts) {
            Some((_, Protection::SessionDatabase)) => {
                return Err(Decision::deny(
                    RiskLevel::Critical,
                    format!("{} may not change the session database", facts.tool.name()),
                ));
            }
            Some((path, Protection::Protected(dir))) => {
                format!("changes {path} under the protected folder {dir}/")
            }
            Some((path, Protection::Named(entry))) => {
                format!("changes {path}, which sandbox.protectedPaths protects ({entry})")
            }
            None => return Ok((rating, false)),
        };
        Ok((
            RiskAssessment::new(RiskLevel::High, reason).max(rating),
            true,
        ))
    }

    /// The first path the call would change that is protected, with its protection.
    fn protected(&self, facts: &Facts<'_>) -> Option<(String, Protection)> {
        let arguments = facts.arguments?;
        let written = facts.tool.written_paths(arguments);
        if written.is_empty() {
            return None;
        }
        let root = self.classifier.root().unwrap_or(Path::new("."));
        // Resolved when a path is written: the root's real path takes a system call per call.
        let project = ProjectRoot::new(root).ok();
        written.into_iter().find_map(|path| {
            if let Some(judged) = self.in_memory_folder(facts, project.as_ref(), &path) {
                return judged;
            }
            judge_written(root, project.as_ref(), &path)
                .or_else(|| self.named_in_settings(project.as_ref()?, &path))
        })
    }

    /// How a written `path` inside a folder the calling agent may write (its memory folder)
    /// is judged — by its name inside that folder, so the folder's own `.claude/` does not
    /// count but a `.git/` in it does — when the file tools would write it there (its
    /// symlinks stay inside). `None` when the path is not such a write: judged as any other.
    fn in_memory_folder(
        &self,
        facts: &Facts<'_>,
        project: Option<&ProjectRoot>,
        path: &Path,
    ) -> Option<Option<(String, Protection)>> {
        let agent = facts.agent?;
        let given = path.to_str()?;
        let project = project?;
        let (folder, absolute) = self.grants.write_root(agent, project.path(), given)?;
        folder.write_target(&absolute, LastLink::Follow).ok()?;
        let named = folder.normalise(&absolute).ok()?;
        Some(
            named
                .protection()
                .map(|kind| (folder.display(named.path()), kind)),
        )
    }

    /// Whether the call only writes or edits files of the calling agent's own memory folder,
    /// none of them protected inside it.
    fn own_memory(&self, facts: &Facts<'_>) -> bool {
        let Some(arguments) = facts.arguments else {
            return false;
        };
        if !agentctl_core::MEMORY_FOLDER_TOOLS.contains(&facts.tool.name()) {
            return false;
        }
        let root = self.classifier.root().unwrap_or(Path::new("."));
        let project = ProjectRoot::new(root).ok();
        let written = facts.tool.written_paths(arguments);
        !written.is_empty()
            && written.iter().all(|path| {
                matches!(
                    self.in_memory_folder(facts, project.as_ref(), path),
                    Some(None)
                )
            })
    }

    /// The `sandbox.protectedPaths` entry a written path lies under, as named or as the
    /// tool would reach it through links.
    fn named_in_settings(
        &self,
        project: &ProjectRoot,
        path: &Path,
    ) -> Option<(String, Protection)> {
        let given = path.to_str()?;
        let named = project.normalise(given).ok()?;
        let reached = project.write_target(given, LastLink::Follow).ok();
        self.classifier
            .protected_paths()
            .iter()
            .find(|entry| {
                let protected = project.path().join(entry);
                let protected = protected.canonicalize().unwrap_or(protected);
                named.path().starts_with(&protected)
                    || reached
                        .as_deref()
                        .is_some_and(|target| target.starts_with(&protected))
            })
            .map(|entry| {
                (
                    project.display(named.path()),
                    Protection::Named(entry.display().to_string()),
                )
            })
    }

    /// Whether a pending call changes a protected path (a file tool's path, or a command
    /// the rater marks protected).
    fn touches_protected(&self, call: &PendingCall<'_>) -> bool {
        self.protected(&Facts {
            filter: call.filter,
            tool: call.tool,
            arguments: Some(&call.call.arguments),
            mode: PermissionMode::Default,
            agent: Some(call.agent),
        })
        .is_some()
            || self
                .classifier
                .rate(call.tool, Some(&call.call.arguments))
                .protected
                .is_some()
    }

    fn remembered(&self, tool: &str, risk: RiskLevel) -> bool {
        self.always
            .lock()
            .ok()
            .and_then(|always| always.get(tool).copied())
            .is_some_and(|approved| risk <= approved)
    }

    /// What would let a refused call of `risk` run.
    fn hint(&self, risk: RiskLevel, protected: bool) -> ApprovalHint {
        if protected {
            ApprovalHint::AskAPerson
        } else {
            ApprovalHint::ApproveLevels {
                levels: self.auto.with_level(risk),
            }
        }
    }

    /// The question a person is asked about `call`, which [`decide`](CallGate::decide)
    /// answered with [`Decision::Ask`] for `risk` and `reason`.
    pub fn question(
        &self,
        call: &PendingCall<'_>,
        risk: RiskLevel,
        reason: &str,
    ) -> ApprovalRequest {
        ApprovalRequest {
            call_id: call.call.id.clone(),
            agent: call.agent.to_owned(),
            tool: call.call.name.clone(),
            risk,
            reason: reason.to_owned(),
            arguments: call.call.arguments.clone(),
        }
    }

    /// The decision a person's `answer` about `call` makes. "Always" is remembered for the
    /// gate's life — every later call of the tool up to this risk runs — except for a call
    /// that changes a protected path, which is asked every time.
    pub fn answer(
        &self,
        call: &PendingCall<'_>,
        risk: RiskLevel,
        reason: &str,
        answer: ApprovalAnswer,
    ) -> Decision {
        let tool = &call.call.name;
        match answer {
            ApprovalAnswer::Once => Decision::Allow {
                risk,
                reason: format!("approved by the user ({reason})"),
                by: DecidedBy::User,
            },
            ApprovalAnswer::AlwaysThisSession => {
                if !self.touches_protected(call)
                    && let Ok(mut always) = self.always.lock()
                {
                    let level = always.entry(tool.clone()).or_insert(risk);
                    *level = (*level).max(risk);
                }
                Decision::Allow {
                    risk,
                    reason: format!("approved by the user for this session ({reason})"),
                    by: DecidedBy::User,
                }
            }
            ApprovalAnswer::Deny => Decision::Deny {
                risk,
                reason: format!("denied: the user refused {tool} (risk {risk}: {reason})"),
                by: DecidedBy::User,
                hint: None,
            },
        }
    }
}

/// Whether a path a call would change is protected, and how to name it. The path is read
/// exactly as the file tools read it ([`ProjectRoot::normalise`]) and judged from that name
/// alone: nothing on disk can change the answer between this decision and the call, and a
/// tool refuses a write that symlinks lead into a protected folder its name does not show
/// ([`ProjectRoot::write_target`]). A spelling the file tools refuse (a blank at an end,
/// `/proc/self/cwd/…`, a path outside the root) is judged by every reading of it instead, as
/// written, as resolved and by its names alone, since another tool might take it.
fn judge_written(
    root: &Path,
    project: Option<&ProjectRoot>,
    path: &Path,
) -> Option<(String, Protection)> {
    if let (Some(project), Some(given)) = (project, path.to_str())
        && let Ok(named) = project.normalise(given)
    {
        return named
            .protection()
            .map(|kind| (project.display(named.path()), kind));
    }
    let shown = crate::paths::shown(&path.to_string_lossy());
    let written = protection(root, path);
    let named = judge_anywhere(path);
    let kind = if written == Some(Protection::SessionDatabase) {
        written
    } else {
        named.or(written)
    };
    kind.map(|kind| (shown, kind))
}

#[async_trait]
impl CallGate for Gate {
    fn decide(&self, call: &PendingCall<'_>) -> Decision {
        self.decide_in(call, PermissionMode::Default)
    }

    /// Nobody is asked here: whoever lets a person answer wraps the gate and asks them
    /// ([`question`](Gate::question), [`answer`](Gate::answer)).
    async fn ask(&self, call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> Decision {
        self.nobody(call, risk, reason)
    }
}

impl Gate {
    /// The refusal of a call a person must approve when nobody can.
    fn nobody(&self, call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> Decision {
        let protected = self.touches_protected(call);
        // A call an `ask` rule asks about is not let through by any level either.
        let hint = match self.rules.judge(call.tool, Some(&call.call.arguments)) {
            Some(RuleVerdict::Ask { rule, .. }) if !protected => ApprovalHint::AskedByRule { rule },
            _ => self.hint(risk, protected),
        };
        Decision::Deny {
            risk,
            reason: format!(
                "denied: {} needs approval (risk {risk}: {reason}) and nobody can approve it here",
                call.call.name
            ),
            by: DecidedBy::NonTerminal,
            hint: Some(hint),
        }
    }
}

//! What the router reports: the ranked matches with what matched where, the selection, the
//! agents it knows and the trigger entries it could not use.

use agentctl_core::{Scope, Trigger};
use serde::Serialize;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// One agent a prompt calls for: its best trigger and what of it matched.
///
/// Serialized in camelCase for `agentctl route --format json`:
/// `{"agent":"debug-analyzer","scope":"project","priority":10,"trigger":0,"intent":"debug",
/// "matches":[{"kind":"keyword","keyword":"bug","span":{"start":8,"end":11}}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteMatch {
    /// The agent's name (shared with the router: a broad prompt matches hundreds of agents,
    /// and naming each costs no copy).
    pub agent: Arc<str>,
    /// Where the agent was found; project agents win ties over global ones.
    pub scope: Scope,
    /// The priority of the matching trigger.
    pub priority: i32,
    /// Index of the matching trigger in the agent's `triggers` list.
    pub trigger: usize,
    /// The trigger's intent label, if it has one.
    pub intent: Option<Arc<str>>,
    /// What matched, in prompt order: distinct keywords (first occurrence) and patterns (first
    /// non-empty match).
    pub matches: Vec<Matched>,
}

impl RouteMatch {
    /// The reason in one line, as auto-routing prints it: `matched: bug` or
    /// `matched: bug, stack trace, /fix.*test/`.
    pub fn explain(&self) -> String {
        let labels: Vec<String> = self.matches.iter().map(Matched::label).collect();
        format!("matched: {}", labels.join(", "))
    }
}

/// One keyword or pattern found in the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Matched {
    /// A keyword of the trigger (or its intent, for a trigger with neither keywords nor
    /// patterns), as written in the agent file.
    Keyword {
        /// The keyword as written in the agent file.
        keyword: Arc<str>,
        /// Byte range of the match in the prompt.
        span: Range<usize>,
    },
    /// A regular expression of the trigger.
    Regex {
        /// The pattern as written in the agent file.
        pattern: Arc<str>,
        /// Byte range of the match in the prompt.
        span: Range<usize>,
    },
}

impl Matched {
    /// Byte range of the match in the prompt.
    pub fn span(&self) -> Range<usize> {
        match self {
            Matched::Keyword { span, .. } | Matched::Regex { span, .. } => span.clone(),
        }
    }

    /// `bug` for a keyword, `/fix.*test/` for a pattern.
    pub fn label(&self) -> String {
        match self {
            Matched::Keyword { keyword, .. } => keyword.to_string(),
            Matched::Regex { pattern, .. } => format!("/{pattern}/"),
        }
    }
}

/// What auto-routing does with a prompt: every match, ranked, and the agent it picks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteDecision {
    /// The ranked matches, best first (see [`Router`](super::Router) for the order).
    pub matches: Vec<RouteMatch>,
    /// The first match's agent; else the default agent as a fallback; else none.
    pub selected: Option<Selected>,
}

impl RouteDecision {
    /// The match of the selected agent, when a trigger (not the fallback) chose it.
    pub fn selected_match(&self) -> Option<&RouteMatch> {
        self.selected
            .as_ref()
            .filter(|selected| !selected.fallback)
            .and(self.matches.first())
    }
}

/// The agent auto-routing picks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Selected {
    /// The agent's name.
    pub agent: String,
    /// True when no trigger matched and this is the configured default agent.
    pub fallback: bool,
}

/// An agent the router knows: one with at least one trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteTarget {
    /// The agent's name.
    pub name: String,
    /// Where the agent was found.
    pub scope: Scope,
    /// Its triggers, as written.
    pub triggers: Vec<Trigger>,
}

impl RouteTarget {
    /// What can match this agent, for a listing: its keywords (or intents standing in for
    /// them) and `/patterns/`, in trigger order, without repeats.
    pub fn cues(&self) -> Vec<String> {
        let mut cues: Vec<String> = Vec::new();
        for trigger in &self.triggers {
            let keywords = match (
                &trigger.intent,
                trigger.keywords.is_empty(),
                trigger.regex.is_empty(),
            ) {
                (Some(intent), true, true) => std::slice::from_ref(intent),
                _ => trigger.keywords.as_slice(),
            };
            let patterns = trigger.regex.iter().map(|pattern| format!("/{pattern}/"));
            for cue in keywords.iter().cloned().chain(patterns) {
                if !cues.contains(&cue) {
                    cues.push(cue);
                }
            }
        }
        cues
    }
}

/// A trigger entry the router does not use, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    /// The agent's name.
    pub agent: String,
    /// The entry, as validation names it: `triggers[0].regex[1]`.
    pub field: String,
    /// The keyword or pattern as written.
    pub value: String,
    /// Why it is not used.
    pub reason: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "agent `{}`, {} `{}`: {}",
            self.agent, self.field, self.value, self.reason
        )
    }
}

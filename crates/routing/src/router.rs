//! [`Router`]: which agents a prompt's words call for, by the agents' `triggers`.
//!
//! The router is built once from the loaded agents: one Aho-Corasick automaton over every
//! keyword of every agent, one [`RegexSet`] over every pattern. Routing a prompt runs the
//! automaton once over the folded prompt (checking word boundaries on each hit) and the set
//! once over the prompt, then runs only the patterns the set reported to find their spans —
//! the cost grows with the prompt and the number of hits, not with the number of agents.

mod fold;
mod report;

pub use report::{Matched, RouteDecision, RouteMatch, RouteTarget, Selected, Skipped};

use agentctl_core::{AgentDefinition, Scope};
use aho_corasick::{AhoCorasick, MatchKind};
use fold::{Edges, Folded, fold_keyword};
use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use std::collections::{HashMap, HashSet};

/// Ranks the agents whose triggers match a prompt.
///
/// **Triggers.** Each agent's `triggers:` entries are matched independently:
/// * `keywords` match case-insensitively (Unicode lowercase, not only ASCII) and on word
///   boundaries: `bug` matches `Bug!` and `bug-fix` but not `debug` or `bugs`; `PR` does not
///   match `prompt`. A phrase (`stack trace`) matches across any run of whitespace
///   (`stack\n  trace`). A keyword end that is not a letter or digit needs no boundary (`c++`
///   matches `c++17`). In scripts written without spaces (Chinese, Japanese, Thai…) a keyword
///   matches anywhere.
/// * `regex` patterns match case-insensitively anywhere in the prompt; the match must not be
///   empty. A pattern that does not compile is skipped ([`Router::skipped`] says why; agent
///   validation reports it, located, when the file is loaded).
/// * `intent` is a label, reported with the match. A trigger with an intent but neither
///   keywords nor patterns uses the intent as its one keyword (`intent: review` matches
///   "review this"), so such a trigger is not dead.
/// * `priority` (default 0): higher wins.
///
/// **Ranking.** An agent is ranked by its best trigger — the matching trigger with the highest
/// priority, then the most distinct keywords and patterns found, then the lowest index. Agents
/// are ordered by, in turn:
/// 1. priority, highest first;
/// 2. number of distinct keywords and patterns of that trigger found, most first (a word
///    repeated in the prompt counts once);
/// 3. scope: project agents before global ones;
/// 4. name, alphabetically.
///
/// The order is total, so the same agents and prompt always give the same answer.
///
/// Names are expected to be distinct (the loader's effective agents are); when one repeats,
/// the first agent of that name is used.
///
/// ```
/// use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, Scope, SourceFormat, Trigger};
/// use agentctl_routing::{Matched, Router};
///
/// let agent = |name: &str, trigger: Trigger| AgentDefinition {
///     spec: AgentSpec { name: name.into(), triggers: vec![trigger], ..AgentSpec::default() },
///     system_prompt: String::new(),
///     source: AgentSource {
///         format: SourceFormat::Native,
///         path: format!("{name}.md").into(),
///         scope: Scope::Project,
///     },
///     extra: Default::default(),
/// };
/// let router = Router::new(&[
///     agent("debug-analyzer", Trigger {
///         intent: Some("debug".into()),
///         keywords: vec!["bug".into(), "stack trace".into()],
///         regex: vec![],
///         priority: 10,
///     }),
///     agent("test-fixer", Trigger {
///         intent: None,
///         keywords: vec![],
///         regex: vec!["fix.*test".into()],
///         priority: 8,
///     }),
/// ]);
///
/// let ranked = router.route("Fix the test: there's a bug in the login flow");
/// assert_eq!(ranked[0].agent, "debug-analyzer");
/// assert_eq!(ranked[0].explain(), "matched: bug");
/// assert_eq!(ranked[0].matches[0], Matched::Keyword { keyword: "bug".into(), span: 24..27 });
/// assert_eq!(ranked[1].agent, "test-fixer");
/// assert!(router.route("debugging the prompt").is_empty());
/// ```
#[derive(Debug)]
pub struct Router {
    /// The agents with triggers, in the order given.
    targets: Vec<RouteTarget>,
    /// One automaton over the distinct folded keywords; `None` when there are none.
    keywords: Option<AhoCorasick>,
    /// Per automaton pattern: which ends need a word boundary, and whose keyword it is.
    keyword_entries: Vec<(Edges, Vec<Owner>)>,
    /// One set over the distinct patterns; `None` when there are none, or when the set would
    /// not compile within its size limit (then each pattern is run on its own).
    set: Option<RegexSet>,
    /// The distinct patterns, compiled, in set order, with whose pattern each is.
    patterns: Vec<(Regex, Vec<Owner>)>,
    skipped: Vec<Skipped>,
}

/// A keyword or pattern of one trigger of one agent.
#[derive(Debug, Clone)]
struct Owner {
    /// Index in `targets`.
    target: usize,
    /// Index in the agent's triggers.
    trigger: usize,
    /// As written in the agent file.
    text: String,
}

/// One matched keyword or pattern of one trigger.
struct Hit {
    target: usize,
    trigger: usize,
    matched: Matched,
}

impl Router {
    /// Builds the router from the loaded agents (agents without triggers are left out).
    pub fn new(agents: &[AgentDefinition]) -> Router {
        let mut builder = Builder::default();
        let mut names = HashSet::new();
        for agent in agents {
            if agent.spec.triggers.is_empty() || !names.insert(agent.name()) {
                continue;
            }
            builder.add(agent);
        }
        builder.finish()
    }

    /// The agents the prompt calls for, best first, one entry per agent (its best trigger);
    /// empty when no trigger matches. See [`Router`] for the rules and the order.
    pub fn route(&self, prompt: &str) -> Vec<RouteMatch> {
        let mut hits = Vec::new();
        self.keyword_hits(prompt, &mut hits);
        self.pattern_hits(prompt, &mut hits);
        self.rank(hits)
    }

    /// [`route`](Self::route), plus the agent auto-routing picks: the best match, else
    /// `default_agent` (the `agents.defaultAgent` setting) marked as a fallback, else none.
    pub fn decide(&self, prompt: &str, default_agent: Option<&str>) -> RouteDecision {
        let matches = self.route(prompt);
        let selected = match (matches.first(), default_agent) {
            (Some(best), _) => Some(Selected {
                agent: best.agent.clone(),
                fallback: false,
            }),
            (None, Some(agent)) => Some(Selected {
                agent: agent.to_owned(),
                fallback: true,
            }),
            (None, None) => None,
        };
        RouteDecision { matches, selected }
    }

    /// The agents that have triggers, in the order given, for a "nothing matched" listing.
    pub fn targets(&self) -> &[RouteTarget] {
        &self.targets
    }

    /// Trigger entries not used for routing (a pattern that does not compile, an empty
    /// keyword or pattern), with the reason.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    fn keyword_hits(&self, prompt: &str, hits: &mut Vec<Hit>) {
        let Some(automaton) = &self.keywords else {
            return;
        };
        let folded = Folded::new(prompt);
        // Only a keyword's first occurrence on word boundaries is reported.
        let mut found = HashSet::new();
        for hit in automaton.find_overlapping_iter(&folded.text) {
            let id = hit.pattern().as_usize();
            let Some((edges, owners)) = self.keyword_entries.get(id) else {
                continue;
            };
            if found.contains(&id) || !folded.on_word_boundaries(hit.range(), *edges) {
                continue;
            }
            found.insert(id);
            let span = folded.original(hit.range());
            hits.extend(owners.iter().map(|owner| Hit {
                target: owner.target,
                trigger: owner.trigger,
                matched: Matched::Keyword {
                    keyword: owner.text.clone(),
                    span: span.clone(),
                },
            }));
        }
    }

    fn pattern_hits(&self, prompt: &str, hits: &mut Vec<Hit>) {
        let candidates: Vec<usize> = match &self.set {
            Some(set) => set.matches(prompt).into_iter().collect(),
            None => (0..self.patterns.len()).collect(),
        };
        for index in candidates {
            let Some((regex, owners)) = self.patterns.get(index) else {
                continue;
            };
            let Some(found) = regex.find_iter(prompt).find(|m| !m.is_empty()) else {
                continue;
            };
            hits.extend(owners.iter().map(|owner| Hit {
                target: owner.target,
                trigger: owner.trigger,
                matched: Matched::Regex {
                    pattern: owner.text.clone(),
                    span: found.range(),
                },
            }));
        }
    }

    /// Groups hits by trigger, keeps each agent's best trigger and orders the agents.
    fn rank(&self, mut hits: Vec<Hit>) -> Vec<RouteMatch> {
        hits.sort_by_key(|hit| (hit.target, hit.trigger, hit.matched.span().start));
        let mut best: Vec<(usize, i32, usize, Vec<Matched>)> = Vec::new();
        let mut rest = hits.as_slice();
        while let Some(first) = rest.first() {
            let (target, trigger) = (first.target, first.trigger);
            let len = rest
                .iter()
                .take_while(|hit| hit.target == target && hit.trigger == trigger)
                .count();
            let (group, tail) = rest.split_at(len);
            rest = tail;
            let priority = self.trigger_priority(target, trigger);
            let matched: Vec<Matched> = group.iter().map(|hit| hit.matched.clone()).collect();
            match best.last_mut() {
                // Groups come in trigger order: on a tie the lower index stays.
                Some(slot) if slot.0 == target => {
                    if (priority, matched.len()) > (slot.1, slot.3.len()) {
                        *slot = (target, priority, trigger, matched);
                    }
                }
                _ => best.push((target, priority, trigger, matched)),
            }
        }
        let mut matches: Vec<RouteMatch> = best
            .into_iter()
            .filter_map(|(target, priority, trigger, matches)| {
                let agent = self.targets.get(target)?;
                Some(RouteMatch {
                    agent: agent.name.clone(),
                    scope: agent.scope,
                    priority,
                    trigger,
                    intent: agent.triggers.get(trigger)?.intent.clone(),
                    matches,
                })
            })
            .collect();
        matches.sort_by(|a, b| {
            b.priority
                .cmp(&a.priority)
                .then(b.matches.len().cmp(&a.matches.len()))
                .then(scope_rank(a.scope).cmp(&scope_rank(b.scope)))
                .then_with(|| a.agent.cmp(&b.agent))
        });
        matches
    }

    fn trigger_priority(&self, target: usize, trigger: usize) -> i32 {
        self.targets
            .get(target)
            .and_then(|agent| agent.triggers.get(trigger))
            .map_or(0, |trigger| trigger.priority)
    }
}

/// Project agents sort before global ones.
fn scope_rank(scope: Scope) -> u8 {
    match scope {
        Scope::Project => 0,
        Scope::Global => 1,
    }
}

/// Collects the distinct keywords and patterns of every agent, then compiles them once.
#[derive(Default)]
struct Builder {
    targets: Vec<RouteTarget>,
    keywords: Vec<String>,
    keyword_entries: Vec<(Edges, Vec<Owner>)>,
    keyword_ids: HashMap<String, usize>,
    patterns: Vec<(Regex, Vec<Owner>)>,
    pattern_ids: HashMap<String, usize>,
    skipped: Vec<Skipped>,
}

impl Builder {
    fn add(&mut self, agent: &AgentDefinition) {
        let target = self.targets.len();
        for (trigger_index, trigger) in agent.spec.triggers.iter().enumerate() {
            let mut keywords: Vec<(String, String)> = trigger
                .keywords
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    (
                        format!("triggers[{trigger_index}].keywords[{i}]"),
                        k.clone(),
                    )
                })
                .collect();
            if keywords.is_empty()
                && trigger.regex.is_empty()
                && let Some(intent) = &trigger.intent
            {
                keywords.push((format!("triggers[{trigger_index}].intent"), intent.clone()));
            }
            let mut seen = HashSet::new();
            for (field, keyword) in keywords {
                let folded = fold_keyword(&keyword);
                if folded.is_empty() {
                    self.skip(agent, field, &keyword, "an empty keyword matches nothing");
                } else if seen.insert(folded.clone()) {
                    self.add_keyword(folded, target, trigger_index, keyword);
                }
            }
            for (i, pattern) in trigger.regex.iter().enumerate() {
                let field = format!("triggers[{trigger_index}].regex[{i}]");
                self.add_pattern(agent, field, target, trigger_index, pattern);
            }
        }
        self.targets.push(RouteTarget {
            name: agent.name().to_owned(),
            scope: agent.source.scope,
            triggers: agent.spec.triggers.clone(),
        });
    }

    fn add_keyword(&mut self, folded: String, target: usize, trigger: usize, text: String) {
        let owner = Owner {
            target,
            trigger,
            text,
        };
        if let Some(&id) = self.keyword_ids.get(&folded) {
            if let Some((_, owners)) = self.keyword_entries.get_mut(id) {
                owners.push(owner);
            }
            return;
        }
        self.keyword_ids
            .insert(folded.clone(), self.keyword_entries.len());
        self.keyword_entries.push((Edges::of(&folded), vec![owner]));
        self.keywords.push(folded);
    }

    fn add_pattern(
        &mut self,
        agent: &AgentDefinition,
        field: String,
        target: usize,
        trigger: usize,
        pattern: &str,
    ) {
        let owner = Owner {
            target,
            trigger,
            text: pattern.to_owned(),
        };
        if let Some(&id) = self.pattern_ids.get(pattern) {
            if let Some((_, owners)) = self.patterns.get_mut(id) {
                // A pattern listed twice in one trigger counts once.
                if !owners
                    .iter()
                    .any(|o| o.target == target && o.trigger == trigger)
                {
                    owners.push(owner);
                }
            }
            return;
        }
        if pattern.is_empty() {
            self.skip(
                agent,
                field,
                pattern,
                "an empty pattern would match every prompt",
            );
            return;
        }
        match RegexBuilder::new(pattern).case_insensitive(true).build() {
            Ok(regex) => {
                self.pattern_ids
                    .insert(pattern.to_owned(), self.patterns.len());
                self.patterns.push((regex, vec![owner]));
            }
            Err(error) => {
                let reason = format!(
                    "invalid regular expression: {}",
                    last_line(&error.to_string())
                );
                self.skip(agent, field, pattern, &reason);
            }
        }
    }

    fn skip(&mut self, agent: &AgentDefinition, field: String, value: &str, reason: &str) {
        self.skipped.push(Skipped {
            agent: agent.name().to_owned(),
            field,
            value: value.to_owned(),
            reason: reason.to_owned(),
        });
    }

    fn finish(mut self) -> Router {
        let keywords = if self.keywords.is_empty() {
            None
        } else {
            match AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&self.keywords)
            {
                Ok(automaton) => Some(automaton),
                Err(error) => {
                    self.skip_all_keywords(&error.to_string());
                    None
                }
            }
        };
        // A set too large for its size limit is not an error: each pattern then runs alone.
        let set = if self.patterns.is_empty() {
            None
        } else {
            RegexSetBuilder::new(self.patterns.iter().map(|(regex, _)| regex.as_str()))
                .case_insensitive(true)
                .build()
                .ok()
        };
        Router {
            targets: self.targets,
            keywords,
            keyword_entries: self.keyword_entries,
            set,
            patterns: self.patterns,
            skipped: self.skipped,
        }
    }

    /// Every keyword is unusable when the automaton cannot be built (far beyond any real
    /// number of agents); say so for each rather than matching nothing silently.
    fn skip_all_keywords(&mut self, reason: &str) {
        let entries = std::mem::take(&mut self.keyword_entries);
        for owner in entries.iter().flat_map(|(_, owners)| owners) {
            if let Some(target) = self.targets.get(owner.target) {
                self.skipped.push(Skipped {
                    agent: target.name.clone(),
                    field: format!("triggers[{}].keywords", owner.trigger),
                    value: owner.text.clone(),
                    reason: format!("the keyword automaton could not be built: {reason}"),
                });
            }
        }
    }
}

/// The last non-empty line of a regex error (the line that says what is wrong).
fn last_line(message: &str) -> &str {
    message
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(message)
        .trim()
        .trim_start_matches("error: ")
}

#[cfg(test)]
#[path = "router/tests.rs"]
mod tests;

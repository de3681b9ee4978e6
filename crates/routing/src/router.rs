//! [`Router`]: which agents a prompt's words call for, by the agents' `triggers`.
//!
//! The router is built once from the loaded agents: one Aho-Corasick automaton over every
//! keyword of every agent, one multi-pattern regex (a regex set) over every pattern. Routing a
//! prompt runs the automaton once over the folded prompt (checking word boundaries on each
//! hit) and the set once over the prompt, then runs only the patterns the set reported, to find
//! their spans — the cost grows with the prompt and the number of hits, not with the number of
//! agents.

mod build;
mod fold;
mod report;

pub use report::{Matched, RouteDecision, RouteMatch, RouteTarget, Selected, Skipped};

use agentctl_core::{AgentDefinition, Scope};
use aho_corasick::AhoCorasick;
use fold::{Edges, Folded};
use regex::{Regex, RegexBuilder};
use regex_automata::{Input, PatternSet, meta};
use std::cmp::Reverse;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

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
/// * `match: substring` makes a trigger's keywords match anywhere in the prompt, as seed 002's
///   router does (`includes()`: `bug` matches `debugging`); the default is word boundaries.
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
///         ..Trigger::default()
///     }),
///     agent("test-fixer", Trigger {
///         intent: None,
///         keywords: vec![],
///         regex: vec!["fix.*test".into()],
///         priority: 8,
///         ..Trigger::default()
///     }),
/// ]);
///
/// let ranked = router.route("Fix the test: there's a bug in the login flow");
/// assert_eq!(&*ranked[0].agent, "debug-analyzer");
/// assert_eq!(ranked[0].explain(), "matched: bug");
/// assert_eq!(ranked[0].matches[0], Matched::Keyword { keyword: "bug".into(), span: 24..27 });
/// assert_eq!(&*ranked[1].agent, "test-fixer");
/// assert!(router.route("debugging the prompt").is_empty());
/// ```
#[derive(Debug)]
pub struct Router {
    /// The agents with triggers, in the order given.
    targets: Vec<RouteTarget>,
    /// Per target, what ranking and reporting need.
    keys: Vec<TargetKey>,
    /// One automaton over the distinct folded keywords; `None` when there are none.
    keywords: Option<AhoCorasick>,
    /// Per automaton pattern: which ends need a word boundary, and whose keyword it is.
    keyword_entries: Vec<(Edges, Vec<Owner>)>,
    /// One regex over the distinct patterns, saying which match; `None` when there are none,
    /// or when it would not compile within its size limit (then each pattern runs alone).
    set: Option<meta::Regex>,
    /// The distinct patterns, in set order.
    patterns: Vec<Pattern>,
    skipped: Vec<Skipped>,
}

/// A keyword or pattern of one trigger of one agent.
#[derive(Debug, Clone)]
struct Owner {
    /// Index in `targets`.
    target: usize,
    /// Index in the agent's triggers.
    trigger: usize,
    /// Which entry of the trigger.
    entry: Entry,
    /// As written in the agent file.
    text: Arc<str>,
}

/// What ranking and reporting need of one target.
#[derive(Debug)]
struct TargetKey {
    name: Arc<str>,
    /// Its place in the tie-break order: project agents first, then by name.
    place: usize,
    /// Per trigger: its priority and intent.
    triggers: Vec<(i32, Option<Arc<str>>)>,
}

impl Owner {
    /// The entry as validation names it: `triggers[0].regex[1]`.
    fn field(&self) -> String {
        let trigger = self.trigger;
        match self.entry {
            Entry::Keyword(i) => format!("triggers[{trigger}].keywords[{i}]"),
            Entry::Intent => format!("triggers[{trigger}].intent"),
            Entry::Regex(i) => format!("triggers[{trigger}].regex[{i}]"),
        }
    }
}

/// An entry of a trigger.
#[derive(Debug, Clone, Copy)]
enum Entry {
    /// `keywords[i]`.
    Keyword(usize),
    /// The intent, standing in for keywords.
    Intent,
    /// `regex[i]`.
    Regex(usize),
}

/// A distinct pattern and the triggers that list it.
#[derive(Debug)]
struct Pattern {
    source: String,
    /// Its own regex, for the span of a match: compiled on the pattern's first match.
    regex: OnceLock<Result<Regex, String>>,
    owners: Vec<Owner>,
}

impl Pattern {
    fn compile(&self) -> Result<&Regex, &str> {
        self.regex
            .get_or_init(|| {
                RegexBuilder::new(&self.source)
                    .case_insensitive(true)
                    .build()
                    .map_err(|error| error.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The first non-empty match.
    fn first_match(&self, prompt: &str) -> Option<Range<usize>> {
        let regex = self.compile().ok()?;
        regex
            .find_iter(prompt)
            .find(|found| !found.is_empty())
            .map(|found| found.range())
    }
}

/// One matched keyword or pattern of one trigger, borrowing the router's text until the
/// winners are known.
struct Hit<'r> {
    owner: &'r Owner,
    span: Range<usize>,
}

impl Hit<'_> {
    /// Sorts a trigger's hits in prompt order, keywords before patterns at one position.
    fn key(&self) -> (usize, usize, usize, bool) {
        let regex = matches!(self.owner.entry, Entry::Regex(_));
        (
            self.owner.target,
            self.owner.trigger,
            self.span.start,
            regex,
        )
    }

    fn matched(&self) -> Matched {
        let text = Arc::clone(&self.owner.text);
        let span = self.span.clone();
        match self.owner.entry {
            Entry::Keyword(_) | Entry::Intent => Matched::Keyword {
                keyword: text,
                span,
            },
            Entry::Regex(_) => Matched::Regex {
                pattern: text,
                span,
            },
        }
    }
}

impl Router {
    /// Builds the router from the loaded agents (agents without triggers are left out).
    pub fn new(agents: &[AgentDefinition]) -> Router {
        let mut builder = build::Builder::default();
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
                agent: best.agent.to_string(),
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

    fn keyword_hits<'r>(&'r self, prompt: &str, hits: &mut Vec<Hit<'r>>) {
        let Some(automaton) = &self.keywords else {
            return;
        };
        let folded = Folded::new(prompt);
        // Only a keyword's first occurrence on word boundaries is reported.
        let mut found = vec![0_u64; self.keyword_entries.len().div_ceil(64)];
        for hit in automaton.find_overlapping_iter(&folded.text) {
            let id = hit.pattern().as_usize();
            let Some((edges, owners)) = self.keyword_entries.get(id) else {
                continue;
            };
            let (word, bit) = (id / 64, 1_u64 << (id % 64));
            let seen = found.get(word).is_some_and(|bits| bits & bit != 0);
            if seen || !folded.on_word_boundaries(hit.range(), *edges) {
                continue;
            }
            if let Some(bits) = found.get_mut(word) {
                *bits |= bit;
            }
            let span = folded.original(hit.range());
            hits.extend(owners.iter().map(|owner| Hit {
                owner,
                span: span.clone(),
            }));
        }
    }

    fn pattern_hits<'r>(&'r self, prompt: &str, hits: &mut Vec<Hit<'r>>) {
        let candidates: Vec<usize> = match &self.set {
            Some(set) => {
                let mut matched = PatternSet::new(set.pattern_len());
                set.which_overlapping_matches(&Input::new(prompt), &mut matched);
                matched.iter().map(|id| id.as_usize()).collect()
            }
            None => (0..self.patterns.len()).collect(),
        };
        for index in candidates {
            let Some(pattern) = self.patterns.get(index) else {
                continue;
            };
            let Some(span) = pattern.first_match(prompt) else {
                continue;
            };
            hits.extend(pattern.owners.iter().map(|owner| Hit {
                owner,
                span: span.clone(),
            }));
        }
    }

    /// Groups hits by trigger, keeps each agent's best trigger and orders the agents.
    fn rank(&self, mut hits: Vec<Hit<'_>>) -> Vec<RouteMatch> {
        hits.sort_unstable_by_key(Hit::key);
        // Per agent: (target, priority, trigger, its hits).
        let mut best: Vec<(usize, i32, usize, &[Hit<'_>])> = Vec::new();
        let mut rest = hits.as_slice();
        while let Some(first) = rest.first() {
            let (target, trigger) = (first.owner.target, first.owner.trigger);
            let len = rest
                .iter()
                .take_while(|hit| (hit.owner.target, hit.owner.trigger) == (target, trigger))
                .count();
            let (group, tail) = rest.split_at(len);
            rest = tail;
            let priority = self.trigger_priority(target, trigger);
            match best.last_mut() {
                // Groups come in trigger order: on a tie the lower index stays.
                Some(slot) if slot.0 == target => {
                    if (priority, group.len()) > (slot.1, slot.3.len()) {
                        *slot = (target, priority, trigger, group);
                    }
                }
                _ => best.push((target, priority, trigger, group)),
            }
        }
        // The tie-break places are distinct: the order is total.
        best.sort_unstable_by_key(|&(target, priority, _, group)| {
            let place = self.keys.get(target).map_or(usize::MAX, |key| key.place);
            (Reverse(priority), Reverse(group.len()), place)
        });
        best.into_iter()
            .filter_map(|(target, priority, trigger, group)| {
                let key = self.keys.get(target)?;
                Some(RouteMatch {
                    agent: Arc::clone(&key.name),
                    scope: self.targets.get(target)?.scope,
                    priority,
                    trigger,
                    intent: key.triggers.get(trigger)?.1.clone(),
                    matches: group.iter().map(Hit::matched).collect(),
                })
            })
            .collect()
    }

    fn trigger_priority(&self, target: usize, trigger: usize) -> i32 {
        self.keys
            .get(target)
            .and_then(|key| key.triggers.get(trigger))
            .map_or(0, |(priority, _)| *priority)
    }
}

/// Project agents sort before global ones.
fn scope_rank(scope: Scope) -> u8 {
    match scope {
        Scope::Project => 0,
        Scope::Global => 1,
    }
}

#[cfg(test)]
#[path = "router/tests.rs"]
mod tests;

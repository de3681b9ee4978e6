//! Building a [`Router`]: the distinct keywords and patterns of every agent, compiled once.
//!
//! Patterns are checked by parsing them (cheap), then compiled together into one multi-pattern
//! regex without a literal prefilter: with case-insensitive matching, prefilter extraction over
//! a thousand patterns costs hundreds of milliseconds and buys a microsecond per search. Each
//! pattern's own regex, needed only for the span of a match, is compiled on its first match.

use super::fold::{Edges, fold_keyword};
use super::{Entry, Owner, Pattern, RouteTarget, Router, Skipped, TargetKey, scope_rank};
use agentctl_core::{AgentDefinition, KeywordMatch};
use aho_corasick::{AhoCorasick, MatchKind};
use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

/// Collects the distinct keywords and patterns of every agent, then compiles them once.
#[derive(Default)]
pub(super) struct Builder {
    targets: Vec<RouteTarget>,
    keywords: Vec<String>,
    keyword_entries: Vec<(Edges, Vec<Owner>)>,
    /// By folded keyword and whether it matches anywhere (`match: substring`).
    keyword_ids: HashMap<(String, bool), usize>,
    patterns: Vec<Pattern>,
    pattern_ids: HashMap<String, usize>,
    skipped: Vec<Skipped>,
}

/// What ranking and reporting need of each target, ready to copy into a match: its name and
/// intents shared, and its place in the tie-break order (project agents first, then by name).
fn target_keys(targets: &[RouteTarget]) -> Vec<TargetKey> {
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by_key(|&index| {
        let target = &targets[index];
        (scope_rank(target.scope), target.name.as_str())
    });
    let mut places = vec![0; targets.len()];
    for (place, index) in order.into_iter().enumerate() {
        places[index] = place;
    }
    targets
        .iter()
        .zip(places)
        .map(|(target, place)| TargetKey {
            name: Arc::from(target.name.as_str()),
            place,
            triggers: target
                .triggers
                .iter()
                .map(|trigger| (trigger.priority, trigger.intent.as_deref().map(Arc::from)))
                .collect(),
        })
        .collect()
}

/// How patterns are read: case-insensitive, as the seed's `new RegExp(regex, 'i')`.
fn syntax_config() -> syntax::Config {
    syntax::Config::new().case_insensitive(true)
}

impl Builder {
    /// Adds an agent with triggers (names already made distinct by the caller).
    pub(super) fn add(&mut self, agent: &AgentDefinition) {
        let target = self.targets.len();
        for (index, trigger) in agent.spec.triggers.iter().enumerate() {
            let mut keywords: Vec<(Entry, &str)> = trigger
                .keywords
                .iter()
                .enumerate()
                .map(|(i, k)| (Entry::Keyword(i), k.as_str()))
                .collect();
            // A trigger with an intent and nothing else matches its intent as a keyword.
            if keywords.is_empty()
                && trigger.regex.is_empty()
                && let Some(intent) = &trigger.intent
            {
                keywords.push((Entry::Intent, intent.as_str()));
            }
            let mut seen = HashSet::new();
            for (entry, keyword) in keywords {
                let owner = Owner {
                    target,
                    trigger: index,
                    entry,
                    text: Arc::from(keyword),
                };
                let folded = fold_keyword(keyword);
                if folded.is_empty() {
                    self.skip(agent, &owner, "an empty keyword matches nothing");
                } else if seen.insert(folded.clone()) {
                    let anywhere = trigger.keyword_match == KeywordMatch::Substring;
                    self.add_keyword(folded, anywhere, owner);
                }
            }
            for (i, pattern) in trigger.regex.iter().enumerate() {
                let owner = Owner {
                    target,
                    trigger: index,
                    entry: Entry::Regex(i),
                    text: Arc::from(pattern.as_str()),
                };
                self.add_pattern(agent, owner);
            }
        }
        self.targets.push(RouteTarget {
            name: agent.name().to_owned(),
            scope: agent.source.scope,
            triggers: agent.spec.triggers.clone(),
        });
    }

    /// A keyword, matched on its word boundaries unless `anywhere`; the same keyword of two
    /// triggers is one automaton pattern per way of matching.
    fn add_keyword(&mut self, folded: String, anywhere: bool, owner: Owner) {
        let key = (folded, anywhere);
        if let Some(&id) = self.keyword_ids.get(&key) {
            if let Some((_, owners)) = self.keyword_entries.get_mut(id) {
                owners.push(owner);
            }
            return;
        }
        let (folded, _) = &key;
        let edges = if anywhere {
            Edges::NONE
        } else {
            Edges::of(folded)
        };
        self.keyword_entries.push((edges, vec![owner]));
        self.keywords.push(folded.clone());
        self.keyword_ids.insert(key, self.keyword_entries.len() - 1);
    }

    fn add_pattern(&mut self, agent: &AgentDefinition, owner: Owner) {
        let source = &*owner.text;
        if let Some(&id) = self.pattern_ids.get(source) {
            if let Some(pattern) = self.patterns.get_mut(id) {
                // A pattern listed twice in one trigger counts once.
                let owners = &mut pattern.owners;
                if !owners
                    .iter()
                    .any(|o| o.target == owner.target && o.trigger == owner.trigger)
                {
                    owners.push(owner);
                }
            }
            return;
        }
        if source.is_empty() {
            self.skip(agent, &owner, "an empty pattern would match every prompt");
            return;
        }
        if let Err(error) = syntax::parse_with(source, &syntax_config()) {
            let reason = format!(
                "invalid regular expression: {}",
                last_line(&error.to_string())
            );
            self.skip(agent, &owner, &reason);
            return;
        }
        let source = source.to_owned();
        self.pattern_ids.insert(source.clone(), self.patterns.len());
        self.patterns.push(Pattern {
            source,
            regex: OnceLock::new(),
            owners: vec![owner],
        });
    }

    fn skip(&mut self, agent: &AgentDefinition, owner: &Owner, reason: &str) {
        self.skipped.push(Skipped {
            agent: agent.name().to_owned(),
            field: owner.field(),
            value: owner.text.to_string(),
            reason: reason.to_owned(),
        });
    }

    /// Compiles the automaton and the pattern set.
    pub(super) fn finish(mut self) -> Router {
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
        let set = if self.patterns.is_empty() {
            None
        } else {
            let set = pattern_set(&self.patterns);
            // Beyond the set's size limit: each pattern is compiled, and later run, alone.
            if set.is_none() {
                self.compile_each();
            }
            set
        };
        let keys = target_keys(&self.targets);
        Router {
            keys,
            targets: self.targets,
            keywords,
            keyword_entries: self.keyword_entries,
            set,
            patterns: self.patterns,
            skipped: self.skipped,
        }
    }

    /// Compiles every pattern now, reporting those too large to compile.
    fn compile_each(&mut self) {
        let mut failed: Vec<(Owner, String)> = Vec::new();
        for pattern in &self.patterns {
            if let Err(error) = pattern.compile() {
                failed.extend(
                    pattern
                        .owners
                        .iter()
                        .map(|owner| (owner.clone(), String::from(error))),
                );
            }
        }
        for (owner, error) in failed {
            let reason = format!("cannot compile: {}", last_line(&error));
            self.skip_owner(&owner, &reason);
        }
    }

    /// Every keyword is unusable when the automaton cannot be built (far beyond any real
    /// number of agents); say so for each rather than matching nothing silently.
    fn skip_all_keywords(&mut self, reason: &str) {
        let owners: Vec<Owner> = std::mem::take(&mut self.keyword_entries)
            .into_iter()
            .flat_map(|(_, owners)| owners)
            .collect();
        let reason = format!("the keyword automaton could not be built: {reason}");
        for owner in owners {
            self.skip_owner(&owner, &reason);
        }
    }

    /// Skips an entry of an agent already added.
    fn skip_owner(&mut self, owner: &Owner, reason: &str) {
        if let Some(target) = self.targets.get(owner.target) {
            self.skipped.push(Skipped {
                agent: target.name.clone(),
                field: owner.field(),
                value: owner.text.to_string(),
                reason: reason.to_owned(),
            });
        }
    }
}

/// One regex over every pattern, reporting which matched (not where); `None` past its size
/// limit.
fn pattern_set(patterns: &[Pattern]) -> Option<meta::Regex> {
    meta::Regex::builder()
        .configure(
            meta::Config::new()
                .match_kind(regex_automata::MatchKind::All)
                .which_captures(WhichCaptures::None)
                .auto_prefilter(false),
        )
        .syntax(syntax_config())
        .build_many(
            patterns
                .iter()
                .map(|p| p.source.as_str())
                .collect::<Vec<_>>()
                .as_slice(),
        )
        .ok()
}

/// The last non-empty line of a regex error (the line that says what is wrong).
pub(super) fn last_line(message: &str) -> &str {
    message
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(message)
        .trim()
        .trim_start_matches("error: ")
}

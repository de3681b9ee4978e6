//! Whether a trigger's regular expression compiles, without building a matcher.
//!
//! `regex::Regex::new` builds a whole matcher (forward and reverse automata, prefilters, a
//! lazy DFA) — about 100 µs for a short pattern, paid for each trigger of each agent every
//! time agents are listed. Validity needs less: the pattern must parse (the same parser, with
//! `regex`'s defaults, so a syntax error reads the same) and its automaton must stay under
//! `regex`'s size limit: a bound computed from the syntax tree shows that for nearly every
//! pattern; the others have their forward NFA compiled, which checks the limit exactly.

use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_syntax::hir::{Class, Hir, HirKind};

/// `regex`'s default size limit for a compiled pattern.
const SIZE_LIMIT: usize = 10 * (1 << 20);
/// Patterns whose [`size_bound`] is below this are not compiled: ten times under the limit,
/// with the bound itself about ten times above the real size.
const CERTAINLY_SMALL: u64 = (SIZE_LIMIT / 10) as u64;

/// `None` when `pattern` compiles with `regex::Regex::new`, else that call's error text.
pub(crate) fn regex_error(pattern: &str) -> Option<String> {
    let hir = match syntax::parse(pattern) {
        Ok(hir) => hir,
        Err(error) => return Some(error.to_string()),
    };
    if size_bound(&hir) < CERTAINLY_SMALL {
        return None;
    }
    let config = thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT));
    match thompson::Compiler::new()
        .configure(config)
        .build_from_hir(&hir)
    {
        Ok(_) => None,
        Err(error) => Some(match error.size_limit() {
            Some(limit) => format!("Compiled regex exceeds size limit of {limit} bytes."),
            None => error.to_string(),
        }),
    }
}

/// A unit of the bound: about the bytes of one state of the compiled automaton with its
/// transitions. A Unicode range counts sixteen (it compiles to a few UTF-8 states, a few
/// dozen bytes in all), the automaton's own overhead thirty-two.
const STATE: u64 = 64;

/// An upper bound of the bytes `hir`'s NFA takes (the tests check it against the real size).
fn size_bound(hir: &Hir) -> u64 {
    let sum = |hirs: &[Hir]| hirs.iter().map(size_bound).fold(STATE, u64::saturating_add);
    let len = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => STATE,
        HirKind::Literal(literal) => STATE.saturating_mul(len(literal.0.len())),
        HirKind::Class(Class::Unicode(class)) => {
            (16 * STATE).saturating_mul(len(class.ranges().len()) + 1)
        }
        HirKind::Class(Class::Bytes(class)) => STATE.saturating_mul(len(class.ranges().len()) + 1),
        HirKind::Repetition(repetition) => {
            let times = u64::from(repetition.max.unwrap_or(repetition.min)) + 1;
            size_bound(&repetition.sub)
                .saturating_mul(times)
                .saturating_add(STATE)
        }
        HirKind::Capture(capture) => size_bound(&capture.sub).saturating_add(2 * STATE),
        HirKind::Concat(hirs) | HirKind::Alternation(hirs) => sum(hirs),
    }
    .saturating_add(32 * STATE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_regex_says() {
        for pattern in [
            r"review (this|the) (pr|diff)",
            r"agent 7\b",
            r"fix.*test_\d+",
            r"(?i)deploy",
            r"x(",
            r"[z-a]",
            r"a{5,3}",
            r"\p{Nope}",
            r"(?P<n>a)(?P<n>b)",
            r"\w{1000}{1000}",
            r"(a|b",
            "",
            r"\",
        ] {
            let expected = regex::Regex::new(pattern).err().map(|e| e.to_string());
            assert_eq!(regex_error(pattern), expected, "{pattern}");
        }
    }

    #[test]
    fn the_bound_is_above_the_real_size() {
        for pattern in [
            r"agent 1\b",
            r"\w",
            r"\W+",
            r"\p{L}{3}",
            r"(?i)deploy|release|ship it",
            r"[^a]",
            r"(?s).",
            r"\w{10}",
            r"(a|b|c){2,5}",
            r"review (this|the) (pr|diff)",
            r"[\p{Greek}\p{Cyrillic}]+\d{1,3}",
            r"(?-u)[\x00-\x7f]{4}",
            r"^$",
            "",
        ] {
            let hir = syntax::parse(pattern).unwrap();
            let nfa = thompson::Compiler::new().build_from_hir(&hir).unwrap();
            let real = u64::try_from(nfa.memory_usage()).unwrap();
            assert!(
                size_bound(&hir) >= 3 * real,
                "{pattern}: {} < 3 × {real}",
                size_bound(&hir)
            );
        }
    }
}

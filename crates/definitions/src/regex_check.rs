//! Whether a trigger's regular expression compiles, without building a matcher.
//!
//! `regex::Regex::new` builds a whole matcher (forward and reverse automata, prefilters, a
//! lazy DFA) — about 100 µs for a short pattern, paid for each trigger of each agent every
//! time agents are listed. Validity needs less: the pattern must parse (the same parser, with
//! `regex`'s defaults, so a syntax error reads the same) and its automaton must stay under
//! `regex`'s size limit (compiling the forward NFA alone checks that).

use regex_automata::nfa::thompson;
use regex_automata::util::syntax;

/// `regex`'s default size limit for a compiled pattern.
const SIZE_LIMIT: usize = 10 * (1 << 20);

/// `None` when `pattern` compiles with `regex::Regex::new`, else that call's error text.
pub(crate) fn regex_error(pattern: &str) -> Option<String> {
    let hir = match syntax::parse(pattern) {
        Ok(hir) => hir,
        Err(error) => return Some(error.to_string()),
    };
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
}

//! Shell patterns in one path component (`*.rs`, `.g?t`, `[!.]*`), matched as `sh` does:
//! a leading `.` must be matched by a literal `.`; `.*` matches `.` and `..` in `dash`.

use std::cell::Cell;
use std::path::Path;

/// Most entries of one folder read to expand a pattern; past this the expansion is unknown.
const MAX_ENTRIES: usize = 10_000;

/// A pattern for one path component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    tokens: Vec<Token>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Char(char),
    /// `?`
    One,
    /// `*`
    Star,
    /// `[…]`: the characters and ranges listed; classes such as `[:alpha:]` match anything.
    Class {
        negated: bool,
        items: Vec<(char, char)>,
        any: bool,
    },
}

impl Token {
    fn matches(&self, c: char) -> bool {
        match self {
            Token::Char(expected) => *expected == c,
            Token::One | Token::Star => true,
            Token::Class {
                negated,
                items,
                any,
            } => {
                // A class with a named part (`[:alpha:]`) may match: say yes.
                *any || items.iter().any(|(low, high)| (*low..=*high).contains(&c)) != *negated
            }
        }
    }
}

/// What a pattern matched in a folder.
#[derive(Debug, Default)]
pub(crate) struct Expansion {
    /// The matching names.
    pub names: Vec<String>,
    /// Whether the folder was read to its end.
    pub complete: bool,
}

impl Pattern {
    /// The pattern of a component, where `is_glob(offset)` says whether the character at that
    /// byte offset of `text` is an unquoted glob character; `None` when there is none.
    pub(crate) fn new(text: &str, is_glob: impl Fn(usize) -> bool) -> Option<Pattern> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        if !chars.iter().any(|(at, _)| is_glob(*at)) {
            return None;
        }
        let mut tokens = Vec::new();
        let mut index = 0;
        while let Some(&(at, c)) = chars.get(index) {
            index += 1;
            if !is_glob(at) {
                tokens.push(Token::Char(c));
                continue;
            }
            match c {
                '*' => tokens.push(Token::Star),
                '?' => tokens.push(Token::One),
                '[' => match class(&chars[index..]) {
                    Some((token, used)) => {
                        tokens.push(token);
                        index += used;
                    }
                    None => tokens.push(Token::Char('[')),
                },
                other => tokens.push(Token::Char(other)),
            }
        }
        Some(Pattern { tokens })
    }

    /// Whether the pattern starts with a literal `.` (only such patterns match dot names).
    pub(crate) fn dotted(&self) -> bool {
        self.tokens.first() == Some(&Token::Char('.'))
    }

    /// Whether the pattern can produce a word that starts with `-` (an option).
    pub(crate) fn may_start_with_dash(&self) -> bool {
        self.tokens.first().is_some_and(|first| first.matches('-'))
    }

    /// Whether `name` matches, as `sh` matches a file name.
    pub(crate) fn matches(&self, name: &str) -> bool {
        (self.dotted() || !name.starts_with('.')) && self.matches_any(name)
    }

    /// Whether `name` matches, a leading `.` like any character (as `find -name` matches).
    pub(crate) fn matches_any(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        let (mut p, mut n) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while n < name.len() {
            match self.tokens.get(p) {
                Some(Token::Star) => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                Some(token) if token.matches(name[n]) => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
            match star {
                Some((star_p, star_n)) => {
                    p = star_p + 1;
                    n = star_n + 1;
                    star = Some((star_p, star_n + 1));
                }
                None => return false,
            }
        }
        self.tokens[p..].iter().all(|token| *token == Token::Star)
    }

    /// The names in `dir` that match (with `.` and `..` for a pattern that starts with `.`);
    /// each entry read is taken from `budget`, and the expansion is incomplete when it runs out.
    pub(crate) fn expand(&self, dir: &Path, budget: &Cell<usize>) -> Expansion {
        let mut out = Expansion::default();
        if self.dotted() {
            out.names.extend(
                [".", ".."]
                    .into_iter()
                    .filter(|n| self.matches(n))
                    .map(String::from),
            );
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            out.complete = true;
            return out;
        };
        for (count, entry) in entries.enumerate() {
            if count >= MAX_ENTRIES || !take(budget) {
                return out;
            }
            let Ok(entry) = entry else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            if self.matches(&name) {
                out.names.push(name);
            }
        }
        out.complete = true;
        out
    }
}

/// Takes one entry from `budget`; `false` when it is spent.
pub(crate) fn take(budget: &Cell<usize>) -> bool {
    match budget.get().checked_sub(1) {
        Some(left) => {
            budget.set(left);
            true
        }
        None => false,
    }
}

/// A bracket expression after its `[`: the token and how many characters it used, or `None`
/// if it is never closed (then the `[` is an ordinary character).
fn class(chars: &[(usize, char)]) -> Option<(Token, usize)> {
    let mut index = 0;
    let negated = matches!(chars.first(), Some((_, '!' | '^')));
    if negated {
        index += 1;
    }
    let mut items = Vec::new();
    let mut any = false;
    let mut first = true;
    loop {
        let &(_, c) = chars.get(index)?;
        index += 1;
        if c == ']' && !first {
            break;
        }
        first = false;
        if c == '[' && matches!(chars.get(index), Some((_, ':' | '.' | '='))) {
            // `[:alpha:]` and friends: not followed, so the class may match anything.
            let kind = chars[index].1;
            index += 1;
            loop {
                let &(_, inner) = chars.get(index)?;
                index += 1;
                if inner == kind && matches!(chars.get(index), Some((_, ']'))) {
                    index += 1;
                    break;
                }
            }
            any = true;
            continue;
        }
        match (chars.get(index), chars.get(index + 1)) {
            (Some((_, '-')), Some(&(_, high))) if high != ']' => {
                items.push((c, high));
                index += 2;
            }
            _ => items.push((c, c)),
        }
    }
    Some((
        Token::Class {
            negated,
            items,
            any,
        },
        index,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> Pattern {
        Pattern::new(text, |at| matches!(text.as_bytes()[at], b'*' | b'?' | b'[')).unwrap()
    }

    #[test]
    fn matches_as_sh_does() {
        assert!(pattern("*.rs").matches("main.rs"));
        assert!(!pattern("*.rs").matches(".hidden.rs"));
        assert!(pattern(".g*").matches(".git"));
        assert!(pattern(".*").matches(".."));
        assert!(!pattern(".[!.]*").matches(".."));
        assert!(pattern(".[!.]*").matches(".agentctl"));
        assert!(!pattern("?git").matches(".git"));
        assert!(!pattern("[.]git").matches(".git"));
        assert!(pattern("[a-c]x").matches("bx"));
        assert!(!pattern("[!a-c]x").matches("bx"));
        assert!(pattern("[]]").matches("]"));
        assert!(pattern("a[b").matches("a[b"));
        assert!(pattern("[[:alpha:]]").matches("q"));
        assert!(pattern("*a*b*c").matches("xaybzc"));
        assert!(!pattern("*a*b*c").matches("xaybz"));
    }

    #[test]
    fn option_like_expansions_are_found() {
        assert!(pattern("*").may_start_with_dash());
        assert!(pattern("?x").may_start_with_dash());
        assert!(pattern("[-a]*").may_start_with_dash());
        assert!(!pattern("[a-c]*").may_start_with_dash());
        assert!(!pattern("a*").may_start_with_dash());
    }

    #[test]
    fn quoted_characters_are_literal() {
        let literal = Pattern::new("a*b", |at| at == 99);
        assert!(literal.is_none());
        let half = Pattern::new("*x*", |at| at == 0).unwrap();
        assert!(half.matches("ax*"));
        assert!(!half.matches("axb"));
    }
}

//! The plain forms most `when` conditions take, recognised without the CEL parser.
//!
//! Checking a listed file's conditions through the CEL (ANTLR) parser costs 20–40 µs
//! each and pulls over a megabyte of parser code into memory; most conditions are a few
//! fields compared with literals. [`is_plain`] accepts exactly such expressions:
//!
//! ```text
//! expr    := term (('&&' | '||') term)*          at most MAX_TERMS terms
//! term    := '!'* path | operand cmp operand
//! operand := path | 'string' | "string" | int | true | false | null
//! cmp     := == | != | < | <= | > | >= | in
//! path    := ident ('.' ident)*                  no spaces, at most MAX_SEGMENTS
//! ```
//!
//! It only ever says "valid": anything it does not recognise (brackets, calls, escapes,
//! non-ASCII text, reserved words, comments, long numbers) goes to the parser, which gives
//! the error. Every expression it accepts is valid CEL whose tree is far shallower than the
//! depth limit; the tests check both against the parser on generated expressions.

use crate::state::CEL_RESERVED;

/// Most terms joined by `&&` and `||`.
const MAX_TERMS: usize = 16;
/// Most identifiers in one path.
const MAX_SEGMENTS: usize = 16;
/// Most `!` before one path.
const MAX_NOTS: usize = 4;
/// Most digits of an integer literal (an `i64` holds any 18 digits).
const MAX_DIGITS: usize = 18;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Path,
    Literal,
    Compare,
    Join,
    Not,
}

/// True when `expression` is one of the plain forms (see the module's grammar), which are
/// all valid conditions. False says nothing: the expression must be parsed.
pub(super) fn is_plain(expression: &str) -> bool {
    let mut tokens = Tokens {
        rest: expression.as_bytes(),
    };
    let mut terms = 0;
    loop {
        terms += 1;
        if terms > MAX_TERMS || !term(&mut tokens) {
            return false;
        }
        match tokens.next() {
            None => return true,
            Some(Some(Token::Join)) => {}
            Some(_) => return false,
        }
    }
}

/// One term, up to the token after it (not taken).
fn term(tokens: &mut Tokens<'_>) -> bool {
    let mut nots = 0;
    let first = loop {
        match tokens.next() {
            Some(Some(Token::Not)) if nots < MAX_NOTS => nots += 1,
            Some(Some(token)) => break token,
            _ => return false,
        }
    };
    match first {
        Token::Path if nots > 0 => true,
        Token::Path | Token::Literal if nots == 0 => {
            if tokens.peek() != Some(Some(Token::Compare)) {
                // A lone path is a boolean field; a lone literal is not a plain form.
                return first == Token::Path;
            }
            tokens.next();
            matches!(tokens.next(), Some(Some(Token::Path | Token::Literal)))
        }
        _ => false,
    }
}

/// The tokens of an expression: `None` at its end, `Some(None)` for anything not plain.
struct Tokens<'a> {
    rest: &'a [u8],
}

impl Tokens<'_> {
    fn peek(&self) -> Option<Option<Token>> {
        Tokens { rest: self.rest }.next()
    }

    fn next(&mut self) -> Option<Option<Token>> {
        let start = self.rest.iter().position(|b| !matches!(b, b' ' | b'\t'))?;
        let rest = &self.rest[start..];
        let (token, len) = lex(rest);
        self.rest = &rest[len.min(rest.len())..];
        Some(token)
    }
}

/// The token at the start of `text` (not empty, no leading space) and its length.
fn lex(text: &[u8]) -> (Option<Token>, usize) {
    let at = |i: usize| text.get(i).copied().unwrap_or(0);
    match at(0) {
        b'&' if at(1) == b'&' => (Some(Token::Join), 2),
        b'|' if at(1) == b'|' => (Some(Token::Join), 2),
        b'=' if at(1) == b'=' => (Some(Token::Compare), 2),
        b'!' if at(1) == b'=' => (Some(Token::Compare), 2),
        b'<' | b'>' if at(1) == b'=' => (Some(Token::Compare), 2),
        b'<' | b'>' => (Some(Token::Compare), 1),
        b'!' => (Some(Token::Not), 1),
        quote @ (b'\'' | b'"') => string(text, quote),
        b'0'..=b'9' => {
            let len = text.iter().take_while(|b| b.is_ascii_digit()).count();
            let plain = len <= MAX_DIGITS && (len == 1 || text[0] != b'0');
            (plain.then_some(Token::Literal), len)
        }
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => path(text),
        _ => (None, 1),
    }
}

/// A quoted string without escapes, on one line, of printable ASCII.
fn string(text: &[u8], quote: u8) -> (Option<Token>, usize) {
    // `''` followed by a third quote opens a triple-quoted string.
    if text.get(1) == Some(&quote) && text.get(2) == Some(&quote) {
        return (None, 1);
    }
    match text[1..].iter().position(|&b| b == quote) {
        Some(len)
            if text[1..=len]
                .iter()
                .all(|&b| (b' '..=b'~').contains(&b) && b != b'\\') =>
        {
            (Some(Token::Literal), len + 2)
        }
        _ => (None, 1),
    }
}

/// A dotted path of identifiers, or a literal keyword, or `in`.
fn path(text: &[u8]) -> (Option<Token>, usize) {
    let len = text
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
        .count();
    let Ok(word) = std::str::from_utf8(&text[..len]) else {
        return (None, len);
    };
    match word {
        "true" | "false" | "null" => return (Some(Token::Literal), len),
        "in" => return (Some(Token::Compare), len),
        _ => {}
    }
    let mut segments = 0;
    for segment in word.split('.') {
        segments += 1;
        let identifier = segment
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
        if !identifier || segments > MAX_SEGMENTS || CEL_RESERVED.contains(&segment) {
            return (None, len);
        }
    }
    (Some(Token::Path), len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Condition;
    use proptest::prelude::*;

    #[test]
    fn recognises_the_usual_conditions() {
        for expression in [
            "task.status == 'need-review'",
            "fix.applied",
            "!fix.applied",
            "task.status == \"done\" && !fix.applied || review.count >= 2",
            "task.tag in memory.tags",
            "analysis.score < 10",
            "x == ''",
            "a.b.c != null",
        ] {
            assert!(is_plain(expression), "{expression}");
            assert!(Condition::parse(expression).is_ok(), "{expression}");
        }
    }

    #[test]
    fn leaves_everything_else_to_the_parser() {
        for expression in [
            "task.status = 'x'",
            "size(fix.files) > 0",
            "has(fix.applied)",
            "a.b[0] == 1",
            "'''x''' == a",
            "a == 'it\\'s'",
            "a == 'é'",
            "a == 1.5",
            "a == 0x1",
            "a == 1u",
            "a == 007",
            "a == 1234567890123456789",
            "a == -1",
            "a . b == 1",
            "a. b == 1",
            "a.1 == 1",
            "if == 1",
            "a.in == 1",
            "a == b == c",
            "'x'",
            "!'x'",
            "!a == b",
            "a &&",
            "&& a",
            "a & b",
            "a // comment",
            "a ? b : c",
            "a + 1 == 2",
            "r'x' == a",
        ] {
            assert!(!is_plain(expression), "{expression}");
        }
    }

    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "a", "task", "status", ".", "_x", "b2", "in", "if", "true", "null", "0", "7", "42",
            "007", "'x'", "'", "\"y\"", "''", "\\", "==", "=", "!=", "!", "<", "<=", ">", ">=",
            "&&", "||", "&", "|", "(", ")", "[", "]", " ", "\t", "\n", "-", "+", "?", ":", "é",
            "//", "size",
        ])
    }

    fn term() -> impl Strategy<Value = String> {
        let path = prop::collection::vec(
            prop::sample::select(vec!["a", "task", "status", "_x", "b2", "size", "has"]),
            1..4,
        )
        .prop_map(|segments| segments.join("."));
        let literal = prop::sample::select(vec!["'x'", "\"y z\"", "''", "0", "42", "true", "null"])
            .prop_map(str::to_owned);
        let operand = prop_oneof![path.clone(), literal];
        let compare = prop::sample::select(vec![" == ", "!=", " < ", "<=", " > ", ">=", " in "]);
        prop_oneof![
            (0..3usize, path).prop_map(|(nots, path)| format!("{}{path}", "!".repeat(nots))),
            (operand.clone(), compare, operand).prop_map(|(l, c, r)| format!("{l}{c}{r}")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Token soup: whatever the recogniser accepts, the parser accepts.
        #[test]
        fn accepts_only_what_the_parser_accepts(pieces in prop::collection::vec(piece(), 1..12)) {
            let expression = pieces.concat();
            if is_plain(&expression) {
                prop_assert!(Condition::parse(&expression).is_ok(), "{expression}");
            }
        }

        /// Plain forms: recognised, and valid.
        #[test]
        fn plain_forms_are_recognised(
            terms in prop::collection::vec(term(), 1..6),
            joins in prop::collection::vec(prop::sample::select(vec![" && ", "||"]), 5),
        ) {
            let mut expression = terms[0].clone();
            for (term, join) in terms[1..].iter().zip(&joins) {
                expression.push_str(join);
                expression.push_str(term);
            }
            prop_assert!(is_plain(&expression), "{expression}");
            prop_assert!(Condition::parse(&expression).is_ok(), "{expression}");
        }
    }
}

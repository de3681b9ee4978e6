//! Words as the shell passes them to a program: quotes removed, escapes resolved.
//!
//! The tree-sitter grammar says where a word starts and ends and whether it holds expansions;
//! [`lex`] then reads the word's source text again with the shell's quoting rules. Both must
//! agree that a word is plain: a grammar quirk that hides an operator inside a "word" is caught
//! here, because any unquoted `$`, backquote, blank or `;&|()<>` makes the word not plain.

/// One word of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The value after quote removal; parts computed at run time (`$HOME`, `$(…)`) as written.
    pub text: String,
    /// Whether `text` is exactly what the program receives (no expansion or substitution).
    pub plain: bool,
    /// Byte offsets in `text` of unquoted glob characters (`*`, `?`, `[`).
    pub globs: Vec<usize>,
    /// Whether an unquoted `~` starts the word or follows `=` or `:` (a home folder).
    pub tilde: bool,
}

impl Word {
    /// A plain word with no glob characters (for tests and for words split out of a string).
    pub(crate) fn literal(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            plain: true,
            globs: Vec::new(),
            tilde: false,
        }
    }

    /// The text, for rules that only look at it.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The part of the word from byte `from` on, as a word of its own (`of=/dev/sda` →
    /// `/dev/sda`).
    pub(crate) fn tail(&self, from: usize) -> Word {
        let from = from.min(self.text.len());
        let text = self.text.get(from..).unwrap_or_default();
        Word {
            text: text.to_owned(),
            plain: self.plain,
            globs: self
                .globs
                .iter()
                .filter(|at| **at >= from)
                .map(|at| at - from)
                .collect(),
            tilde: self.tilde && text.starts_with('~'),
        }
    }

    /// Whether the unquoted glob character at byte `at` lies within `range`.
    pub(crate) fn has_glob_in(&self, range: std::ops::Range<usize>) -> bool {
        self.globs.iter().any(|at| range.contains(at))
    }
}

/// The result of reading a word's source text.
#[derive(Debug, Default)]
pub(crate) struct Lexed {
    pub text: String,
    pub globs: Vec<usize>,
    pub tilde: bool,
    /// Why the word is not plain, if it is not.
    pub problem: Option<&'static str>,
}

/// Reads the source text of one word with the shell's quoting rules.
// Kept whole: a character-level state machine over the shell's quoting rules; split, its state would be passed around.
pub(crate) fn lex(source: &str) -> Lexed {
    let mut out = Lexed::default();
    let mut chars = source.chars().peekable();
    let mut brace_open = false;
    let mut brace_list = false;
    let mut previous: Option<char> = None;
    let fail = |out: &mut Lexed, why| {
        if out.problem.is_none() {
            out.problem = Some(why);
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(escaped) => out.text.push(escaped),
                None => fail(&mut out, "a word ends with a lone backslash"),
            },
            '\'' => loop {
                match chars.next() {
                    Some('\'') => break,
                    Some(inner) => out.text.push(inner),
                    None => {
                        fail(&mut out, "a quote is never closed");
                        break;
                    }
                }
            },
            '"' => loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some('\n') => {}
                        Some(escaped @ ('$' | '`' | '"' | '\\')) => out.text.push(escaped),
                        Some(other) => {
                            out.text.push('\\');
                            out.text.push(other);
                        }
                        None => fail(&mut out, "a quote is never closed"),
                    },
                    Some('$' | '`') => {
                        fail(&mut out, "a quoted word expands a value");
                        out.text.push('$');
                    }
                    Some(inner) => out.text.push(inner),
                    None => {
                        fail(&mut out, "a quote is never closed");
                        break;
                    }
                }
            },
            '$' if chars.peek() == Some(&'\'') => {
                // `$'\x72m'`: decoded so the rules still see `rm`, but never plain.
                fail(
                    &mut out,
                    "`$'…'` quoting means different things to bash and sh",
                );
                chars.next();
                let mut body = String::new();
                loop {
                    match chars.next() {
                        Some('\'') | None => break,
                        Some('\\') => {
                            body.push('\\');
                            body.extend(chars.next());
                        }
                        Some(inner) => body.push(inner),
                    }
                }
                out.text.push_str(&ansi_c(&body));
            }
            '$' | '`' => {
                fail(&mut out, "a word expands a value");
                out.text.push(c);
            }
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => {
                fail(&mut out, "a word holds an unquoted shell operator or blank");
                out.text.push(c);
            }
            '#' if previous.is_none() => {
                fail(&mut out, "a word starts like a comment");
                out.text.push(c);
            }
            c if c.is_control() => {
                fail(&mut out, "a word holds a control character");
                out.text.push(c);
            }
            '*' | '?' | '[' => {
                out.globs.push(out.text.len());
                out.text.push(c);
            }
            '~' if matches!(previous, None | Some('=' | ':')) => {
                out.tilde = true;
                out.text.push(c);
            }
            '{' => {
                brace_open = true;
                out.text.push(c);
            }
            ',' if brace_open => {
                brace_list = true;
                out.text.push(c);
            }
            '.' if brace_open && chars.peek() == Some(&'.') => {
                brace_list = true;
                out.text.push(c);
            }
            '}' if brace_open && brace_list => {
                fail(
                    &mut out,
                    "brace expansion `{a,b}` differs between bash and sh",
                );
                out.text.push(c);
            }
            other => out.text.push(other),
        }
        previous = Some(c);
    }
    out
}

/// Decodes a bash `$'…'` string (without the `$'` and `'`), so that a program name written as
/// `$'\x72m'` is still recognised as `rm`. Unknown escapes are kept as written.
pub(crate) fn ansi_c(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            out.push('\\');
            break;
        };
        let mut number = |radix: u32, max: usize, first: Option<char>| {
            let mut digits: String = first.into_iter().collect();
            while digits.len() < max {
                match chars.peek() {
                    Some(d) if d.is_digit(radix) => {
                        digits.push(*d);
                        chars.next();
                    }
                    _ => break,
                }
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match escape {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            'x' => number(16, 2, None),
            'u' => number(16, 4, None),
            'U' => number(16, 8, None),
            '0'..='7' => number(8, 3, Some(escape)),
            _ => None,
        };
        match decoded {
            Some(decoded) => out.push(decoded),
            None => {
                out.push('\\');
                out.push(escape);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_escapes_are_removed() {
        let lexed = lex(r#"'a b'"c\"d"e\ f\$g"#);
        assert_eq!(lexed.text, "a bc\"de f$g");
        assert_eq!(lexed.problem, None);
        assert_eq!(lex("r\\m").text, "rm");
        assert_eq!(lex("ec\\\nho").text, "echo");
    }

    #[test]
    fn dynamic_and_operator_characters_are_not_plain() {
        for word in [
            "$HOME", "\"$x\"", "`id`", "a;b", "a|b", "(x)", "'open", "x\\", "{a,b}",
        ] {
            assert!(lex(word).problem.is_some(), "{word}");
        }
        for word in ["HEAD@{1}", "{}", "a{b}c", "x=~", "'*'", "\\*"] {
            assert!(lex(word).problem.is_none(), "{word}");
        }
    }

    #[test]
    fn globs_and_tildes_are_found_only_unquoted() {
        assert_eq!(lex("src/*.rs").globs, vec![4]);
        assert!(lex("'*'").globs.is_empty());
        assert!(lex("~/x").tilde && lex("--dir=~/x").tilde && !lex("HEAD~1").tilde);
        assert!(!lex("'~'/x").tilde);
    }

    #[test]
    fn ansi_c_strings_decode() {
        assert_eq!(ansi_c(r"\x72m"), "rm");
        assert_eq!(ansi_c(r"\162m\u0020"), "rm ");
        assert_eq!(ansi_c(r"a\qb"), "a\\qb");
    }
}

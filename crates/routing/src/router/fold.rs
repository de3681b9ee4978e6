//! Case and whitespace folding, and word boundaries, for keyword matching.
//!
//! Keywords and prompts are folded the same way — every character lowercased
//! (`char::to_lowercase`, so `É` matches `é`, not only ASCII), every run of whitespace made one
//! space — so one case-sensitive automaton over folded keywords finds them in a folded prompt.
//! The folded prompt keeps, for each of its bytes, the original character it came from, so a
//! match's span is reported in the caller's prompt, not in the folded copy.

use std::ops::Range;

/// A prompt folded for keyword matching, with the way back to the original bytes.
pub(super) struct Folded {
    /// The folded text the automaton searches.
    pub(super) text: String,
    /// For each byte of `text`: the byte range of the original character (or whitespace run)
    /// it came from.
    origin: Vec<Range<usize>>,
}

impl Folded {
    /// Folds `prompt`.
    pub(super) fn new(prompt: &str) -> Self {
        let mut text = String::with_capacity(prompt.len());
        let mut origin = Vec::with_capacity(prompt.len());
        let mut chars = prompt.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if c.is_whitespace() {
                let mut end = start + c.len_utf8();
                while let Some(&(next, w)) = chars.peek() {
                    if !w.is_whitespace() {
                        break;
                    }
                    end = next + w.len_utf8();
                    chars.next();
                }
                text.push(' ');
                origin.push(start..end);
                continue;
            }
            let end = start + c.len_utf8();
            for lower in c.to_lowercase() {
                text.push(lower);
                origin.extend(std::iter::repeat_n(start..end, lower.len_utf8()));
            }
        }
        Self { text, origin }
    }

    /// The original span of the folded span `span` (which must lie within the text).
    pub(super) fn original(&self, span: Range<usize>) -> Range<usize> {
        let start = self.origin.get(span.start).map_or(0, |r| r.start);
        let end = span
            .end
            .checked_sub(1)
            .and_then(|last| self.origin.get(last))
            .map_or(start, |r| r.end);
        start..end.max(start)
    }

    /// True when the folded span does not cut a word: before it (when the keyword starts with a
    /// word character) and after it (when it ends with one) there is no word character.
    pub(super) fn on_word_boundaries(&self, span: Range<usize>, edges: Edges) -> bool {
        let before = self
            .text
            .get(..span.start)
            .and_then(|s| s.chars().next_back());
        let after = self.text.get(span.end..).and_then(|s| s.chars().next());
        !(edges.start && before.is_some_and(is_word) || edges.end && after.is_some_and(is_word))
    }
}

/// Which ends of a keyword need a word boundary: those that are word characters (`c++` needs
/// one before the `c`, none after the `+`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Edges {
    start: bool,
    end: bool,
}

impl Edges {
    /// No boundary at either end: a keyword matched anywhere (`match: substring`).
    pub(super) const NONE: Edges = Edges {
        start: false,
        end: false,
    };

    /// The edges of a folded keyword.
    pub(super) fn of(keyword: &str) -> Self {
        Self {
            start: keyword.chars().next().is_some_and(is_word),
            end: keyword.chars().next_back().is_some_and(is_word),
        }
    }
}

/// A keyword folded like a prompt, without leading or trailing whitespace.
pub(super) fn fold_keyword(keyword: &str) -> String {
    Folded::new(keyword.trim()).text
}

/// A character that belongs to a word: letters, digits and `_` — except in scripts written
/// without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Myanmar), where a keyword
/// can only be found inside a run of letters, so their letters never block a match.
fn is_word(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !unspaced_script(c)
}

/// Letters of scripts that do not put spaces between words.
fn unspaced_script(c: char) -> bool {
    matches!(u32::from(c),
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // half-width Katakana
        | 0x20000..=0x3134F // CJK extensions B–G
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_lowercases_and_collapses_whitespace() {
        let folded = Folded::new("Stack\n\t Trace ÉTÉ");
        assert_eq!(folded.text, "stack trace été");
        // The folded `stack trace` is the original `Stack\n\t Trace`.
        assert_eq!(folded.original(0..11), 0..13);
        // Two-byte characters map back whole.
        assert_eq!(folded.original(12..17), 14..19);
        assert_eq!(fold_keyword("  Pull   Request "), "pull request");
    }

    #[test]
    fn length_changing_lowercase_maps_back_to_the_whole_character() {
        // `İ` (2 bytes) lowercases to `i` + a combining dot (3 bytes).
        let folded = Folded::new("xİy");
        assert_eq!(folded.text, "xi\u{307}y");
        assert_eq!(folded.original(1..2), 1..3);
        assert_eq!(folded.original(1..4), 1..3);
        assert_eq!(folded.original(4..5), 3..4);
    }

    #[test]
    fn boundaries_are_checked_only_at_word_edges() {
        let both = Edges::of("bug");
        let folded = Folded::new("debug bug_x bug-fix (bug)");
        assert!(!folded.on_word_boundaries(2..5, both));
        assert!(!folded.on_word_boundaries(6..9, both));
        assert!(folded.on_word_boundaries(12..15, both));
        assert!(folded.on_word_boundaries(21..24, both));
        let cpp = Edges::of("c++");
        let folded = Folded::new("c++x and xc++");
        assert!(folded.on_word_boundaries(0..3, cpp));
        assert!(!folded.on_word_boundaries(10..13, cpp));
    }

    #[test]
    fn unspaced_scripts_do_not_block_matches() {
        let folded = Folded::new("这个错误很严重 bug修复");
        let keyword = "错误";
        let start = folded.text.find(keyword).unwrap();
        assert!(folded.on_word_boundaries(start..start + keyword.len(), Edges::of(keyword)));
        let start = folded.text.find("bug").unwrap();
        assert!(folded.on_word_boundaries(start..start + 3, Edges::of("bug")));
    }
}

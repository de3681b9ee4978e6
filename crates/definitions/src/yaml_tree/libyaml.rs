//! Where libyaml, whose messages serde_norway gives, places nodes the event parser places
//! elsewhere, and what libyaml refuses that the parser takes: the one pass adjusts positions
//! with these, or leaves the document to serde_norway.

use saphyr_parser::Marker;

/// Whether libyaml's scanner takes every character of `yaml` as the parser does: it refuses
/// control characters that YAML 1.2 allows, is stricter about tabs (a tab anywhere sends the
/// file to serde_norway; tabs are rare in front matter) and counts a lone carriage return as
/// a line.
pub(super) fn libyaml_reads_alike(yaml: &str) -> bool {
    let bytes = yaml.as_bytes();
    // Printable ASCII and line feeds, the usual case, checked a word at a time.
    if bytes
        .iter()
        .all(|&b| b == b'\n' || (0x20..0x7F).contains(&b))
    {
        return true;
    }
    bytes.iter().enumerate().all(|(i, &b)| match b {
        b'\n' => true,
        // A carriage return alone is a line break to libyaml, not to the parser's line count.
        b'\r' => bytes.get(i + 1) == Some(&b'\n'),
        0..0x20 | 0x7F => false,
        // U+0080..U+009F but U+0085, as UTF-8.
        0xC2 => !matches!(bytes.get(i + 1), Some(0x80..=0x84 | 0x86..=0x9F)),
        // U+FFFE and U+FFFF.
        0xEF => !(bytes.get(i + 1) == Some(&0xBF) && matches!(bytes.get(i + 2), Some(0xBE | 0xBF))),
        _ => true,
    })
}

/// Reads the YAML text at the parser's character positions, forward: events come in document
/// order, so each lookup continues from the last one.
pub(super) struct Cursor<'a> {
    yaml: &'a str,
    /// A character index and the byte offset it is at.
    at: (usize, usize),
}

impl<'a> Cursor<'a> {
    pub(super) fn new(yaml: &'a str) -> Self {
        Cursor { yaml, at: (0, 0) }
    }

    /// The text from character `index` on.
    fn from(&mut self, index: usize) -> &'a str {
        if index < self.at.0 {
            self.at = (0, 0);
        }
        let (mut chars, mut byte) = self.at;
        let mut rest = self.yaml[byte..].chars();
        while chars < index {
            match rest.next() {
                Some(c) => {
                    chars += 1;
                    byte += c.len_utf8();
                }
                None => break,
            }
        }
        self.at = (chars, byte);
        &self.yaml[byte..]
    }

    /// Where a block scalar (`|`, `>`) starts: its indicator, the first thing after the
    /// previous event (which ends at `from`) other than blanks, comments and `:`/`-`/`?`
    /// indicators. The parser places the scalar at its first content line, libyaml (and so
    /// serde_norway's errors) at the indicator.
    pub(super) fn block_indicator(&mut self, from: Marker) -> Option<(usize, usize)> {
        let (mut line, mut col) = (from.line(), from.col() + 1);
        let mut comment = false;
        for c in self.from(from.index()).chars() {
            match c {
                '\n' => {
                    comment = false;
                    line += 1;
                    col = 0;
                }
                _ if comment => {}
                '|' | '>' => return Some((line, col)),
                '#' => comment = true,
                ' ' | '\t' | '\r' | ':' | '-' | '?' => {}
                _ => return None,
            }
            col += 1;
        }
        None
    }

    /// The first `-` after a mapping key that ends at `key_end`, past the `:`, blanks and
    /// comments.
    pub(super) fn block_entry(&mut self, key_end: Marker) -> Option<(usize, usize)> {
        let (mut line, mut col) = (key_end.line(), key_end.col() + 1);
        let mut comment = false;
        for c in self.from(key_end.index()).chars() {
            match c {
                '\n' => {
                    comment = false;
                    line += 1;
                    col = 0;
                }
                _ if comment => {}
                '-' => return Some((line, col)),
                '#' => comment = true,
                ' ' | '\r' | ':' => {}
                _ => return None,
            }
            col += 1;
        }
        None
    }

    /// Whether the anchor (`&name`) or alias (`*name`) at `at` is one libyaml reads as this
    /// parser does: ASCII letters, digits, `-` and `_`, then a blank or the end of a flow.
    pub(super) fn libyaml_name(&mut self, at: Marker) -> bool {
        let mut chars = self.from(at.index()).chars();
        if !matches!(chars.next(), Some('&' | '*')) {
            return false;
        }
        let mut len = 0;
        for c in chars {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                len += 1;
                continue;
            }
            return len > 0 && matches!(c, ' ' | '\t' | '\r' | '\n' | ',' | ']' | '}');
        }
        len > 0
    }

    /// Where libyaml places the empty value of a block mapping entry whose key ends at
    /// `key_end`: just after the `:`.
    pub(super) fn after_colon(&mut self, key_end: Marker) -> Option<(usize, usize)> {
        let mut col = key_end.col() + 1;
        for c in self.from(key_end.index()).chars() {
            match c {
                ':' => return Some((key_end.line(), col + 1)),
                ' ' | '\t' => col += 1,
                _ => return None,
            }
        }
        None
    }
}

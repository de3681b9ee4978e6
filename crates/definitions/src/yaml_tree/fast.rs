//! A reader for the YAML most agent files write, much cheaper than the full parser.
//!
//! Front matter is nearly always a block mapping of `key: value` lines, with nested block
//! mappings and sequences, one-line flow sequences (`tools: [read_file, grep]`) and one-line
//! quoted strings. This reader takes exactly that, line by line, and gives the events the full
//! parser would give for it — the same values at the same places, so the tree, the field index
//! and every message are the same. Anything else (a multi-line or block scalar, a flow
//! mapping, an anchor, a tag, a comment inside a flow, odd indentation) makes it give up, and
//! the full parser reads the document; the tests compare the two on every document this
//! reader takes.

use saphyr_parser::{Event, ScalarStyle};
use std::borrow::Cow;

/// One event, where it is ((line, column), 1-based, as the parser reports it), where the tree
/// places its node (libyaml's place), and whether it opens a flow collection.
pub(super) struct Item<'a> {
    pub event: Event<'a>,
    pub pos: (usize, usize),
    pub node_pos: (usize, usize),
    pub flow: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    Seq,
}

/// An open block collection: its kind and the column (0-based) of its keys or `-`.
#[derive(Clone, Copy)]
struct Open {
    kind: Kind,
    indent: usize,
}

/// A key whose value is on the next lines (or is empty): its indentation, and where libyaml
/// places an empty value (just after the `:`).
#[derive(Clone, Copy)]
struct Pending {
    indent: usize,
    after_colon: (usize, usize),
}

struct Reader<'a> {
    items: Vec<Item<'a>>,
    open: Vec<Open>,
    pending: Option<Pending>,
}

/// The events of `yaml`, or `None` when it is not in the form this reader takes.
pub(super) fn read(yaml: &str) -> Option<Vec<Item<'_>>> {
    if yaml.contains('\r') && yaml.replace("\r\n", "\n").contains('\r') {
        return None;
    }
    let mut reader = Reader {
        items: Vec::with_capacity(yaml.len() / 8),
        open: Vec::new(),
        pending: None,
    };
    reader.push(Event::StreamStart, (1, 1), false);
    reader.push(Event::DocumentStart(false), (1, 1), false);
    for (number, line) in yaml.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let content = &line[indent..];
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        reader.line(number + 1, line, indent)?;
    }
    reader.finish_pending();
    while let Some(open) = reader.open.pop() {
        reader.close(open);
    }
    if reader.items.len() <= 2 {
        // An empty document (or one of comments only): the parser says where it ends.
        return None;
    }
    let end = end_of(yaml);
    reader.push(Event::DocumentEnd, end, false);
    reader.push(Event::StreamEnd, end, false);
    Some(reader.items)
}

/// Where the parser says the text ends: at the start of the line after the last one (the
/// parser ends an unterminated last line itself).
fn end_of(yaml: &str) -> (usize, usize) {
    let breaks = yaml.matches('\n').count();
    let line = if yaml.ends_with('\n') {
        breaks + 1
    } else {
        breaks + 2
    };
    (line, 1)
}

/// 1-based column of byte `at` of `line`.
fn column(line: &str, at: usize) -> usize {
    let before = &line[..at];
    if before.is_ascii() {
        at + 1
    } else {
        before.chars().count() + 1
    }
}

impl<'a> Reader<'a> {
    fn push(&mut self, event: Event<'a>, pos: (usize, usize), flow: bool) {
        self.items.push(Item {
            event,
            pos,
            node_pos: pos,
            flow,
        });
    }

    fn close(&mut self, open: Open) {
        let event = match open.kind {
            Kind::Map => Event::MappingEnd,
            Kind::Seq => Event::SequenceEnd,
        };
        // Where a collection ends is used by nothing downstream.
        self.push(event, (0, 0), false);
    }

    /// A key with nothing after it has an empty value.
    fn finish_pending(&mut self) {
        if let Some(pending) = self.pending.take() {
            self.items.push(Item {
                event: Event::Scalar(Cow::Borrowed(""), ScalarStyle::Plain, 0, None),
                pos: (pending.after_colon.0, pending.after_colon.1 - 1),
                node_pos: pending.after_colon,
                flow: false,
            });
        }
    }

    /// One line with content, `indent` spaces in.
    fn line(&mut self, number: usize, line: &'a str, indent: usize) -> Option<()> {
        let content = &line[indent..];
        let entry = content == "-" || content.starts_with("- ");
        if let Some(pending) = self.pending {
            if entry && indent >= pending.indent {
                // A sequence as the key's value, indented or at the key's own indentation.
                self.pending = None;
                self.open.push(Open {
                    kind: Kind::Seq,
                    indent,
                });
                self.push(Event::SequenceStart(0, None), (number, indent + 1), false);
            } else if !entry && indent > pending.indent {
                self.pending = None;
                self.open.push(Open {
                    kind: Kind::Map,
                    indent,
                });
                self.push(Event::MappingStart(0, None), (number, indent + 1), false);
            } else {
                self.finish_pending();
            }
        }
        // Close what this line is outside of.
        while let Some(&top) = self.open.last() {
            let outside =
                indent < top.indent || (top.kind == Kind::Seq && indent == top.indent && !entry);
            if !outside {
                break;
            }
            self.open.pop();
            self.close(top);
        }
        if self.open.is_empty() && self.items.len() == 2 && !entry {
            // The document's root mapping.
            self.open.push(Open {
                kind: Kind::Map,
                indent,
            });
            self.push(Event::MappingStart(0, None), (number, indent + 1), false);
        }
        let top = *self.open.last()?;
        if top.indent != indent {
            return None;
        }
        match (top.kind, entry) {
            (Kind::Map, false) => self.entry(number, line, indent),
            (Kind::Seq, true) => self.item(number, line, indent),
            _ => None,
        }
    }

    /// `key: value` at byte `at` of `line`.
    fn entry(&mut self, number: usize, line: &'a str, at: usize) -> Option<()> {
        let rest = &line[at..];
        let key_len = rest
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))?;
        if key_len == 0 || rest.starts_with('-') || rest.as_bytes().get(key_len) != Some(&b':') {
            return None;
        }
        let key = &rest[..key_len];
        self.push(
            Event::Scalar(Cow::Borrowed(key), ScalarStyle::Plain, 0, None),
            (number, column(line, at)),
            false,
        );
        let after = at + key_len + 1;
        let value = &line[after..];
        if !(value.is_empty() || value.starts_with(' ')) {
            return None;
        }
        let start = after + (value.len() - value.trim_start_matches(' ').len());
        if start == line.len() || line[start..].starts_with('#') {
            self.pending = Some(Pending {
                indent: at,
                after_colon: (number, column(line, after)),
            });
            return Some(());
        }
        self.value(number, line, start)
    }

    /// `- item` at byte `at` of `line`.
    fn item(&mut self, number: usize, line: &'a str, at: usize) -> Option<()> {
        let rest = &line[at + 1..];
        let start = at + 1 + (rest.len() - rest.trim_start_matches(' ').len());
        if start == line.len() || line[start..].starts_with(['#', '-']) {
            return None;
        }
        if looks_like_key(&line[start..]) {
            // A mapping as the item, its first key on the `-` line.
            self.open.push(Open {
                kind: Kind::Map,
                indent: start,
            });
            self.push(
                Event::MappingStart(0, None),
                (number, column(line, start)),
                false,
            );
            return self.entry(number, line, start);
        }
        self.value(number, line, start)
    }

    /// A one-line value at byte `at` of `line`: a scalar or a flow sequence.
    fn value(&mut self, number: usize, line: &'a str, at: usize) -> Option<()> {
        let text = &line[at..];
        let pos = (number, column(line, at));
        let (event, used) = match text.as_bytes().first()? {
            b'[' => return self.flow_sequence(number, line, at),
            b'\'' => single_quoted(text)?,
            b'"' => double_quoted(text)?,
            _ => (plain_block(text)?, text.len()),
        };
        // After a quoted scalar: only blanks and a comment.
        let tail = &text[used..];
        let tail_trimmed = tail.trim_start_matches(' ');
        if !(tail_trimmed.is_empty()
            || tail_trimmed.starts_with('#') && tail_trimmed.len() < tail.len())
        {
            return None;
        }
        self.push(event, pos, false);
        Some(())
    }

    /// `[a, 'b', "c"]` on one line, at byte `at` of `line`.
    fn flow_sequence(&mut self, number: usize, line: &'a str, at: usize) -> Option<()> {
        self.push(
            Event::SequenceStart(0, None),
            (number, column(line, at)),
            true,
        );
        let mut i = at + 1;
        let skip = |i: usize| i + (line[i..].len() - line[i..].trim_start_matches(' ').len());
        i = skip(i);
        if line[i..].starts_with(']') {
            i += 1;
        } else {
            loop {
                let text = &line[i..];
                let pos = (number, column(line, i));
                let (event, used) = match text.as_bytes().first()? {
                    b'\'' => single_quoted(text)?,
                    b'"' => double_quoted(text)?,
                    _ => plain_flow(text)?,
                };
                self.push(event, pos, false);
                i = skip(i + used);
                match line.as_bytes().get(i)? {
                    b',' => i = skip(i + 1),
                    b']' => {
                        i += 1;
                        break;
                    }
                    _ => return None,
                }
                // `[a, ]` and `[a,,b]` are read differently by the two YAML libraries.
                if line[i..].starts_with([']', ',']) {
                    return None;
                }
            }
        }
        self.push(Event::SequenceEnd, (0, 0), false);
        let tail = &line[i..];
        let tail_trimmed = tail.trim_start_matches(' ');
        (tail_trimmed.is_empty()
            || tail_trimmed.starts_with('#') && tail_trimmed.len() < tail.len())
        .then_some(())
    }
}

/// Whether `text` starts with a key this reader takes followed by `:` and a blank or the end.
fn looks_like_key(text: &str) -> bool {
    let len = text
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
        .unwrap_or(text.len());
    len > 0
        && !text.starts_with('-')
        && text[len..].starts_with(':')
        && (text.len() == len + 1 || text[len + 1..].starts_with(' '))
}

/// Characters that cannot start a plain scalar (YAML's indicators).
fn is_indicator(c: char) -> bool {
    matches!(
        c,
        '-' | '?'
            | ':'
            | ','
            | '['
            | ']'
            | '{'
            | '}'
            | '#'
            | '&'
            | '*'
            | '!'
            | '|'
            | '>'
            | '\''
            | '"'
            | '%'
            | '@'
            | '`'
    )
}

/// A plain scalar that runs to the end of the line (or a comment), in block context.
fn plain_block(text: &str) -> Option<Event<'_>> {
    let first = text.chars().next()?;
    if is_indicator(first) && !(first == '-' && text[1..].starts_with(|c: char| c.is_ascii_digit()))
    {
        return None;
    }
    let end = text.find(" #").unwrap_or(text.len());
    let value = text[..end].trim_end_matches(' ');
    // `a: b` inside a value, or a value ending with `:`, is not a plain scalar.
    if value.contains(": ") || value.ends_with(':') {
        return None;
    }
    Some(Event::Scalar(
        Cow::Borrowed(value),
        ScalarStyle::Plain,
        0,
        None,
    ))
}

/// A plain scalar inside a flow sequence: up to `,` or `]`. Returns the event and the bytes
/// used (trailing blanks included).
fn plain_flow(text: &str) -> Option<(Event<'_>, usize)> {
    let first = text.chars().next()?;
    if is_indicator(first) && !(first == '-' && text[1..].starts_with(|c: char| c.is_ascii_digit()))
    {
        return None;
    }
    let end = text.find([',', ']', '[', '{', '}'])?;
    if !text[end..].starts_with([',', ']']) {
        return None;
    }
    let value = text[..end].trim_end_matches(' ');
    if value.contains(": ")
        || value.contains(" #")
        || value.ends_with(':')
        || value.contains('#') && value.contains(" #")
    {
        return None;
    }
    Some((
        Event::Scalar(Cow::Borrowed(value), ScalarStyle::Plain, 0, None),
        end,
    ))
}

/// `'text'` on one line (`''` is a quote). Returns the event and the bytes used.
fn single_quoted(text: &str) -> Option<(Event<'_>, usize)> {
    let body = &text[1..];
    let mut value: Option<String> = None;
    let mut i = 0;
    loop {
        let close = body[i..].find('\'')? + i;
        if body[close + 1..].starts_with('\'') {
            let owned = value.get_or_insert_with(String::new);
            owned.push_str(&body[i..=close]);
            i = close + 2;
            continue;
        }
        let value = match value {
            Some(mut owned) => {
                owned.push_str(&body[i..close]);
                Cow::Owned(owned)
            }
            None => Cow::Borrowed(&body[..close]),
        };
        return Some((
            Event::Scalar(value, ScalarStyle::SingleQuoted, 0, None),
            close + 2,
        ));
    }
}

/// `"text"` on one line, with YAML's escapes. Returns the event and the bytes used.
fn double_quoted(text: &str) -> Option<(Event<'_>, usize)> {
    let body = &text[1..];
    let end = body.find(['"', '\\'])?;
    if body.as_bytes()[end] == b'"' {
        let value = Cow::Borrowed(&body[..end]);
        return Some((
            Event::Scalar(value, ScalarStyle::DoubleQuoted, 0, None),
            end + 2,
        ));
    }
    let mut value = String::with_capacity(body.len());
    let mut copied = 0;
    loop {
        // Copy up to the next quote or escape at once.
        let next = copied + body[copied..].find(['"', '\\'])?;
        value.push_str(&body[copied..next]);
        if body.as_bytes()[next] == b'"' {
            let value = Cow::Owned(value);
            return Some((
                Event::Scalar(value, ScalarStyle::DoubleQuoted, 0, None),
                next + 2,
            ));
        }
        let mut chars = body[next + 1..].char_indices();
        let (_, escape) = chars.next()?;
        let mut hex = |n: usize| -> Option<char> {
            let mut code = 0u32;
            for _ in 0..n {
                code = code * 16 + chars.next()?.1.to_digit(16)?;
            }
            char::from_u32(code)
        };
        value.push(match escape {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(2)?,
            'u' => hex(4)?,
            'U' => hex(8)?,
            // Other escapes are errors: the parser words them.
            _ => return None,
        });
        copied = next + 1 + chars.offset();
    }
}

//! Positions of front-matter fields, from span-aware YAML events.
//!
//! serde gives positions only for errors it raises itself. Checks that run after
//! deserialisation (unknown fields, bad regexes, unknown tools …) look the field's position up
//! here by its path: `model`, `tools.allow[1]`, `triggers[0].regex[0]`.

#[cfg(test)]
use saphyr_parser::Parser;
use saphyr_parser::{Event, ScalarStyle};
use std::collections::{HashMap, HashSet};

/// Field positions by dotted path (the paths shared with [`KeyEntry::path`]).
pub(crate) type PositionMap = HashMap<Arc<str>, (usize, usize), foldhash::fast::RandomState>;
use std::rc::Rc;
use std::sync::Arc;

/// One segment of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    /// A mapping key (shared by the paths of the key and everything under it).
    Key(Rc<str>),
    /// A sequence index.
    Index(usize),
}

/// A mapping key found in the YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyEntry {
    /// Path of the mapping the key is in, segment by segment (shared by its keys).
    pub parent: Rc<[Segment]>,
    /// Dotted path, e.g. `tools.allow`; the key itself is its end, from `key_start`.
    pub path: Arc<str>,
    key_start: usize,
    /// 1-based line and column of the key, relative to the YAML text.
    pub pos: (usize, usize),
}

impl KeyEntry {
    /// The key itself.
    pub(crate) fn key(&self) -> &str {
        &self.path[self.key_start..]
    }

    /// Whether the key is a top-level field.
    pub(crate) fn is_top_level(&self) -> bool {
        self.parent.is_empty()
    }
}

/// Positions of every key and sequence item of a YAML document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct YamlIndex {
    /// Position by dotted path: keys for mapping entries, items for sequence entries.
    pub positions: PositionMap,
    /// Every mapping key, in document order.
    pub keys: Vec<KeyEntry>,
    /// Whether the document's root is a mapping.
    pub root_is_mapping: bool,
    /// Paths of mapping values written as YAML null (`~`, `null`, or nothing at all).
    pub nulls: HashSet<Arc<str>>,
}

/// A plain scalar that YAML reads as null.
fn is_null(value: &str, style: ScalarStyle) -> bool {
    style == ScalarStyle::Plain && matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

/// A path, segment by segment and dotted.
type Path = (Rc<[Segment]>, Arc<str>);

/// What the next node of a mapping is the value of.
enum Pending {
    /// The key at this index of [`YamlIndex::keys`].
    Key(usize),
    /// A complex key (not indexed): the value takes the mapping's own path.
    Complex,
}

enum Frame {
    Map {
        path: Path,
        key: Option<Pending>,
    },
    Seq {
        path: Path,
        next: usize,
    },
    /// A complex key (a mapping or sequence used as a key): its contents are not indexed.
    Skip,
}

/// `parent.key`, or `key` at the root, written into `out` (a buffer reused between paths,
/// so that a path costs one allocation: its shared copy).
fn child_key(out: &mut String, parent: &str, key: &str) -> Arc<str> {
    out.clear();
    if !parent.is_empty() {
        out.push_str(parent);
        out.push('.');
    }
    out.push_str(key);
    Arc::from(out.as_str())
}

/// `parent[index]`, written into `out` as [`child_key`] does.
fn child_index(out: &mut String, parent: &str, index: usize) -> Arc<str> {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let digits = std::str::from_utf8(&digits[at..]).unwrap_or("0");
    out.clear();
    out.push_str(parent);
    out.push('[');
    out.push_str(digits);
    out.push(']');
    Arc::from(out.as_str())
}

impl YamlIndex {
    /// Indexes `yaml`. Best effort: on a syntax error, what was seen so far is kept (the YAML
    /// deserialiser reports the error itself).
    #[cfg(test)]
    pub(crate) fn build(yaml: &str) -> Self {
        let mut builder = IndexBuilder::default();
        let mut parser = Parser::new_from_str(yaml);
        while let Some(Ok((event, span))) = parser.next_event() {
            builder.event(&event, (span.start.line(), span.start.col() + 1));
        }
        builder.finish()
    }
}

/// Builds a [`YamlIndex`] from the parser's events, one at a time, so that the one pass over
/// a front matter (the `yaml_tree` module) can index it while it builds its tree.
#[derive(Default)]
pub(crate) struct IndexBuilder {
    index: YamlIndex,
    stack: Vec<Frame>,
    /// Where paths are written before they are shared.
    scratch: String,
}

/// A mapping's key: a scalar is indexed under its dotted path (its position kept, the first
/// one wins); any other node is a complex key, not indexed.
fn index_key(
    index: &mut YamlIndex,
    scratch: &mut String,
    path: &Path,
    event: &Event<'_>,
    pos: (usize, usize),
) -> Pending {
    let Event::Scalar(value, ..) = event else {
        return Pending::Complex;
    };
    let dotted = child_key(scratch, &path.1, value);
    index.positions.entry(Arc::clone(&dotted)).or_insert(pos);
    let pending = Pending::Key(index.keys.len());
    index.keys.push(KeyEntry {
        parent: Rc::clone(&path.0),
        key_start: dotted.len() - value.len(),
        path: dotted,
        pos,
    });
    pending
}

impl IndexBuilder {
    /// A builder with room for about `fields` keys and sequence items.
    pub(crate) fn with_capacity(fields: usize) -> Self {
        let mut builder = IndexBuilder::default();
        builder.index.positions.reserve(fields);
        builder.index.keys.reserve(fields);
        builder
    }

    /// Takes the next event; `pos` is its 1-based line and column.
    pub(crate) fn event(&mut self, event: &Event<'_>, pos: (usize, usize)) {
        let index = &mut self.index;
        let stack = &mut self.stack;
        let scratch = &mut self.scratch;
        let opens = match event {
            Event::SequenceStart(..) | Event::MappingStart(..) => true,
            Event::Scalar(..) | Event::Alias(_) => false,
            Event::SequenceEnd | Event::MappingEnd => {
                stack.pop();
                return;
            }
            _ => return,
        };
        // The path of this node when it is indexed, computed only for collections (their
        // contents are indexed under it).
        let child: Option<Path> = match stack.last_mut() {
            None => {
                index.root_is_mapping = matches!(event, Event::MappingStart(..));
                Some((Rc::from([]), Arc::from("")))
            }
            Some(Frame::Skip) => None,
            Some(Frame::Map { path, key }) => match key.take() {
                Some(pending) => {
                    let entry = match pending {
                        Pending::Key(i) => index.keys.get(i),
                        Pending::Complex => None,
                    };
                    if let Event::Scalar(value, style, ..) = event
                        && is_null(value, *style)
                    {
                        let dotted = entry.map_or(&path.1, |entry| &entry.path);
                        index.nulls.insert(Arc::clone(dotted));
                    }
                    match entry {
                        _ if !opens => None,
                        Some(entry) => {
                            let mut segments = entry.parent.to_vec();
                            segments.push(Segment::Key(Rc::from(entry.key())));
                            Some((Rc::from(segments), Arc::clone(&entry.path)))
                        }
                        None => Some(path.clone()),
                    }
                }
                None => {
                    *key = Some(index_key(index, scratch, path, event, pos));
                    if matches!(key, Some(Pending::Complex)) && opens {
                        stack.push(Frame::Skip);
                    }
                    return;
                }
            },
            Some(Frame::Seq { path, next }) => {
                let dotted = child_index(scratch, &path.1, *next);
                let segments = opens.then(|| {
                    let mut segments = path.0.to_vec();
                    segments.push(Segment::Index(*next));
                    Rc::from(segments)
                });
                *next += 1;
                index.positions.entry(Arc::clone(&dotted)).or_insert(pos);
                segments.map(|segments| (segments, dotted))
            }
        };
        if opens {
            stack.push(match (child, event) {
                (None, _) => Frame::Skip,
                (Some(path), Event::MappingStart(..)) => Frame::Map { path, key: None },
                (Some(path), _) => Frame::Seq { path, next: 0 },
            });
        }
    }

    /// The index of the events seen.
    pub(crate) fn finish(self) -> YamlIndex {
        self.index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_keys_and_items() {
        let yaml =
            "name: a\ntools:\n  allow: [read_file, grep]\ntriggers:\n  - regex:\n      - 'x('\n";
        let index = YamlIndex::build(yaml);
        assert!(index.root_is_mapping);
        assert_eq!(index.positions["name"], (1, 1));
        assert_eq!(index.positions["tools.allow"], (3, 3));
        assert_eq!(index.positions["tools.allow[1]"], (3, 22));
        assert_eq!(index.positions["triggers[0]"], (5, 5));
        assert_eq!(index.positions["triggers[0].regex"], (5, 5));
        assert_eq!(index.positions["triggers[0].regex[0]"], (6, 9));
        let paths: Vec<&str> = index.keys.iter().map(|k| &*k.path).collect();
        assert_eq!(
            paths,
            [
                "name",
                "tools",
                "tools.allow",
                "triggers",
                "triggers[0].regex"
            ]
        );
    }

    #[test]
    fn records_null_values() {
        let index = YamlIndex::build("name:\na: ~\nb: null\nc: 'null'\nd: {e: NULL}\nf: x\n");
        let mut nulls: Vec<&str> = index.nulls.iter().map(|null| &**null).collect();
        nulls.sort_unstable();
        assert_eq!(nulls, ["a", "b", "d.e", "name"]);
    }

    #[test]
    fn survives_complex_keys_aliases_and_errors() {
        let index = YamlIndex::build("? [a, b]\n: 1\nx: &a {y: 1}\nz: *a\n");
        assert!(index.positions.contains_key("x.y"));
        assert!(index.positions.contains_key("z"));
        let index = YamlIndex::build("a: [1, 2\nb: : :");
        assert!(index.positions.contains_key("a"));
        let index = YamlIndex::build("- 1\n- 2\n");
        assert!(!index.root_is_mapping);
    }
}

//! The one pass over a front matter's YAML: one run of the event parser that checks the alias
//! budget, indexes field positions ([`YamlIndex`]) and builds a tree of located nodes, from
//! which the spec is deserialised ([`de`]) and the fields kept in `extra` are read.
//!
//! The tree covers what agent files write: mappings with plain keys, sequences, scalars,
//! anchors and aliases. Anything else — a YAML syntax error, a tag (`!!str`, `!custom`), a
//! complex key, nesting deeper than [`MAX_TREE_DEPTH`], a second document — leaves the tree
//! unbuilt, and the text is handed to serde_norway as it was before the one pass existed, so
//! that such files keep exactly the messages they had (libyaml's wording of syntax errors).

pub(crate) mod de;
mod fast;
mod libyaml;

use crate::yaml_index::{IndexBuilder, YamlIndex};
use agentctl_config::YamlAliasError;
use libyaml::{Cursor, libyaml_reads_alike};
use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span};
use std::borrow::Cow;
use std::collections::HashMap;

/// Deepest nesting the tree is built for. Deeper documents go to serde_norway (whose own limit
/// is 128); the bound also keeps the recursive deserialiser and drop off deep stacks.
pub(crate) const MAX_TREE_DEPTH: usize = 64;

/// A YAML node and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node<'a> {
    /// 1-based line and column (in characters) in the YAML text.
    pub pos: (usize, usize),
    /// What the node is.
    pub kind: Kind<'a>,
}

/// The three kinds of YAML nodes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind<'a> {
    /// A scalar; `plain` when unquoted and not a block scalar (only plain scalars are read as
    /// null, booleans or numbers).
    Scalar { value: Cow<'a, str>, plain: bool },
    /// A sequence.
    Seq(Vec<Node<'a>>),
    /// A mapping, entries in document order (duplicates kept: serde reports them).
    Map(Vec<(Node<'a>, Node<'a>)>),
}

impl Node<'_> {
    /// The node with every string owned.
    fn into_owned(self) -> Node<'static> {
        Node {
            pos: self.pos,
            kind: match self.kind {
                Kind::Scalar { value, plain } => Kind::Scalar {
                    value: Cow::Owned(value.into_owned()),
                    plain,
                },
                Kind::Seq(items) => Kind::Seq(items.into_iter().map(Node::into_owned).collect()),
                Kind::Map(entries) => Kind::Map(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.into_owned(), v.into_owned()))
                        .collect(),
                ),
            },
        }
    }
}

/// What the one pass found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Front<'a> {
    /// Field positions (built in every case, best effort on errors).
    pub index: YamlIndex,
    /// The document, as a tree or as text for serde_norway.
    pub body: Body<'a>,
}

/// The document, ready to deserialise.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body<'a> {
    /// The tree.
    Tree(Tree<'a>),
    /// Outside what the tree covers: serde_norway parses this text.
    Text(Cow<'a, str>),
}

impl Body<'_> {
    /// The same, owning its strings (for a repaired text that does not outlive the reader).
    pub(crate) fn into_owned(self) -> Body<'static> {
        match self {
            Body::Tree(Tree { root, end }) => Body::Tree(Tree {
                root: root.map(Node::into_owned),
                end,
            }),
            Body::Text(text) => Body::Text(Cow::Owned(text.into_owned())),
        }
    }
}

/// A document read into nodes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tree<'a> {
    /// The root node; `None` for an empty document.
    pub root: Option<Node<'a>>,
    /// Where the document ends (errors about an empty document point there).
    pub end: (usize, usize),
}

impl Tree<'_> {
    /// Deserialises `T` from the tree.
    pub(crate) fn deserialize<'de, T: serde::Deserialize<'de>>(&'de self) -> Result<T, de::Error> {
        de::from_tree(self.root.as_ref(), self.end)
    }
}

/// An open collection of the tree being built.
struct Open<'a> {
    pos: (usize, usize),
    anchor: usize,
    /// Written in flow style (`{…}`, `[…]`).
    flow: bool,
    kind: OpenKind<'a>,
}

enum OpenKind<'a> {
    Seq(Vec<Node<'a>>),
    Map {
        entries: Vec<(Node<'a>, Node<'a>)>,
        key: Option<Node<'a>>,
    },
}

/// Builds the tree; gives up (and is dropped) on anything outside what the tree covers.
#[derive(Default)]
struct TreeBuilder<'a> {
    open: Vec<Open<'a>>,
    anchors: HashMap<usize, Node<'a>>,
    root: Option<Node<'a>>,
    documents: usize,
    end: (usize, usize),
}

impl<'a> TreeBuilder<'a> {
    /// Takes one event; `false` when the document is outside what the tree covers. `flow`
    /// says whether a collection event is written in flow style.
    fn event(&mut self, event: Event<'a>, pos: (usize, usize), flow: bool) -> bool {
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                self.documents == 1
            }
            Event::Scalar(_, _, _, Some(_))
            | Event::SequenceStart(_, Some(_))
            | Event::MappingStart(_, Some(_)) => false,
            Event::Scalar(value, style, anchor, None) => {
                let plain = style == ScalarStyle::Plain;
                self.complete(
                    Node {
                        pos,
                        kind: Kind::Scalar { value, plain },
                    },
                    anchor,
                )
            }
            // serde_norway names a value under an aliased key `?`: leave such keys to it.
            Event::Alias(_) if self.awaits_key() => false,
            Event::Alias(anchor) => match self.anchors.get(&anchor) {
                // The alias budget is checked before this event reaches the tree.
                Some(node) => {
                    let node = node.clone();
                    self.complete(node, 0)
                }
                // An alias inside its own anchor, or to an unknown one.
                None => false,
            },
            Event::SequenceStart(anchor, None) => self.push(Open {
                pos,
                anchor,
                flow,
                kind: OpenKind::Seq(Vec::new()),
            }),
            Event::MappingStart(anchor, None) => self.push(Open {
                pos,
                anchor,
                flow,
                kind: OpenKind::Map {
                    entries: Vec::new(),
                    key: None,
                },
            }),
            Event::SequenceEnd | Event::MappingEnd => match self.open.pop() {
                Some(Open {
                    pos, anchor, kind, ..
                }) => {
                    let kind = match kind {
                        OpenKind::Seq(items) => Kind::Seq(items),
                        OpenKind::Map { entries, key: None } => Kind::Map(entries),
                        OpenKind::Map { key: Some(_), .. } => return false,
                    };
                    self.complete(Node { pos, kind }, anchor)
                }
                None => false,
            },
            Event::StreamEnd => {
                self.end = pos;
                true
            }
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => true,
        }
    }

    /// Whether the next node is the value of a block mapping entry.
    fn awaits_block_value(&self) -> bool {
        matches!(
            self.open.last(),
            Some(Open {
                flow: false,
                kind: OpenKind::Map { key: Some(_), .. },
                ..
            })
        )
    }

    /// Whether the next node is a mapping key.
    fn awaits_key(&self) -> bool {
        matches!(
            self.open.last(),
            Some(Open {
                kind: OpenKind::Map { key: None, .. },
                ..
            })
        )
    }

    fn push(&mut self, open: Open<'a>) -> bool {
        // Too deep, or a collection used as a mapping key.
        if self.open.len() >= MAX_TREE_DEPTH || self.awaits_key() {
            return false;
        }
        self.open.push(open);
        true
    }

    fn complete(&mut self, node: Node<'a>, anchor: usize) -> bool {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.open.last_mut() {
            None if self.root.is_none() => {
                self.root = Some(node);
                true
            }
            None => false,
            Some(Open { kind, .. }) => match kind {
                OpenKind::Seq(items) => {
                    items.push(node);
                    true
                }
                OpenKind::Map { entries, key } => match key.take() {
                    Some(key) => {
                        entries.push((key, node));
                        true
                    }
                    None if matches!(node.kind, Kind::Scalar { .. }) => {
                        *key = Some(node);
                        true
                    }
                    None => false,
                },
            },
        }
    }
}

/// Counts the values aliases add to the document, as [`agentctl_config::check_yaml_aliases`]
/// does, event by event.
struct AliasBudget {
    sizes: HashMap<usize, u64>,
    open: Vec<(usize, u64)>,
    added: u64,
    max: u64,
}

impl AliasBudget {
    fn event(&mut self, event: &Event<'_>, pos: (usize, usize)) -> Result<(), YamlAliasError> {
        let done = match event {
            Event::Scalar(_, _, anchor, _) => Some((*anchor, 1)),
            Event::Alias(id) => {
                let size = self.sizes.get(id).copied().unwrap_or(1);
                self.added = self.added.saturating_add(size);
                if self.added > self.max {
                    return Err(YamlAliasError {
                        line: pos.0,
                        column: pos.1,
                        max: self.max,
                    });
                }
                Some((0, size))
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                self.open.push((*anchor, 1));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => self.open.pop(),
            _ => None,
        };
        if let Some((anchor, size)) = done {
            if anchor != 0 {
                self.sizes.insert(anchor, size);
            }
            if let Some((_, parent)) = self.open.last_mut() {
                *parent = parent.saturating_add(size);
            }
        }
        Ok(())
    }
}

/// Parses `yaml` once: checks that its aliases add at most `max_alias_values` values (before
/// anything is expanded: a few KiB of aliases can stand for gigabytes), indexes it and builds
/// its tree.
///
/// `tree` off skips the tree (every document goes to serde_norway): the behaviour the tree
/// must reproduce, for the tests that compare the two.
pub(crate) fn parse(
    yaml: &str,
    max_alias_values: u64,
    tree: bool,
) -> Result<Front<'_>, YamlAliasError> {
    if tree
        && libyaml_reads_alike(yaml)
        && let Some(items) = fast::read(yaml)
    {
        return Ok(from_items(items));
    }
    parse_events(yaml, max_alias_values, tree)
}

/// The front matter from the fast reader's events (no aliases: no budget to check).
fn from_items(items: Vec<fast::Item<'_>>) -> Front<'_> {
    let mut index = IndexBuilder::with_capacity(items.len() / 2);
    let mut tree = TreeBuilder::default();
    for item in items {
        index.event(&item.event, item.pos);
        tree.event(item.event, item.node_pos, item.flow);
    }
    Front {
        index: index.finish(),
        body: Body::Tree(Tree {
            root: tree.root,
            end: tree.end,
        }),
    }
}

/// Where libyaml places the node `event` starts (`pos` is where the event parser does), or
/// `None` when the text cannot tell (the tree is then given up for serde_norway's reading).
fn node_position(
    event: &Event<'_>,
    span: &Span,
    pos: (usize, usize),
    flow: bool,
    tree: &TreeBuilder,
    text: &mut Cursor<'_>,
    previous_end: Marker,
) -> Option<(usize, usize)> {
    match event {
        Event::Scalar(_, ScalarStyle::Literal | ScalarStyle::Folded, 0, _) => {
            text.block_indicator(previous_end)
        }
        Event::Scalar(value, ScalarStyle::Plain, 0, _) if value.is_empty() => {
            // An empty value; libyaml places only those of block mappings
            // where the parser can tell.
            tree.awaits_block_value()
                .then(|| text.after_colon(previous_end))
                .flatten()
        }
        // A sequence as the value of a block mapping entry may be written at
        // the key's indentation: libyaml places it at its first `-`, the parser
        // at its first item.
        Event::SequenceStart(0, _) if !flow && tree.awaits_block_value() => {
            text.block_entry(previous_end)
        }
        // libyaml allows fewer characters in anchor names than YAML 1.2.
        Event::Alias(_)
        | Event::Scalar(_, _, 1.., _)
        | Event::SequenceStart(1.., _)
        | Event::MappingStart(1.., _) => text.libyaml_name(span.start).then_some(pos),
        _ => Some(pos),
    }
}

/// [`parse`] with the event parser.
fn parse_events(
    yaml: &str,
    max_alias_values: u64,
    tree: bool,
) -> Result<Front<'_>, YamlAliasError> {
    let mut budget = AliasBudget {
        sizes: HashMap::new(),
        open: Vec::new(),
        added: 0,
        max: max_alias_values,
    };
    let mut index = IndexBuilder::default();
    let mut builder = (tree && libyaml_reads_alike(yaml)).then(TreeBuilder::default);
    let mut parser = Parser::new_from_str(yaml);
    let mut text = Cursor::new(yaml);
    let mut previous_end = Marker::new(0, 1, 0);
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok((event, span))) => {
                let pos = (span.start.line(), span.start.col() + 1);
                let implicit_start = matches!(event, Event::DocumentStart(false));
                budget.event(&event, pos)?;
                index.event(&event, pos);
                if let Some(tree) = &mut builder {
                    let flow = span.end.index() > span.start.index();
                    let node_pos =
                        node_position(&event, &span, pos, flow, tree, &mut text, previous_end);
                    let built = node_pos.is_some_and(|node_pos| tree.event(event, node_pos, flow));
                    if !built {
                        builder = None;
                    }
                }
                // An implicit document start has no text; a block scalar at the root is
                // looked for from the start.
                if !implicit_start {
                    previous_end = span.end;
                }
            }
            // serde_norway reports the error, in libyaml's words.
            Some(Err(_)) => {
                builder = None;
                break;
            }
        }
    }
    let body = match builder {
        Some(tree) if tree.open.is_empty() => Body::Tree(Tree {
            root: tree.root,
            end: tree.end,
        }),
        _ => Body::Text(Cow::Borrowed(yaml)),
    };
    Ok(Front {
        index: index.finish(),
        body,
    })
}

/// The fast reader gives the front matter the event parser gives, whenever it reads one.
#[cfg(test)]
pub(crate) fn fast_agrees(yaml: &str) -> bool {
    let Some(items) = fast::read(yaml) else {
        return false;
    };
    if !libyaml_reads_alike(yaml) {
        return false;
    }
    let fast = from_items(items);
    let events = parse_events(yaml, 1_000_000, true).ok();
    assert_eq!(Some(&fast), events.as_ref(), "{yaml:?}");
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(yaml: &str) -> Option<Node<'_>> {
        match parse(yaml, 1_000, true).unwrap().body {
            Body::Tree(tree) => tree.root,
            Body::Text(_) => panic!("not a tree: {yaml}"),
        }
    }

    fn is_text(yaml: &str) -> bool {
        matches!(parse(yaml, 1_000, true).unwrap().body, Body::Text(_))
    }

    #[test]
    fn builds_located_nodes() {
        let root = tree("name: a\ntools: [x, 'y']\n").unwrap();
        let Kind::Map(entries) = &root.kind else {
            panic!("{root:?}")
        };
        assert_eq!(entries[1].0.pos, (2, 1));
        let Kind::Seq(items) = &entries[1].1.kind else {
            panic!()
        };
        assert_eq!(items[1].pos, (2, 12));
        assert_eq!(
            items[1].kind,
            Kind::Scalar {
                value: "y".into(),
                plain: false
            }
        );
    }

    #[test]
    fn block_scalars_start_at_their_indicator() {
        let root = tree("a: 1\nmemory: |  # note\n  block\nlist:\n  - >-\n    folded\n").unwrap();
        let Kind::Map(entries) = &root.kind else {
            panic!()
        };
        assert_eq!(entries[1].1.pos, (2, 9));
        let Kind::Seq(items) = &entries[2].1.kind else {
            panic!()
        };
        assert_eq!(items[0].pos, (5, 5));
    }

    #[test]
    fn expands_aliases_within_the_budget() {
        let root = tree("a: &x [1, 2]\nb: *x\n").unwrap();
        let Kind::Map(entries) = &root.kind else {
            panic!()
        };
        assert_eq!(entries[0].1, entries[1].1);
        let wide = format!(
            "a: &a [{}]\nb: [{}]\n",
            ["x"; 100].join(","),
            ["*a"; 100].join(",")
        );
        let error = parse(&wide, 1_000, true).unwrap_err();
        assert_eq!((error.line, error.column), (2, 32));
    }

    #[test]
    fn leaves_the_rest_to_serde_norway() {
        assert!(is_text("a: !!str 1\n"));
        assert!(is_text("? [a]\n: 1\n"));
        assert!(is_text("a: [1\n"));
        assert!(is_text("a: 1\n---\nb: 2\n"));
        assert!(is_text("a: &x [*x]\n"));
        let deep = format!("a: {}{}\n", "[".repeat(70), "]".repeat(70));
        assert!(is_text(&deep));
        assert!(tree("").is_none());
        assert!(tree("# only a comment\n").is_none());
    }
}

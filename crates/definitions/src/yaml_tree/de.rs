//! A serde deserialiser over the located tree of [`super::Node`]s.
//!
//! It reads a value exactly as serde_norway reads the same YAML — the same scalar resolution
//! (`~`, `true`, `0x1F`, `.inf`, `007` as a string), the same errors with the same path
//! prefixes (`tools.allow[0]: invalid type: …`) and the same positions (the start of the node
//! the error is about) — so that a spec read through the one pass is the spec serde_norway
//! would have read, and every located message keeps its text. How scalars read is in
//! [`scalar`].

mod scalar;

use super::{Kind, Node};
use scalar::{is_null, parse_bool, parse_f64, parse_signed_int, parse_unsigned_int, visit_scalar};
use serde::de::{self, DeserializeSeed, Expected, Unexpected, Visitor};
use std::fmt;

/// A deserialisation error: a message and, once known, the node it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Error {
    message: String,
    state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Raised by a visitor; the node being deserialised will locate it.
    Unlocated,
    /// Located: 1-based line and column in the YAML text, and the value's path.
    Located { pos: (usize, usize), path: String },
    /// serde_norway gives these no position (the end of the document, bytes).
    Unlocatable,
}

impl Error {
    fn unlocatable(message: &str) -> Self {
        Error {
            message: message.to_owned(),
            state: State::Unlocatable,
        }
    }

    fn end_of_stream() -> Self {
        Error::unlocatable("EOF while parsing a value")
    }

    /// Where the error is, if known: 1-based line and column in the YAML text.
    pub(crate) fn location(&self) -> Option<(usize, usize)> {
        match &self.state {
            State::Located { pos, .. } => Some(*pos),
            _ => None,
        }
    }

    fn locate(mut self, pos: (usize, usize), path: &Path<'_>) -> Self {
        if self.state == State::Unlocated {
            self.state = State::Located {
                pos,
                path: path.to_string(),
            };
        }
        self
    }
}

/// As serde_norway displays it without the position: `path: message`.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let State::Located { path, .. } = &self.state
            && path != "."
        {
            write!(f, "{path}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error {
            message: message.to_string(),
            state: State::Unlocated,
        }
    }
}

/// The path of the value being read, displayed as serde_norway does (`.`, `tools.allow[0]`).
#[derive(Clone, Copy)]
enum Path<'p> {
    Root,
    Seq { parent: &'p Path<'p>, index: usize },
    Map { parent: &'p Path<'p>, key: &'p str },
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("."),
            Path::Seq { parent, index } => write!(f, "{parent}[{index}]"),
            Path::Map {
                parent: Path::Root,
                key,
            } => f.write_str(key),
            Path::Map { parent, key } => write!(f, "{parent}.{key}"),
        }
    }
}

/// Deserialises `T` from a tree; `root` `None` is an empty document, which ends at `end`.
pub(super) fn from_tree<'de, T: de::Deserialize<'de>>(
    root: Option<&'de Node<'de>>,
    end: (usize, usize),
) -> Result<T, Error> {
    T::deserialize(NodeDe {
        node: root,
        path: Path::Root,
        end,
    })
}

/// Deserialises one node (`None`: the empty document).
#[derive(Clone, Copy)]
struct NodeDe<'de, 'p> {
    node: Option<&'de Node<'de>>,
    path: Path<'p>,
    end: (usize, usize),
}

impl<'de> NodeDe<'de, '_> {
    fn pos(&self) -> (usize, usize) {
        self.node.map_or(self.end, |node| node.pos)
    }

    fn child<'q>(&self, node: &'de Node<'de>, path: Path<'q>) -> NodeDe<'de, 'q> {
        NodeDe {
            node: Some(node),
            path,
            end: self.end,
        }
    }

    fn seq<V: Visitor<'de>>(&self, items: &'de [Node<'de>], visitor: V) -> Result<V::Value, Error> {
        let mut access = SeqDe {
            de: self,
            items: items.iter(),
            len: 0,
        };
        let value = visitor.visit_seq(&mut access)?;
        let read = access.len;
        let total = read + access.items.len();
        if total == read {
            Ok(value)
        } else {
            Err(de::Error::invalid_length(
                total,
                &ExpectedLen(read, "sequence of", "element", "elements"),
            ))
        }
    }

    fn map<V: Visitor<'de>>(
        &self,
        entries: &'de [(Node<'de>, Node<'de>)],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut access = MapDe {
            de: self,
            entries: entries.iter(),
            value: None,
            len: 0,
        };
        let value = visitor.visit_map(&mut access)?;
        let read = access.len;
        let total = read + access.entries.len();
        if total == read {
            Ok(value)
        } else {
            Err(de::Error::invalid_length(
                total,
                &ExpectedLen(read, "map containing", "entry", "entries"),
            ))
        }
    }

    /// The node as a plain scalar, if it is one.
    fn plain(&self) -> Option<&'de str> {
        match self.node.map(|node| &node.kind) {
            Some(Kind::Scalar { value, plain: true }) => Some(value),
            _ => None,
        }
    }

    /// Reads a plain scalar with `parse`, else reports the node's type.
    fn number<T, V: Visitor<'de>>(
        self,
        visitor: V,
        parse: impl FnOnce(&str) -> Option<T>,
        visit: impl FnOnce(V, T) -> Result<V::Value, Error>,
    ) -> Result<V::Value, Error> {
        match self.plain().and_then(parse) {
            Some(value) => visit(visitor, value),
            None => Err(invalid_type(self.node, &visitor)),
        }
        .map_err(|error| error.locate(self.pos(), &self.path))
    }
}

struct ExpectedLen(usize, &'static str, &'static str, &'static str);

impl Expected for ExpectedLen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ExpectedLen(len, what, one, many) = *self;
        if len == 1 {
            write!(f, "{what} 1 {one}")
        } else {
            write!(f, "{what} {len} {many}")
        }
    }
}

struct SeqDe<'a, 'de, 'p> {
    de: &'a NodeDe<'de, 'p>,
    items: std::slice::Iter<'de, Node<'de>>,
    len: usize,
}

impl<'de> de::SeqAccess<'de> for SeqDe<'_, 'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Seq {
            parent: &self.de.path,
            index: self.len,
        };
        self.len += 1;
        seed.deserialize(self.de.child(item, path)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapDe<'a, 'de, 'p> {
    de: &'a NodeDe<'de, 'p>,
    entries: std::slice::Iter<'de, (Node<'de>, Node<'de>)>,
    value: Option<(&'de str, &'de Node<'de>)>,
    len: usize,
}

impl<'de> de::MapAccess<'de> for MapDe<'_, 'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.len += 1;
        let name = match &key.kind {
            Kind::Scalar { value, .. } => value.as_ref(),
            // The tree has scalar keys only.
            Kind::Seq(_) | Kind::Map(_) => "?",
        };
        self.value = Some((name, value));
        // Keys are read at the mapping's path, as serde_norway does.
        seed.deserialize(self.de.child(key, self.de.path)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom("a map value was read before its key"));
        };
        let path = Path::Map {
            parent: &self.de.path,
            key,
        };
        seed.deserialize(self.de.child(value, path))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An enum written as a plain string: only unit variants.
struct UnitVariant<'de, 'p>(NodeDe<'de, 'p>);

impl<'de> de::EnumAccess<'de> for UnitVariant<'de, '_> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        Ok((seed.deserialize(self.0)?, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnitVariant<'de, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, Error> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"newtype variant",
        ))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"tuple variant",
        ))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"struct variant",
        ))
    }
}

impl<'de> de::Deserializer<'de> for NodeDe<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.map(|node| &node.kind) {
            None => visitor.visit_none(),
            Some(Kind::Scalar { value, plain }) => visit_scalar(visitor, value, *plain),
            Some(Kind::Seq(items)) => self.seq(items, visitor),
            Some(Kind::Map(entries)) => self.map(entries, visitor),
        }
        .map_err(|error| error.locate(self.pos(), &self.path))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.number(visitor, parse_bool, |v, b| v.visit_bool(b))
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.number(
            visitor,
            |v| parse_signed_int(v, i64::from_str_radix),
            |v, n| v.visit_i64(n),
        )
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.number(
            visitor,
            |v| parse_signed_int(v, i128::from_str_radix),
            |v, n| v.visit_i128(n),
        )
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.number(
            visitor,
            |v| parse_unsigned_int(v, u64::from_str_radix),
            |v, n| v.visit_u64(n),
        )
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.number(
            visitor,
            |v| parse_unsigned_int(v, u128::from_str_radix),
            |v, n| v.visit_u128(n),
        )
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.number(visitor, parse_f64, |v, f| v.visit_f64(f))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.map(|node| &node.kind) {
            Some(Kind::Scalar { value, .. }) => visitor.visit_borrowed_str(value),
            _ => Err(invalid_type(self.node, &visitor)),
        }
        .map_err(|error| error.locate(self.pos(), &self.path))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(Error::unlocatable(
            "serialization and deserialization of bytes in YAML is not implemented",
        ))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    /// `null`, `~`, an empty value or nothing at all is `None`; anything else is `Some`.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let is_some = match self.node.map(|node| &node.kind) {
            None => false,
            Some(Kind::Scalar { value, plain }) => {
                !*plain || (!value.is_empty() && !is_null(value))
            }
            Some(Kind::Seq(_) | Kind::Map(_)) => true,
        };
        if is_some {
            visitor.visit_some(self)
        } else {
            visitor.visit_none()
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.map(|node| &node.kind) {
            None => visitor.visit_unit(),
            Some(Kind::Scalar { value, plain }) => {
                if *plain && (value.is_empty() || is_null(value)) {
                    visitor.visit_unit()
                } else {
                    Err(de::Error::invalid_value(Unexpected::Str(value), &"null"))
                }
            }
            Some(_) => Err(invalid_type(self.node, &visitor)),
        }
        .map_err(|error| error.locate(self.pos(), &self.path))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.map(|node| &node.kind) {
            Some(Kind::Seq(items)) => self.seq(items, visitor),
            None => self.seq(&[], visitor),
            Some(Kind::Scalar { value, plain: true }) if value.is_empty() => self.seq(&[], visitor),
            Some(_) => Err(invalid_type(self.node, &visitor)),
        }
        .map_err(|error| error.locate(self.pos(), &self.path))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.map(|node| &node.kind) {
            Some(Kind::Map(entries)) => self.map(entries, visitor),
            None => self.map(&[], visitor),
            Some(Kind::Scalar { value, plain: true }) if value.is_empty() => self.map(&[], visitor),
            Some(_) => Err(invalid_type(self.node, &visitor)),
        }
        .map_err(|error| error.locate(self.pos(), &self.path))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    /// An enum is a plain string naming a unit variant (variants with data need YAML tags,
    /// which the tree leaves to serde_norway).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let expected = &"a YAML tag starting with '!'";
        match self.node.map(|node| &node.kind) {
            None => Err(Error::end_of_stream()),
            Some(Kind::Scalar { .. }) => visitor.visit_enum(UnitVariant(self)),
            Some(Kind::Map(_)) => Err(de::Error::invalid_type(Unexpected::Map, expected)),
            Some(Kind::Seq(_)) => Err(de::Error::invalid_type(Unexpected::Seq, expected)),
        }
        .map_err(|error| error.locate(self.pos(), &self.path))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// The error a node of the wrong type gives, worded by what the node would read as.
fn invalid_type(node: Option<&Node<'_>>, expected: &dyn Expected) -> Error {
    enum Never {}

    struct InvalidType<'a> {
        expected: &'a dyn Expected,
    }

    impl Visitor<'_> for InvalidType<'_> {
        type Value = Never;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.expected.fmt(f)
        }
    }

    match node.map(|node| &node.kind) {
        None => Error::end_of_stream(),
        Some(Kind::Scalar { value, plain }) => {
            match visit_scalar(InvalidType { expected }, value, *plain) {
                Ok(never) => match never {},
                Err(error) => error,
            }
        }
        Some(Kind::Seq(_)) => de::Error::invalid_type(Unexpected::Seq, expected),
        Some(Kind::Map(_)) => de::Error::invalid_type(Unexpected::Map, expected),
    }
}

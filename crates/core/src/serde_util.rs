//! Small serde helpers shared by the data types.

use serde::{Deserialize, Deserializer, de};
use std::fmt;
use std::marker::PhantomData;

/// Deserialises either a single value or a sequence of values into a `Vec`.
///
/// Written as a visitor rather than an untagged enum so that YAML errors inside keep their
/// line and column (serde's untagged enums buffer the input and lose positions).
pub(crate) fn one_or_many<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct OneOrMany<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> de::Visitor<'de> for OneOrMany<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a value or a list of values")
        }

        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            Ok(items)
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            T::deserialize(de::value::StrDeserializer::new(v)).map(|one| vec![one])
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            T::deserialize(de::value::StringDeserializer::new(v)).map(|one| vec![one])
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
    }

    deserializer.deserialize_any(OneOrMany(PhantomData))
}

//! A budget for YAML aliases, checked before a YAML document is deserialised.
//!
//! An alias (`*name`) stands for a copy of the node its anchor (`&name`) marks, so a few bytes
//! can stand for a huge document: the "billion laughs" nest anchors, and a flat variant repeats
//! one wide anchor thousands of times. serde_norway limits alias *jumps* (to 100 per event),
//! which stops the nested form but not the flat one: a 20 KB agent front matter took 30 s to
//! load and 50 KB exhausted 4 GB. [`check_yaml_aliases`] walks the parser's events once,
//! computing how many values each anchor stands for, and refuses a document whose aliases would
//! add more than a budget, before anything is expanded.

use saphyr_parser::{Event, Parser};
use std::collections::HashMap;

/// Values aliases may add to an agent file's front matter (literal values are already bounded
/// by its 64 KiB size limit).
pub const MAX_AGENT_ALIAS_VALUES: u64 = 100_000;

/// Values aliases may add to a cassette.
pub const MAX_CASSETTE_ALIAS_VALUES: u64 = 1_000_000;

/// A YAML document whose aliases expand to more values than allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "YAML aliases here expand the document by more than {max} values: refused (copy the values \
     instead of referring to them with `*alias`)"
)]
pub struct YamlAliasError {
    /// 1-based line, in the YAML text, of the alias that went over the budget.
    pub line: usize,
    /// 1-based column of that alias.
    pub column: usize,
    /// The budget.
    pub max: u64,
}

/// Checks that the aliases of `yaml` add at most `max_alias_values` values (scalars,
/// sequences and mappings) to it once expanded.
///
/// Linear in the number of events; syntax errors end the walk silently, since the
/// deserialiser that runs next reports them with their position.
///
/// ```
/// use agentctl_config::check_yaml_aliases;
///
/// assert!(check_yaml_aliases("tools: &t [a, b]\nalso: *t\n", 10).is_ok());
/// let wide = format!("a: &a [{}]\nb: [{}]\n", ["x"; 100].join(","), ["*a"; 100].join(","));
/// let error = check_yaml_aliases(&wide, 1_000).unwrap_err();
/// assert_eq!((error.line, error.column), (2, 32)); // the tenth `*a`
/// ```
pub fn check_yaml_aliases(yaml: &str, max_alias_values: u64) -> Result<(), YamlAliasError> {
    // Expanded size of each anchored node, by anchor id.
    let mut sizes: HashMap<usize, u64> = HashMap::new();
    // Open collections: their anchor id (0: none) and size so far (themselves included).
    let mut open: Vec<(usize, u64)> = Vec::new();
    let mut added: u64 = 0;
    let mut parser = Parser::new_from_str(yaml);
    while let Some(Ok((event, span))) = parser.next_event() {
        let done = match event {
            Event::Scalar(_, _, anchor, _) => Some((anchor, 1)),
            Event::Alias(id) => {
                let size = sizes.get(&id).copied().unwrap_or(1);
                added = added.saturating_add(size);
                if added > max_alias_values {
                    return Err(YamlAliasError {
                        line: span.start.line(),
                        column: span.start.col() + 1,
                        max: max_alias_values,
                    });
                }
                Some((0, size))
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                open.push((anchor, 1));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => open.pop(),
            _ => None,
        };
        if let Some((anchor, size)) = done {
            if anchor != 0 {
                sizes.insert(anchor, size);
            }
            if let Some((_, parent)) = open.last_mut() {
                *parent = parent.saturating_add(size);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_anchors_are_counted_expanded() {
        // Ten levels of nine: 9^10 values. Refused at the first alias that goes over.
        let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 9].join(", ");
            yaml.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let error = check_yaml_aliases(&yaml, MAX_AGENT_ALIAS_VALUES).unwrap_err();
        assert_eq!(error.line, 6, "{error:?}");
    }

    #[test]
    fn ordinary_reuse_and_plain_documents_pass() {
        let yaml = "base: &base {command: npx, args: [-y, server]}\none: *base\ntwo: *base\n";
        assert!(check_yaml_aliases(yaml, 100).is_ok());
        assert!(check_yaml_aliases("a: [1, 2, 3]\n", 0).is_ok());
        // Broken YAML is left to the deserialiser.
        assert!(check_yaml_aliases("a: [1, *nope\n", 0).is_ok());
    }

    #[test]
    fn a_redefined_anchor_counts_its_latest_node() {
        let yaml = "a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: &x 1\nc: [*x, *x, *x]\n";
        assert!(check_yaml_aliases(yaml, 3).is_ok());
    }
}

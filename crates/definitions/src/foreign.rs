//! Helpers shared by the Claude Code and Gemini CLI readers.

use crate::error::{DefinitionError, Diagnostic, Result};
use crate::source::Source;
use crate::yaml_tree;
use agentctl_config::MAX_AGENT_ALIAS_VALUES;
use serde::de::{self, Deserializer};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// Deserialises the front matter of a foreign file, tolerating what the tool itself tolerates:
/// published Claude Code agents often have one-line descriptions such as
/// `description: Use this agent when … Context: …`, which strict YAML rejects (`: ` inside a
/// plain scalar). When strict parsing fails, such values are read as plain text, with a warning.
pub(crate) fn deserialize_lenient<T: serde::de::DeserializeOwned>(
    source: &mut Source<'_>,
    tool: &str,
) -> Result<(T, Vec<Diagnostic>)> {
    let error: DefinitionError = match source.deserialize::<T>() {
        Ok(value) => return Ok((value, Vec::new())),
        Err(error) => error,
    };
    let Some((repaired, keys)) = quote_plain_values(source.split.yaml) else {
        return Err(error);
    };
    // The repair only quotes values: its aliases are the original's, within the budget.
    let Ok(front) = yaml_tree::parse(&repaired, MAX_AGENT_ALIAS_VALUES, source.tree) else {
        return Err(error);
    };
    match source.deserialize_body::<T>(&front.body, &front.index) {
        Ok(value) => {
            source.index = front.index;
            source.body = front.body.into_owned();
            let warnings = keys
                .iter()
                .map(|key| {
                    source.warning(
                        key,
                        format!(
                            "the value is not valid YAML (it contains `: ` or ` #`); read as plain \
                             text, as {tool} does: quote it to silence this warning"
                        ),
                    )
                })
                .collect();
            Ok((value, warnings))
        }
        Err(_) => Err(error),
    }
}

/// Rewrites top-level `key: plain value` entries whose value strict YAML would misread as
/// single-quoted strings, keeping every line where it was. Returns the new text and the keys
/// rewritten, or `None` when nothing needed it.
fn quote_plain_values(yaml: &str) -> Option<(String, Vec<String>)> {
    let lines: Vec<&str> = yaml.split('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut keys = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some((key, value)) = top_level_entry(line) else {
            out.push(line.to_owned());
            i += 1;
            continue;
        };
        let value = value.trim_end_matches('\r').trim();
        let suspicious = value.contains(": ") || value.contains(" #") || value.ends_with(':');
        let structured = value.is_empty()
            || value.starts_with(['\'', '"', '[', '{', '|', '>', '&', '*', '!', '#']);
        if !suspicious || structured {
            out.push(line.to_owned());
            i += 1;
            continue;
        }
        // Continuation lines (indented or blank) belong to the same plain scalar.
        let mut end = i + 1;
        while end < lines.len()
            && (lines[end].starts_with([' ', '\t']) || lines[end].trim().is_empty())
        {
            end += 1;
        }
        while end > i + 1 && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        let mut text = format!("{key}: '{}", value.replace('\'', "''"));
        for continuation in &lines[i + 1..end] {
            out.push(std::mem::take(&mut text));
            text = continuation.trim_end_matches('\r').replace('\'', "''");
        }
        text.push('\'');
        out.push(text);
        keys.push(key.to_owned());
        i = end;
    }
    (!keys.is_empty()).then(|| (out.join("\n"), keys))
}

fn top_level_entry(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let valid = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (valid && (value.starts_with([' ', '\t']))).then_some((key, value))
}

/// Top-level fields of a foreign file that the typed reader did not map, as JSON, plus a
/// warning for each one the format itself does not define.
pub(crate) fn extras(
    source: &Source<'_>,
    mapped: &[&str],
    known: &[&str],
    tool: &str,
) -> (BTreeMap<String, Value>, Vec<Diagnostic>) {
    let mut extra = BTreeMap::new();
    let mut warnings = Vec::new();
    let top_level = source.index.keys.iter().filter(|k| k.is_top_level());
    if top_level.clone().all(|k| mapped.contains(&&*k.path)) {
        return (extra, warnings);
    }
    for key in top_level {
        if !mapped.contains(&&*key.path) && !known.contains(&&*key.path) {
            warnings.push(source.warning(
                &key.path,
                format!(
                    "unknown {tool} field: kept in `extra`, agentctl does not use it (if it \
                     is agentctl's, `kind: agent` or `title:` reads the file in agentctl's format)"
                ),
            ));
        }
    }
    for (key, value) in source.top_level() {
        if !mapped.contains(&key.as_str()) {
            extra.insert(key, value);
        }
    }
    (extra, warnings)
}

/// A tool list written as a list or as one comma-separated string (`Read, Grep, Bash(git *)`).
pub(crate) fn tool_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<Vec<String>>, D::Error> {
    struct Visitor;

    impl<'de> de::Visitor<'de> for Visitor {
        type Value = Option<Vec<String>>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of tool names or a comma-separated string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
            Ok(Some(split_tools(v)))
        }

        fn visit_seq<A: de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut tools = Vec::new();
            while let Some(item) = seq.next_element::<String>()? {
                tools.extend(split_tools(&item));
            }
            Ok(Some(tools))
        }

        fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok(None)
        }
    }

    deserializer.deserialize_any(Visitor)
}

/// Splits on commas outside parentheses: `Bash(git add, git commit), Read`.
fn split_tools(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0_usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(text[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim().to_owned());
    out.retain(|tool| !tool.is_empty());
    out
}

/// Maps tool names and drops duplicates (`Edit` and `MultiEdit` both become `edit_file`).
pub(crate) fn map_tools(tools: &[String], map: fn(&str) -> String) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tools.len());
    for tool in tools {
        let mapped = map(tool);
        if !out.contains(&mapped) {
            out.push(mapped);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_tool_strings_outside_parentheses() {
        assert_eq!(
            split_tools("Read, Grep,Bash(git add, git commit) ,"),
            ["Read", "Grep", "Bash(git add, git commit)"]
        );
    }

    #[test]
    fn quotes_values_strict_yaml_rejects() {
        let yaml = "name: x\ndescription: Use when: it's needed\n  and more: here\nmodel: sonnet\n";
        let (text, keys) = quote_plain_values(yaml).unwrap();
        assert_eq!(
            text,
            "name: x\ndescription: 'Use when: it''s needed\n  and more: here'\nmodel: sonnet\n"
        );
        assert_eq!(keys, ["description"]);
        assert!(quote_plain_values("name: x\n").is_none());
    }
}

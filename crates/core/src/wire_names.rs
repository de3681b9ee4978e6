//! Tool names at the provider edge: the names agentctl uses (`read_file`, `mcp.github.search`)
//! are turned into names every model API accepts, per request, and back.
//!
//! What the APIs document for a function/tool name:
//! - OpenAI Chat Completions `tools[].function.name`: "Must be a-z, A-Z, 0-9, or contain
//!   underscores and dashes, with a maximum length of 64"; refused with
//!   `… does not match ^[a-zA-Z0-9_-]{1,64}$`.
//! - Anthropic Messages `tools[].name`: "Must match the regex `^[a-zA-Z0-9_-]{1,64}$`" (tool use
//!   docs; the live API's error message quotes `{1,128}`, the documented 64 is what we keep to).
//! - Gemini `FunctionDeclaration.name`: "Must start with a letter or an underscore. Must be a-z,
//!   A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64"
//!   (while `FunctionCall.name` documents only underscores and dashes).
//!
//! One grammar serves all three: their intersection, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`. Names
//! already in it go to the wire unchanged; `mcp.srv.tool` becomes `mcp__srv__tool`, other
//! characters become `_`, and a name that is too long, or whose rewrite is taken, is cut and given
//! an FNV-1a hash suffix of the original name (the same on every run and platform, unlike std's
//! `DefaultHasher`). The map is built from the request's tool specs and from every name in its
//! history, so calls and results in past turns are sent under the same wire names as the tools;
//! the offered tools are named first, so a stale name in the history never takes a tool's name.

use crate::{Message, ModelRequest};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

/// Longest name the grammar allows.
const MAX_LEN: usize = 64;

/// Hex digits of the hash suffix (`_` plus these).
const HASH_DIGITS: usize = 8;

/// The wire names of one request's tools, both ways.
#[derive(Debug, Default)]
pub struct ToolNames {
    to_wire: HashMap<String, String>,
    to_original: HashMap<String, String>,
}

impl ToolNames {
    /// The names of `request`: its tool specs and every tool named in its history.
    pub fn for_request(request: &ModelRequest) -> Self {
        // Names every API accepts go to the wire as they are: then the maps would only map
        // names to themselves, which is what a name missing from them does anyway.
        let mut names = request.tools.iter().map(|tool| tool.name.as_str()).chain(
            request.messages.iter().flat_map(|message| {
                let (calls, result) = match message {
                    Message::Assistant { tool_calls, .. } => (tool_calls.as_slice(), None),
                    Message::Tool { name, .. } => (&[][..], Some(name.as_str())),
                    Message::User { .. } => (&[][..], None),
                };
                calls.iter().map(|call| call.name.as_str()).chain(result)
            }),
        );
        if names.all(is_valid) {
            return Self::default();
        }
        let history = request.messages.iter().flat_map(|message| match message {
            Message::Assistant { tool_calls, .. } => {
                tool_calls.iter().map(|call| call.name.as_str()).collect()
            }
            Message::Tool { name, .. } => vec![name.as_str()],
            Message::User { .. } => Vec::new(),
        });
        Self::ranked(request.tools.iter().map(|tool| tool.name.as_str()), history)
    }

    /// Assigns wire names. The result depends only on the set of names, not on their order:
    /// valid names keep theirs, then the others get theirs in sorted order.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        Self::ranked(names, std::iter::empty())
    }

    /// Assigns wire names to the `offered` tools first, then to names found only in the
    /// `history`: an offered tool keeps its natural wire name even when a past turn holds a
    /// call to a tool that was not offered then and is spelt that way (`mcp__srv__tool` called
    /// while the server was down); that stale name gets a hashed one.
    fn ranked<'a>(
        offered: impl IntoIterator<Item = &'a str>,
        history: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let offered: BTreeSet<&str> = offered.into_iter().collect();
        let history: BTreeSet<&str> = history
            .into_iter()
            .filter(|name| !offered.contains(name))
            .collect();
        let mut map = Self::default();
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for group in [offered, history] {
            let (valid, rewritten): (Vec<&str>, Vec<&str>) =
                group.into_iter().partition(|name| is_valid(name));
            for name in valid {
                let wire = if taken.contains(name) {
                    hashed(name, name, &taken)
                } else {
                    name.to_owned()
                };
                map.assign(name, wire, &mut taken);
            }
            for name in rewritten {
                let candidate = sanitize(name);
                let wire = if candidate.len() <= MAX_LEN && !taken.contains(&candidate) {
                    candidate
                } else {
                    hashed(name, &candidate, &taken)
                };
                map.assign(name, wire, &mut taken);
            }
        }
        map
    }

    fn assign(&mut self, name: &str, wire: String, taken: &mut BTreeSet<String>) {
        taken.insert(wire.clone());
        self.to_original.insert(wire.clone(), name.to_owned());
        self.to_wire.insert(name.to_owned(), wire);
    }

    /// The wire name of `name` (itself when the request did not mention it).
    pub fn wire<'a>(&'a self, name: &'a str) -> &'a str {
        self.to_wire.get(name).map_or(name, String::as_str)
    }

    /// The agentctl name of wire name `wire`; a name the request did not offer comes back
    /// unchanged, so an "unknown tool" error names what the model said.
    pub fn original<'a>(&'a self, wire: &'a str) -> &'a str {
        self.to_original.get(wire).map_or(wire, String::as_str)
    }
}

/// True when every API accepts `name` as it is.
fn is_valid(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    name.len() <= MAX_LEN
        && (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `.` becomes `__` (so `mcp.srv.tool` reads `mcp__srv__tool`), any other refused character
/// `_`, and a name that starts with neither a letter nor `_` gets a leading `_`. No length cap.
fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    if !name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '.')
    {
        out.push('_');
    }
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => out.push(c),
            '.' => out.push_str("__"),
            _ => out.push('_'),
        }
    }
    out
}

/// `candidate` cut to leave room for `_` and a hash of `name`; a taken result (another name's
/// hash colliding) is hashed again with a counter, so the outcome stays deterministic.
fn hashed(name: &str, candidate: &str, taken: &BTreeSet<String>) -> String {
    // `candidate` is ASCII, so any byte index is a character boundary.
    let keep = candidate.len().min(MAX_LEN - 1 - HASH_DIGITS);
    let stem = &candidate[..keep];
    let mut attempt = 0u32;
    loop {
        let salted = if attempt == 0 {
            name.to_owned()
        } else {
            format!("{name}#{attempt}")
        };
        let hash = fnv1a(salted.as_bytes()) & 0xffff_ffff;
        let wire = format!("{stem}_{hash:0width$x}", width = HASH_DIGITS);
        if !taken.contains(&wire) {
            return wire;
        }
        attempt += 1;
    }
}

/// A tool-call id as Anthropic accepts it (`^[a-zA-Z0-9_-]+$`): ids from other providers in a
/// session's history (`functions.read:0`) get the refused characters replaced and a hash of the
/// original appended, the same for the call and its result, so the pair still matches.
pub fn portable_id(id: &str) -> Cow<'_, str> {
    if !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Cow::Borrowed(id);
    }
    let clean: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let hash = fnv1a(id.as_bytes()) & 0xffff_ffff;
    Cow::Owned(format!("{clean}_{hash:0width$x}", width = HASH_DIGITS))
}

/// 64-bit FNV-1a: tiny, and the same everywhere.
fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(PRIME)
    })
}

/// The name the HTTP providers send tool `name` under when no other tool of the request
/// competes for it: itself when every API accepts it, else its rewrite (`mcp.srv.tool` as
/// `mcp__srv__tool`; a long name cut, with a hash). For a fake server that replays a cassette,
/// whose tool names are agentctl's, to read and answer requests in wire names.
///
/// ```
/// assert_eq!(agentctl_core::wire_tool_name("read_file"), "read_file");
/// assert_eq!(agentctl_core::wire_tool_name("mcp.srv.echo"), "mcp__srv__echo");
/// ```
pub fn wire_tool_name(name: &str) -> String {
    ToolNames::new([name]).wire(name).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolCall, ToolSpec};
    use serde_json::json;

    #[test]
    fn valid_names_pass_and_mcp_names_are_rewritten() {
        let names = ToolNames::new(["read_file", "mcp.everything.echo", "get-sum"]);
        assert_eq!(names.wire("read_file"), "read_file");
        assert_eq!(names.wire("get-sum"), "get-sum");
        assert_eq!(names.wire("mcp.everything.echo"), "mcp__everything__echo");
        assert_eq!(
            names.original("mcp__everything__echo"),
            "mcp.everything.echo"
        );
        assert_eq!(names.original("read_file"), "read_file");
        // What the model invents passes through, for an error that names it.
        assert_eq!(names.original("mcp.nope"), "mcp.nope");
        assert_eq!(names.original("made_up"), "made_up");
    }

    #[test]
    fn refused_characters_and_first_characters() {
        let names = ToolNames::new(["get sum/v2", "7zip", "-x", "", "café", "a:b"]);
        assert_eq!(names.wire("get sum/v2"), "get_sum_v2");
        assert_eq!(names.wire("7zip"), "_7zip");
        assert_eq!(names.wire("-x"), "_-x");
        assert_eq!(names.wire(""), "_");
        assert_eq!(names.wire("café"), "caf_");
        assert_eq!(names.wire("a:b"), "a_b");
        for name in ["get sum/v2", "7zip", "-x", "", "café", "a:b"] {
            assert!(is_valid(names.wire(name)), "{name} -> {}", names.wire(name));
            assert_eq!(names.original(names.wire(name)), name);
        }
    }

    #[test]
    fn long_names_are_capped_with_a_stable_hash() {
        let long = format!("mcp.{}.{}", "server".repeat(6), "tool_name".repeat(6));
        let names = ToolNames::new([long.as_str()]);
        let wire = names.wire(&long);
        assert_eq!(wire.len(), MAX_LEN);
        assert!(is_valid(wire));
        assert!(wire.starts_with("mcp__serverserver"), "{wire}");
        // Pinned: the same on every run and platform.
        assert_eq!(
            &wire[wire.len() - 9..],
            format!("_{:08x}", fnv1a(long.as_bytes()) & 0xffff_ffff)
        );
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(names.original(wire), long);
        // Two long names with the same start stay apart.
        let other = format!("{long}_other");
        let both = ToolNames::new([long.as_str(), other.as_str()]);
        assert_ne!(both.wire(&long), both.wire(&other));
        assert_eq!(both.wire(&long), wire);
    }

    #[test]
    fn collisions_are_resolved_the_same_whatever_the_order() {
        let order_a = ToolNames::new(["a b", "a_b", "a.b", "a__b", "a:b"]);
        let order_b = ToolNames::new(["a:b", "a__b", "a.b", "a_b", "a b"]);
        for name in ["a b", "a_b", "a.b", "a__b", "a:b"] {
            assert_eq!(order_a.wire(name), order_b.wire(name), "{name}");
            assert_eq!(order_a.original(order_a.wire(name)), name);
            assert!(is_valid(order_a.wire(name)));
        }
        // Valid names keep theirs; the rewrites that would clash are hashed.
        assert_eq!(order_a.wire("a_b"), "a_b");
        assert_eq!(order_a.wire("a__b"), "a__b");
        let wires: BTreeSet<&str> = ["a b", "a_b", "a.b", "a__b", "a:b"]
            .iter()
            .map(|name| order_a.wire(name))
            .collect();
        assert_eq!(wires.len(), 5, "{wires:?}");
    }

    #[test]
    fn ids_other_apis_refuse_are_made_portable() {
        assert_eq!(portable_id("toolu_01A-b"), "toolu_01A-b");
        let id = portable_id("functions.read_file:0");
        assert!(id.starts_with("functions_read_file_0_"), "{id}");
        assert_eq!(id, portable_id("functions.read_file:0"));
        assert_ne!(portable_id("a.b"), portable_id("a:b"));
        assert!(portable_id("").starts_with('_'));
    }

    #[test]
    fn history_names_are_included() {
        let request = ModelRequest {
            model: "m".into(),
            system: None,
            messages: vec![
                Message::user("hi"),
                Message::Assistant {
                    content: None,
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "mcp.old.tool".into(),
                        arguments: json!({}),
                        signature: None,
                    }],
                },
                Message::Tool {
                    call_id: "c1".into(),
                    name: "mcp.old.tool".into(),
                    content: "x".into(),
                    is_error: false,
                },
            ],
            tools: vec![ToolSpec {
                name: "mcp.new.tool".into(),
                description: String::new(),
                parameters: json!({"type": "object"}),
            }]
            .into(),
            temperature: None,
            effort: None,
            max_tokens: None,
            stream: false,
        };
        let names = ToolNames::for_request(&request);
        assert_eq!(names.wire("mcp.old.tool"), "mcp__old__tool");
        assert_eq!(names.wire("mcp.new.tool"), "mcp__new__tool");
        // Only valid names: no map is built, and every name still maps to itself.
        let mut request = request;
        std::sync::Arc::make_mut(&mut request.tools)[0].name = "new_tool".into();
        request.messages.truncate(1);
        let names = ToolNames::for_request(&request);
        assert!(names.to_wire.is_empty() && names.to_original.is_empty());
        assert_eq!(names.wire("new_tool"), "new_tool");
        assert_eq!(names.original("new_tool"), "new_tool");
        assert_eq!(names.original("mcp__x"), "mcp__x");
    }

    #[test]
    fn an_offered_tool_keeps_its_name_over_a_stale_call_in_the_history() {
        // A past turn called `mcp__tools__version` while the server was not running (the
        // name came back unmapped); now the server runs and offers `mcp.tools.version`.
        let names = ToolNames::ranked(["mcp.tools.version"], ["mcp__tools__version"]);
        assert_eq!(names.wire("mcp.tools.version"), "mcp__tools__version");
        assert_eq!(names.original("mcp__tools__version"), "mcp.tools.version");
        let stale = names.wire("mcp__tools__version");
        assert!(
            stale.starts_with("mcp__tools__version_") && is_valid(stale),
            "{stale}"
        );
        assert_eq!(names.original(stale), "mcp__tools__version");
    }
}

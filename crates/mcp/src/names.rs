//! Qualified tool names: `mcp.<server>.<tool>`, sanitised for model APIs and kept stable.

use std::collections::BTreeSet;

/// Replaces every character outside `[A-Za-z0-9_-]` with `_` (an empty name becomes `_`).
///
/// ```
/// assert_eq!(agentctl_mcp::sanitize_name("get sum/v2"), "get_sum_v2");
/// ```
pub fn sanitize_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() { "_".into() } else { clean }
}

/// The qualified name of a server's tool: `mcp.<server>.<tool>`, both parts sanitised.
///
/// ```
/// assert_eq!(agentctl_mcp::qualified_name("everything", "echo"), "mcp.everything.echo");
/// ```
pub fn qualified_name(server: &str, tool: &str) -> String {
    format!("mcp.{}.{}", sanitize_name(server), sanitize_name(tool))
}

/// Qualified names for a server's tools, in the order given. When two tools sanitise to the
/// same name, the later ones (in sorted order of their original names, so the result does not
/// depend on the order the server listed them) get `_2`, `_3`, … appended.
pub(crate) fn qualified_names(server: &str, tools: &[&str]) -> Vec<String> {
    let mut sorted: Vec<(usize, &str)> = tools.iter().copied().enumerate().collect();
    sorted.sort_by(|a, b| a.1.cmp(b.1));
    let mut taken = BTreeSet::new();
    let mut names = vec![String::new(); tools.len()];
    for (index, tool) in sorted {
        let base = qualified_name(server, tool);
        let mut name = base.clone();
        let mut n = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        names[index] = name;
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collisions_get_stable_suffixes() {
        let a = qualified_names("s", &["a b", "a.b", "ok"]);
        let b = qualified_names("s", &["ok", "a.b", "a b"]);
        assert_eq!(a, vec!["mcp.s.a_b", "mcp.s.a_b_2", "mcp.s.ok"]);
        assert_eq!(b, vec!["mcp.s.ok", "mcp.s.a_b_2", "mcp.s.a_b"]);
        assert_eq!(qualified_name("my server", ""), "mcp.my_server._");
    }
}

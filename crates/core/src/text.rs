//! Text helpers for messages that quote what came from elsewhere.

/// Collapses whitespace runs (newlines included) and shortens to `max` characters, marking a
/// cut with `…`.
///
/// ```
/// assert_eq!(agentctl_core::one_line("a\n  b", 10), "a b");
/// assert_eq!(agentctl_core::one_line("aé b", 2), "aé…");
/// ```
pub fn one_line(text: &str, max: usize) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &collapsed[..cut]),
        None => collapsed,
    }
}

//! Facts about the grammar's node kinds and the source between nodes.

pub(crate) fn is_redirect(kind: &str) -> bool {
    matches!(
        kind,
        "file_redirect" | "heredoc_redirect" | "herestring_redirect"
    )
}

pub(crate) fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "command"
            | "pipeline"
            | "list"
            | "redirected_statement"
            | "subshell"
            | "compound_statement"
            | "if_statement"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "function_definition"
            | "negated_command"
            | "test_command"
            | "declaration_command"
            | "unset_command"
            | "variable_assignment"
            | "variable_assignments"
    )
}

/// Whether the bytes between two nodes are only blanks and line continuations (and newlines).
pub(super) fn filler(gap: &[u8], newlines: bool) -> bool {
    let mut at = 0;
    while at < gap.len() {
        match gap[at] {
            b' ' | b'\t' => at += 1,
            b'\n' if newlines => at += 1,
            b'\\' if gap.get(at + 1) == Some(&b'\n') => at += 2,
            _ => return false,
        }
    }
    true
}

/// Detects the classic `:(){ :|:& };:` and renamed variants.
pub(super) fn is_fork_bomb(command: &str) -> bool {
    let compact: String = command.chars().filter(|c| !c.is_whitespace()).collect();
    let mut rest = compact.as_str();
    while let Some(at) = rest.find("(){") {
        let before = &rest[..at];
        let name_start = before
            .rfind(|c: char| ";&|(){}".contains(c))
            .map_or(0, |i| i + 1);
        let name = before[name_start..].trim_start_matches("function");
        let body = &rest[at + 3..];
        if !name.is_empty() && body.starts_with(&format!("{name}|{name}")) {
            return true;
        }
        rest = body;
    }
    false
}

//! The characters a tool path may not hold: NUL and control characters, bidi controls,
//! invisible and blank-looking code points anywhere, and blanks at either end of the path or of
//! one of its names.
//!
//! Nothing is trimmed, anywhere: a path is refused rather than corrected, so that no two
//! readers of the same string can disagree about the file it names (the approval gate and a
//! tool once did: the tool trimmed `" .agentctl/settings.json"`, the gate did not).

use super::PathError;

/// Refuses NUL and other control characters, bidi controls, zero-width and other invisible or
/// confusable code points.
///
/// ```
/// use agentctl_tools::check_characters;
///
/// assert!(check_characters("src/名前 with spaces.rs").is_ok());
/// let error = check_characters("evil\u{202E}txt.rs").unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "path contains a bidirectional text control (U+202E); refusing it: evil\\u{202e}txt.rs"
/// );
/// ```
pub fn check_characters(path: &str) -> Result<(), PathError> {
    for ch in path.chars() {
        if let Some(what) = odd_character(ch) {
            return Err(PathError::OddCharacter {
                shown: shown(path),
                what,
                code: u32::from(ch),
            });
        }
    }
    Ok(())
}

/// Refuses a path that starts or ends with a blank (a Unicode `White_Space` character: the
/// space, U+00A0, U+3000, …), or has a folder or file name that does. Blanks inside a name stay
/// fine (`my notes.md`).
pub(crate) fn check_blanks(path: &str) -> Result<(), PathError> {
    let refuse = |place: &'static str, ch: char| PathError::Blank {
        shown: shown(path),
        place,
        code: u32::from(ch),
    };
    if let Some(ch) = path.chars().next().filter(|ch| ch.is_whitespace()) {
        return Err(refuse("starts", ch));
    }
    if let Some(ch) = path.chars().next_back().filter(|ch| ch.is_whitespace()) {
        return Err(refuse("ends", ch));
    }
    for name in path.split(is_separator) {
        if let Some(ch) = name.chars().next().filter(|ch| ch.is_whitespace()) {
            return Err(refuse("has a name that starts", ch));
        }
        if let Some(ch) = name.chars().next_back().filter(|ch| ch.is_whitespace()) {
            return Err(refuse("has a name that ends", ch));
        }
    }
    Ok(())
}

/// The separators `Path` splits on here.
fn is_separator(ch: char) -> bool {
    std::path::is_separator(ch)
}

/// The path for messages: what cannot be seen or could be mistaken (control and invisible
/// characters, blanks other than the space, backslashes) escaped, the rest as it is.
pub(crate) fn shown(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for ch in path.chars() {
        if odd_character(ch).is_some() || (ch.is_whitespace() && ch != ' ') || ch == '\\' {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    out
}

/// What kind of character `ch` is, when a path must not hold it.
pub(crate) fn odd_character(ch: char) -> Option<&'static str> {
    match ch {
        '\0' => Some("a NUL byte"),
        c if c.is_control() => Some("a control character"),
        '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{061C}' => Some("a bidirectional text control"),
        // Zero-width and other default-ignorable code points; HFS+ ignores several of them in
        // names (git refuses `.git` spelled with them for that reason).
        '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2064}'
        | '\u{206A}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{00AD}'
        | '\u{034F}'
        | '\u{180E}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{E0000}'..='\u{E0FFF}' => Some("an invisible character"),
        // Letters that render as nothing at all.
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}' => {
            Some("a blank-looking character")
        }
        '\u{2028}' | '\u{2029}' => Some("a line separator"),
        '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{10FFFF}' => Some("a private-use character"),
        '\u{FFF9}'..='\u{FFFB}' | '\u{FFFE}' | '\u{FFFF}' | '\u{FFFD}' => {
            Some("a special or replacement character")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_at_either_end_of_any_name_are_refused() {
        for (bad, message) in [
            (
                " .agentctl/settings.json",
                "path starts with a blank (U+0020); refusing it:  .agentctl/settings.json",
            ),
            (
                "\u{3000}.agentctl/settings.json",
                "path starts with a blank (U+3000); refusing it: \\u{3000}.agentctl/settings.json",
            ),
            (
                ".git/config\u{00A0}",
                "path ends with a blank (U+00A0); refusing it: .git/config\\u{a0}",
            ),
            (
                "sub/ .git/config",
                "path has a name that starts with a blank (U+0020); refusing it: sub/ .git/config",
            ),
            (
                ".git /config",
                "path has a name that ends with a blank (U+0020); refusing it: .git /config",
            ),
            (
                "a/\u{2003}/b",
                "path has a name that starts with a blank (U+2003); refusing it: a/\\u{2003}/b",
            ),
        ] {
            assert_eq!(check_blanks(bad).unwrap_err().to_string(), message);
        }
        for good in ["my notes.md", "a b/c d.txt", "", "src/main.rs"] {
            assert!(check_blanks(good).is_ok(), "{good:?}");
        }
        assert_eq!(
            check_blanks("名前/ ünï.rs").unwrap_err().to_string(),
            "path has a name that starts with a blank (U+0020); refusing it: 名前/ ünï.rs"
        );
    }

    #[test]
    fn invisible_and_blank_looking_characters_are_refused() {
        for (bad, what) in [
            ("\u{3164}.git/config", "a blank-looking character"),
            (".g\u{206A}it/config", "an invisible character"),
            (".git\u{FE0F}/config", "an invisible character"),
            ("x\u{180E}y", "an invisible character"),
            ("x\u{2800}", "a blank-looking character"),
        ] {
            let error = check_characters(bad).unwrap_err();
            assert!(
                matches!(error, PathError::OddCharacter { what: found, .. } if found == what),
                "{bad:?}: {error}"
            );
        }
    }
}

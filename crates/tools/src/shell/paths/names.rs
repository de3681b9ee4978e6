//! Protected folders by name: where a resolved path or a word as written (a pattern, a brace
//! expansion, a path through a folder the rater cannot know) reaches `.git/`, `.agentctl/`,
//! `.claude/` or `.gemini/`, and the session database.

use super::{Paths, Pattern, Protected, Word};
use agentctl_core::PROTECTED_DIRS;
use std::path::{Component, Path};

/// Why a protected folder is protected, for reasons. The folders are the project's one list,
/// [`PROTECTED_DIRS`]: writing under one is `high` at any depth (`sub/.git/config` of a
/// nested repository too) and in any case (`.GIT` on a case-insensitive file system).
fn why(name: &str) -> &'static str {
    match name {
        ".git" => "hooks and config there run commands",
        ".agentctl" => "it holds agentctl's settings and session database",
        ".claude" | ".gemini" => "agent settings there run commands",
        _ => "agentctl protects it",
    }
}

/// The protected folder names.
pub(super) fn protected_names() -> impl Iterator<Item = &'static str> {
    PROTECTED_DIRS.iter().copied()
}

/// Names of the session database and the memory store (with their journals) in `.agentctl/`.
pub(super) const DATABASES: &[&str] = &["sessions.db", "memory.db"];

impl Paths {
    /// The protected folder a resolved path is in: below the root, any component after it;
    /// elsewhere (`~/.claude/settings.json`), any component.
    pub(super) fn protected_at(&self, path: &Path) -> Option<Protected> {
        let (inside, rest) = match path.strip_prefix(&self.real_root) {
            Ok(rest) => (true, rest),
            Err(_) => (false, path),
        };
        let parts: Vec<String> = rest
            .components()
            .filter_map(|part| match part {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let shown = if inside {
            parts.join("/")
        } else {
            path.display().to_string()
        };
        protected_in(&parts, shown.clone()).or_else(|| {
            let (_, written) = self
                .extra_protected
                .iter()
                .find(|(extra, _)| path.starts_with(extra))?;
            Some(Protected {
                name: written.clone().into(),
                why: "sandbox.protectedPaths names it",
                path: shown,
                database: false,
            })
        })
    }

    /// The protected folder the word names as written: a component (after the root, for a
    /// path that starts with it), or a pattern that may match one (`.g*`).
    pub(super) fn protected_by_name(&self, word: &Word) -> Option<Protected> {
        // `{.git,x}/config`: bash expands the braces (`dash` does not).
        if word.text.contains('{') {
            for alternative in braces(&word.text) {
                let parts: Vec<String> = alternative.split('/').map(str::to_owned).collect();
                if let Some(found) = protected_in(&parts, word.text.clone()) {
                    return Some(found);
                }
            }
        }
        // The root's own path (`{root}/…`, `/proc/self/root{root}/…`) may hold such a name
        // (a project kept under `~/.claude/`): only what follows it counts.
        let mut text = word.text.as_str();
        for root in [self.given_root.as_deref(), Some(self.real_root.as_path())]
            .into_iter()
            .flatten()
        {
            let root = root.to_string_lossy();
            let found = text.match_indices(root.as_ref()).find(|(at, _)| {
                let rest = &text[at + root.len()..];
                rest.is_empty() || rest.starts_with('/')
            });
            if let Some((at, _)) = found {
                text = &text[at + root.len()..];
                break;
            }
        }
        let offset = word.text.len() - text.len();
        let mut parts = Vec::new();
        let mut start = offset;
        for part in text.split('/') {
            let range = start..start + part.len();
            start += part.len() + 1;
            let pattern = Pattern::new(part, |at| {
                word.has_glob_in(range.start + at..range.start + at + 1)
            });
            match pattern {
                Some(pattern) => {
                    let matched = protected_names().find(|name| pattern.matches(name));
                    parts.push(matched.map_or_else(|| part.to_owned(), str::to_owned));
                }
                None => parts.push(part.to_owned()),
            }
        }
        protected_in(&parts, word.text.clone())
    }
}

/// The first protected folder among `parts`, and whether they end in a database file there.
fn protected_in(parts: &[String], shown: String) -> Option<Protected> {
    let at = parts
        .iter()
        .position(|part| protected_name(part).is_some())?;
    let (name, why) = protected_name(&parts[at])?;
    let database = parts.iter().enumerate().any(|(index, part)| {
        index + 2 == parts.len()
            && protected_name(part).is_some_and(|(name, _)| name == ".agentctl")
            && is_database(&parts[index + 1])
    });
    Some(Protected {
        name: name.into(),
        why,
        path: shown,
        database,
    })
}

pub(super) fn protected_name(part: &str) -> Option<(&'static str, &'static str)> {
    protected_names()
        .find(|name| part.eq_ignore_ascii_case(name))
        .map(|name| (name, why(name)))
}

/// `sessions.db`, `sessions.db-wal`, `memory.db-journal`, … (any case).
fn is_database(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    DATABASES.iter().any(|db| lower.starts_with(db))
}

/// A protected folder named anywhere in `text` as a whole name (`open(".git/config")`, not
/// `.gitignore`), for inline programs the rater cannot read (`python3 -c '…'`).
pub(crate) fn named_in_text(text: &str) -> Option<&'static str> {
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    protected_names().find(|name| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            !before.is_some_and(part_of_name) && !after.is_some_and(part_of_name)
        })
    })
}

/// Most words a brace expansion is followed into.
const MAX_BRACES: usize = 64;

/// The words bash makes of `text` by brace expansion (`a{b,c}d` → `abd`, `acd`; nested too);
/// sequences (`{1..3}`) are left as written. At most [`MAX_BRACES`].
fn braces(text: &str) -> Vec<String> {
    let mut done = Vec::new();
    let mut queue = vec![text.to_owned()];
    while let Some(word) = queue.pop() {
        match first_list(&word) {
            Some((open, close, commas)) if done.len() + queue.len() + commas.len() < MAX_BRACES => {
                let mut start = open + 1;
                for end in commas.into_iter().chain([close]) {
                    queue.push(format!(
                        "{}{}{}",
                        &word[..open],
                        &word[start..end],
                        &word[close + 1..]
                    ));
                    start = end + 1;
                }
            }
            _ => done.push(word),
        }
    }
    done
}

/// The first `{…}` of `word` with a comma at its own level: where it opens, closes, and its
/// commas.
fn first_list(word: &str) -> Option<(usize, usize, Vec<usize>)> {
    let bytes = word.as_bytes();
    for (open, _) in word.match_indices('{') {
        let mut depth = 0;
        let mut commas = Vec::new();
        for (at, byte) in bytes.iter().enumerate().skip(open) {
            match byte {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if !commas.is_empty() {
                            return Some((open, at, commas));
                        }
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(at),
                _ => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::braces;

    #[test]
    fn protected_names_in_inline_programs() {
        use super::named_in_text;
        assert_eq!(named_in_text("open('.git/config','w')"), Some(".git"));
        assert_eq!(named_in_text("x = \"a/.agentctl\""), Some(".agentctl"));
        assert_eq!(named_in_text(".claude"), Some(".claude"));
        assert_eq!(named_in_text("open('.gitignore')"), None);
        assert_eq!(named_in_text("x.git.y"), None);
        assert_eq!(named_in_text("a..git"), None);
    }

    #[test]
    fn braces_expand_as_bash_does() {
        let mut words = braces("{.git,x}/config");
        words.sort();
        assert_eq!(words, [".git/config", "x/config"]);
        let mut nested = braces("a{b,{c,d}e}f");
        nested.sort();
        assert_eq!(nested, ["abf", "acef", "adef"]);
        assert_eq!(braces("{1..3}"), ["{1..3}"]);
        assert_eq!(braces("x{}y"), ["x{}y"]);
        assert!(braces(&"{a,b}".repeat(20)).len() <= 64);
    }
}

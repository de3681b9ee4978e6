//! Path patterns of Claude Code's `Read(…)` / `Edit(…)` rules: [`PathPattern`].
//!
//! A pattern is gitignore-style, as Claude Code writes it: `//abs/**` is absolute, `~/x` is
//! under the home folder, `/x`, `./x` and `x/y` are relative to the project root, and a
//! pattern without a `/` inside (`.env`, `*.pem`) matches a name at any depth. `*` stays within
//! a folder, `**` crosses folders, and a pattern also covers everything below what it names.
//! The permission gate matches the paths a call names against them; the sandbox hides (or
//! makes read-only) what they name on disk when a command starts.

use globset::{Glob, GlobBuilder, GlobMatcher};
use std::path::{Path, PathBuf};

/// A compiled path pattern.
///
/// ```
/// use agentctl_sandbox::PathPattern;
/// use std::path::{Path, PathBuf};
///
/// let patterns = PathPattern::new("./secrets/**", &[PathBuf::from("/p")], None);
/// assert!(patterns[0].matches(Path::new("/p/secrets/key.txt")));
/// assert!(!patterns[0].matches(Path::new("/p/src/main.rs")));
/// assert_eq!(patterns[0].literal(), Path::new("/p/secrets"));
/// ```
#[derive(Debug, Clone)]
pub struct PathPattern {
    /// Matches the path itself.
    exact: GlobMatcher,
    /// Matches what lies below it.
    below: GlobMatcher,
    /// The folder before the pattern's first glob character.
    literal: PathBuf,
}

impl PathPattern {
    /// Compiles `pattern` against `roots` (the project root as given and as resolved) and
    /// the home folder: one pattern per root; none when the pattern is not a valid glob.
    pub fn new(pattern: &str, roots: &[PathBuf], home: Option<&Path>) -> Vec<PathPattern> {
        let bases: Vec<String> = if let Some(absolute) = pattern.strip_prefix("//") {
            return compile(&format!("/{absolute}")).into_iter().collect();
        } else if let Some(rest) = pattern.strip_prefix("~/") {
            return home
                .and_then(|home| compile(&format!("{}/{rest}", slash(home))))
                .into_iter()
                .collect();
        } else {
            roots.iter().map(|root| slash(root)).collect()
        };
        let anchored = pattern.starts_with('/') || pattern.starts_with("./");
        let relative = pattern.trim_start_matches("./").trim_start_matches('/');
        let anywhere = !anchored && !relative.trim_end_matches('/').contains('/');
        bases
            .iter()
            .filter_map(|base| {
                let joined = if anywhere {
                    format!("{base}/**/{relative}")
                } else {
                    format!("{base}/{relative}")
                };
                compile(&joined)
            })
            .collect()
    }

    /// Whether `path` (absolute, clean) is the path or lies below it.
    pub fn matches(&self, path: &Path) -> bool {
        self.exact.is_match(path) || self.below.is_match(path)
    }

    /// The folder before the pattern's first glob character (the whole path when it has
    /// none): everything it names lies there or below.
    pub fn literal(&self) -> &Path {
        &self.literal
    }

    /// Whether what the pattern names may lie inside `folder` (or `folder` inside it): a
    /// search of `folder` may reach it.
    pub fn may_lie_below(&self, folder: &Path) -> bool {
        self.literal.starts_with(folder) || folder.starts_with(&self.literal)
    }
}

fn slash(path: &Path) -> String {
    path.to_string_lossy().trim_end_matches('/').to_owned()
}

fn compile(pattern: &str) -> Option<PathPattern> {
    let pattern = pattern.trim_end_matches('/');
    let glob = |text: &str| -> Option<GlobMatcher> {
        GlobBuilder::new(text)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map(|glob: Glob| glob.compile_matcher())
            .ok()
    };
    let end = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
    let fixed = &pattern[..end];
    let literal = if end == pattern.len() {
        fixed
    } else {
        fixed.rfind('/').map_or("/", |at| &fixed[..at])
    };
    Some(PathPattern {
        exact: glob(pattern)?,
        below: glob(&format!("{pattern}/**"))?,
        literal: PathBuf::from(literal),
    })
}

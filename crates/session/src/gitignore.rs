//! The `.gitignore` agentctl writes beside the project's databases.

use agentctl_private_files::write_private;
use std::path::Path;

/// What agentctl writes into a project's `.agentctl/.gitignore`.
const GITIGNORE_HEAD: &str = "# agentctl sessions are personal\n";

/// The personal files of `.agentctl/`: the session and memory databases (with their WAL and
/// journal files) and the pointer to the current session.
const PERSONAL: &[&str] = &["sessions.db*", "memory.db*", "current-session"];

/// Sessions and long-term memories are personal: a project's `.agentctl/.gitignore` keeps the
/// databases and the current-session pointer out of commits (written once; one an older
/// agentctl wrote gets the lines it lacks; a file of the user's own is left alone; failing to
/// write it is harmless).
pub(crate) fn keep_out_of_git(database: &Path) {
    let Some(dir) = database.parent() else {
        return;
    };
    if dir.file_name().is_none_or(|name| name != ".agentctl") {
        return;
    }
    let ignore = dir.join(".gitignore");
    let text = match std::fs::read_to_string(&ignore) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => GITIGNORE_HEAD.to_owned(),
        Ok(text) if text.starts_with(GITIGNORE_HEAD) => text,
        _ => return,
    };
    let missing: Vec<&str> = PERSONAL
        .iter()
        .copied()
        .filter(|line| !text.lines().any(|written| written.trim() == *line))
        .collect();
    if missing.is_empty() {
        return;
    }
    let separator = if text.ends_with('\n') { "" } else { "\n" };
    // Written like every file agentctl creates in `.agentctl/`: `0600`, whatever the umask.
    let _ = write_private(
        &ignore,
        format!("{text}{separator}{}\n", missing.join("\n")).as_bytes(),
    );
}

/// What agentctl writes into a folder kept out of git as a whole.
const IGNORE_ALL: &str = "# personal: kept out of git by agentctl\n*\n";

/// Keeps the folder `dir` out of commits with a `.gitignore` of its own that ignores
/// everything in it, itself included (Claude Code's `.claude/agent-memory-local/`): written
/// only when there is none, so a file of the user's own is left alone; failing to write it is
/// harmless.
pub(crate) fn ignore_everything_in(dir: &Path) {
    let ignore = dir.join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err() {
        let _ = write_private(&ignore, IGNORE_ALL.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Running an example (the README's first command runs `examples/review-fix`) writes
    /// nothing into a clone: each example project's `.gitignore` already holds every line
    /// agentctl would add.
    #[test]
    fn the_example_projects_ignore_what_agentctl_would_add() {
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut checked = 0;
        for example in std::fs::read_dir(&examples).unwrap() {
            let ignore = example.unwrap().path().join(".agentctl/.gitignore");
            let Ok(text) = std::fs::read_to_string(&ignore) else {
                continue;
            };
            assert!(text.starts_with(GITIGNORE_HEAD), "{}", ignore.display());
            for line in PERSONAL {
                assert!(
                    text.lines().any(|written| written.trim() == *line),
                    "{} lacks `{line}`",
                    ignore.display()
                );
            }
            checked += 1;
        }
        assert!(checked >= 5, "{checked} example projects found");
    }

    #[test]
    fn a_personal_folder_ignores_everything_once() {
        let dir = tempfile::tempdir().unwrap();
        ignore_everything_in(dir.path());
        let ignore = dir.path().join(".gitignore");
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), IGNORE_ALL);
        std::fs::write(&ignore, "mine\n").unwrap();
        ignore_everything_in(dir.path());
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "mine\n");
    }

    #[test]
    fn the_gitignore_keeps_the_personal_files_out_and_respects_the_users_own() {
        let dir = tempfile::tempdir().unwrap();
        let agentctl = dir.path().join(".agentctl");
        std::fs::create_dir(&agentctl).unwrap();
        let database = agentctl.join("sessions.db");
        let ignore = agentctl.join(".gitignore");
        keep_out_of_git(&database);
        let written = std::fs::read_to_string(&ignore).unwrap();
        assert_eq!(
            written,
            "# agentctl sessions are personal\nsessions.db*\nmemory.db*\ncurrent-session\n"
        );
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), written);
        // One an older agentctl wrote gets the lines it lacks.
        std::fs::write(&ignore, "# agentctl sessions are personal\nsessions.db*\n").unwrap();
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), written);
        // The user's own is theirs.
        std::fs::write(&ignore, "*\n").unwrap();
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "*\n");
    }
}

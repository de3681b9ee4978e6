//! The `.gitignore` agentctl writes beside the project's databases.

use agentctl_private_files::write_private;
use std::path::Path;

/// What agentctl writes into a project's `.agentctl/.gitignore`.
const GITIGNORE_HEAD: &str = "# agentctl sessions are personal\n";

/// Sessions and long-term memories are personal: a project's `.agentctl/.gitignore` keeps the
/// databases out of commits (written once; one agentctl wrote before the memory store existed
/// gets its `memory.db*` line; a file of the user's own is left alone; failing to write it is
/// harmless).
pub(crate) fn keep_out_of_git(database: &Path) {
    let Some(dir) = database.parent() else {
        return;
    };
    if dir.file_name().is_none_or(|name| name != ".agentctl") {
        return;
    }
    let ignore = dir.join(".gitignore");
    match std::fs::read_to_string(&ignore) {
        // Written like every file agentctl creates in `.agentctl/`: `0600`, whatever the umask.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let _ = write_private(
                &ignore,
                format!("{GITIGNORE_HEAD}sessions.db*\nmemory.db*\n").as_bytes(),
            );
        }
        Ok(text)
            if text.starts_with(GITIGNORE_HEAD)
                && !text.lines().any(|line| line.trim() == "memory.db*") =>
        {
            let separator = if text.ends_with('\n') { "" } else { "\n" };
            let _ = write_private(&ignore, format!("{text}{separator}memory.db*\n").as_bytes());
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gitignore_keeps_both_databases_out_and_respects_the_users_own() {
        let dir = tempfile::tempdir().unwrap();
        let agentctl = dir.path().join(".agentctl");
        std::fs::create_dir(&agentctl).unwrap();
        let database = agentctl.join("sessions.db");
        let ignore = agentctl.join(".gitignore");
        keep_out_of_git(&database);
        let written = std::fs::read_to_string(&ignore).unwrap();
        assert_eq!(
            written,
            "# agentctl sessions are personal\nsessions.db*\nmemory.db*\n"
        );
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), written);
        // One an older agentctl wrote gets the memory store's line.
        std::fs::write(&ignore, "# agentctl sessions are personal\nsessions.db*\n").unwrap();
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), written);
        // The user's own is theirs.
        std::fs::write(&ignore, "*\n").unwrap();
        keep_out_of_git(&database);
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "*\n");
    }
}

//! Validators that are programs in a folder (`.agentctl/validators/NAME`,
//! `~/.agentctl/validators/NAME`): a command-line user registers `validator: NAME` by dropping
//! an executable there, no Rust needed. Each runs like a `command:` guardrail.

use crate::validator::ValidatorRegistry;
use std::path::{Path, PathBuf};

/// A file of a validators folder that did not become a validator, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedProgram {
    /// The file.
    pub path: PathBuf,
    /// Why it was left out.
    pub reason: String,
}

impl ValidatorRegistry {
    /// Registers each executable file of `dir` as the validator named after it, without its
    /// extension (`no-todos.sh` is `no-todos`). Names registered already (by code, or from a
    /// folder added before — add the project's folder first) keep their validator; hidden
    /// files are ignored; files that are not executable, that are not regular files or whose
    /// name is not a validator name are returned with the reason. A missing folder adds
    /// nothing.
    ///
    /// ```no_run
    /// use agentctl_guardrails::ValidatorRegistry;
    /// use std::path::Path;
    ///
    /// let mut registry = ValidatorRegistry::new();
    /// let skipped = registry.add_programs_in(Path::new(".agentctl/validators"));
    /// for file in skipped {
    ///     eprintln!("{}: {}", file.path.display(), file.reason);
    /// }
    /// ```
    pub fn add_programs_in(&mut self, dir: &Path) -> Vec<SkippedProgram> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
        paths.sort();
        let mut skipped = Vec::new();
        for path in paths {
            let Some(file_name) = path.file_name().and_then(|name| name.to_str()) else {
                skipped.push(skip(path, "its name is not UTF-8"));
                continue;
            };
            if file_name.starts_with('.') {
                continue;
            }
            let name = file_name
                .split_once('.')
                .map_or(file_name, |(stem, _)| stem);
            if let Err(reason) = runnable(&path) {
                skipped.push(skip(path, reason));
                continue;
            }
            if self.contains(name) {
                // The project's folder, added first, shadows the user's.
                continue;
            }
            if let Err(error) = self.register_program(name, &path) {
                skipped.push(skip(path, error.to_string()));
            }
        }
        skipped
    }
}

fn skip(path: PathBuf, reason: impl Into<String>) -> SkippedProgram {
    SkippedProgram {
        path,
        reason: reason.into(),
    }
}

/// Whether `path` (followed if a link) is a regular file someone may execute.
fn runnable(path: &Path) -> Result<(), String> {
    let metadata = std::fs::metadata(path).map_err(|error| format!("cannot read it: {error}"))?;
    if !metadata.is_file() {
        return Err("not a regular file".to_owned());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err("not executable: make it so with `chmod +x`".to_owned());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validator::validator_fn;
    use std::os::unix::fs::PermissionsExt as _;

    fn write(dir: &Path, name: &str, mode: u32) {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn executables_become_validators_and_the_rest_is_said() {
        let project = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        write(project.path(), "no-todos.sh", 0o755);
        write(project.path(), "draft", 0o644);
        write(project.path(), ".hidden", 0o755);
        write(project.path(), "json.py", 0o755);
        std::fs::create_dir(project.path().join("folder")).unwrap();
        write(user.path(), "no-todos", 0o755);
        write(user.path(), "house-style", 0o700);
        let mut registry = ValidatorRegistry::new();
        registry
            .register("coded", validator_fn(|_| Ok(())))
            .unwrap();
        write(user.path(), "coded", 0o755);

        let skipped = registry.add_programs_in(project.path());
        let reasons: Vec<(String, &str)> = skipped
            .iter()
            .map(|s| {
                (
                    s.path.file_name().unwrap().to_string_lossy().into_owned(),
                    s.reason.as_str(),
                )
            })
            .collect();
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        assert_eq!(
            reasons[0],
            (
                "draft".to_owned(),
                "not executable: make it so with `chmod +x`"
            )
        );
        assert_eq!(reasons[1].0, "folder");
        assert!(
            reasons[2].0 == "json.py" && reasons[2].1.contains("json"),
            "{reasons:?}"
        );
        assert!(registry.add_programs_in(user.path()).is_empty());
        assert!(
            registry
                .add_programs_in(&project.path().join("missing"))
                .is_empty()
        );

        assert_eq!(
            registry.program("no-todos"),
            Some(project.path().join("no-todos.sh").as_path())
        );
        assert_eq!(
            registry.program("house-style"),
            Some(user.path().join("house-style").as_path())
        );
        assert_eq!(registry.program("coded"), None);
        assert!(registry.get("coded").is_some());
        assert_eq!(
            registry.names().collect::<Vec<_>>(),
            ["coded", "house-style", "no-todos"]
        );
    }
}

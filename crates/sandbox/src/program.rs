//! What a sandboxed long-running program needs to read besides the system and its project:
//! [`program_roots`].
//!
//! An MCP server is often started from a package installed outside the project
//! (`/srv/tools/node_modules/.bin/mcp-server-x`, a virtual environment's `python`, a script
//! given by its absolute path). The sandbox shows only the system, the project and the
//! toolchains it detects, so such a server would not even start. Its command line names what it
//! runs; this module turns those names into the smallest folders that make the program work:
//! the package it belongs to, never the home as a whole.

use crate::layout::SYSTEM_DIRS;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// The folders (or single files) a program started as `program args…` in `cwd` needs to read,
/// outside the system directories and outside `project`:
///
/// - the program (looked up in `path_var` when it is a bare name) and every argument that names
///   an existing file (relative to `cwd`), each resolved through its symbolic links, shows its
///   package: the folder holding the outermost `node_modules` it lies in, the root of the
///   Python virtual environment it lies in (the folder with `pyvenv.cfg`), else the folder it
///   lies in — or the file alone when that folder is `home` or holds it (a script kept directly
///   in the home must not show the whole home);
/// - every argument that names an existing folder shows that folder (a file server's root),
///   unless it is `home` or holds it.
///
/// Which of them a caller passes is its policy: a server the user configured may name files and
/// folders; one a project configured should be given its program only, or it could name
/// `~/.ssh` to read it.
///
/// ```
/// use agentctl_sandbox::program_roots;
///
/// let dir = tempfile::tempdir()?;
/// let bin = dir.path().join("tools/node_modules/.bin");
/// std::fs::create_dir_all(&bin)?;
/// std::fs::write(bin.join("server"), "#!/usr/bin/env node\n")?;
/// let project = tempfile::tempdir()?;
/// let roots = program_roots(&bin.join("server"), &[], project.path(), project.path(), None, None);
/// assert_eq!(roots, [dir.path().join("tools").canonicalize()?]);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn program_roots(
    program: &Path,
    args: &[&OsStr],
    cwd: &Path,
    project: &Path,
    path_var: Option<&OsStr>,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    let project = project
        .canonicalize()
        .unwrap_or_else(|_| project.to_path_buf());
    let home = home.map(|home| home.canonicalize().unwrap_or_else(|_| home.to_path_buf()));
    let mut files: Vec<PathBuf> = find_program(program, cwd, path_var).into_iter().collect();
    let mut folders: Vec<PathBuf> = Vec::new();
    for arg in args {
        let path = cwd.join(arg);
        if path.is_file() {
            files.push(path);
        } else if path.is_dir() {
            folders.push(path);
        }
    }
    let too_wide =
        |path: &Path| home.as_deref().is_some_and(|home| home.starts_with(path)) || is_root(path);
    let mut roots: Vec<PathBuf> = Vec::new();
    let add = |root: PathBuf, roots: &mut Vec<PathBuf>| {
        let visible = in_system(&root)
            || root.starts_with(&project)
            || roots.iter().any(|known| root.starts_with(known));
        if !visible {
            roots.retain(|known| !known.starts_with(&root));
            roots.push(root);
        }
    };
    for file in files {
        if let Ok(real) = file.canonicalize() {
            add(package_of(&real, home.as_deref()), &mut roots);
        }
    }
    for folder in folders {
        if let Ok(real) = folder.canonicalize()
            && !too_wide(&real)
        {
            add(real, &mut roots);
        }
    }
    roots
}

fn is_root(path: &Path) -> bool {
    path.components().all(|part| part == Component::RootDir)
}

/// The program file `program` names: a path as it is (relative to `cwd`), a bare name looked
/// up in `path_var`.
fn find_program(program: &Path, cwd: &Path, path_var: Option<&OsStr>) -> Option<PathBuf> {
    if program.components().count() > 1 {
        let path = cwd.join(program);
        return path.is_file().then_some(path);
    }
    std::env::split_paths(path_var?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// The package a resolved file belongs to (see [`program_roots`]).
fn package_of(file: &Path, home: Option<&Path>) -> PathBuf {
    let outermost_modules = file
        .ancestors()
        .filter(|dir| dir.file_name() == Some(OsStr::new("node_modules")))
        .last();
    let package = outermost_modules
        .and_then(Path::parent)
        .or_else(|| {
            file.ancestors()
                .find(|dir| dir.join("pyvenv.cfg").is_file())
        })
        .or_else(|| file.parent())
        .unwrap_or(file);
    let too_wide = is_root(package) || home.is_some_and(|home| home.starts_with(package));
    if too_wide {
        file.to_path_buf()
    } else {
        package.to_path_buf()
    }
}

fn in_system(path: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|dir| path.starts_with(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }

    #[test]
    fn packages_venvs_and_plain_folders() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let project = base.join("project");
        std::fs::create_dir_all(&project).unwrap();
        let home = base.join("home");
        // A node package whose .bin entry links into a nested node_modules.
        let target = base.join("srv/node_modules/@x/server/node_modules/dep/index.js");
        touch(&target);
        std::fs::create_dir_all(base.join("srv/node_modules/.bin")).unwrap();
        std::os::unix::fs::symlink(&target, base.join("srv/node_modules/.bin/server")).unwrap();
        let roots = program_roots(
            &base.join("srv/node_modules/.bin/server"),
            &[],
            &project,
            &project,
            None,
            Some(&home),
        );
        assert_eq!(roots, [base.join("srv")]);
        // A virtual environment's python, found on PATH, with a script argument in the project.
        touch(&base.join("venv/pyvenv.cfg"));
        touch(&base.join("venv/bin/python3"));
        touch(&project.join("tools/server.py"));
        let path = std::env::join_paths([base.join("venv/bin")]).unwrap();
        let roots = program_roots(
            Path::new("python3"),
            &[OsStr::new("tools/server.py")],
            &project,
            &project,
            Some(&path),
            Some(&home),
        );
        assert_eq!(roots, [base.join("venv")]);
        // A script kept directly in the home shows itself, not the home; a folder argument
        // shows itself, but never the home or a folder holding it.
        touch(&home.join("server.js"));
        touch(&base.join("data/notes.md"));
        let roots = program_roots(
            Path::new("/usr/bin/node"),
            &[
                home.join("server.js").as_os_str(),
                base.join("data").as_os_str(),
                home.as_os_str(),
                base.as_os_str(),
            ],
            &project,
            &project,
            None,
            Some(&home),
        );
        assert_eq!(roots, [home.join("server.js"), base.join("data")]);
    }
}

//! Toolchain folders a command needs to read although they lie outside the system: those of
//! its `PATH`, and well-known ones of the home. Known credential files inside them are hidden.

use super::{LayoutRequest, SYSTEM_DIRS, normalize};
use std::path::{Path, PathBuf};

/// Folders of the home that hold toolchains and package caches, shown read-only when they
/// exist. Not `~/.ssh`, `~/.aws`, `~/.config`, `~/.netrc`, `~/.gitconfig`, `~/.docker`, nor
/// `~/.npmrc`, `~/.m2/settings.xml` or `~/.gradle/gradle.properties` (which hold tokens).
pub const HOME_TOOLCHAINS: [&str; 17] = [
    ".cargo",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".local/bin",
    ".local/lib",
    "go",
    ".sdkman",
    ".npm",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".cache/pip",
    ".cache/go-build",
];

/// Files directly inside a toolchain folder that hold credentials (Cargo's registry tokens).
const CREDENTIAL_FILES: [&str; 2] = ["credentials.toml", "credentials"];

/// The toolchain folders of `request` that exist and are not already visible: the `PATH`
/// entries outside the system (for `X/bin` or `X/shims`, `X` when `X` lies inside the home),
/// `CARGO_HOME`, `RUSTUP_HOME`, and [`HOME_TOOLCHAINS`].
pub(crate) fn detect(
    request: &LayoutRequest<'_>,
    home: Option<&Path>,
    covered: &[PathBuf],
) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Some(path_var) = request.path_var {
        for entry in std::env::split_paths(path_var) {
            if entry.is_absolute() {
                found.push(widen(&normalize(&entry), home));
            }
        }
    }
    for var in [request.cargo_home, request.rustup_home]
        .into_iter()
        .flatten()
    {
        let path = Path::new(var);
        if path.is_absolute() {
            found.push(normalize(path));
        }
    }
    if let Some(home) = home {
        found.extend(HOME_TOOLCHAINS.iter().map(|dir| home.join(dir)));
    }
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in found {
        let visible = in_system(&path)
            || covered.iter().any(|root| path.starts_with(root))
            || kept.iter().any(|dir| path.starts_with(dir));
        if !visible && path.exists() {
            kept.retain(|dir| !dir.starts_with(&path));
            kept.push(path);
        }
    }
    kept
}

/// `X` for a `PATH` entry `X/bin` or `X/shims` when `X` is a folder of its own: inside the
/// home (`~/.cargo`, `~/.pyenv`, `~/.nvm/versions/node/v20`), or a hidden folder anywhere
/// (`/root/.pyenv` when `HOME` points elsewhere); the entry itself otherwise, so that `~/bin`
/// or `~/.local/bin` never shows the whole home or `~/.local`.
fn widen(entry: &Path, home: Option<&Path>) -> PathBuf {
    let named = entry
        .file_name()
        .is_some_and(|name| name == "bin" || name == "shims");
    let Some(parent) = entry.parent().filter(|_| named) else {
        return entry.to_path_buf();
    };
    let hidden = parent
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with('.') && name != ".local");
    let own_folder = match home {
        Some(home) => parent != home && parent != home.join(".local"),
        None => true,
    };
    let in_home = home.is_some_and(|home| parent.starts_with(home));
    if own_folder && (hidden || in_home) {
        parent.to_path_buf()
    } else {
        entry.to_path_buf()
    }
}

fn in_system(path: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|dir| path.starts_with(dir))
}

/// The credential files that exist directly inside `toolchains`.
pub(crate) fn credentials(toolchains: &[PathBuf]) -> Vec<PathBuf> {
    toolchains
        .iter()
        .flat_map(|dir| CREDENTIAL_FILES.iter().map(move |name| dir.join(name)))
        .filter(|file| file.symlink_metadata().is_ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_entries_widen_only_to_folders_of_their_own() {
        let home = Some(Path::new("/home/u"));
        assert_eq!(
            widen(Path::new("/home/u/.cargo/bin"), home),
            PathBuf::from("/home/u/.cargo")
        );
        assert_eq!(
            widen(Path::new("/home/u/.pyenv/shims"), home),
            PathBuf::from("/home/u/.pyenv")
        );
        assert_eq!(
            widen(Path::new("/home/u/bin"), home),
            PathBuf::from("/home/u/bin")
        );
        assert_eq!(
            widen(Path::new("/home/u/.local/bin"), home),
            PathBuf::from("/home/u/.local/bin")
        );
        assert_eq!(
            widen(Path::new("/work/bin"), home),
            PathBuf::from("/work/bin")
        );
        // A tool's own hidden folder outside the home (HOME pointing elsewhere).
        assert_eq!(
            widen(Path::new("/root/.pyenv/shims"), home),
            PathBuf::from("/root/.pyenv")
        );
        assert_eq!(
            widen(Path::new("/root/.local/bin"), home),
            PathBuf::from("/root/.local/bin")
        );
    }

    #[test]
    fn masked_files_are_left_out_of_their_folder() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["bin", "credentials.toml", "config.toml"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let masked = credentials(&[dir.path().to_path_buf()]);
        assert_eq!(masked, [dir.path().join("credentials.toml")]);
        let mut readable = Vec::new();
        crate::deny::carve(dir.path(), &masked, &mut readable);
        readable.sort();
        assert_eq!(
            readable,
            [dir.path().join("bin"), dir.path().join("config.toml")]
        );
        let mut usr = Vec::new();
        crate::deny::carve(Path::new("/usr"), &masked, &mut usr);
        assert_eq!(usr, [PathBuf::from("/usr")]);
    }
}

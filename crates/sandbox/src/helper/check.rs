//! The helper's check, inside the sandbox, that the protected paths are read-only mounts.
//!
//! bubblewrap mounts by path and follows symbolic links. A process of another sandbox that
//! may write the project (a background job of an earlier command, a sandboxed MCP server)
//! could swap a nested folder for a link between agentctl's walk and the mount, so that the
//! read-only mount lands elsewhere and the real folder stays writable. Once mounted, a
//! protected path cannot be renamed or removed in this namespace, so a check after the mounts
//! and before the command holds for the command's whole life.

use crate::layout::through_link;
use std::path::{Path, PathBuf};

/// `Ok` when every path of `protected` is reached without a symbolic link beneath the
/// `writable` folders, is not itself a link, and lies on a read-only mount.
pub(crate) fn protected_are_read_only(
    protected: &[PathBuf],
    writable: &[PathBuf],
) -> Result<(), String> {
    for path in protected {
        check_one(path, writable)?;
    }
    Ok(())
}

fn check_one(path: &Path, writable: &[PathBuf]) -> Result<(), String> {
    let shown = path.display();
    if through_link(path, writable) {
        return Err(format!("{shown} is reached through a symbolic link"));
    }
    let meta = std::fs::symlink_metadata(path)
        .map_err(|error| format!("{shown} cannot be checked: {error}"))?;
    if meta.file_type().is_symlink() {
        return Err(format!("{shown} is a symbolic link"));
    }
    let mount =
        rustix::fs::statvfs(path).map_err(|error| format!("{shown} cannot be checked: {error}"))?;
    if !mount.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
        return Err(format!("{shown} is not mounted read-only"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writable_links_and_missing_paths_fail_and_read_only_mounts_pass() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::os::unix::fs::symlink("/usr", root.join("link")).unwrap();
        let writable = [root.clone()];
        let error = protected_are_read_only(&[root.join(".git")], &writable).unwrap_err();
        assert!(error.ends_with(".git is not mounted read-only"), "{error}");
        let error = protected_are_read_only(&[root.join("link")], &writable).unwrap_err();
        assert!(error.contains("symbolic link"), "{error}");
        let error = protected_are_read_only(&[root.join("gone")], &writable).unwrap_err();
        assert!(error.contains("cannot be checked"), "{error}");
        // `/proc/sys` is mounted read-only in containers; skip where it is not.
        let proc_sys = Path::new("/proc/sys");
        if rustix::fs::statvfs(proc_sys)
            .is_ok_and(|mount| mount.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY))
        {
            assert!(protected_are_read_only(&[proc_sys.into()], &writable).is_ok());
        }
    }
}

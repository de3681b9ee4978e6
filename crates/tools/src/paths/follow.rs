//! Following the symlinks of a normal path, name by name, as the kernel does.

use super::{PathError, ProjectRoot};
use std::io;
use std::path::{Path, PathBuf};

/// Most symlinks followed for one path (Linux gives up after 40 too, with `ELOOP`).
#[cfg(unix)]
const MAX_LINKS: usize = 40;

/// One step of the walk.
#[cfg(unix)]
enum Step {
    /// `..` from a link's target.
    Up,
    /// A name, from the path or from a link's target.
    Name(std::ffi::OsString),
}

impl ProjectRoot {
    /// Follows the symlinks of `normal` (absolute, inside the root, without `.` or `..`) name by
    /// name as the kernel does — a link's target takes its place, and a `..` in the target
    /// climbs from where the link lives — and returns where the path ends, which must be inside
    /// the root. Names after the first missing one are kept as written (they cannot be links).
    /// A link to nothing is refused rather than written through, and so is any way through
    /// `/proc` or `/dev`: their magic links (`/proc/self/cwd`, `/proc/self/fd/3`, `/dev/fd`)
    /// name files by something other than where they are.
    #[cfg(unix)]
    pub(super) fn follow(&self, normal: &Path, given: &str) -> Result<PathBuf, PathError> {
        use std::collections::VecDeque;
        use std::path::Component;
        let escapes = || PathError::Escapes(given.to_owned());
        let failed = |message: String| PathError::Io {
            path: given.to_owned(),
            message,
        };
        let relative = normal.strip_prefix(&self.root).map_err(|_| escapes())?;
        // What is left to walk, each step marked when it came from a link's target.
        let mut todo: VecDeque<(Step, bool)> = relative
            .components()
            .map(|part| (Step::Name(part.as_os_str().to_owned()), false))
            .collect();
        let mut out = self.root.clone();
        let mut links = 0;
        while let Some((step, from_link)) = todo.pop_front() {
            let name = match step {
                Step::Up => {
                    out.pop();
                    self.refuse_system_files(&out, given, true)?;
                    continue;
                }
                Step::Name(name) => name,
            };
            let next = out.join(&name);
            let meta = match std::fs::symlink_metadata(&next) {
                Ok(meta) => meta,
                // Nothing further exists: what is left are names of the path itself.
                Err(error) if error.kind() == io::ErrorKind::NotFound && !from_link => {
                    out = next;
                    out.extend(todo.drain(..).filter_map(|(step, _)| match step {
                        Step::Name(name) => Some(name),
                        Step::Up => None,
                    }));
                    break;
                }
                // A link to nothing: refused rather than written through.
                Err(error) if error.kind() == io::ErrorKind::NotFound => return Err(escapes()),
                Err(error) => return Err(failed(error.to_string())),
            };
            if !meta.file_type().is_symlink() {
                out = next;
                self.refuse_system_files(&out, given, true)?;
                continue;
            }
            links += 1;
            if links > MAX_LINKS {
                return Err(failed(format!(
                    "more than {MAX_LINKS} symbolic links on the way"
                )));
            }
            let target = std::fs::read_link(&next).map_err(|error| failed(error.to_string()))?;
            if target.is_absolute() {
                out = PathBuf::from("/");
            }
            for part in target.components().rev() {
                match part {
                    Component::Normal(name) => todo.push_front((Step::Name(name.to_owned()), true)),
                    Component::ParentDir => todo.push_front((Step::Up, true)),
                    // The root was taken above; `.` changes nothing.
                    _ => {}
                }
            }
        }
        if !out.starts_with(&self.root) {
            return Err(escapes());
        }
        Ok(out)
    }

    /// Canonicalises the deepest existing ancestor of `normal` and appends the rest, refusing
    /// anything that ends up outside the root (symlinks out, dangling symlinks).
    #[cfg(not(unix))]
    pub(super) fn follow(&self, normal: &Path, given: &str) -> Result<PathBuf, PathError> {
        let mut missing = Vec::new();
        let mut current = normal;
        loop {
            match std::fs::symlink_metadata(current) {
                Ok(_) => {
                    // A dangling symlink fails here: refuse it rather than write through it.
                    let canonical = current.canonicalize().map_err(|error| {
                        if error.kind() == io::ErrorKind::NotFound {
                            PathError::Escapes(given.to_owned())
                        } else {
                            PathError::Io {
                                path: given.to_owned(),
                                message: error.to_string(),
                            }
                        }
                    })?;
                    if !canonical.starts_with(&self.root) {
                        return Err(PathError::Escapes(given.to_owned()));
                    }
                    let mut resolved = canonical;
                    resolved.extend(missing.iter().rev());
                    return Ok(resolved);
                }
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
                        return Err(PathError::Escapes(given.to_owned()));
                    };
                    missing.push(name.to_owned());
                    current = parent;
                }
                Err(error) => {
                    return Err(PathError::Io {
                        path: given.to_owned(),
                        message: error.to_string(),
                    });
                }
            }
        }
    }
}

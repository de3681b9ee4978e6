//! Files agentctl keeps private.
//!
//! The session and memory databases, trace files and recorded cassettes hold prompts, file
//! excerpts, tool output and sometimes tokens. Under the usual umask (`022`) a plain
//! `File::create` makes them `0644`: every local user could read them. This crate is the one
//! place agentctl creates such files and folders, and every crate that writes them uses it:
//!
//! - Folders are created `0700` ([`create_private_dir_all`]), files `0600`
//!   ([`prepare_private_file`], [`prepare_private_database`], [`open_private_append`],
//!   [`write_private`]) — *whatever the
//!   umask*, and so are the scratch folders of the commands and servers agentctl starts
//!   ([`private_temp_dir`]): the mode is given at creation (`O_CREAT` / `mkdir` with the mode, never a `chmod`
//!   of a file that already holds data), and if the umask took owner bits away the new, still
//!   empty, file or folder is set to exactly that mode.
//! - A file agentctl created earlier that is readable or writable by group or others is
//!   **tightened** when agentctl opens it again ([`tighten`]): its group and other bits are
//!   removed and a [`Tightened`] notice is returned for the front end to print once ("tightened
//!   .agentctl/sessions.db from 0644 to 0600"). Only the files agentctl owns are passed here:
//!   a user's own `settings.json` is theirs.
//! - A symbolic link is never followed to change permissions: tightening leaves a link (and
//!   what it points to) alone, and creating refuses to write through one.
//!
//! Existing folders are never changed (`.agentctl/` may be the user's own, holding committed
//! settings); the files in them are private by themselves.
//!
//! On other platforms than Unix, files and folders are created as usual and nothing is
//! tightened.
//!
//! The crate has no agentctl dependencies, so every layer (context, memory, trace, providers,
//! session, the CLI) can use it without an upward edge.
//!
//! ```
//! use agentctl_private_files::{create_private_dir_all, prepare_private_file, write_private};
//!
//! let dir = tempfile::tempdir()?;
//! let folder = dir.path().join(".agentctl");
//! create_private_dir_all(&folder)?;
//! assert_eq!(prepare_private_file(&folder.join("sessions.db"))?, None);
//! write_private(&folder.join("cassette.yaml"), b"version: 1\n")?;
//! # #[cfg(unix)] {
//! use std::os::unix::fs::PermissionsExt as _;
//! let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
//! assert_eq!(mode(&folder), 0o700);
//! assert_eq!(mode(&folder.join("sessions.db")), 0o600);
//! assert_eq!(mode(&folder.join("cassette.yaml")), 0o600);
//! # }
//! # Ok::<(), std::io::Error>(())
//! ```

mod create;
mod temp;
mod tighten;

pub use create::{
    DATABASE_SIDE_FILES, create_private_dir_all, open_private_append, prepare_private_database,
    prepare_private_file, write_private,
};
pub use temp::private_temp_dir;
pub use tighten::{Tightened, tighten};

/// The mode of the files agentctl creates: read and write for the owner only.
pub const FILE_MODE: u32 = 0o600;

/// The mode of the folders agentctl creates: the owner only.
pub const DIR_MODE: u32 = 0o700;

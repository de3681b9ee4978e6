//! Settings files that are not regular files, or are too large, are refused unread.
//!
//! Each load runs under a watchdog: before these checks, a FIFO blocked the open forever and a
//! symlink to `/dev/zero` read until memory ran out. The watchdog only turns such a hang into a
//! failure; it asserts nothing about speed.

use super::support::Sandbox;
use agentctl_config::{
    ConfigError, FileKind, InputProblem, LoadedSettings, MAX_SETTINGS_BYTES, load_settings,
};
use agentctl_test_support::{mkfifo, or_hang};
use std::time::Duration;

/// Loads the sandbox's settings on another thread; panics if that never returns.
fn load_or_hang(sandbox: &Sandbox) -> Result<LoadedSettings, ConfigError> {
    let locations = sandbox.locations();
    or_hang(Duration::from_secs(60), move || load_settings(&locations))
}

#[cfg(unix)]
#[test]
fn a_symlink_to_dev_zero_is_refused_unread() {
    let sandbox = Sandbox::new();
    std::os::unix::fs::symlink("/dev/zero", sandbox.project_file()).unwrap();
    let error = load_or_hang(&sandbox).unwrap_err();
    let ConfigError::Read(input) = &error else {
        panic!("{error:?}")
    };
    assert!(
        matches!(
            input.problem,
            InputProblem::NotRegular {
                kind: FileKind::CharDevice,
                ..
            }
        ),
        "{input:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is a character device (/dev/zero), not a regular file",
            sandbox.project_file().display()
        )
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let sandbox = Sandbox::new();
    mkfifo(&sandbox.global_file());
    let error = load_or_hang(&sandbox).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is a FIFO, not a regular file",
            sandbox.global_file().display()
        )
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_fifo_names_the_fifo() {
    let sandbox = Sandbox::new();
    let fifo = sandbox.home.join("pipe");
    mkfifo(&fifo);
    std::os::unix::fs::symlink(&fifo, sandbox.global_file()).unwrap();
    let error = load_or_hang(&sandbox).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is a FIFO ({}), not a regular file",
            sandbox.global_file().display(),
            fifo.canonicalize().unwrap().display()
        )
    );
}

#[test]
fn an_oversized_file_is_refused_without_being_read() {
    let sandbox = Sandbox::new();
    // Sparse: 64 GiB that nobody could read in a test; refused from its size alone.
    std::fs::File::create(sandbox.project_file())
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    let error = load_or_hang(&sandbox).unwrap_err();
    let ConfigError::Read(input) = &error else {
        panic!("{error:?}")
    };
    assert!(
        matches!(input.problem, InputProblem::TooLarge { size: Some(size), max_bytes, .. }
            if size == 64 << 30 && max_bytes == MAX_SETTINGS_BYTES),
        "{input:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is 64 GiB; settings files are limited to 4 MiB",
            sandbox.project_file().display()
        )
    );
}

#[test]
fn a_file_just_over_the_limit_is_refused_and_one_at_the_limit_loads() {
    let sandbox = Sandbox::new();
    let padding = usize::try_from(MAX_SETTINGS_BYTES).unwrap() - 2;
    let at_limit = format!("{{{}}}", " ".repeat(padding));
    sandbox.write_global(&at_limit);
    assert!(load_or_hang(&sandbox).is_ok());
    sandbox.write_global(&format!("{at_limit} "));
    let error = load_or_hang(&sandbox).unwrap_err().to_string();
    assert!(
        error.ends_with(": is 4194305 bytes; settings files are limited to 4194304 bytes (4 MiB)"),
        "{error}"
    );
}

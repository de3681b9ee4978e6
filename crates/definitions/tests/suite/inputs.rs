//! Agent files that are FIFOs, devices or too large are refused unread, with an error naming
//! the file. Loads run under a watchdog that turns a hang into a failure (no timing asserted).

use agentctl_core::{Scope, SourceFormat};
use agentctl_definitions::{
    AgentDir, Checks, DefinitionError, Discovery, ErrorKind, discover_in, load_file,
};
use agentctl_test_support::{mkfifo, or_hang};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn load(path: &Path) -> DefinitionError {
    let path = path.to_path_buf();
    or_hang(Duration::from_secs(60), move || {
        load_file(&path, SourceFormat::Native, Scope::Project)
    })
    .unwrap_err()
}

fn discover(dir: &Path) -> Discovery {
    let dirs = vec![AgentDir {
        path: dir.to_path_buf(),
        format: SourceFormat::Native,
        scope: Scope::Project,
        recursive: false,
        graphs: false,
        plugin: None,
    }];
    or_hang(Duration::from_secs(60), move || {
        discover_in(&dirs, &Checks::new())
    })
}

fn agents_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("agents");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("good.md"),
        "---\nname: good\ndescription: d\n---\nP\n",
    )
    .unwrap();
    (tmp, dir)
}

#[cfg(unix)]
#[test]
fn a_fifo_agent_file_is_refused_by_load_and_by_discovery() {
    let (_tmp, dir) = agents_dir();
    let fifo = dir.join("pipe.md");
    mkfifo(&fifo);
    let error = load(&fifo);
    assert_eq!(error.kind, ErrorKind::NotRegularFile);
    assert_eq!(
        error.to_string(),
        format!("{}: is a FIFO, not a regular file", fifo.display())
    );
    let found = discover(&dir);
    assert_eq!(found.agents.len(), 1);
    assert_eq!(found.errors, [error]);
    // Looking the agent up by its file name gives the reason.
    let lookup = found.require("pipe").unwrap_err();
    assert!(
        lookup
            .to_string()
            .ends_with("pipe.md: is a FIFO, not a regular file")
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_to_dev_zero_is_refused_unread() {
    let (_tmp, dir) = agents_dir();
    let zero = dir.join("zero.md");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let found = discover(&dir);
    assert_eq!(found.agents.len(), 1);
    assert_eq!(
        found.errors[0].to_string(),
        format!(
            "{}: is a character device (/dev/zero), not a regular file",
            zero.display()
        )
    );
}

#[test]
fn an_oversized_agent_file_is_refused_without_being_read() {
    let (_tmp, dir) = agents_dir();
    let big = dir.join("big.md");
    // Sparse: 64 GiB that would take minutes to read; refused from its size alone.
    std::fs::File::create(&big)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    let error = load(&big);
    assert_eq!(error.kind, ErrorKind::FileTooLarge);
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is 64 GiB; agent files are limited to 1 MiB",
            big.display()
        )
    );
    assert_eq!(discover(&dir).errors, [error]);
}

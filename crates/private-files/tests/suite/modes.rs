//! Modes of what is created and tightened, under several umasks (set in this process, one test
//! at a time).

use agentctl_private_files::{
    Tightened, create_private_dir_all, open_private_append, prepare_private_file, tighten,
    write_private,
};
use rustix::fs::Mode;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::sync::Mutex;

/// The umask is the process's: tests that create files take turns.
static UMASK: Mutex<()> = Mutex::new(());

/// Runs `test` with the process umask set to `mask`.
fn with_umask(mask: u32, test: impl FnOnce()) {
    let _turn = UMASK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let old = rustix::process::umask(Mode::from_bits_truncate(mask));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(test));
    rustix::process::umask(old);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn created_folders_and_files_are_private_whatever_the_umask() {
    for mask in [0o000, 0o002, 0o022, 0o077, 0o277] {
        with_umask(mask, || {
            let dir = tempfile::tempdir().unwrap();
            let deep = dir.path().join("home/.agentctl/traces/2026-01-01");
            create_private_dir_all(&deep).unwrap();
            for folder in ["home", "home/.agentctl", "home/.agentctl/traces"] {
                assert_eq!(
                    mode(&dir.path().join(folder)),
                    0o700,
                    "{folder} umask {mask:o}"
                );
            }
            assert_eq!(mode(&deep), 0o700, "umask {mask:o}");
            let database = deep.join("sessions.db");
            assert_eq!(prepare_private_file(&database).unwrap(), None);
            assert_eq!(mode(&database), 0o600, "umask {mask:o}");
            let trace = deep.join("session-1.jsonl");
            let (mut file, notice) = open_private_append(&trace).unwrap();
            assert_eq!(notice, None);
            file.write_all(b"{}\n").unwrap();
            assert_eq!(mode(&trace), 0o600, "umask {mask:o}");
            let cassette = deep.join("recorded.yaml");
            write_private(&cassette, b"version: 1\n").unwrap();
            assert_eq!(mode(&cassette), 0o600, "umask {mask:o}");
            assert_eq!(std::fs::read(&cassette).unwrap(), b"version: 1\n");
        });
    }
}

#[test]
fn an_existing_folder_is_left_as_it_is() {
    with_umask(0o022, || {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join(".agentctl");
        std::fs::create_dir(&own).unwrap();
        set_mode(&own, 0o755);
        create_private_dir_all(&own.join("traces")).unwrap();
        assert_eq!(mode(&own), 0o755);
        assert_eq!(mode(&own.join("traces")), 0o700);
        // An existing one through a link is an existing folder too.
        std::os::unix::fs::symlink(&own, dir.path().join("link")).unwrap();
        create_private_dir_all(&dir.path().join("link")).unwrap();
        assert_eq!(mode(&own), 0o755);
    });
}

#[test]
fn readable_files_are_tightened_once_with_a_notice_and_keep_their_data() {
    with_umask(0o022, || {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("sessions.db");
        std::fs::write(&database, "rows").unwrap();
        set_mode(&database, 0o644);
        assert_eq!(
            prepare_private_file(&database).unwrap(),
            Some(Tightened {
                path: database.clone(),
                from: 0o644,
                to: 0o600
            })
        );
        assert_eq!(mode(&database), 0o600);
        assert_eq!(std::fs::read_to_string(&database).unwrap(), "rows");
        assert_eq!(prepare_private_file(&database).unwrap(), None);
        assert_eq!(tighten(&database).unwrap(), None);

        // Execute and set-id bits of the owner stay; group and other bits go.
        set_mode(&database, 0o4775);
        let notice = tighten(&database).unwrap().unwrap();
        assert_eq!((notice.from, notice.to), (0o4775, 0o4700));
        assert_eq!(
            notice.to_string(),
            format!("tightened {} from 4775 to 4700", database.display())
        );

        // Appending to a trace file tightens it too, and appends.
        let trace = dir.path().join("trace.jsonl");
        std::fs::write(&trace, "a\n").unwrap();
        set_mode(&trace, 0o666);
        let (mut file, notice) = open_private_append(&trace).unwrap();
        assert_eq!(notice.map(|n| (n.from, n.to)), Some((0o666, 0o600)));
        file.write_all(b"b\n").unwrap();
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), "a\nb\n");
        assert_eq!(tighten(&dir.path().join("missing")).unwrap(), None);
    });
}

#[test]
fn links_folders_and_fifos_are_left_alone() {
    with_umask(0o022, || {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("users-own.txt");
        std::fs::write(&target, "theirs").unwrap();
        set_mode(&target, 0o644);
        let link = dir.path().join("sessions.db");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(tighten(&link).unwrap(), None);
        assert_eq!(prepare_private_file(&link).unwrap(), None);
        let refused = open_private_append(&link).unwrap_err();
        assert_eq!(
            refused.raw_os_error(),
            Some(rustix::io::Errno::LOOP.raw_os_error())
        );
        assert_eq!(mode(&target), 0o644);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");

        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        set_mode(&folder, 0o755);
        assert_eq!(tighten(&folder).unwrap(), None);
        assert_eq!(mode(&folder), 0o755);

        // A FIFO is neither waited on nor changed.
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            Mode::from_bits_truncate(0o644),
            0,
        )
        .unwrap();
        assert_eq!(tighten(&fifo).unwrap(), None);
        assert_eq!(mode(&fifo), 0o644);
        assert!(open_private_append(&fifo).is_err());
    });
}

#[test]
fn a_private_write_replaces_the_file_whole_and_leaves_no_temp_file() {
    with_umask(0o000, || {
        let dir = tempfile::tempdir().unwrap();
        let cassette = dir.path().join("recorded.yaml");
        std::fs::write(&cassette, "old, shared").unwrap();
        set_mode(&cassette, 0o666);
        write_private(&cassette, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&cassette).unwrap(), "new");
        assert_eq!(mode(&cassette), 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["recorded.yaml"]);
        // A missing folder is an error naming nothing written.
        let error = write_private(&dir.path().join("missing/c.yaml"), b"x").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        assert!(write_private(Path::new("/"), b"x").is_err());
    });
}

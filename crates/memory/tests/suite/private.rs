//! `memory.db` holds what agents learned about a project: `0600` in a `0700` folder, and one an
//! older agentctl left readable made private with a notice.

use agentctl_memory::{MemoryStore, NewMemory};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn the_memory_store_is_private_and_a_readable_one_is_tightened_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".agentctl/memory.db");
    let store = MemoryStore::open(&path).unwrap();
    store
        .remember(NewMemory::new("keeper", "The deploy needs the staging VPN"))
        .unwrap();
    assert_eq!(store.tightened(), []);
    assert_eq!(mode(&dir.path().join(".agentctl")), 0o700);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.path().join(".agentctl/memory.db-wal")), 0o600);
    drop(store);

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o664)).unwrap();
    let reopened = MemoryStore::open(&path).unwrap();
    let notices: Vec<String> = reopened
        .tightened()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        notices,
        [format!("tightened {} from 0664 to 0600", path.display())]
    );
    assert_eq!(mode(&path), 0o600);
    assert_eq!(reopened.list(None).unwrap().len(), 1);
    drop(reopened);
    assert_eq!(MemoryStore::open(&path).unwrap().tightened(), []);
}

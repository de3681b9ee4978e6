use super::*;
use crate::shell::words::lex;

fn word(text: &str) -> Word {
    let lexed = lex(text);
    Word {
        text: lexed.text,
        plain: lexed.problem.is_none(),
        globs: lexed.globs,
        tilde: lexed.tilde,
    }
}

fn protected_name_of(paths: &Paths, text: &str) -> Option<String> {
    paths
        .place(&word(text))
        .protected
        .map(|p| p.name.into_owned())
}

#[test]
fn kinds_without_a_root() {
    let paths = Paths::new(None);
    let kind = |text: &str| paths.place(&word(text)).kind;
    assert_eq!(kind("src/main.rs"), Kind::Inside);
    assert_eq!(kind("src/../../x"), Kind::Outside);
    assert_eq!(kind("/etc/passwd"), Kind::System);
    assert_eq!(kind("/"), Kind::System);
    assert_eq!(kind("/home/u/x"), Kind::Outside);
    assert_eq!(kind("/dev/sda1"), Kind::Disk);
    assert_eq!(kind("/dev/null"), Kind::Sink);
    assert_eq!(kind("/dev/stderr"), Kind::Sink);
    assert_eq!(kind("/dev/fd/2"), Kind::Sink);
    assert_eq!(kind("~/.bashrc"), Kind::Home);
    assert_eq!(kind(".*/x"), Kind::Outside);
    assert_eq!(kind("src/*.rs"), Kind::Inside);
    assert_eq!(kind("$HOME/x"), Kind::Dynamic);
}

#[test]
fn proc_and_dev_fd_resolve_as_the_kernel_does() {
    let paths = Paths::new(None);
    let kind = |text: &str| paths.place(&word(text)).kind;
    assert_eq!(kind("/dev/fd/../cwd/src/x"), Kind::Inside);
    assert_eq!(kind("/proc/self/cwd/src/x"), Kind::Inside);
    assert_eq!(kind("/proc/thread-self/cwd/../x"), Kind::Outside);
    assert_eq!(kind("/dev/fd/../root/etc/passwd"), Kind::System);
    assert_eq!(kind("/proc/self/environ"), Kind::Process);
    assert_eq!(kind("/dev/fd/../../*/environ"), Kind::Process);
    assert_eq!(kind("/proc/1/cmdline"), Kind::Process);
    assert_eq!(kind("/proc/1/root/tmp/x"), Kind::Process);
    assert_eq!(kind("/proc/self/fd/7"), Kind::Unknown);
    assert_eq!(kind("/dev/fd/3"), Kind::Unknown);
    assert_eq!(kind("/proc/sys/kernel/x"), Kind::System);
    assert_eq!(kind("/proc"), Kind::System);
    assert_eq!(
        protected_name_of(&paths, "/dev/fd/../cwd/.agentctl/settings.json"),
        Some(".agentctl".to_owned())
    );
    assert_eq!(
        protected_name_of(&paths, "/proc/self/cwd/./sub/.git/config"),
        Some(".git".to_owned())
    );
    assert_eq!(
        protected_name_of(&paths, "/proc/4242/cwd/.agentctl/settings.json"),
        Some(".agentctl".to_owned())
    );
}

#[test]
fn protected_folders_in_any_case_at_any_depth_and_through_dot_dot() {
    let paths = Paths::new(None);
    assert_eq!(
        protected_name_of(&paths, ".git/hooks/pre-commit"),
        Some(".git".to_owned())
    );
    assert_eq!(
        protected_name_of(&paths, "src/../.GIT/config"),
        Some(".git".to_owned())
    );
    assert_eq!(
        protected_name_of(&paths, "sub/.git/config"),
        Some(".git".to_owned())
    );
    assert_eq!(
        protected_name_of(&paths, ".agentctl"),
        Some(".agentctl".to_owned())
    );
    assert_eq!(
        protected_name_of(&paths, ".g*/hooks"),
        Some(".git".to_owned())
    );
    assert_eq!(protected_name_of(&paths, "src/git/x"), None);
    assert_eq!(protected_name_of(&paths, ".gitignore"), None);
    let db = paths
        .place(&word("./.agentctl/sessions.db-wal"))
        .protected
        .unwrap();
    assert!(db.database);
    assert_eq!(db.path, ".agentctl/sessions.db-wal");
    let settings = paths
        .place(&word(".agentctl/settings.json"))
        .protected
        .unwrap();
    assert!(!settings.database);
}

#[test]
fn cd_adds_places_and_leaving_the_root_is_remembered() {
    let mut paths = Paths::new(None);
    paths.cd(&word("src"));
    assert_eq!(paths.place(&word("../x")).kind, Kind::Outside);
    paths.cd(&word("../.git/hooks"));
    assert_eq!(
        protected_name_of(&paths, "pre-commit"),
        Some(".git".to_owned())
    );
    let mut paths = Paths::new(None);
    paths.cd(&word(".."));
    assert_eq!(paths.place(&word("x")).kind, Kind::Outside);
    let mut paths = Paths::new(None);
    paths.cd_unknown();
    assert_eq!(paths.place(&word("x")).kind, Kind::Unknown);
}

#[cfg(unix)]
#[test]
fn absolute_paths_under_the_root_are_inside_and_links_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let paths = Paths::new(Some(&root));
    let inside = format!("{}/src/x.rs", root.display());
    assert_eq!(paths.place(&word(&inside)).kind, Kind::Inside);
    assert!(paths.is_root_or_above(&word(&root.display().to_string())));
    assert!(paths.is_root_or_above(&word("/proc/self/cwd")));
    assert!(!paths.is_root_or_above(&word("a")));
    std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
    std::os::unix::fs::symlink(root.join(".git/hooks"), root.join("hooks")).unwrap();
    std::os::unix::fs::symlink("../..", root.join("a/b/up")).unwrap();
    let paths = Paths::new(Some(&root));
    assert_eq!(paths.place(&word("etc/passwd")).kind, Kind::System);
    let hooks = paths.place(&word("hooks/pre-commit"));
    assert_eq!(hooks.kind, Kind::Inside);
    assert_eq!(hooks.protected.unwrap().path, ".git/hooks/pre-commit");
    // `..` after a link applies to where the link led: `a/b/up` is the root.
    assert_eq!(paths.place(&word("a/b/up/src")).kind, Kind::Inside);
    assert_eq!(
        paths.place(&word("a/b/up/../out/secret")).kind,
        Kind::Outside
    );
    assert_eq!(
        paths.place(&word("a/*/up/../out/secret")).kind,
        Kind::Outside
    );
    assert_eq!(paths.place(&word("a/b/../x")).kind, Kind::Inside);
    assert_eq!(
        protected_name_of(&paths, "a/b/up/.git/config"),
        Some(".git".to_owned())
    );
    let folder = paths.folder(&word("a/b/up"));
    assert!(folder.root && folder.exists);
    assert_eq!(folder.protected_child, Some(".git"));
}

#[cfg(unix)]
#[test]
fn cd_is_followed_logically_and_physically() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::os::unix::fs::symlink(root.join("src/deep"), root.join("x")).unwrap();
    std::os::unix::fs::symlink(".git", root.join("sub")).unwrap();
    let mut physical = Paths::new(Some(&root));
    physical.enter(vec![Node::Fs(root.join("src/sub"))]);
    assert_eq!(physical.place(&word("config")).protected, None);
    // `sh` goes to `sub`, a link to `.git` (the text without `x/..`); the kernel would go to
    // `src/sub`, which does not exist.
    let mut paths = Paths::new(Some(&root));
    paths.cd(&word("x/../sub"));
    let place = paths.place(&word("config"));
    assert_eq!(place.protected.unwrap().path, ".git/config");
}

#[cfg(unix)]
#[test]
fn link_loops_are_unknown() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
    let paths = Paths::new(Some(dir.path()));
    assert_eq!(paths.place(&word("loop/x")).kind, Kind::Unknown);
}

#[test]
fn reading_folders_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join("many")).unwrap();
    for index in 0..50 {
        std::fs::write(root.join(format!("many/f{index}")), "").unwrap();
    }
    let paths = Paths::new(Some(&root)).with_budget(10);
    assert_eq!(paths.place(&word("many/*")).kind, Kind::Unknown);
    assert!(paths.exhausted());
    let paths = Paths::new(Some(&root)).with_budget(10);
    assert!(paths.link_out_below(&word("many")).is_some());
    let paths = Paths::new(Some(&root));
    assert_eq!(paths.place(&word("many/*")).kind, Kind::Inside);
    assert!(!paths.exhausted());
}

#[test]
fn a_root_kept_under_a_protected_name_is_not_protected_itself() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(".claude/projects/p");
    std::fs::create_dir_all(root.join("src")).unwrap();
    let paths = Paths::new(Some(&root));
    let root_text = root.display().to_string();
    for text in [
        format!("{root_text}/src/x"),
        format!("/proc/self/root{root_text}/src/x"),
        "src/x".to_owned(),
    ] {
        assert_eq!(paths.place(&word(&text)).protected, None, "{text}");
    }
    let inner = format!("/dev/fd/../root{root_text}/.git/config");
    assert_eq!(protected_name_of(&paths, &inner), Some(".git".to_owned()));
}

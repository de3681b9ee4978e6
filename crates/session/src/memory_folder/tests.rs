use super::*;
use agentctl_core::{AgentSource, AgentSpec, MemorySpec, SourceFormat};

fn agent(name: &str, scope: MemoryScope, from: Scope) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            memory: Some(MemorySpec {
                scope: Some(scope),
                ..MemorySpec::default()
            }),
            ..AgentSpec::default()
        },
        system_prompt: "You review.".into(),
        source: AgentSource {
            format: SourceFormat::Claude,
            path: PathBuf::from(".claude/agents/x.md"),
            scope: from,
        },
        extra: Default::default(),
    }
}

fn places(base: &Path, trusted: bool) -> MemoryPlaces {
    std::fs::create_dir_all(base.join("project")).unwrap();
    std::fs::create_dir_all(base.join("home")).unwrap();
    MemoryPlaces {
        project_root: Some(base.join("project")),
        user_home: Some(base.join("home")),
        project_trusted: trusted,
    }
}

#[test]
fn each_scope_has_claude_codes_folder_created_and_granted_to_the_agent_alone() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let places = places(&base, true);
    let grants = ReadGrants::default();
    for (scope, folder) in [
        (
            MemoryScope::User,
            "home/.claude/agent-memory/tools-reviewer",
        ),
        (
            MemoryScope::Project,
            "project/.claude/agent-memory/tools-reviewer",
        ),
        (
            MemoryScope::Local,
            "project/.claude/agent-memory-local/tools-reviewer",
        ),
    ] {
        let agent = agent("tools:reviewer", scope, Scope::Project);
        let section = open_memory_folder(&agent, &places, &grants)
            .unwrap()
            .unwrap();
        assert!(base.join(folder).is_dir(), "{folder}");
        assert!(
            section.contains(&base.join(folder).display().to_string()),
            "{section}"
        );
        assert!(section.contains("does not exist yet"), "{section}");
    }
    assert_eq!(grants.writable("tools:reviewer").len(), 3);
    assert!(grants.writable("reviewer").is_empty());
    let ignore = base.join("project/.claude/agent-memory-local/.gitignore");
    assert!(std::fs::read_to_string(ignore).unwrap().contains("*\n"));
    assert!(
        !base
            .join("project/.claude/agent-memory/.gitignore")
            .exists()
    );
}

#[test]
fn a_projects_agent_reads_the_users_memory_only_once_the_project_is_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let untrusted = places(&base, false);
    let grants = ReadGrants::default();
    let user_folder = base.join("home/.claude/agent-memory/reviewer");
    std::fs::create_dir_all(&user_folder).unwrap();
    std::fs::write(user_folder.join(MEMORY_FILE), "the user's secret notes\n").unwrap();
    let project_agent = agent("reviewer", MemoryScope::User, Scope::Project);
    let refused = open_memory_folder(&project_agent, &untrusted, &grants).unwrap_err();
    assert_eq!(refused.problem, MemoryFolderProblem::Untrusted);
    assert!(grants.granted("reviewer").is_empty());
    // The user's own agent, or once trusted, reads it.
    let own = agent("reviewer", MemoryScope::User, Scope::Global);
    let section = open_memory_folder(&own, &untrusted, &grants)
        .unwrap()
        .unwrap();
    assert!(section.contains("the user's secret notes"), "{section}");
    let trusted = places(&base, true);
    assert!(open_memory_folder(&project_agent, &trusted, &grants).is_ok());
}

#[test]
fn names_do_not_climb_and_project_folders_are_not_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let places = places(&base, true);
    let grants = ReadGrants::default();
    for name in ["..", ".", ""] {
        let warning = open_memory_folder(
            &agent(name, MemoryScope::Project, Scope::Project),
            &places,
            &grants,
        )
        .unwrap_err();
        assert_eq!(warning.problem, MemoryFolderProblem::Name, "{name:?}");
    }
    for name in [
        "../../escaped",
        "/etc/escaped",
        "a/../../escaped",
        "a\\..\\escaped",
    ] {
        open_memory_folder(
            &agent(name, MemoryScope::Project, Scope::Project),
            &places,
            &grants,
        )
        .unwrap();
    }
    let created: Vec<String> = std::fs::read_dir(base.join("project/.claude/agent-memory"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(created.len(), 4, "{created:?}");
    assert!(created.iter().all(|name| !name.contains('/')));
    assert!(!base.join("escaped").exists() && !base.join("project/escaped").exists());
    // A cloned project pointing its memory folders elsewhere gets none.
    let elsewhere = base.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(base.join("project/.claude")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, base.join("project/.claude/agent-memory-local"))
        .unwrap();
    let warning = open_memory_folder(
        &agent("x", MemoryScope::Local, Scope::Project),
        &places,
        &grants,
    )
    .unwrap_err();
    assert!(
        matches!(warning.problem, MemoryFolderProblem::NotAFolder(_)),
        "{warning:?}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn memory_md_is_bounded_by_lines_and_bytes_and_never_read_through_a_link_out() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let places = places(&base, true);
    let grants = ReadGrants::default();
    let folder = base.join("project/.claude/agent-memory/a");
    std::fs::create_dir_all(&folder).unwrap();
    let lines: String = (1..=300).map(|n| format!("note {n}\n")).collect();
    std::fs::write(folder.join(MEMORY_FILE), &lines).unwrap();
    let section = open_memory_folder(
        &agent("a", MemoryScope::Project, Scope::Project),
        &places,
        &grants,
    )
    .unwrap()
    .unwrap();
    assert!(
        section.contains("note 200\n") && !section.contains("note 201"),
        "{section}"
    );
    assert!(section.contains("is cut here"), "{section}");

    let folder = base.join("project/.claude/agent-memory/b");
    std::fs::create_dir_all(&folder).unwrap();
    let long = "x".repeat(1000) + "\n";
    std::fs::write(folder.join(MEMORY_FILE), long.repeat(100)).unwrap();
    let section = open_memory_folder(
        &agent("b", MemoryScope::Project, Scope::Project),
        &places,
        &grants,
    )
    .unwrap()
    .unwrap();
    assert!(
        section.len() < MEMORY_PROMPT_BYTES + 2048,
        "{}",
        section.len()
    );
    assert!(section.contains("is cut here (100100 bytes in all)"));

    let folder = base.join("project/.claude/agent-memory/c");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(base.join("secret"), "PRIVATE KEY\n").unwrap();
    std::os::unix::fs::symlink(base.join("secret"), folder.join(MEMORY_FILE)).unwrap();
    let section = open_memory_folder(
        &agent("c", MemoryScope::Project, Scope::Project),
        &places,
        &grants,
    )
    .unwrap()
    .unwrap();
    assert!(!section.contains("PRIVATE KEY"), "{section}");
    assert!(section.contains("could not be read"), "{section}");
}

use super::*;

fn names() -> Vec<String> {
    ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]
        .map(str::to_owned)
        .to_vec()
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    (tmp, root)
}

fn shown(instructions: &Instructions) -> Vec<String> {
    instructions
        .files
        .iter()
        .map(|file| instructions.shown(&file.path))
        .collect()
}

#[test]
fn files_are_read_from_the_root_down_to_the_working_folder() {
    let (_tmp, root) = project();
    write(&root, "AGENTS.md", "root rules");
    write(&root, "CLAUDE.md", "claude rules");
    write(&root, "api/AGENTS.md", "api rules");
    write(&root, "api/v2/GEMINI.md", "v2 rules");
    write(&root, "web/AGENTS.md", "not on the way");
    let instructions = Instructions::load(&root, &root.join("api/v2"), &names());
    assert_eq!(
        shown(&instructions),
        [
            "AGENTS.md",
            "CLAUDE.md",
            "api/AGENTS.md",
            "api/v2/GEMINI.md"
        ]
    );
    let section = instructions.prompt_section().unwrap();
    let at = |text: &str| section.find(text).unwrap();
    assert!(at("root rules") < at("claude rules"));
    assert!(at("claude rules") < at("api rules"));
    assert!(at("api rules") < at("v2 rules"));
    // From the root, or from outside it, only the root's files.
    let from_root = Instructions::load(&root, &root, &names());
    assert_eq!(shown(&from_root), ["AGENTS.md", "CLAUDE.md"]);
    let outside = Instructions::load(&root, Path::new("/"), &["AGENTS.md".to_owned()]);
    assert_eq!(shown(&outside), ["AGENTS.md"]);
    assert!(Instructions::load(&root, &root, &[]).is_empty());
}

#[test]
fn imports_follow_their_file_and_stay_inside_the_root() {
    let (tmp, root) = project();
    std::fs::write(tmp.path().join("outside.md"), "secret outside").unwrap();
    write(
        &root,
        "AGENTS.md",
        "Read @docs/style.md first.\nMail me@example.com, ask @alice.\n`@docs/code.md` and\n```\n@docs/fenced.md\n```\nAlso @../outside.md\nAnd @missing.md\n",
    );
    write(&root, "docs/style.md", "style: see @./deep.md");
    write(&root, "docs/deep.md", "deep text");
    write(&root, "docs/code.md", "never");
    write(&root, "docs/fenced.md", "never");
    let instructions = Instructions::load(&root, &root, &names());
    assert_eq!(
        shown(&instructions),
        ["AGENTS.md", "docs/style.md", "docs/deep.md"]
    );
    assert_eq!(
        instructions.files[1].imported_by,
        Some(ImportSite {
            path: root.join("AGENTS.md"),
            line: 1
        })
    );
    let warnings: Vec<String> = instructions
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    let agents = root.join("AGENTS.md").display().to_string();
    assert_eq!(
        warnings,
        [
            format!("{agents}:7: import `@../outside.md` refused: it is outside the project root"),
            format!("{agents}:8: import `@missing.md` refused: no such file"),
        ]
    );
    assert!(
        !instructions
            .prompt_section()
            .unwrap()
            .contains("secret outside")
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_root_is_refused() {
    let (tmp, root) = project();
    std::fs::write(tmp.path().join("outside.md"), "secret outside").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("outside.md"), root.join("link.md")).unwrap();
    write(&root, "AGENTS.md", "@link.md");
    let instructions = Instructions::load(&root, &root, &names());
    assert_eq!(shown(&instructions), ["AGENTS.md"]);
    assert!(
        instructions.warnings[0]
            .message
            .contains("outside the project root")
    );
}

#[test]
fn cycles_and_deep_chains_are_refused() {
    let (_tmp, root) = project();
    write(&root, "AGENTS.md", "@a.md");
    write(&root, "a.md", "@b.md");
    write(&root, "b.md", "@a.md");
    let instructions = Instructions::load(&root, &root, &names());
    assert_eq!(shown(&instructions), ["AGENTS.md", "a.md", "b.md"]);
    assert_eq!(
        instructions.warnings[0].to_string(),
        format!(
            "{}:1: import `@a.md` refused: an import cycle (AGENTS.md → a.md → b.md → a.md)",
            root.join("b.md").display()
        )
    );

    let (_tmp, root) = project();
    write(&root, "AGENTS.md", "@1.md");
    for hop in 1..=7 {
        write(&root, &format!("{hop}.md"), &format!("@{}.md", hop + 1));
    }
    let instructions = Instructions::load(&root, &root, &names());
    // The file and five hops of imports.
    assert_eq!(instructions.files.len(), 1 + MAX_IMPORT_DEPTH);
    assert!(instructions.warnings[0].message.contains("deeper than 5"));
}

#[test]
fn the_text_is_bounded() {
    let (_tmp, root) = project();
    write(&root, "AGENTS.md", &"é".repeat(MAX_INSTRUCTION_BYTES));
    write(&root, "CLAUDE.md", "late");
    let instructions = Instructions::load(&root, &root, &names());
    let total: usize = instructions.files.iter().map(|file| file.bytes).sum();
    assert!(total <= MAX_INSTRUCTION_BYTES);
    assert!(instructions.files[0].truncated);
    assert_eq!(instructions.files.len(), 1);
    assert_eq!(
        instructions.warnings.len(),
        2,
        "{:?}",
        instructions.warnings
    );
}

use super::*;
use std::fs;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn locations(root: &Path) -> Locations {
    Locations {
        agentctl_home: root.join("home/.agentctl"),
        user_home: Some(root.join("home")),
        project_root: Some(root.join("project")),
    }
}

#[test]
fn reads_claude_gemini_and_native_commands_with_folder_names() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("project/.claude/commands/git/commit.md"),
        "---\ndescription: Commit\nallowed-tools: Bash(git add:*), Read\nmodel: fast\nargument-hint: \"[message]\"\n---\nCommit with $ARGUMENTS\n",
    );
    write(
        &root.join("project/.agentctl/commands/plain.md"),
        "Just do $1 then $2.\n",
    );
    write(
        &root.join("home/.gemini/commands/explain.toml"),
        "description = \"Explain\"\nprompt = \"\"\"Explain {{args}}\"\"\"\n",
    );
    let set = discover_commands(&locations(root));
    assert!(set.warnings.is_empty(), "{:?}", set.warnings);
    let names: Vec<_> = set.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["explain", "git:commit", "plain"]);
    let commit = set.get("git:commit").unwrap();
    // A rule with an argument pattern is kept as written, for the session to match calls
    // against; a plain name is mapped to agentctl's.
    assert_eq!(
        commit.allowed_tools.as_deref(),
        Some(&["Bash(git add:*)".to_owned(), "read_file".to_owned()][..])
    );
    assert_eq!(commit.model.as_deref(), Some("fast"));
    assert_eq!(commit.expand("fix it"), "Commit with fix it");
    assert_eq!(
        set.get("plain").unwrap().expand("a  b c"),
        "Just do a then b."
    );
    let explain = set.get("explain").unwrap();
    assert_eq!(explain.scope, Scope::Global);
    assert_eq!(explain.expand("traits"), "Explain traits");
}

#[test]
fn arguments_without_placeholders_follow_the_prompt() {
    let command = |syntax| CommandDef {
        name: "x".into(),
        description: None,
        allowed_tools: None,
        model: None,
        argument_hint: None,
        template: "Review.".into(),
        syntax,
        file: "x".into(),
        scope: Scope::Project,
    };
    assert_eq!(
        command(CommandSyntax::Markdown).expand("src"),
        "Review.\n\nARGUMENTS: src"
    );
    assert_eq!(command(CommandSyntax::Markdown).expand(""), "Review.");
    assert_eq!(
        command(CommandSyntax::Toml).expand("src"),
        "Review.\n\n/x src"
    );
    // `$` not followed by a placeholder stays, and an argument's own `$1` is not re-expanded.
    let mut dollars = command(CommandSyntax::Markdown);
    dollars.template = "Cost $0 and $x: $ARGUMENTS".into();
    assert_eq!(
        dollars.expand("$1 $ARGUMENTS"),
        "Cost $0 and $x: $1 $ARGUMENTS"
    );
}

#[test]
fn the_expansion_is_bounded() {
    let command = CommandDef {
        name: "x".into(),
        description: None,
        allowed_tools: None,
        model: None,
        argument_hint: None,
        template: "$ARGUMENTS".repeat(10_000),
        syntax: CommandSyntax::Markdown,
        file: "x".into(),
        scope: Scope::Project,
    };
    assert!(command.expand(&"é".repeat(1000)).len() <= MAX_EXPANDED_BYTES);
}

#[test]
fn malformed_files_and_collisions_are_located_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("project/.claude/commands/bad.md"),
        "---\ndescription: [x\n---\nbody\n",
    );
    write(
        &root.join("project/.gemini/commands/broken.toml"),
        "description = \"x\"\nprompt = 3\n",
    );
    write(
        &root.join("project/.gemini/commands/noprompt.toml"),
        "description = \"x\"\n",
    );
    write(&root.join("project/.agentctl/commands/same.md"), "A\n");
    write(&root.join("home/.claude/commands/same.md"), "B\n");
    let set = discover_commands(&locations(root));
    let shown: Vec<String> = set.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(set.commands.len(), 1);
    assert!(shown.iter().any(|w| w.contains("bad.md:2:")), "{shown:?}");
    assert!(
        shown
            .iter()
            .any(|w| w.contains("broken.toml:2:") && w.contains("string")),
        "{shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|w| w.contains("noprompt.toml") && w.contains("prompt")),
        "{shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|w| w.contains("/same") && w.contains(".agentctl/commands/same.md")),
        "{shown:?}"
    );
}

//! Issue 36 item 4: `agents create` as seed 002 writes it (§3.2.2, §3.6 DoD1, §5.3 and the
//! appendix's templates): the file goes where the project's agents already live, the
//! parameter-mode command needs no `--description`, and templates come from the user's
//! folders as well as the built-in ones.

use super::support::{TestProject, text};

/// A project that keeps its agents where Gemini CLI does (seed 002 §5.3), with the seed's
/// `github` MCP server configured. `.agentctl/agents` exists but holds no agent.
fn gemini_project() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".gemini/agents/project-expert.md",
            "---\nname: project-expert\ndescription: Knows this project\n---\nYou know the project.\n",
        )
        .write(
            ".agentctl/settings.json",
            r#"{"mcpServers": {"github": {"command": "github-mcp-server", "args": ["stdio"]}}}"#,
        );
    project
}

fn read(project: &TestProject, path: &str) -> String {
    let path = project.root.join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn dod1_creates_in_gemini_agents_as_written() {
    let project = gemini_project();
    // $ gemini agents create debug-analyzer --template debugging
    let created = project.agentctl(&[
        "agents",
        "create",
        "debug-analyzer",
        "--template",
        "debugging",
    ]);
    let out = text(&created.stdout);
    assert!(
        out.starts_with("Created .gemini/agents/debug-analyzer.md\n")
            && out.contains("note: written to .gemini/agents/, where the project's agents are (--dir DIR chooses another folder)"),
        "{out}"
    );
    // $ gemini agents list | grep debug-analyzer
    let listed = text(&project.agentctl(&["agents", "list"]).stdout);
    assert!(
        listed.lines().any(|line| line.contains("debug-analyzer")
            && line.contains(".gemini/agents/debug-analyzer.md")),
        "{listed}"
    );
    // $ cat .gemini/agents/debug-analyzer.md — full front matter and the system prompt.
    let file = read(&project, ".gemini/agents/debug-analyzer.md");
    assert!(
        file.starts_with("---\n")
            && file.contains("\nkind: agent\nname: debug-analyzer\ntitle: Debugger\ndescription: ")
            && file.contains("You are a debugging specialist."),
        "{file}"
    );
    assert!(
        !project
            .root
            .join(".agentctl/agents/debug-analyzer.md")
            .exists()
    );
    let validated = project.output(&["agents", "validate", "debug-analyzer"]);
    assert!(validated.status.success(), "{}", text(&validated.stdout));
}

#[test]
fn the_parameter_mode_command_derives_the_description() {
    let project = gemini_project();
    let transcript = project.transcript(&[
        "agents",
        "create",
        "debug-analyzer",
        "--title",
        "Debug Analyzer",
        "--model",
        "gemini-2.5-pro",
        "--tools",
        "read_file,grep,bash",
        "--mcp",
        "github",
        "--scope",
        "project",
    ]);
    insta::assert_snapshot!(transcript);
    let file = read(&project, ".gemini/agents/debug-analyzer.md");
    assert!(
        file.contains(
            "title: Debug Analyzer\ndescription: Debug Analyzer\nmodel: gemini-2.5-pro\n"
        ) && file.contains("servers:\n  - github"),
        "{file}"
    );
    // A template's prompt gives the derived description its first sentence.
    project.write(
        ".agentctl/templates/triage.md",
        "---\ntitle: Triage\n---\n# Role\n\nYou sort incoming bug reports. Then you label them.\n",
    );
    let out = text(
        &project
            .agentctl(&["agents", "create", "triager", "--template", "triage"])
            .stdout,
    );
    assert!(
        out.contains("derived \"Triage: You sort incoming bug reports.\""),
        "{out}"
    );
}

#[test]
fn several_folders_global_scope_and_dir() {
    let project = gemini_project();
    project.write(
        ".claude/agents/team/helper.md",
        "---\nname: helper\ndescription: Helps\n---\nHelp.\n",
    );
    let out = text(
        &project
            .agentctl(&["agents", "create", "a", "--description", "A"])
            .stdout,
    );
    assert!(
        out.starts_with("Created .claude/agents/a.md\n")
            && out.contains("the first in precedence of the folders holding the project's agents (also .gemini/agents/;"),
        "{out}"
    );
    // Once agentctl's own folder holds an agent, it comes first.
    project.write(
        ".agentctl/agents/own.md",
        "---\nname: own\ndescription: Own\n---\nOwn.\n",
    );
    let out = text(
        &project
            .agentctl(&["agents", "create", "b", "--description", "B"])
            .stdout,
    );
    assert!(out.starts_with("Created .agentctl/agents/b.md\n"), "{out}");
    // Global scope likewise: the user's Gemini CLI folder when it is the one holding agents.
    let gemini_home = project.home.join(".gemini/agents");
    std::fs::create_dir_all(&gemini_home).unwrap();
    std::fs::write(
        gemini_home.join("mine.md"),
        "---\nname: mine\ndescription: M\n---\nM.\n",
    )
    .unwrap();
    let out = text(
        &project
            .agentctl(&["agents", "create", "c", "--description", "C", "--global"])
            .stdout,
    );
    assert!(
        out.starts_with("Created ~/.gemini/agents/c.md\n")
            && out.contains("where your global agents are"),
        "{out}"
    );
    // --dir chooses; a folder agentctl does not read is said to be one.
    let out = text(
        &project
            .agentctl(&[
                "agents",
                "create",
                "d",
                "--description",
                "D",
                "--dir",
                ".gemini/agents",
            ])
            .stdout,
    );
    assert!(
        out.starts_with("Created .gemini/agents/d.md\n") && !out.contains("note:"),
        "{out}"
    );
    let out = text(
        &project
            .agentctl(&[
                "agents",
                "create",
                "e",
                "--description",
                "E",
                "--dir",
                "elsewhere",
            ])
            .stdout,
    );
    assert!(
        out.contains("note: elsewhere/ is not a folder agentctl reads agents from"),
        "{out}"
    );
    assert!(project.root.join("elsewhere/e.md").exists());
    let refused = project.output(&["agents", "create", "f", "--dir", "x", "--global"]);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn user_templates_join_and_shadow_the_built_in_ones() {
    let project = gemini_project();
    // $ gemini agents create test --template testing (the appendix's name)
    project.agentctl(&["agents", "create", "test", "--template", "testing"]);
    assert!(read(&project, ".gemini/agents/test.md").contains("title: Test Generator"));
    // Seed 002 §5.3: ~/.gemini/agents/templates/, here in Gemini CLI's format.
    let gemini = project.home.join(".gemini/agents/templates");
    std::fs::create_dir_all(&gemini).unwrap();
    std::fs::write(
        gemini.join("code-review.md"),
        "---\ndisplay_name: Strict Reviewer\ndescription: Reviews strictly\ntools: [read_file, grep]\n---\nReview strictly.\n",
    )
    .unwrap();
    let mine = project.home.join(".agentctl/templates");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(
        mine.join("api-docs.md"),
        "---\ndescription: Documents APIs\n---\nDocument the API.\n",
    )
    .unwrap();
    project.write(".agentctl/templates/broken.md", "---\ntitle: [\n---\nx\n");
    let list = project.transcript(&["agents", "create", "--template", "list"]);
    insta::assert_snapshot!(list);
    project.agentctl(&["agents", "create", "reviewer", "--template", "code-review"]);
    let file = read(&project, ".gemini/agents/reviewer.md");
    assert!(
        file.contains("title: Strict Reviewer\ndescription: Reviews strictly\n")
            && file.ends_with("Review strictly.\n"),
        "{file}"
    );
    project.agentctl(&["agents", "create", "docs", "--template", "api-docs"]);
    assert!(read(&project, ".gemini/agents/docs.md").contains("description: Documents APIs"));
    // A broken template is an error located in its file; an unknown one lists them all.
    let broken = project.output(&["agents", "create", "x", "--template", "broken"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(
        text(&broken.stderr).contains(
            "template `broken` does not load: .agentctl/templates/broken.md:2:8: field `title`"
        ),
        "{}",
        text(&broken.stderr)
    );
    let unknown = project.output(&["agents", "create", "x", "--template", "debuging"]);
    assert!(
        text(&unknown.stderr).contains("unknown template `debuging` (did you mean `debugging`?). Templates: api-docs, broken, code-review, debugging,"),
        "{}",
        text(&unknown.stderr)
    );
    assert!(!project.root.join(".gemini/agents/x.md").exists());
}

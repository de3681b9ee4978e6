//! Skills (issue 34 item 2), end to end on the strict OpenAI fake with real folders: a
//! published-style skill in the user's `~/.claude/skills` with bundled files outside the
//! project root; the model loads it with `skill` and reads a bundled file, while a sibling
//! outside the skill's folder stays refused; an agent offered other skills never sees it; a
//! malformed `SKILL.md` is a located warning.

use super::support::request::{offered_tools, system_prompt, tool_results};
use super::support::{ServedModel, TestProject, text};

const PDF_SKILL: &str = "---\nname: pdf-forms\ndescription: Fill in PDF forms with the bundled \
script. Use when the user asks to fill a PDF.\nlicense: Apache-2.0\nallowed-tools: Read\n\
metadata:\n  version: \"1.2\"\n---\n\n# PDF forms\n\nRun `scripts/fill.py FORM DATA` and check \
`reference.md` for field names.\n";

/// A project, and in its home a published-style skill with bundled files, another skill, and
/// a private file beside them.
fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/settings.json",
            r#"{"agents": {"defaultModel": "openai:gpt-4o-mini"}}"#,
        )
        .write("src/app.py", "print('app')\n");
    let skills = project.home.join(".claude/skills");
    for (path, content) in [
        ("pdf-forms/SKILL.md", PDF_SKILL),
        (
            "pdf-forms/scripts/fill.py",
            "# fills the form\nprint('filled')\n",
        ),
        ("pdf-forms/reference.md", "Field names: name, date.\n"),
        (
            "release-notes/SKILL.md",
            "---\nname: release-notes\ndescription: Write release notes from git log.\n---\nRead the log.\n",
        ),
        ("release-notes/template.md", "## Changes\n"),
    ] {
        let path = skills.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    std::fs::write(project.home.join(".claude/notes.txt"), "private notes\n").unwrap();
    project
}

#[test]
fn the_model_loads_a_skill_then_reads_its_bundled_file_and_nothing_beside_it() {
    let project = project();
    let skill_dir = project
        .home
        .join(".claude/skills/pdf-forms")
        .canonicalize()
        .unwrap();
    let home = project.home.canonicalize().unwrap();
    let model = ServedModel::openai();
    let read = |path: String| serde_json::json!({ "path": path }).to_string();
    model.answer_call("c1", "skill", r#"{"name":"pdf-forms"}"#);
    model.answer_call(
        "c2",
        "read_file",
        &read(format!("{}/scripts/fill.py", skill_dir.display())),
    );
    model.answer_call(
        "c3",
        "read_file",
        &read(format!("{}/.claude/notes.txt", home.display())),
    );
    model.answer_call(
        "c4",
        "read_file",
        &read(format!(
            "{}/../release-notes/template.md",
            skill_dir.display()
        )),
    );
    model.answer_text("The form is filled.");
    let mut command = project.command(&["chat", "-p", "Fill in form.pdf"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("The form is filled."));

    let requests = model.server.requests();
    assert_eq!(requests.len(), 5);
    // Only names and descriptions are in the prompt; the body waits for the tool.
    let prompt = system_prompt(&requests[0].body);
    assert!(
        prompt.contains("`pdf-forms`: Fill in PDF forms"),
        "{prompt}"
    );
    assert!(prompt.contains("`release-notes`"), "{prompt}");
    assert!(!prompt.contains("scripts/fill.py"), "{prompt}");
    assert!(offered_tools(&requests[0].body).contains(&"skill".to_owned()));

    let results = tool_results(&requests[4].body);
    assert!(
        results[0].contains("Run `scripts/fill.py FORM DATA`"),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains(&format!("{}/scripts/fill.py", skill_dir.display())),
        "{}",
        results[0]
    );
    assert!(results[1].contains("print('filled')"), "{}", results[1]);
    // A sibling outside the skill's folder, and another skill's folder, stay refused.
    assert!(
        results[2].contains("escapes the project root"),
        "{}",
        results[2]
    );
    assert!(!results[2].contains("private notes"));
    assert!(
        results[3].contains("escapes the project root"),
        "{}",
        results[3]
    );
    model.server.assert_no_violations();
}

#[test]
fn an_agent_offered_other_skills_never_sees_this_one() {
    let project = project();
    project
        .write(
            ".claude/agents/writer.md",
            "---\nname: writer\ndescription: Writes release notes\ntools: Read, Grep\nskills: [release-notes]\nmodel: openai:gpt-4o-mini\n---\nYou write release notes.\n",
        )
        .write(
            ".claude/agents/plain.md",
            "---\nname: plain\ndescription: No skills\nmodel: openai:gpt-4o-mini\n---\nYou answer.\n",
        );
    let model = ServedModel::openai();
    model.answer_call("c1", "skill", r#"{"name":"pdf-forms"}"#);
    model.answer_text("Done.");
    model.answer_text("Plain answer.");
    let mut command = project.command(&["run", "writer", "-p", "Notes please"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let mut command = project.command(&["run", "plain", "-p", "Hi"]);
    model.point(&mut command);
    assert!(command.output().unwrap().status.success());

    let requests = model.server.requests();
    let prompt = system_prompt(&requests[0].body);
    assert!(prompt.contains("`release-notes`"), "{prompt}");
    assert!(!prompt.contains("pdf-forms"), "{prompt}");
    // Its `tools` list lets `skill` through: the declaration brings the tool.
    assert_eq!(
        offered_tools(&requests[0].body),
        ["grep", "read_file", "skill"]
    );
    let refused = &tool_results(&requests[1].body)[0];
    assert!(
        refused.contains("no skill `pdf-forms` is available to you"),
        "{refused}"
    );
    assert!(!refused.contains("scripts/fill.py"), "{refused}");
    // `agents tools` lists what the run offered.
    let report = project.json(&["agents", "tools", "writer", "--format", "json"]);
    let mut listed: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    listed.sort_unstable();
    assert_eq!(listed, ["grep", "read_file", "skill"]);
    // An agent that lists no skills gets neither the section nor the tool.
    assert!(!system_prompt(&requests[2].body).contains("# Skills"));
    assert!(!offered_tools(&requests[2].body).contains(&"skill".to_owned()));
    model.server.assert_no_violations();
}

#[test]
fn an_unknown_skill_name_is_a_validation_error_with_a_suggestion() {
    let project = project();
    project.write(
        ".claude/agents/writer.md",
        "---\nname: writer\ndescription: Writes\nskills: [release-note]\n---\nYou write.\n",
    );
    let output = project.output(&["agents", "validate", "writer"]);
    let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert!(!output.status.success(), "{all}");
    assert!(all.contains("no skill named `release-note`"), "{all}");
    assert!(all.contains("did you mean release-notes?"), "{all}");
}

#[test]
fn skills_list_and_show_with_a_malformed_skill_as_a_located_warning() {
    let project = project();
    project
        .write(
            ".agents/skills/broken/SKILL.md",
            "---\nname: broken\ndescription: [unclosed\n---\nx\n",
        )
        .write(
            ".agentctl/skills/release-notes/SKILL.md",
            "---\nname: release-notes\ndescription: The project's own notes skill.\n---\nUse ours.\n",
        );
    let output = project.output(&["skills", "list"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    assert!(
        stdout.contains("pdf-forms") && stdout.contains("global"),
        "{stdout}"
    );
    assert!(
        stdout.contains("The project's own notes skill."),
        "{stdout}"
    );
    assert!(
        stderr.contains(".agents/skills/broken/SKILL.md:3:"),
        "{stderr}"
    );
    // The project's skill wins; the collision names both files.
    assert!(
        stderr.contains("skill `release-notes` is defined twice")
            && stderr.contains(".agentctl/skills/release-notes/SKILL.md")
            && stderr.contains(".claude/skills/release-notes/SKILL.md"),
        "{stderr}"
    );

    let listed = project.json(&["skills", "list", "--format", "json"]);
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["pdf-forms", "release-notes"]);
    let shown = project.json(&["skills", "show", "pdf-forms", "--format", "json"]);
    assert_eq!(shown["license"], "Apache-2.0");
    assert_eq!(shown["metadata"]["version"], "1.2");
    assert_eq!(
        shown["files"],
        serde_json::json!(["reference.md", "scripts/fill.py"])
    );
    assert!(shown["body"].as_str().unwrap().starts_with("# PDF forms"));
    let text_show = text(&project.output(&["skills", "show", "pdf-forms"]).stdout);
    assert!(
        text_show.contains("scripts/fill.py") && text_show.contains("# PDF forms"),
        "{text_show}"
    );
    let missing = project.output(&["skills", "show", "pdf-form"]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("did you mean pdf-forms?"),
        "{}",
        text(&missing.stderr)
    );
}

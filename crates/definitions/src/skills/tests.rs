use super::*;
use std::fs;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\nDo the {name} thing.\n")
}

fn locations(root: &Path) -> Locations {
    Locations {
        agentctl_home: root.join("home/.agentctl"),
        user_home: Some(root.join("home")),
        project_root: Some(root.join("project")),
    }
}

#[test]
fn project_wins_over_home_and_the_collision_names_both_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("project/.claude/skills/pdf/SKILL.md"),
        &skill("pdf", "Project PDF"),
    );
    write(
        &root.join("home/.agents/skills/pdf/SKILL.md"),
        &skill("pdf", "Home PDF"),
    );
    write(
        &root.join("home/.gemini/skills/xlsx/SKILL.md"),
        &skill("xlsx", "Sheets"),
    );
    let set = discover_skills(&locations(root));
    let names: Vec<_> = set.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["pdf", "xlsx"]);
    assert_eq!(set.skills[0].description, "Project PDF");
    assert_eq!(set.skills[0].scope, Scope::Project);
    let [SkillWarning::Collision { kept, ignored, .. }] = set.warnings.as_slice() else {
        panic!("{:?}", set.warnings)
    };
    assert!(kept.ends_with(".claude/skills/pdf/SKILL.md"));
    assert!(ignored.ends_with(".agents/skills/pdf/SKILL.md"));
    let shown = set.warnings[0].to_string();
    assert!(shown.contains(".claude/skills/pdf/SKILL.md") && shown.contains(".agents/skills"));
}

#[test]
fn a_malformed_skill_is_a_located_warning_and_hides_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("project/.agentctl/skills/bad/SKILL.md"),
        "---\nname: bad\ndescription: [unclosed\n---\nx\n",
    );
    write(
        &root.join("project/.agentctl/skills/good/SKILL.md"),
        &skill("good", "Fine"),
    );
    write(
        &root.join("project/.agentctl/skills/other/SKILL.md"),
        &skill("wrong-name", "Mismatch"),
    );
    write(
        &root.join("project/.agentctl/skills/nodesc/SKILL.md"),
        "---\nname: nodesc\n---\nx\n",
    );
    let set = discover_skills(&locations(root));
    assert_eq!(set.skills.len(), 1);
    let shown: Vec<String> = set.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(shown.len(), 3, "{shown:?}");
    assert!(
        shown.iter().any(|w| w.contains("bad/SKILL.md:3:")),
        "{shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|w| w.contains("other/SKILL.md:2:") && w.contains("folder")),
        "{shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|w| w.contains("nodesc/SKILL.md:") && w.contains("description")),
        "{shown:?}"
    );
}

#[test]
fn reads_body_and_bundled_files_without_following_links() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = root.join("project/.claude/skills/pdf");
    write(
        &dir.join("SKILL.md"),
        "---\nname: pdf\ndescription: PDFs\nlicense: MIT\nallowed-tools: Read, Bash(python:*)\nmetadata:\n  version: \"1\"\n---\n\n# PDF\nRun scripts/fill.py\n",
    );
    write(&dir.join("scripts/fill.py"), "print(1)\n");
    write(&dir.join("reference.md"), "ref\n");
    write(&root.join("secret.txt"), "secret\n");
    std::os::unix::fs::symlink(root.join("secret.txt"), dir.join("link.txt")).unwrap();
    let set = discover_skills(&locations(root));
    let skill = &set.skills[0];
    assert_eq!(skill.license.as_deref(), Some("MIT"));
    assert_eq!(skill.allowed_tools, ["Read", "Bash(python:*)"]);
    assert_eq!(skill.metadata["version"], "1");
    let content = read_skill(skill).unwrap();
    assert_eq!(content.body, "# PDF\nRun scripts/fill.py");
    assert_eq!(content.files, ["reference.md", "scripts/fill.py"]);
}

#[test]
fn a_project_skill_folder_linking_out_of_the_project_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("elsewhere/evil/SKILL.md"),
        &skill("evil", "Outside"),
    );
    fs::create_dir_all(root.join("project/.claude/skills")).unwrap();
    std::os::unix::fs::symlink(
        root.join("elsewhere/evil"),
        root.join("project/.claude/skills/evil"),
    )
    .unwrap();
    let set = discover_skills(&locations(root));
    assert!(set.skills.is_empty());
    assert!(matches!(
        set.warnings[0],
        SkillWarning::OutsideProject { .. }
    ));
}

#[test]
fn unknown_names_come_with_suggestions() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("project/.claude/skills/pdf-forms/SKILL.md"),
        &skill("pdf-forms", "PDF"),
    );
    let set = discover_skills(&locations(root));
    let wanted = vec!["pdf-form".to_owned(), "pdf-forms".to_owned()];
    let unknown = unknown_skills(&set, &wanted);
    assert_eq!(unknown, [("pdf-form", vec!["pdf-forms".to_owned()])]);
}

//! `read_file` outside the project root: only inside a folder granted to the calling agent
//! (a skill it loaded), attacked with every other way out.

use super::support::write;
use agentctl_core::{Tool, ToolContext, ToolRegistry};
use agentctl_tools::{BuiltinToolsConfig, ReadGrants, register_builtin_tools};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn read_file(grants: &ReadGrants) -> Arc<dyn Tool> {
    let mut registry = ToolRegistry::new();
    let config = BuiltinToolsConfig::default().with_read_grants(grants.clone());
    register_builtin_tools(&mut registry, &config);
    registry.get("read_file").cloned().unwrap()
}

async fn read(
    tool: &Arc<dyn Tool>,
    root: &Path,
    agent: &str,
    path: &str,
) -> Result<String, String> {
    let ctx = ToolContext::new("run", agent, "call", root, CancellationToken::new());
    tool.call(json!({ "path": path }), &ctx)
        .await
        .map(|out| out.content)
        .map_err(|error| error.to_string())
}

#[tokio::test]
async fn a_granted_folder_is_readable_and_nothing_around_it() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let project = base.join("project");
    let skills = base.join("home/.claude/skills");
    write(&project, "README.md", "project\n");
    write(
        &skills,
        "pdf/SKILL.md",
        "---\nname: pdf\ndescription: d\n---\nbody\n",
    );
    write(&skills, "pdf/scripts/fill.py", "print('fill')\n");
    write(
        &skills,
        "other/SKILL.md",
        "---\nname: other\ndescription: d\n---\nbody\n",
    );
    write(&skills, "other/secret.txt", "other skill's file\n");
    write(&base, "home/.ssh/id_ed25519", "PRIVATE KEY\n");
    std::os::unix::fs::symlink(base.join("home/.ssh/id_ed25519"), skills.join("pdf/key")).unwrap();
    std::os::unix::fs::symlink(base.join("home/.ssh"), skills.join("pdf/ssh")).unwrap();
    std::fs::hard_link(base.join("home/.ssh/id_ed25519"), skills.join("pdf/hard")).unwrap();
    let pdf = skills.join("pdf");
    let at = |rest: &str| format!("{}/{rest}", pdf.display());

    let grants = ReadGrants::default();
    let tool = read_file(&grants);
    // Before the grant, the folder is outside the project like any other.
    let before = read(&tool, &project, "writer", &at("scripts/fill.py")).await;
    assert!(before.unwrap_err().contains("escapes the project root"));

    grants.grant("writer", &pdf).unwrap();
    let text = read(&tool, &project, "writer", &at("scripts/fill.py"))
        .await
        .unwrap();
    assert!(text.contains("print('fill')"), "{text}");
    assert!(
        read(&tool, &project, "writer", "README.md")
            .await
            .unwrap()
            .contains("project")
    );

    for refused in [
        at("../other/secret.txt"),
        at("scripts/../../other/secret.txt"),
        format!("{}/other/secret.txt", skills.display()),
        at("key"),
        at("ssh/id_ed25519"),
        at("hard"),
        format!("{}/home/.ssh/id_ed25519", base.display()),
        "../home/.claude/skills/pdf/scripts/fill.py".to_owned(),
    ] {
        let result = read(&tool, &project, "writer", &refused).await;
        let error = result.expect_err(&refused);
        assert!(
            !error.contains("PRIVATE") && !error.contains("other skill"),
            "{error}"
        );
    }
    // Another agent of the same session was granted nothing.
    let other = read(&tool, &project, "reviewer", &at("scripts/fill.py")).await;
    assert!(other.unwrap_err().contains("escapes the project root"));
}

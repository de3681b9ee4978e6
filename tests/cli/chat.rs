//! `agentctl chat`: the main conversation with the default model, in the session's `main`
//! timeline (shared agents see it, isolated ones do not), and `@agent` turns in the REPL.

use super::support::request::messages_text;
use super::support::{ServedModel, TestProject, text};
use agentctl_store::{ContextScope, MessageLog, MessageQuery, RunLog, SessionLog};

const REVIEWER: &str = "---
name: reviewer
title: Reviewer
description: Reviews in its own context.
model: openai:gpt-4o-mini
contextMode: isolated
tools:
  allow: [read_file]
---
You review.
";

const FIXER: &str = "---
name: fixer
title: Fixer
description: Fixes in the shared context.
model: openai:gpt-4o-mini
contextMode: shared
tools:
  allow: [read_file]
---
You fix.
";

fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/settings.json",
            r#"{"agents": {"defaultModel": "openai:gpt-4o-mini"}}"#,
        )
        .write(".agentctl/agents/reviewer.md", REVIEWER)
        .write(".agentctl/agents/fixer.md", FIXER);
    project
}

#[test]
fn chat_once_talks_to_the_default_model_in_the_main_timeline() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_text("The codename is heron.");
    let output = model.run(&project, &["chat", "-p", "Remember the codename heron"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "The codename is heron.\n");
    assert_eq!(
        text(&output.stderr),
        "context: main (the session's main conversation)\n"
    );
    let request = model.server.single_request();
    assert_eq!(request.body["model"], "gpt-4o-mini");
    assert!(messages_text(&request.body).contains("main assistant of this project"));

    let store = project.store();
    let session = store.latest_session().unwrap().unwrap();
    let main = store
        .messages(&session.id, &MessageQuery::scope(ContextScope::Main))
        .unwrap();
    let texts: Vec<String> = main.iter().map(|m| format!("{:?}", m.message)).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(
        texts[0].contains("Remember the codename heron"),
        "{texts:?}"
    );
    assert!(texts[1].contains("The codename is heron."), "{texts:?}");
    assert_eq!(main[1].agent.as_deref(), Some("main"));

    // A shared agent continuing the session sees the main conversation; an isolated one does not.
    model.answer_text("fixer saw it");
    model.answer_text("reviewer did not");
    let fixer = model.run(&project, &["run", "fixer", "--continue", "-p", "Go"]);
    assert!(fixer.status.success(), "{}", text(&fixer.stderr));
    let reviewer = model.run(&project, &["run", "reviewer", "--continue", "-p", "Go"]);
    assert!(reviewer.status.success(), "{}", text(&reviewer.stderr));
    let requests = model.server.requests();
    assert!(messages_text(&requests[1].body).contains("codename heron"));
    assert!(!messages_text(&requests[2].body).contains("codename heron"));
    model.server.assert_no_violations();
}

#[test]
fn mentions_in_the_repl_run_agents_in_the_same_session() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_text("Noted: the codename is heron.");
    model.answer_text("Reviewed on my own.");
    model.answer_text("Fixed with the shared history.");
    model.answer_text("Reviewed with the shared history.");
    let mut command = project.command(&["chat", "--interactive"]);
    model.point(&mut command);
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(
                b"The codename is heron\n@reviewer check src\n@fixer fix it\n\
                  @reviewer --shared check again\n@nobody hello\n@fixer\nexit\n",
            )
            .unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = text(&output.stdout);
    for answer in [
        "Noted: the codename is heron.",
        "Reviewed on my own.",
        "Fixed with the shared history.",
        "Reviewed with the shared history.",
    ] {
        assert!(stdout.contains(answer), "{stdout}");
    }
    assert!(
        stderr.contains("Talking to the main conversation."),
        "{stderr}"
    );
    assert!(
        stderr.contains("@reviewer · context: isolated (agent file)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("@fixer · context: shared (agent file)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "@reviewer · context: shared (--context flag; the agent's own mode: isolated)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: no agent named `nobody`"),
        "{stderr}"
    );
    assert!(stderr.contains("`@fixer` needs a prompt"), "{stderr}");

    let requests = model.server.requests();
    assert_eq!(requests.len(), 4);
    // Isolated: its own context, without the main conversation.
    assert!(!messages_text(&requests[1].body).contains("codename is heron"));
    assert!(messages_text(&requests[1].body).contains("check src"));
    // Shared: the main conversation, and what the isolated reviewer handed back.
    assert!(messages_text(&requests[2].body).contains("codename is heron"));
    assert!(messages_text(&requests[2].body).contains("Reviewed on my own."));
    // `--shared` for one turn puts the isolated reviewer in the shared context.
    assert!(messages_text(&requests[3].body).contains("Fixed with the shared history."));
    model.server.assert_no_violations();

    let store = project.store();
    let sessions = store.list_sessions().unwrap();
    assert_eq!(sessions.len(), 1);
    // Seed 001's `source`: every run of the interactive session came from the REPL.
    let runs = store.runs(&sessions[0].id).unwrap();
    assert_eq!(runs.len(), 4);
    assert!(
        runs.iter().all(|run| run.source.as_str() == "repl"),
        "{runs:?}"
    );
}

#[test]
fn chat_without_a_default_model_says_how_to_choose_one() {
    let project = TestProject::new();
    insta::assert_snapshot!(project.transcript(&["chat", "-p", "hi"]));
}

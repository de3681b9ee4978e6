//! On a terminal, an approval question is asked once the events before it are shown, and an
//! "always" answer holds for the whole session: across a handoff, an `@agent` turn and the
//! next turn of the REPL (whose agent is the one the handoff left working).

use super::support::{ServedModel, Terminal, TestProject, has_script};

fn write(path: &str) -> String {
    format!(r#"{{"path":"{path}","content":"{path}\n"}}"#)
}

#[test]
fn always_holds_across_a_handoff_an_agent_turn_and_the_next_repl_turn() {
    if !has_script() {
        return;
    }
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/writer.md",
            "---\nname: writer\ndescription: Writes files.\nmodel: openai:gpt-4o-mini\ntools:\n  allow: [write_file, handoff_to_editor]\nhandoffs:\n  - to: editor\n---\nYou are writer.\n",
        )
        .write(
            ".agentctl/agents/editor.md",
            "---\nname: editor\ndescription: Edits files.\nmodel: openai:gpt-4o-mini\ntools:\n  allow: [write_file]\n---\nYou are editor.\n",
        );
    let model = ServedModel::openai();
    model.answer_call("c1", "write_file", &write("a.txt"));
    model.answer_call("h1", "handoff_to_editor", r#"{"reason":"edit it"}"#);
    model.answer_call("c2", "write_file", &write("b.txt"));
    model.answer_text("Edited.");
    model.answer_call("c3", "write_file", &write("c.txt"));
    model.answer_text("Wrote c.");
    model.answer_call("c4", "write_file", &write("d.txt"));
    model.answer_text("Wrote d.");
    let mut command = project.terminal_command(&["run", "writer", "--interactive"]);
    model.point(&mut command);
    let mut terminal = Terminal::start_command(command);
    terminal.answer("> ", "Write the files\r");
    terminal.answer("[a]lways allow write_file this session: ", "a\r");
    terminal.answer("> ", "@editor write c\r");
    terminal.answer("> ", "write d\r");
    terminal.answer("> ", "exit\r");
    let (status, screen) = terminal.finish();
    assert!(status.success(), "{screen}");
    assert_eq!(screen.matches("Allow? ").count(), 1, "{screen}");
    assert!(
        screen.contains("Agent `writer` wants to run `write_file`"),
        "{screen}"
    );
    assert!(screen.contains("🔄 Handoff: writer → editor"), "{screen}");
    for answer in ["Edited.", "Wrote c.", "Wrote d."] {
        assert!(screen.contains(answer), "{answer}: {screen}");
    }
    for file in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        assert!(project.root.join(file).exists(), "{file}: {screen}");
    }
    model.server.assert_no_violations();
}

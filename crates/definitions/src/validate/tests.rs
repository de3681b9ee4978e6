//! Unit tests of the validation checks.

use super::*;
use crate::parse_str;
use agentctl_core::Scope;
use std::path::Path;

fn report(front: &str) -> ValidationReport {
    // A title keeps its missing-title warning out of reports about other fields.
    let title = if front.contains("title:") {
        ""
    } else {
        "title: T\n"
    };
    let text = format!("---\n{front}{title}---\nPrompt\n");
    let agent = parse_str(
        &text,
        Path::new("a.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap();
    // A default model keeps the no-model warning out of reports about other fields.
    let mut settings = Settings::default();
    settings.agents.default_model = Some("sonnet".to_owned());
    validate(&agent, &settings, &Checks::new())
}

fn messages(report: &ValidationReport) -> Vec<String> {
    report.diagnostics().map(ToString::to_string).collect()
}

#[test]
fn a_good_agent_passes_every_check() {
    let r = report(
        "name: good-agent\ndescription: d\nmodel: sonnet\ntools: [read_file, 'mcp.gh.*']\nmcp:\n  inline:\n    gh: {command: gh-mcp}\n",
    );
    assert!(r.valid, "{:?}", messages(&r));
    assert_eq!(r.passed(), 7);
    assert_eq!(messages(&r), Vec::<String>::new());
}

#[test]
fn memory_tools_in_tool_lists() {
    // Declared keys and the tools allowed: nothing to say.
    let r = report(
        "name: a\ndescription: d\ntools: [read_file, memory_get, memory_set]\nmemory:\n  session: [fix]\n",
    );
    assert_eq!(messages(&r), Vec::<String>::new());
    // Keys declared, the tools not listed: the declaration brings them.
    let r = report("name: a\ndescription: d\ntools: [read_file]\nmemory:\n  session: [fix]\n");
    assert_eq!(messages(&r), Vec::<String>::new());
    // Keys declared, but the deny list removes a tool.
    let r = report(
        "name: a\ndescription: d\ntools:\n  allow: [read_file]\n  deny: [memory_set]\nmemory:\n  session: [fix]\n",
    );
    assert_eq!(
        messages(&r),
        [
            "a.md:8:3: field `memory.session`: the session memory keys cannot be read or set: tools.deny (tools.deny[0] `memory_set`) removes `memory_set`; drop the entry, or the declaration"
        ]
    );
    // The tools named without keys.
    let r = report("name: a\ndescription: d\ntools: [memory_get]\n");
    let m = messages(&r);
    assert_eq!(m.len(), 1);
    assert!(
        m[0].contains("`memory_get` is only offered to agents that declare `memory.session` keys"),
        "{}",
        m[0]
    );
    assert!(r.valid);
}

#[test]
fn kebab_case() {
    assert!(is_kebab_case("code-reviewer2"));
    assert!(!is_kebab_case("Code"));
    assert!(!is_kebab_case("a--b"));
    assert!(!is_kebab_case("-a"));
}

#[test]
fn long_term_memory_backends_are_checked_where_written() {
    // The seed's shape passes.
    let r = report(
        "name: a\ndescription: d\nmemory:\n  session: [current_task]\n  long_term:\n    backend: vector_store\n    config:\n      index_name: debug_knowledge\n      embedding_model: openai:text-embedding-3-small\n",
    );
    assert_eq!(messages(&r), Vec::<String>::new());
    assert!(r.valid);
    // An unknown backend, at its line and column, naming the supported ones.
    let r = report("name: a\ndescription: d\nmemory:\n  long_term:\n    backend: redis\n");
    assert_eq!(
        messages(&r),
        [
            "a.md:6:5: field `memory.long_term.backend`: unknown long-term memory backend `redis`: use sqlite, vector_store, filesystem (sqlite is the default; filesystem is the same embedded store)"
        ]
    );
    assert!(!r.valid);
    let agent = parse_str(
        "---\nname: a\nmemory:\n  longTerm: redis\n---\nP\n",
        Path::new("a.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap();
    let errors: Vec<String> = definition_errors(&agent, &Checks::new())
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(
            "a.md:4:3: field `memory.longTerm.backend`: unknown long-term memory backend `redis`"
        ),
        "{}",
        errors[0]
    );
    // vector_store needs an embedding model.
    let r = report(
        "name: a\ndescription: d\nmemory:\n  longTerm:\n    backend: vector_store\n    config:\n      index_name: k\n",
    );
    let m = messages(&r);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with("a.md:7:5: field `memory.longTerm.config.embedding_model`: backend `vector_store` needs `config.embedding_model`"),
        "{}",
        m[0]
    );
    // An embedding model sqlite ignores is a warning.
    let r = report(
        "name: a\ndescription: d\nmemory:\n  longTerm:\n    config:\n      embedding_model: m\n",
    );
    assert!(r.valid);
    assert!(
        messages(&r)[0]
            .contains("backend `sqlite` searches by keyword and ignores `embedding_model`")
    );
}

#[test]
fn embedding_models_resolve_to_a_provider_with_embeddings() {
    let r = report(
        "name: a\ndescription: d\nmemory:\n  longTerm:\n    backend: vector_store\n    config:\n      embedding_model: anthropic:claude-haiku-4-5\n",
    );
    let m = messages(&r);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with("a.md:8:7: field `memory.longTerm.config.embedding_model`: embedding model `anthropic:claude-haiku-4-5`: provider `anthropic` has no embeddings API"),
        "{}",
        m[0]
    );
    let r = report(
        "name: a\ndescription: d\nmemory:\n  longTerm:\n    backend: vector_store\n    config:\n      embedding_model: nope:x\n",
    );
    assert!(
        messages(&r)[0].contains("embedding model: unknown provider `nope`"),
        "{:?}",
        messages(&r)
    );
    for model in [
        "text-embedding-3-small",
        "ollama:nomic-embed-text",
        "gemini-embedding-001",
    ] {
        let r = report(&format!(
            "name: a\ndescription: d\nmemory:\n  longTerm:\n    backend: vector_store\n    config:\n      embedding_model: {model}\n"
        ));
        assert_eq!(messages(&r), Vec::<String>::new(), "{model}");
    }
}

#[test]
fn long_term_tools_in_tool_lists() {
    let r = report(
        "name: a\ndescription: d\ntools: [read_file, remember, recall]\nmemory:\n  longTerm: true\n",
    );
    assert_eq!(messages(&r), Vec::<String>::new());
    let r =
        report("name: a\ndescription: d\ntools: [read_file, recall]\nmemory:\n  longTerm: true\n");
    assert_eq!(messages(&r), Vec::<String>::new());
    let r = report("name: a\ndescription: d\ntools: {deny: ['re*']}\nmemory:\n  long_term: true\n");
    assert_eq!(
        messages(&r),
        [
            "a.md:6:3: field `memory.long_term`: the long-term memory cannot be used: tools.deny (tools.deny[0] `re*`) removes `remember` and `recall`; drop the entry, or the declaration"
        ]
    );
    let r = report("name: a\ndescription: d\ntools: [remember]\n");
    let m = messages(&r);
    assert_eq!(m.len(), 1);
    assert!(
        m[0].contains("`remember` is only offered to agents that declare `memory.longTerm`"),
        "{}",
        m[0]
    );
}

#[test]
fn an_agent_named_main_is_told_it_collides_with_the_main_conversation() {
    let r = report("name: main\ndescription: d\n");
    assert!(r.valid);
    assert_eq!(
        messages(&r),
        [
            "a.md:2:1: field `name`: `main` is the name of the main conversation (`agentctl chat`) in the session timeline: pick another name so the two can be told apart"
        ]
    );
}

#[test]
fn a_handoff_is_offered_whatever_the_allow_list_says() {
    // The allow list names built-in tools only: nothing to say, the handoff is offered.
    let r = report("name: a\ndescription: d\ntools: [read_file, grep]\nhandoffs:\n  - to: b\n");
    assert_eq!(messages(&r), Vec::<String>::new());
    // Naming the handoff tool too is redundant, not unknown.
    let r =
        report("name: a\ndescription: d\ntools: [read_file, handoff_to_b]\nhandoffs:\n  - to: b\n");
    assert_eq!(messages(&r), Vec::<String>::new());
}

#[test]
fn a_denied_handoff_is_a_warning_at_the_handoff() {
    for (deny, entry) in [
        ("[handoff_to_b]", "tools.deny[0] `handoff_to_b`"),
        ("[grep, 'handoff_*']", "tools.deny[1] `handoff_*`"),
        ("['*']", "tools.deny[0] `*`"),
    ] {
        let r = report(&format!(
            "name: a\ndescription: d\ntools:\n  allow: [read_file]\n  deny: {deny}\nhandoffs:\n  - to: c\n  - to: b\n"
        ));
        assert!(r.valid, "{deny}");
        let m = messages(&r);
        let expected = format!(
            "a.md:9:5: field `handoffs[1].to`: the handoff to `b` is never offered: tools.deny ({entry}) removes `handoff_to_b`; drop the entry, or the declaration"
        );
        assert!(m.contains(&expected), "{deny}: {m:#?}");
        // `*` removes the other handoff too; a named entry only its own.
        let other = m.iter().any(|m| m.contains("`handoffs[0].to`"));
        assert_eq!(other, deny != "[handoff_to_b]", "{deny}: {m:#?}");
    }
}

#[test]
fn a_handoff_tool_without_its_handoff_names_nothing() {
    let r =
        report("name: a\ndescription: d\ntools: [read_file, handoff_to_b]\nhandoffs:\n  - to: c\n");
    assert_eq!(
        messages(&r),
        [
            "a.md:4:20: field `tools.allow[1]`: `handoff_to_b` exists only for a `handoffs:` entry to `b`, and this agent declares none: add `handoffs: [{to: b}]` to offer it"
        ]
    );
}

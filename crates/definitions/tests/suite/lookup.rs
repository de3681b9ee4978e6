//! `Discovery::require`: the runnable agent of a name, or why there is none.

use agentctl_config::Locations;
use agentctl_core::SourceFormat;
use agentctl_definitions::{AgentLookupError, Checks, ErrorKind, discover};
use std::path::{Path, PathBuf};

struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Project {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("p");
        let home = tmp.path().join("h");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Self {
            _tmp: tmp,
            root,
            home,
        }
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = if let Some(rest) = relative.strip_prefix("~/") {
            self.home.join(rest)
        } else {
            self.root.join(relative)
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn locations(&self) -> Locations {
        Locations {
            agentctl_home: self.home.join(".agentctl"),
            user_home: Some(self.home.clone()),
            project_root: Some(self.root.clone()),
        }
    }
}

fn agent(name: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: d\n{extra}---\nPrompt\n")
}

fn messages(error: &AgentLookupError) -> Vec<String> {
    error
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn an_agent_with_errors_is_found_but_never_runnable() {
    let p = Project::new();
    let broken = p.write(
        ".agentctl/agents/broken.md",
        &agent("broken", "temperature: 7\nmaxTurns: 0\n"),
    );
    p.write(".agentctl/agents/good.md", &agent("good", ""));
    let found = discover(&p.locations(), &Checks::new());
    assert_eq!(found.require("good").unwrap().name(), "good");
    assert!(found.get("broken").is_none());
    assert_eq!(found.agents.len(), 1);
    assert_eq!(found.invalid.len(), 1);
    let error = found.require("broken").unwrap_err();
    let AgentLookupError::Invalid { path, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(path, &broken);
    let b = broken.display();
    assert_eq!(
        messages(&error),
        [
            format!("{b}:4:1: field `temperature`: temperature 7 is outside 0..=2"),
            format!("{b}:5:1: field `maxTurns`: maxTurns is 0: the agent could never answer"),
        ]
    );
    assert_eq!(error.to_string(), messages(&error).join("\n"));
    // Still there to be edited or deleted.
    assert_eq!(found.all_named("broken").count(), 1);
    assert_eq!(found.similar_names("brokn"), ["broken"]);
}

#[test]
fn non_finite_temperatures_and_bad_names_are_errors_in_every_format() {
    let p = Project::new();
    p.write(
        ".agentctl/agents/nan.md",
        &agent("nan", "temperature: .nan\n"),
    );
    p.write(
        ".gemini/agents/inf.md",
        &agent("inf", "temperature: 1e40\n"),
    );
    p.write(".claude/agents/upper.md", &agent("Code Reviewer", ""));
    p.write(".gemini/agents/snake.md", &agent("code_mapper", ""));
    let found = discover(&p.locations(), &Checks::new());
    let nan = messages(&found.require("nan").unwrap_err());
    assert!(
        nan[0].ends_with(
            "nan.md:4:1: field `temperature`: temperature NaN is not a number from 0 to 2"
        ),
        "{nan:?}"
    );
    let inf = messages(&found.require("inf").unwrap_err());
    assert!(
        inf[0].ends_with("field `temperature`: temperature inf is not a number from 0 to 2"),
        "{inf:?}"
    );
    let upper = messages(&found.require("Code Reviewer").unwrap_err());
    assert!(
        upper[0].ends_with(
            "upper.md:2:1: field `name`: `Code Reviewer` is not a valid name: use kebab-case (lowercase letters, digits and hyphens, up to 64 characters)"
        ),
        "{upper:?}"
    );
    // Gemini CLI names may use underscores.
    assert!(found.require("code_mapper").is_ok());
}

#[test]
fn an_invalid_project_agent_hides_the_global_one_of_its_name() {
    let p = Project::new();
    p.write(
        ".agentctl/agents/fixer.md",
        &agent("fixer", "temperature: 3\n"),
    );
    let global = p.write("~/.agentctl/agents/fixer.md", &agent("fixer", ""));
    let found = discover(&p.locations(), &Checks::new());
    assert!(matches!(
        found.require("fixer"),
        Err(AgentLookupError::Invalid { .. })
    ));
    assert_eq!(found.shadowed.len(), 1);
    assert_eq!(found.shadowed[0].agent.path(), global);
    assert_eq!(found.all_named("fixer").count(), 2);
}

#[test]
fn a_file_that_failed_to_load_is_the_answer_for_its_name() {
    let p = Project::new();
    // Found by file stem.
    p.write(
        ".agentctl/agents/stem.md",
        "---\nname: stem\nmaxTurns: ten\n---\nP\n",
    );
    // Found by the `name:` written in it, though the YAML is broken further down.
    let declared = p.write(
        ".claude/agents/file-name.md",
        "---\nname: \"declared\"\ndescription: [unclosed\n---\nP\n",
    );
    let found = discover(&p.locations(), &Checks::new());
    let error = found.require("stem").unwrap_err();
    assert!(matches!(error, AgentLookupError::Unloadable { .. }));
    assert!(
        error.to_string().ends_with(
            "stem.md:3:11: field `maxTurns`: invalid type: string \"ten\", expected u32"
        ),
        "{error}"
    );
    let AgentLookupError::Unloadable { errors, .. } = found.require("declared").unwrap_err() else {
        panic!()
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path, declared);
    assert_eq!(errors[0].kind, ErrorKind::Yaml);
}

#[test]
fn an_agent_that_loaded_wins_over_a_broken_file_of_its_name() {
    let p = Project::new();
    p.write(".agentctl/agents/helper.md", "---\nname: [\n---\nP\n");
    p.write("~/.claude/agents/helper.md", &agent("helper", ""));
    let found = discover(&p.locations(), &Checks::new());
    let helper = found.require("helper").unwrap();
    assert_eq!(helper.definition.source.format, SourceFormat::Claude);
}

#[test]
fn an_unknown_name_suggests_close_ones_as_data() {
    let p = Project::new();
    p.write(
        ".agentctl/agents/code-reviewer.md",
        &agent("code-reviewer", ""),
    );
    let found = discover(&p.locations(), &Checks::new());
    assert_eq!(
        found.require("code-reviwer").unwrap_err(),
        AgentLookupError::NotFound {
            name: "code-reviwer".into(),
            similar: vec!["code-reviewer".into()],
        }
    );
    let none = found.require("zzz").unwrap_err();
    assert_eq!(none.to_string(), "no agent named `zzz`");
    assert!(none.diagnostics().is_empty());
    assert_eq!(none.name(), "zzz");
}

#[test]
fn an_unknown_kind_is_a_warning_only() {
    let p = Project::new();
    p.write(
        ".agentctl/agents/k.md",
        &agent("k", "kind: workflow\ntitle: K\nmodel: sonnet\n"),
    );
    let found = discover(&p.locations(), &Checks::new());
    let k = found.require("k").unwrap();
    let report =
        agentctl_definitions::validate(k, &agentctl_core::Settings::default(), &Checks::new());
    assert!(report.valid);
    let warnings: Vec<String> = report.diagnostics().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [format!(
            "{}:4:1: field `kind`: unknown kind `workflow`: expected `agent` (or Gemini CLI's `local`/`remote`); the file is read as an agent",
            Path::new(&p.root).join(".agentctl/agents/k.md").display()
        )]
    );
}

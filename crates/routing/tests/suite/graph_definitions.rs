//! Graph agents: the seed's `debug-flow.md`, graph files in `.agentctl/graphs` and
//! `$AGENTCTL_HOME/graphs`, located graph issues in `agents validate`, node agents checked
//! against the discovered ones, and broken graph files. (Moved from agentctl-definitions: the
//! graph checks are routing's [`RoutingCheck`], registered with discovery and validation.)

use agentctl_config::Locations;
use agentctl_core::{Scope, Settings, SourceFormat};
use agentctl_definitions::{
    AgentLookupError, Check, Checks, Discovery, ErrorKind, LoadedAgent, ValidationReport,
    parse_graph_str, parse_str,
};
use agentctl_guardrails::GuardrailsCheck;
use agentctl_routing::{Graph, RoutingCheck, render_text};
use std::path::{Path, PathBuf};

/// The semantic checks `agentctl_session::semantic_checks` assembles.
fn checks() -> Checks {
    Checks::new()
        .with(GuardrailsCheck::default())
        .with(RoutingCheck)
}

fn discover(locations: &Locations) -> Discovery {
    agentctl_definitions::discover(locations, &checks())
}

fn validate(agent: &LoadedAgent, settings: &Settings) -> ValidationReport {
    agentctl_definitions::validate(agent, settings, &checks())
}

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

    /// Writes `text` at `relative` (under the project, or under the agentctl home for `~/`).
    fn write(&self, relative: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = match relative.strip_prefix("~/") {
            Some(rest) => self.home.join(".agentctl").join(rest),
            None => self.root.join(relative),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn discover(&self) -> Discovery {
        discover(&Locations {
            agentctl_home: self.home.join(".agentctl"),
            user_home: Some(self.home.clone()),
            project_root: Some(self.root.clone()),
        })
    }

    /// The seed's three agents.
    fn with_seed_agents(self) -> Self {
        for name in ["debug-analyzer", "code-fixer", "code-reviewer"] {
            self.write(
                &format!(".agentctl/agents/{name}.md"),
                format!("---\nname: {name}\ndescription: d\n---\nYou are {name}.\n"),
            );
        }
        self
    }
}

/// The seed's `debug-flow.md` (seed 002 §4.1.5) with the output keys its conditions read. No
/// body: a graph agent needs no prompt.
const DEBUG_FLOW_MD: &str = "---
name: debug-flow
description: Analyze a bug, fix it when that can be done automatically, review the fix
graph:
  entry: analyzer
  nodes:
    - name: analyzer
      agent: debug-analyzer
      output: analysis
    - name: fixer
      agent: code-fixer
      output: fix
    - name: reviewer
      agent: code-reviewer
  edges:
    - from: analyzer
      to: fixer
      condition: analysis.can_auto_fix
    - from: fixer
      to: reviewer
      condition: fix.applied
    - from: analyzer
      to: END
      condition: analysis.needs_human
---
";

fn check<'a>(report: &'a ValidationReport, name: &str) -> &'a Check {
    report
        .checks
        .iter()
        .find(|check| check.name == name)
        .unwrap_or_else(|| panic!("no check {name:?} in {report:#?}"))
}

fn messages(report: &ValidationReport) -> Vec<String> {
    report.diagnostics().map(ToString::to_string).collect()
}

fn native(text: &str, path: &str) -> LoadedAgent {
    parse_str(text, Path::new(path), SourceFormat::Native, Scope::Project).unwrap()
}

#[test]
fn the_seed_debug_flow_is_a_valid_graph_agent() {
    let project = Project::new().with_seed_agents();
    let path = project.write(".agentctl/agents/debug-flow.md", DEBUG_FLOW_MD);
    let found = project.discover();
    let agent = found.require("debug-flow").unwrap();
    assert_eq!(agent.path(), path);
    let report = found.validate(agent, &Settings::default(), &checks());
    assert!(report.valid, "{:#?}", messages(&report));
    assert_eq!(messages(&report), Vec::<String>::new());
    assert_eq!(
        check(&report, "graph valid").note.as_deref(),
        Some("entry `analyzer`, 3 node(s), 3 edge(s), at most 25 steps")
    );
    assert_eq!(
        check(&report, "prompt not empty").note.as_deref(),
        Some("graph agent: each node's agent has its own prompt")
    );
    assert_eq!(
        check(&report, "model resolvable").note.as_deref(),
        Some("graph agent: each node's agent uses its own model")
    );
    let graph = Graph::from_definition(&agent.definition).unwrap();
    assert!(render_text(&graph).contains("  analyzer → END [if: analysis.needs_human]\n"));
    // Plain agents get no graph check.
    let plain = validate(found.require("code-fixer").unwrap(), &Settings::default());
    assert!(plain.checks.iter().all(|check| check.name != "graph valid"));
}

#[test]
fn graph_issues_are_located_in_the_file() {
    let text = "---
name: broken-flow
description: d
graph:
  entry: analyser
  maxSteps: 0
  nodes:
    - {name: analyzer, agent: debug-analyzer, output: analysis}
    - {name: fixer, agent: code-fixer, output: fix-list}
  edges:
    - from: analyzer
      to: fixer
    - from: analyzer
      to: END
      condition: analysis.needs_human
    - from: fixer
      to: reviewer
      condition: \"fix.applied = true\"
---
";
    let agent = native(text, "broken-flow.md");
    let report = validate(&agent, &Settings::default());
    assert!(!report.valid);
    let graph = check(&report, "graph valid");
    assert!(!graph.passed);
    assert_eq!(graph.note, None);
    let found: Vec<String> = graph.diagnostics.iter().map(ToString::to_string).collect();
    let expected = [
        "broken-flow.md:6:3: field `graph.maxSteps`: maxSteps is 0",
        "broken-flow.md:9:40: field `graph.nodes[1].output`: `fix-list` is not a valid output key",
        "broken-flow.md:5:3: field `graph.entry`: the entry `analyser` is not a node; did you mean `analyzer`?",
        "broken-flow.md:17:7: field `graph.edges[2].to`: no node named `reviewer` (or END)",
        "broken-flow.md:18:7: field `graph.edges[2].condition`: invalid condition `fix.applied = true`: token recognition error at: '= ' (compare with `==`) at column 13",
        "broken-flow.md:13:7: field `graph.edges[1]`: never taken: edges[0] leaves `analyzer` first",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (message, prefix) in found.iter().zip(expected) {
        assert!(
            message.starts_with(prefix),
            "{message}\n  does not start with\n{prefix}"
        );
    }
    assert_eq!(
        graph.diagnostics.last().unwrap().severity,
        agentctl_definitions::Severity::Warning
    );
    // The other checks are not failed by the graph agent's missing prompt and model.
    assert!(check(&report, "prompt not empty").passed);
    assert!(check(&report, "model resolvable").passed);
}

#[test]
fn a_graph_agent_with_errors_is_found_but_never_runs() {
    let project = Project::new().with_seed_agents();
    project.write(
        ".agentctl/agents/loop-flow.md",
        "---\nname: loop-flow\ndescription: d\ngraph:\n  entry: a\n  nodes:\n    - {name: a, agent: code-fixer}\n  edges:\n    - {from: a, to: a}\n---\n",
    );
    let found = project.discover();
    let error = found.require("loop-flow").unwrap_err();
    assert!(matches!(error, AgentLookupError::Invalid { .. }));
    let text = error.to_string();
    assert!(
        text.ends_with(
            "loop-flow.md:7:8: field `graph.nodes[0].name`: node `a` can never reach END: \
             edges[0] always leads on and every path from there loops; add an edge to END or \
             give edges[0] a condition"
        ),
        "{text}"
    );
}

#[test]
fn node_agents_are_checked_against_the_discovered_agents() {
    let project = Project::new().with_seed_agents();
    project.write(
        ".agentctl/agents/hot.md",
        "---\nname: hot\ndescription: d\ntemperature: 7\n---\nP\n",
    );
    project.write(
        ".agentctl/agents/other-flow.md",
        "---\nname: other-flow\ndescription: d\ngraph:\n  entry: a\n  nodes: [{name: a, agent: code-fixer}]\n---\n",
    );
    let flow = project.write(
        ".agentctl/agents/mixed-flow.md",
        "---
name: mixed-flow
description: d
graph:
  entry: a
  nodes:
    - {name: a, agent: debug-analyzer}
    - {name: b, agent: code-fixr}
    - {name: c, agent: other-flow}
    - {name: d, agent: hot}
  edges:
    - {from: a, to: b, condition: a.x}
    - {from: b, to: c, condition: b.x}
    - {from: c, to: d, condition: c.x}
---
",
    );
    let found = project.discover();
    assert!(found.get("other-flow").is_some());
    let error = found.require("mixed-flow").unwrap_err();
    let AgentLookupError::Invalid { path, errors, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(path, &flow);
    let found_messages: Vec<String> = errors
        .iter()
        .map(|d| {
            d.to_string()
                .replace(&format!("{}:", flow.display()), "mixed-flow.md:")
        })
        .collect();
    let hot = project.root.join(".agentctl/agents/hot.md");
    assert_eq!(
        found_messages,
        [
            "mixed-flow.md:8:17: field `graph.nodes[1].agent`: node `b` runs `code-fixr`, and no agent has that name; did you mean `code-fixer`?".to_owned(),
            "mixed-flow.md:9:17: field `graph.nodes[2].agent`: node `c` runs `other-flow`, which is a graph agent: write `graph: other-flow` to run it as a subgraph".to_owned(),
            format!("mixed-flow.md:10:17: field `graph.nodes[3].agent`: node `d` runs `hot`, which cannot run: {}:4:1: field `temperature`: temperature 7 is outside 0..=2", hot.display()),
        ]
    );
    // `agents validate` reports the same, through the discovery; `validate` alone cannot know.
    let agent = &found.get_invalid("mixed-flow").unwrap().agent;
    let report = found.validate(agent, &Settings::default(), &checks());
    assert_eq!(check(&report, "graph valid").diagnostics.len(), 3);
    assert!(!report.valid);
    let alone = validate(agent, &Settings::default());
    assert!(alone.valid, "{:#?}", messages(&alone));
}

#[test]
fn graph_files_load_from_the_project_and_the_home() {
    let project = Project::new().with_seed_agents();
    // The top-level form, in YAML.
    let yaml = project.write(
        ".agentctl/graphs/debug-flow.yaml",
        "description: The seed's flow\nentry: analyzer\nnodes:\n  - {name: analyzer, agent: debug-analyzer, output: analysis}\n  - {name: fixer, agent: code-fixer, output: fix}\nedges:\n  - {from: analyzer, to: fixer, condition: analysis.can_auto_fix}\nmaxSteps: 4\n",
    );
    // The nested form in Markdown; the body is the description.
    project.write(
        ".agentctl/graphs/review.md",
        "---\ngraph:\n  entry: reviewer\n  nodes: [{name: reviewer, agent: code-reviewer}]\n---\nReview a change.\n",
    );
    // A global graph, and one shadowed by the project's.
    project.write(
        "~/graphs/nightly.yml",
        "name: nightly\ngraph:\n  entry: a\n  nodes: [{name: a, agent: code-reviewer}]\n",
    );
    let global = project.write(
        "~/graphs/debug-flow.yml",
        "entry: a\nnodes: [{name: a, agent: code-reviewer}]\n",
    );
    let found = project.discover();
    assert!(found.errors.is_empty(), "{:?}", found.errors);
    assert!(found.invalid.is_empty(), "{:?}", found.invalid);

    let flow = found.require("debug-flow").unwrap();
    assert_eq!(flow.path(), yaml);
    assert_eq!(flow.definition.source.scope, Scope::Project);
    assert_eq!(
        flow.definition.spec.description.as_deref(),
        Some("The seed's flow")
    );
    let graph = Graph::from_definition(&flow.definition).unwrap();
    assert_eq!(graph.max_steps(), 4);
    assert_eq!(flow.locate("graph.edges[0].condition"), (7, 33));
    assert_eq!(flow.locate("graph.maxSteps"), (8, 1));
    let shadowed: Vec<&Path> = found.shadowed.iter().map(|s| s.agent.path()).collect();
    assert_eq!(shadowed, [global.as_path()]);

    let review = found.require("review").unwrap();
    assert_eq!(
        review.definition.spec.description.as_deref(),
        Some("Review a change.")
    );
    assert_eq!(review.definition.system_prompt, "Review a change.");
    let nightly = found.require("nightly").unwrap();
    assert_eq!(nightly.definition.source.scope, Scope::Global);

    let report = found.validate(flow, &Settings::default(), &checks());
    assert!(report.valid, "{:#?}", messages(&report));
    assert_eq!(report.format, Some(SourceFormat::Native));
}

#[test]
fn a_project_agent_file_shadows_a_graph_file_of_the_same_name() {
    let project = Project::new().with_seed_agents();
    let file = project.write(".agentctl/agents/debug-flow.md", DEBUG_FLOW_MD);
    let graph = project.write(
        ".agentctl/graphs/debug-flow.yaml",
        "entry: a\nnodes: [{name: a, agent: code-reviewer}]\n",
    );
    let found = project.discover();
    assert_eq!(found.require("debug-flow").unwrap().path(), file);
    assert_eq!(found.shadowed[0].agent.path(), graph);
}

#[test]
fn broken_graph_files_are_located() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "nodes.yaml",
            "entry: a\nnodes:\n  - {name: a, agnt: x}\n",
            "nodes.yaml:3:15: field `nodes[0]`: unknown field `agnt`, expected one of `name`, `agent`, `graph`, `output`",
        ),
        (
            "both.yaml",
            "graph:\n  entry: a\n  nodes: [{name: a, agent: x}]\nedges: []\n",
            "both.yaml:4:1: field `edges`: `edges` is outside `graph:`: write the graph's fields either under `graph:` or at the top level, not both",
        ),
        (
            "none.yaml",
            "name: none\ndescription: d\n",
            "none.yaml:1:1: field `graph`: the file declares no graph: write the graph under `graph:`",
        ),
        (
            "empty.yml",
            "# nothing yet\n",
            "empty.yml:1:1: field `graph`: the file is empty",
        ),
        (
            "typo.yaml",
            "entry: a\nnodez: []\n",
            "typo.yaml:2:1: unknown field `nodez`, expected one of",
        ),
        (
            "syntax.md",
            "---\nentry: a\nnodes: [{name: a, agent: x}\n---\nBody\n",
            "syntax.md:4:",
        ),
        (
            "steps.yaml",
            "entry: a\nnodes: [{name: a, agent: x}]\nmaxSteps: many\n",
            "steps.yaml:3:11: field `maxSteps`: invalid type: string \"many\", expected u32",
        ),
        (
            "no-front-matter.md",
            "entry: a\n",
            "no-front-matter.md:1:1: no front matter",
        ),
    ];
    for (file, text, expected) in cases {
        let error = parse_graph_str(text, Path::new(file), Scope::Project).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with(expected),
            "{file}: {message}\n  does not start with\n{expected}"
        );
    }
    // Aliases that expand to a huge document are refused before anything expands them.
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
    let error = parse_graph_str(bomb, Path::new("bomb.yaml"), Scope::Project).unwrap_err();
    assert_eq!(error.kind, ErrorKind::AliasExpansion);
    // A large file is refused as such.
    let large = format!("entry: a\ndescription: {}\n", "x".repeat(70 * 1024));
    let error = parse_graph_str(&large, Path::new("large.yaml"), Scope::Project).unwrap_err();
    assert_eq!(error.kind, ErrorKind::FrontMatterTooLarge);
}

#[test]
fn broken_graph_files_are_reported_by_discovery_and_lookup() {
    let project = Project::new().with_seed_agents();
    project.write(
        ".agentctl/graphs/flaky.yaml",
        "name: flaky-flow\nentry: [\n",
    );
    project.write(
        ".agentctl/graphs/latin.yaml",
        b"entry: caf\xe9\n".as_slice(),
    );
    project.write(".agentctl/graphs/notes.txt", "not a graph");
    let found = project.discover();
    assert_eq!(found.errors.len(), 2, "{:?}", found.errors);
    assert_eq!(found.errors[1].kind, ErrorKind::NotUtf8);
    // Looked up by its declared name or by its file stem, the error is the file's.
    for name in ["flaky-flow", "flaky"] {
        let error = found.require(name).unwrap_err();
        assert!(
            matches!(error, AgentLookupError::Unloadable { .. }),
            "{name}: {error:?}"
        );
        assert!(error.to_string().contains("flaky.yaml:"), "{error}");
    }
}

#[test]
fn graph_file_names_follow_agent_names() {
    let project = Project::new().with_seed_agents();
    project.write(
        ".agentctl/graphs/Debug_Flow.yaml",
        "entry: a\nnodes: [{name: a, agent: code-reviewer}]\n",
    );
    let found = project.discover();
    let invalid = found.get_invalid("Debug_Flow").unwrap();
    assert!(
        invalid.errors[0]
            .to_string()
            .contains("`Debug_Flow` is not a valid name: use kebab-case"),
        "{:?}",
        invalid.errors
    );
}

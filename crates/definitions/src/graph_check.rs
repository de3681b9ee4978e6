//! Graph agents in validation and discovery: the `graph valid` check, located at the fields
//! of the `graph:` block, and the nodes' agents checked against the discovered ones.

use crate::discover::{Discovery, InvalidAgent};
use crate::error::{Diagnostic, Severity};
use crate::parse::LoadedAgent;
use crate::validate::{Check, ValidationReport, validate_checks};
use agentctl_core::Settings;
use agentctl_guardrails::ValidatorRegistry;
use agentctl_routing::{Graph, GraphIssue, IssueSeverity, NodeAgent, check_node_agents};

/// The `graph valid` check of a graph agent (`None` for a plain agent): [`Graph::compile`]'s
/// issues, and with `discovery` the nodes' agents, each located at its field in the file
/// (`graph.edges[2].condition`).
pub(crate) fn graph_valid(agent: &LoadedAgent, discovery: Option<&Discovery>) -> Option<Check> {
    let spec = agent.definition.spec.graph.as_ref()?;
    let (issues, note) = match Graph::compile(agent.name(), spec) {
        Ok(graph) => {
            let mut issues = graph.warnings().to_vec();
            if let Some(discovery) = discovery {
                issues.extend(graph.check_agents(&|name| node_agent(discovery, name)));
            }
            let note = format!(
                "entry `{}`, {} node(s), {} edge(s), at most {} steps",
                spec.entry,
                spec.nodes.len(),
                spec.edges.len(),
                graph.max_steps()
            );
            (issues, Some(note))
        }
        Err(issues) => {
            let mut issues = issues.0;
            if let Some(discovery) = discovery {
                issues.extend(check_node_agents(spec, &|name| node_agent(discovery, name)));
            }
            (issues, None)
        }
    };
    let diagnostics: Vec<Diagnostic> = issues.iter().map(|issue| located(agent, issue)).collect();
    let passed = diagnostics.iter().all(|d| d.severity != Severity::Error);
    Some(Check::new(
        "graph valid",
        diagnostics,
        note.filter(|_| passed),
    ))
}

/// The errors that make a graph agent unrunnable whatever the other agents are (for
/// [`definition_errors`](crate::validate::definition_errors)).
pub(crate) fn graph_errors(agent: &LoadedAgent) -> Vec<Diagnostic> {
    graph_valid(agent, None)
        .map(|check| check.diagnostics)
        .unwrap_or_default()
        .into_iter()
        .filter(|diagnostic| diagnostic.severity == Severity::Error)
        .collect()
}

fn located(agent: &LoadedAgent, issue: &GraphIssue) -> Diagnostic {
    let severity = match issue.severity {
        IssueSeverity::Error => Severity::Error,
        IssueSeverity::Warning => Severity::Warning,
    };
    agent.diagnostic(severity, &format!("graph.{}", issue.field), &issue.message)
}

/// What `name` finds among the discovered agents, for a graph node.
fn node_agent(discovery: &Discovery, name: &str) -> NodeAgent {
    let effective = discovery
        .get(name)
        .or_else(|| discovery.get_invalid(name).map(|invalid| &invalid.agent));
    if effective.is_some_and(|agent| agent.definition.spec.graph.is_some()) {
        return NodeAgent::Graph;
    }
    let Err(error) = discovery.require(name) else {
        return NodeAgent::Agent;
    };
    let diagnostics = error.diagnostics();
    match diagnostics.split_first() {
        Some((first, [])) => NodeAgent::Unusable {
            reason: first.to_string(),
        },
        Some((first, more)) => NodeAgent::Unusable {
            reason: format!("{first} (and {} more)", more.len()),
        },
        None => NodeAgent::Unknown {
            similar: discovery
                .similar_names(name)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        },
    }
}

/// After discovery: graph agents whose nodes name no runnable plain agent cannot run either;
/// they move to [`Discovery::invalid`] with located errors, so looking them up says why.
pub(crate) fn check_graph_nodes(found: &mut Discovery) {
    let mut failed = Vec::new();
    for (i, agent) in found.agents.iter().enumerate() {
        let Some(check) = agent
            .definition
            .spec
            .graph
            .is_some()
            .then(|| graph_valid(agent, Some(found)))
            .flatten()
        else {
            continue;
        };
        let errors: Vec<Diagnostic> = check
            .diagnostics
            .into_iter()
            .filter(|diagnostic| diagnostic.severity == Severity::Error)
            .collect();
        if !errors.is_empty() {
            failed.push((i, errors));
        }
    }
    for (i, errors) in failed.into_iter().rev() {
        let agent = found.agents.remove(i);
        found.invalid.push(InvalidAgent { agent, errors });
    }
    found
        .invalid
        .sort_by(|a, b| a.agent.name().cmp(b.agent.name()));
}

impl Discovery {
    /// [`validate`](crate::validate) with the other discovered agents known: a graph agent's
    /// `graph valid` check also says which nodes name an agent that is missing, cannot run,
    /// or is itself a graph. This is what `agents validate` runs.
    ///
    /// ```
    /// use agentctl_core::{Scope, Settings, SourceFormat};
    /// use agentctl_definitions::{AgentDir, discover_in};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("flow.md"), "---\nname: flow\ndescription: d\ngraph:\n  entry: a\n  nodes:\n    - {name: a, agent: helpr}\n---\n")?;
    /// std::fs::write(dir.path().join("helper.md"), "---\nname: helper\ndescription: d\n---\nHelp.\n")?;
    /// let found = discover_in(&[AgentDir { path: dir.path().into(), format: SourceFormat::Native, scope: Scope::Project, recursive: false, graphs: false }]);
    /// let flow = &found.get_invalid("flow").unwrap().agent;
    /// let report = found.validate(flow, &Settings::default());
    /// let graph = report.checks.iter().find(|c| c.name == "graph valid").unwrap();
    /// assert!(!graph.passed);
    /// let diagnostic = graph.diagnostics[0].to_string();
    /// assert!(diagnostic.ends_with("flow.md:7:17: field `graph.nodes[0].agent`: node `a` runs `helpr`, and no agent has that name; did you mean `helper`?"), "{diagnostic}");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn validate(&self, agent: &LoadedAgent, settings: &Settings) -> ValidationReport {
        validate_checks(agent, settings, &ValidatorRegistry::new(), Some(self))
    }
}

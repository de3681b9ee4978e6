//! Routing's checks of agent definitions, registered with `agentctl-definitions`: `when:`
//! conditions compile, `memory.session` keys can be read by conditions, and a graph agent's
//! graph compiles and runs nodes that exist — each problem located at its field in the file.

use crate::condition::Condition;
use crate::graph::{
    Graph, GraphIssue, IssueSeverity, NodeAgent, check_node_agents, check_recursion,
};
use crate::state::check_state_key;
use agentctl_definitions::{
    Check, CheckStage, Diagnostic, Discovery, LoadedAgent, SemanticCheck, Severity,
};

/// The checks routing owns, for a [`Checks`](agentctl_definitions::Checks) set:
///
/// - with the field values, every `handoffs[i].when` is a CEL expression that compiles, and
///   every `memory.session` key is an identifier conditions can read (not reserved, not a name
///   they already have, declared once);
/// - `graph valid`, for a graph agent: [`Graph::compile`]'s issues, and — once the other
///   agents are known — what each node's agent is (missing, unusable, itself a graph).
///
/// ```
/// use agentctl_core::{Scope, Settings, SourceFormat};
/// use agentctl_definitions::{AgentDir, Checks, discover_in};
/// use agentctl_routing::RoutingCheck;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("flow.md"), "---\nname: flow\ndescription: d\ngraph:\n  entry: a\n  nodes:\n    - {name: a, agent: helpr}\n---\n")?;
/// std::fs::write(dir.path().join("helper.md"), "---\nname: helper\ndescription: d\n---\nHelp.\n")?;
/// let checks = Checks::new().with(RoutingCheck);
/// let found = discover_in(&[AgentDir { path: dir.path().into(), format: SourceFormat::Native, scope: Scope::Project, recursive: false, graphs: false, plugin: None }], &checks);
/// let flow = &found.get_invalid("flow").unwrap().agent;
/// let report = found.validate(flow, &Settings::default(), &checks);
/// let graph = report.checks.iter().find(|c| c.name == "graph valid").unwrap();
/// assert!(!graph.passed);
/// let diagnostic = graph.diagnostics[0].to_string();
/// assert!(diagnostic.ends_with("flow.md:7:17: field `graph.nodes[0].agent`: node `a` runs `helpr`, and no agent has that name; did you mean `helper`?"), "{diagnostic}");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RoutingCheck;

impl SemanticCheck for RoutingCheck {
    fn name(&self) -> &'static str {
        "routing"
    }

    fn field_values(&self, agent: &LoadedAgent) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        when_conditions(agent, &mut out);
        memory_keys(agent, &mut out);
        out
    }

    fn check(&self, agent: &LoadedAgent, stage: CheckStage<'_>) -> Option<Check> {
        match stage {
            CheckStage::Load => graph_valid(agent, None),
            CheckStage::Discovered(agents) => graph_valid(agent, Some(agents)),
            CheckStage::Validate { agents, .. } => graph_valid(agent, agents),
            // A stage added later: nothing routing knows to check there.
            _ => None,
        }
    }
}

/// Each `handoffs[i].when` is a CEL expression over the session state; one that does not
/// compile is an error located on the field, with the column inside the expression.
fn when_conditions(agent: &LoadedAgent, out: &mut Vec<Diagnostic>) {
    for (i, handoff) in agent.definition.spec.handoffs.iter().enumerate() {
        let Some(when) = handoff.when.as_deref() else {
            continue;
        };
        if let Err(error) = Condition::check(when) {
            out.push(agent.diagnostic(
                Severity::Error,
                &format!("handoffs[{i}].when"),
                format!(
                    "{error}; `when` is a CEL expression over the session state, such as \
                     `task.status == 'need-review'` or `fix.applied`"
                ),
            ));
        }
    }
}

/// `memory.session` keys are read by conditions as top-level names: each must be a CEL
/// identifier that is not reserved (`task`) nor a name conditions already have.
fn memory_keys(agent: &LoadedAgent, out: &mut Vec<Diagnostic>) {
    let Some(memory) = agent.definition.spec.memory.as_ref() else {
        return;
    };
    for (i, key) in memory.session.iter().enumerate() {
        let field = format!("memory.session[{i}]");
        if let Err(error) = check_state_key(key) {
            out.push(agent.diagnostic(Severity::Error, &field, error.to_string()));
        } else if memory.session[..i].contains(key) {
            out.push(agent.diagnostic(
                Severity::Warning,
                &field,
                format!("`{key}` is declared twice"),
            ));
        }
    }
}

/// The `graph valid` check of a graph agent (`None` for a plain agent): [`Graph::compile`]'s
/// issues, and with `discovery` the nodes' agents, each located at its field in the file
/// (`graph.edges[2].condition`).
fn graph_valid(agent: &LoadedAgent, discovery: Option<&Discovery>) -> Option<Check> {
    let spec = agent.definition.spec.graph.as_ref()?;
    let (issues, note) = match Graph::compile(agent.name(), spec) {
        Ok(graph) => {
            let mut issues = graph.warnings().to_vec();
            if let Some(discovery) = discovery {
                issues.extend(graph.check_agents(&|name| node_agent(discovery, name)));
                issues.extend(subgraph_recursion(agent, spec, discovery));
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
                issues.extend(subgraph_recursion(agent, spec, discovery));
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

/// Nodes whose subgraph leads back to this graph.
fn subgraph_recursion(
    agent: &LoadedAgent,
    spec: &agentctl_core::GraphSpec,
    discovery: &Discovery,
) -> Vec<GraphIssue> {
    check_recursion(agent.name(), spec, &|name| {
        discovery
            .get(name)
            .or_else(|| discovery.get_invalid(name).map(|invalid| &invalid.agent))
            .and_then(|found| found.definition.spec.graph.clone())
    })
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

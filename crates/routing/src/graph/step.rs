//! Choosing the next node: the variables conditions see, the edges tried in file order, and
//! what was decided and why.

use super::{Graph, Kind};
use crate::condition::{ConditionError, ConditionErrorKind};
use agentctl_core::GRAPH_END;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The variables graph conditions are evaluated with: every state key by name (`analysis`,
/// `fix`, `input` …), then the fixed names, which win over state keys of the same name:
///
/// | name | value |
/// |------|-------|
/// | `state` | the whole state as a map: `has(state.fix)` tests whether `fix` is set |
/// | `last` | the output of the node that just ran (`null` when there is none) |
/// | `node` | the name of the node that just ran |
/// | `step` | how many nodes the run has visited, that one included |
///
/// The runner keeps the user's prompt in the state under `input` and each node's output
/// (parsed when it is JSON) under the node's output key.
///
/// ```
/// use agentctl_routing::{Condition, graph_variables};
/// use serde_json::json;
///
/// let state = json!({"input": "fix it", "analysis": {"can_auto_fix": true}});
/// let last = json!({"can_auto_fix": true});
/// let variables = graph_variables(state.as_object().unwrap(), "analyzer", 1, Some(&last));
/// let condition = Condition::parse("analysis.can_auto_fix && last.can_auto_fix && node == 'analyzer' && step == 1 && has(state.input)")?;
/// assert!(condition.evaluate(&variables)?);
/// # Ok::<(), agentctl_routing::ConditionError>(())
/// ```
pub fn graph_variables(
    state: &Map<String, Value>,
    node: &str,
    step: u32,
    last: Option<&Value>,
) -> Map<String, Value> {
    let mut variables = state.clone();
    variables.insert("state".into(), Value::Object(state.clone()));
    variables.insert("last".into(), last.cloned().unwrap_or(Value::Null));
    variables.insert("node".into(), Value::String(node.to_owned()));
    variables.insert("step".into(), Value::from(step));
    variables
}

/// What a condition said when an edge was tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "outcome", content = "reason")]
pub enum ConditionOutcome {
    /// True, or the edge has no condition: the edge is taken.
    True,
    /// False.
    False,
    /// It read a key or field that is not set (``analysis` has no field `needs_human``),
    /// which counts as false.
    Missing(String),
}

/// One edge tried by [`Graph::next`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EdgeOutcome {
    /// The edge's index in the declaration's `edges`.
    pub edge: usize,
    /// The node it goes to, or `END`.
    pub to: String,
    /// Its condition as written (`None` for an edge without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// What the condition said.
    #[serde(flatten)]
    pub outcome: ConditionOutcome,
}

/// Where the graph goes after a node, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transition {
    /// The node that just ran.
    pub from: String,
    /// The next node; `None` when the graph ends (an edge to END, or no edge taken).
    pub to: Option<String>,
    /// The index of the edge taken in the declaration's `edges`; `None` when no edge was.
    pub edge: Option<usize>,
    /// The nodes of a fan-out edge (`to: [a, b]`), which run next in parallel; empty for a
    /// plain edge (then `to` says where the graph goes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parallel: Vec<String>,
    /// The condition of the edge taken, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Every edge tried, in order, the one taken last.
    pub considered: Vec<EdgeOutcome>,
}

impl Transition {
    /// True when the graph ends here.
    pub fn ended(&self) -> bool {
        self.to.is_none() && self.parallel.is_empty()
    }

    /// Why this edge was taken or the graph ended, for people:
    /// `edge to `fixer` [if: analysis.can_auto_fix]`, `edge to END [if: analysis.needs_human]`,
    /// ``no edge from `analyzer` matched: `analysis.can_auto_fix` is false; …``,
    /// `` `reviewer` has no outgoing edges``.
    pub fn reason(&self) -> String {
        if self.edge.is_some() && !self.parallel.is_empty() {
            let to = format!("[{}]", self.parallel.join(", "));
            return match &self.condition {
                Some(condition) => format!("edges to {to} in parallel [if: {condition}]"),
                None => format!("edges to {to} in parallel"),
            };
        }
        if self.edge.is_some() {
            let to = self.to.as_deref().unwrap_or(GRAPH_END);
            let to = if to == GRAPH_END {
                GRAPH_END.to_owned()
            } else {
                format!("`{to}`")
            };
            return match &self.condition {
                Some(condition) => format!("edge to {to} [if: {condition}]"),
                None => format!("edge to {to}"),
            };
        }
        if self.considered.is_empty() {
            return format!("`{}` has no outgoing edges", self.from);
        }
        let tried: Vec<String> = self
            .considered
            .iter()
            .map(|tried| {
                let condition = tried.condition.as_deref().unwrap_or_default();
                match &tried.outcome {
                    ConditionOutcome::False => format!("`{condition}` is false"),
                    ConditionOutcome::Missing(why) => format!("`{condition}`: {why}"),
                    // Not reached: a true condition is taken.
                    ConditionOutcome::True => format!("`{condition}` is true"),
                }
            })
            .collect();
        format!("no edge from `{}` matched: {}", self.from, tried.join("; "))
    }
}

/// Why [`Graph::next`] could not choose.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GraphStepError {
    /// The node is not in the graph.
    #[error("graph `{graph}` has no node `{node}`")]
    UnknownNode {
        /// The graph.
        graph: String,
        /// The node asked about.
        node: String,
    },
    /// An edge's condition failed otherwise than by reading a key that is not set: it did not
    /// evaluate to a boolean, or types did not compare.
    #[error("graph `{graph}`, node `{node}`, edges[{edge}] (to {to}): {error}")]
    Condition {
        /// The graph.
        graph: String,
        /// The node that just ran.
        node: String,
        /// The edge's index in the declaration's `edges`.
        edge: usize,
        /// Where the edge goes.
        to: String,
        /// The evaluation error, with the expression.
        error: Box<ConditionError>,
    },
    /// The graph is a hand-off map, which is drawn but not run.
    #[error(
        "`{graph}` is drawn from its agents' hand-offs, which the model chooses: it is not a \
         graph to run"
    )]
    NotRunnable {
        /// The graph.
        graph: String,
    },
}

impl Graph {
    /// Where to go after node `from`, given the condition `variables`
    /// ([`graph_variables`]): the first edge leaving `from` (in file order) whose condition is
    /// true or that has none. A condition reading a key or field that is not set counts as
    /// false; any other evaluation error is a [`GraphStepError::Condition`].
    pub fn next(
        &self,
        from: &str,
        variables: &Map<String, Value>,
    ) -> Result<Transition, GraphStepError> {
        if matches!(self.kind, Kind::Handoffs { .. }) {
            return Err(GraphStepError::NotRunnable {
                graph: self.name.clone(),
            });
        }
        if self.spec.node(from).is_none() {
            return Err(GraphStepError::UnknownNode {
                graph: self.name.clone(),
                node: from.to_owned(),
            });
        }
        let mut transition = Transition {
            from: from.to_owned(),
            to: None,
            edge: None,
            parallel: Vec::new(),
            condition: None,
            considered: Vec::new(),
        };
        let leaving = self
            .spec
            .edges
            .iter()
            .enumerate()
            .filter(|(_, edge)| edge.from == from);
        for (index, edge) in leaving {
            let outcome = match self.condition(index) {
                None => ConditionOutcome::True,
                Some(condition) => match condition.evaluate(variables) {
                    Ok(true) => ConditionOutcome::True,
                    Ok(false) => ConditionOutcome::False,
                    Err(error) if error.kind == ConditionErrorKind::Missing => {
                        ConditionOutcome::Missing(missing_reason(&error))
                    }
                    Err(error) => {
                        return Err(GraphStepError::Condition {
                            graph: self.name.clone(),
                            node: from.to_owned(),
                            edge: index,
                            to: edge.to.to_string(),
                            error: Box::new(error),
                        });
                    }
                },
            };
            let taken = outcome == ConditionOutcome::True;
            transition.considered.push(EdgeOutcome {
                edge: index,
                to: edge.to.to_string(),
                condition: edge.condition.clone(),
                outcome,
            });
            if taken {
                transition.edge = Some(index);
                transition.condition = edge.condition.clone();
                match edge.to.single() {
                    Some(to) => transition.to = (to != GRAPH_END).then(|| to.to_owned()),
                    None => transition.parallel = edge.to.names().to_vec(),
                }
                break;
            }
        }
        Ok(transition)
    }
}

/// The condition's "missing" message without its advice, which speaks of hand-off memory
/// (`memory_set`): in a graph, keys are set by the nodes that store them.
fn missing_reason(error: &ConditionError) -> String {
    let message = error.message.as_str();
    message
        .rfind(": set it")
        .map_or(message, |cut| &message[..cut])
        .to_owned()
}

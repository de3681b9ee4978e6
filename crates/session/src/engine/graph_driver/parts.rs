//! The parts of a graph run around the driver: which branch a resume or fork takes, what each
//! node's agent is asked, and why an edge was taken.

use crate::graph_run::GraphError;
use crate::session::SessionHandle;
use agentctl_core::{GraphNode, Reducer};
use agentctl_routing::Transition;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// The state key of the graph's input.
pub(super) const INPUT_KEY: &str = "input";

/// `branch`, checked to be a run of `graph`, or the newest branch of `graph`.
pub(super) fn branch_of(
    session: &SessionHandle,
    graph: &str,
    branch: Option<u32>,
) -> Result<u32, GraphError> {
    let found = crate::graph_run::find_branch(session, branch, Some(graph))?;
    if found.graph != graph {
        return Err(GraphError::OtherGraph {
            session: session.id().to_owned(),
            branch: found.branch,
            recorded: found.graph,
            given: graph.to_owned(),
        });
    }
    Ok(found.branch)
}

/// Why the graph went where it did, as the seed's replay shows it: `analysis.can_auto_fix =
/// true` for a condition that held, `default edge` for an edge without one, else why no edge
/// was taken.
pub(super) fn edge_reason(transition: &Transition) -> String {
    match (transition.edge, &transition.condition) {
        (Some(_), Some(condition)) => format!("{condition} = true"),
        (Some(_), None) => "default edge".to_owned(),
        (None, _) => transition.reason(),
    }
}

/// What a node's agent is asked: the graph's input, then the state so far (without the
/// input), so each agent sees what the nodes before it concluded.
pub(super) fn node_prompt(
    graph: &str,
    node: &GraphNode,
    step: u32,
    state: &Map<String, Value>,
) -> String {
    let input = state
        .get(INPUT_KEY)
        .and_then(Value::as_str)
        .unwrap_or_default();
    let rest: Map<String, Value> = state
        .iter()
        .filter(|(key, _)| key.as_str() != INPUT_KEY)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut prompt = input.to_owned();
    if !rest.is_empty() {
        let pretty = serde_json::to_string_pretty(&rest).unwrap_or_default();
        let _ = write!(
            prompt,
            "\n\n---\nGraph `{graph}`, node `{}` (step {step}). The state so far — what the \
             nodes before you concluded:\n```json\n{pretty}\n```",
            node.name
        );
    }
    prompt
}

/// Writes `value` under `key` in `state` as the graph's reducer for the key says: `append`
/// adds to a list (a list written adds each item), `merge` merges an object's fields in (later
/// writes win), `last` and no reducer replace.
pub(super) fn write_key(
    state: &mut Map<String, Value>,
    key: &str,
    value: Value,
    reducer: Option<Reducer>,
) {
    match (reducer, state.get_mut(key)) {
        (Some(Reducer::Append), Some(Value::Array(items))) => match value {
            Value::Array(more) => items.extend(more),
            one => items.push(one),
        },
        (Some(Reducer::Append), Some(existing)) => {
            let first = existing.take();
            let mut items = vec![first];
            match value {
                Value::Array(more) => items.extend(more),
                one => items.push(one),
            }
            *existing = Value::Array(items);
        }
        (Some(Reducer::Append), None) => {
            let items = match value {
                Value::Array(items) => items,
                one => vec![one],
            };
            state.insert(key.to_owned(), Value::Array(items));
        }
        (Some(Reducer::Merge), Some(Value::Object(fields))) => match value {
            Value::Object(more) => fields.extend(more),
            other => {
                state.insert(key.to_owned(), other);
            }
        },
        _ => {
            state.insert(key.to_owned(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn written(writes: &[Value], reducer: Option<Reducer>) -> Value {
        let mut state = Map::new();
        for value in writes {
            write_key(&mut state, "k", value.clone(), reducer);
        }
        state.remove("k").unwrap_or(Value::Null)
    }

    #[test]
    fn reducers_combine_writes_in_order() {
        let writes = [json!("a"), json!(["b", "c"]), json!({"d": 1})];
        assert_eq!(
            written(&writes, Some(Reducer::Append)),
            json!(["a", "b", "c", {"d": 1}])
        );
        assert_eq!(written(&writes, Some(Reducer::Last)), json!({"d": 1}));
        assert_eq!(written(&writes, None), json!({"d": 1}));
        let objects = [json!({"a": 1, "b": 1}), json!({"b": 2, "c": 3})];
        assert_eq!(
            written(&objects, Some(Reducer::Merge)),
            json!({"a": 1, "b": 2, "c": 3})
        );
        // A value that is not an object replaces, as nothing else can merge into it.
        assert_eq!(
            written(&[json!({"a": 1}), json!("text")], Some(Reducer::Merge)),
            json!("text")
        );
        // A key set before without `append` becomes the first item of the list.
        let mut state = Map::new();
        state.insert("k".into(), json!("first"));
        write_key(&mut state, "k", json!("second"), Some(Reducer::Append));
        assert_eq!(state["k"], json!(["first", "second"]));
    }
}

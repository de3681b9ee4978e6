//! The graph executor embedded on its own (`GraphExecutor`): every node a function, no agents.
//! Without a store it runs chains, fan-outs with joins, maps and subgraphs, and says it cannot
//! resume; with checkpoints in a session's store a run that failed part way resumes running
//! only the branch that had not finished, as a session's graph run does.

use agentctl_core::{GraphEvent, GraphSpec};
use agentctl_routing::Graph;
use agentctl_session::{GraphError, GraphExecutor, NodeCall, SessionHandle};
use agentctl_store::SessionChoice;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

fn graph(name: &str, spec: Value) -> Graph {
    let spec: GraphSpec = serde_json::from_value(spec).unwrap();
    Graph::compile(name, &spec).unwrap()
}

/// intake fans out to a, b and c; `join` joins them; `check` maps over `intake.files`.
fn review() -> Graph {
    graph(
        "review",
        json!({
            "entry": "intake",
            "reducers": {"notes": "append"},
            "nodes": [
                {"name": "intake", "agent": "x"},
                {"name": "a", "agent": "x", "output": "notes"},
                {"name": "b", "agent": "x", "output": "notes"},
                {"name": "c", "agent": "x", "output": "notes"},
                {"name": "join", "agent": "x", "join": "all"},
                {"name": "check", "agent": "x", "map": {"over": "intake.files", "as": "file"}}
            ],
            "edges": [
                {"from": "intake", "to": ["a", "b", "c"]},
                {"from": "a", "to": "join"},
                {"from": "b", "to": "join"},
                {"from": "c", "to": "join"},
                {"from": "join", "to": "check", "condition": "size(notes) == 3"},
                {"from": "check", "to": "END"}
            ]
        }),
    )
}

/// What every node answers: the intake lists files, a map element names its file, others
/// their own name.
async fn answer(call: NodeCall) -> Result<Value, String> {
    Ok(match call.node().name.as_str() {
        "intake" => json!({"files": ["x.rs", "y.rs", "z.rs"]}),
        "check" => json!(format!(
            "checked {}",
            call.state()["file"].as_str().unwrap()
        )),
        "join" => json!(call.state()["notes"].as_array().unwrap().len()),
        other => json!(other),
    })
}

#[tokio::test]
async fn a_fan_out_join_and_map_run_without_a_store() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&calls);
    let events = Arc::new(Mutex::new(Vec::new()));
    let heard = Arc::clone(&events);
    let executor = GraphExecutor::new(review(), move |call: NodeCall| {
        seen.lock().unwrap().push(call.node().name.clone());
        answer(call)
    })
    .on_event(move |event| {
        if let GraphEvent::EdgeTaken { from, to, .. } = event {
            heard.lock().unwrap().push(format!("{from} -> {to}"));
        }
    });
    let outcome = executor.run("review this").await.unwrap();
    assert_eq!(outcome.last_node, "check");
    assert_eq!(outcome.session_id, "", "no session: no store");
    // The branches' writes meet at the join in the order the edge names them.
    assert_eq!(outcome.state["notes"], json!(["a", "b", "c"]));
    assert_eq!(outcome.state["join"], json!(3));
    assert_eq!(
        outcome.state["check"],
        json!(["checked x.rs", "checked y.rs", "checked z.rs"])
    );
    assert_eq!(
        outcome.step,
        1 + 3 + 1 + 3,
        "every node visit and map element is a step"
    );
    let calls = calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 1 + 3 + 1 + 3);
    let events = events.lock().unwrap().clone();
    assert_eq!(events[0], "intake -> [a, b, c]");
    assert_eq!(events.last().unwrap(), "check -> END");

    // Nothing was checkpointed, so nothing can be resumed; it says so.
    let error = executor.resume(None).await.unwrap_err();
    assert!(
        matches!(error, GraphError::NotCheckpointed { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("cannot be resumed"), "{error}");
}

#[tokio::test]
async fn a_node_function_error_stops_the_run_naming_the_node() {
    let executor = GraphExecutor::new(review(), |call: NodeCall| async move {
        if call.node().name == "b" {
            return Err("the linter crashed".to_owned());
        }
        answer(call).await
    });
    let error = executor.run("review this").await.unwrap_err();
    assert_eq!(error.node(), Some("b"));
    assert_eq!(
        error.to_string(),
        "graph `review`, node `b`: the linter crashed"
    );
}

#[tokio::test]
async fn a_subgraph_node_runs_the_graph_it_was_given() {
    let parent = graph(
        "parent",
        json!({
            "entry": "first",
            "nodes": [
                {"name": "first", "agent": "x"},
                {"name": "inner", "graph": "child", "output": "inner"}
            ],
            "edges": [{"from": "first", "to": "inner"}]
        }),
    );
    let child = graph(
        "child",
        json!({"entry": "one", "nodes": [{"name": "one", "agent": "x"}, {"name": "two", "agent": "x"}],
               "edges": [{"from": "one", "to": "two"}]}),
    );
    let executor = GraphExecutor::new(parent.clone(), |call: NodeCall| async move {
        Ok(json!(format!("{}:{}", call.graph(), call.node().name)))
    });
    let missing = executor.run("go").await.unwrap_err();
    assert!(
        missing.to_string().contains("no graph `child`"),
        "{missing}"
    );
    let executor = GraphExecutor::new(parent, |call: NodeCall| async move {
        Ok(json!(format!("{}:{}", call.graph(), call.node().name)))
    })
    .subgraph(child);
    let outcome = executor.run("go").await.unwrap();
    assert_eq!(
        outcome.state["inner"],
        json!({"one": "child:one", "two": "child:two"})
    );
    assert_eq!(outcome.step, 3, "the parent's steps count the subgraph's");
}

#[tokio::test]
async fn with_checkpoints_a_failed_run_resumes_only_the_unfinished_branch() {
    let store = agentctl_session::store::in_memory_store().unwrap();
    let session = SessionHandle::open(
        Arc::clone(&store),
        SessionChoice::New,
        None,
        Default::default(),
    )
    .unwrap();
    let id = session.id().to_owned();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&calls);
    let fail_c = Arc::new(AtomicBool::new(true));
    let failing = Arc::clone(&fail_c);
    let executor = GraphExecutor::new(review(), move |call: NodeCall| {
        let name = call.node().name.clone();
        seen.lock().unwrap().push(name.clone());
        let fail = name == "c" && failing.load(Ordering::SeqCst);
        async move {
            if fail {
                return Err("crashed".to_owned());
            }
            answer(call).await
        }
    })
    .max_parallel(1)
    .checkpoints(session)
    .unwrap();
    let error = executor.run("review this").await.unwrap_err();
    assert_eq!(error.node(), Some("c"));
    // The start, the intake, and branches a and b: four checkpoints.
    assert_eq!(store.graph_checkpoints(&id, 0).unwrap().len(), 4);
    assert_eq!(calls.lock().unwrap().clone(), ["intake", "a", "b", "c"]);

    calls.lock().unwrap().clear();
    fail_c.store(false, Ordering::SeqCst);
    let outcome = executor.resume(None).await.unwrap();
    assert_eq!(outcome.session_id, id);
    assert_eq!(outcome.state["notes"], json!(["a", "b", "c"]));
    assert_eq!(
        calls.lock().unwrap().clone(),
        ["c", "join", "check", "check", "check"],
        "only the unfinished branch, then the join and the map"
    );
    let finished = executor.resume(None).await.unwrap_err();
    assert!(
        matches!(finished, GraphError::Finished { .. }),
        "{finished}"
    );
}

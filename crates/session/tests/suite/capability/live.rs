//! The pool during real runs of the `task` tool (a strict fake model server, real SQLite): an agent is
//! busy while its task runs and available after (also when the call is cancelled or dropped),
//! a failed one is `error` until the next top-level run, a task no available agent can take
//! gets the STOP report and a `task_stopped` event, and each executor's system prompt ends
//! with its own task's context.

use super::assert_rfc3339;
use crate::suite::task::fixtures::*;
use agentctl_core::ProviderFactory as _;
use agentctl_core::{
    AgentDefinition, ContextMode, Message, ModelRef, ModelRequest, ProviderError, RunEvent,
    RunOptions, Settings, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use agentctl_runtime::Runtime;
use agentctl_session::{ExecutorStatus, ResourcePool, TaskConfig, TaskTool};
use agentctl_store::{NewRun, RunLog as _};
use agentctl_test_support::collect;
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// `agent(name)` allowed only `tools`.
fn agent_with(name: &str, tools: &[&str]) -> AgentDefinition {
    let mut agent = agent(name);
    agent.spec.tools.allow = Some(tools.iter().map(|tool| (*tool).to_owned()).collect());
    agent
}

fn status(pool: &ResourcePool, name: &str) -> ExecutorStatus {
    pool.executor(name).unwrap().status
}

fn system(request: &ModelRequest) -> &str {
    request.system.as_deref().unwrap_or_default()
}

fn tool_messages(request: &ModelRequest) -> usize {
    request
        .messages
        .iter()
        .filter(|message| matches!(message, Message::Tool { .. }))
        .count()
}

/// Tool results of the events, by call id: `(content, is_error)`.
fn results(events: &[RunEvent]) -> std::collections::HashMap<String, (String, bool)> {
    events
        .iter()
        .filter_map(|event| match event {
            RunEvent::ToolResult {
                id,
                content,
                is_error,
                ..
            } => Some((id.clone(), (content.clone(), *is_error))),
            _ => None,
        })
        .collect()
}

/// A tool that waits until `open` is notified (10 s at most, then fails: a test that would
/// otherwise hang fails instead).
struct Gate {
    open: Arc<Notify>,
}

#[async_trait::async_trait]
impl Tool for Gate {
    fn name(&self) -> &str {
        "gate"
    }

    fn description(&self) -> &str {
        "Waits for the test."
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }

    fn risk(&self) -> agentctl_core::RiskLevel {
        agentctl_core::RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::time::timeout(Duration::from_secs(10), self.open.notified())
            .await
            .map(|()| ToolOutput::text("opened"))
            .map_err(|_| ToolError::failed("the gate never opened"))
    }
}

#[tokio::test]
async fn a_task_keeps_its_agent_busy_until_it_ends_cancelled_or_dropped() {
    let fixture = setup(
        TaskConfig::default(),
        vec![
            agent_with("main", &["task"]),
            agent_with("researcher", &["wait", "web_search"]),
        ],
        "dig",
    );
    let reached = Arc::new(Notify::new());
    let wait = FakeTool::new("wait", Behaviour::WaitForCancel(Arc::clone(&reached))).shared();
    let (runtime, _server) = build_runtime(
        &fixture,
        |request| {
            if last_is_user(request) {
                calls(&[("w1", "wait", json!({}))])
            } else {
                text("stopped waiting")
            }
        },
        vec![wait],
    )
    .await;
    let args = json!({"goal": "dig", "agent": "researcher"});
    assert_eq!(
        status(&fixture.tasks.pool(), "researcher"),
        ExecutorStatus::Available
    );

    // Cancelled: busy while the child waits, available once the call returns.
    let cancel = CancellationToken::new();
    let call = call_task(&fixture, &runtime, args.clone(), cancel.clone());
    let observe = async {
        reached.notified().await;
        let pool = fixture.tasks.pool();
        assert_eq!(status(&pool, "researcher"), ExecutorStatus::Busy);
        assert_eq!(pool.summary().busy, 1);
        assert!(!pool.available_capabilities().contains(&"web_search".into()));
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, observe);
    assert_eq!(result.unwrap_err(), ToolError::Cancelled);
    assert_eq!(
        status(&fixture.tasks.pool(), "researcher"),
        ExecutorStatus::Available
    );

    // Dropped mid-run (a timed-out tool call is dropped): the drop guard gives it back.
    let mut call = Box::pin(call_task(
        &fixture,
        &runtime,
        args,
        CancellationToken::new(),
    ));
    tokio::select! {
        biased;
        result = &mut call => panic!("the task ended on its own: {result:?}"),
        () = reached.notified() => {}
    }
    assert_eq!(
        status(&fixture.tasks.pool(), "researcher"),
        ExecutorStatus::Busy
    );
    drop(call);
    assert_eq!(
        status(&fixture.tasks.pool(), "researcher"),
        ExecutorStatus::Available
    );
}

#[tokio::test]
async fn nested_dispatch_sees_the_busy_agent_and_each_executor_gets_its_task_context() {
    let fixture = setup(
        TaskConfig::default(),
        vec![
            agent_with("main", &["task", "read_file"]),
            agent_with("researcher", &["task", "web_search", "read_file"]),
            agent_with("writer", &["write_file", "read_file"]),
        ],
        "document the API",
    );
    let (runtime, server) = build_runtime(
        &fixture,
        |request| match (system(request), last_is_user(request)) {
            (s, true) if s.starts_with("You are main.") => calls(&[(
                "t1",
                "task",
                json!({"goal": "research the API", "agent": "researcher",
                       "capabilities": "web_search", "hints": "look at docs/"}),
            )]),
            (s, true) if s.starts_with("You are researcher.") => calls(&[(
                "t2",
                "task",
                json!({"goal": "write the notes", "requiredCapabilities": ["write_code"]}),
            )]),
            (s, _) if s.starts_with("You are writer.") => text("written"),
            (s, _) if s.starts_with("You are researcher.") => text("researched"),
            _ => text("done"),
        },
        vec![],
    )
    .await;
    let main = agent_with("main", &["task", "read_file"]);
    let result = runtime
        .run_to_completion(
            &main,
            "document the API",
            RunOptions::new().run_id(fixture.parent.id.to_string()),
        )
        .await
        .unwrap();
    assert_eq!(result.text, "done");

    let requests = server.model_requests();
    let researcher = requests
        .iter()
        .find(|r| system(r).starts_with("You are researcher."))
        .unwrap();
    let prompt = system(researcher);
    assert!(
        prompt.starts_with("You are researcher.\n\n# Task context\n\n## Resource pool\n\nAs of "),
        "{prompt}"
    );
    assert_rfc3339(
        &prompt["You are researcher.\n\n# Task context\n\n## Resource pool\n\nAs of ".len()..]
            [..20],
    );
    for line in [
        "- Total: 3\n- Available: 2\n- Busy: 1\n- Error: 0\n",
        "| researcher | busy | read_code, web_search |",
        "| main | available | read_code |",
        "- ID: t1\n- Description: research the API\n- Required capabilities: web_search\n- Assigned agent: researcher\n",
        "This task was dispatched to `researcher`",
    ] {
        assert!(prompt.contains(line), "{line}\n---\n{prompt}");
    }
    // The hint given as one string reached the child's first message.
    assert!(first_user(researcher).contains("## Hints\n\n- look at docs/\n"));

    // The nested dispatch chose the available agent with write_code, and saw the researcher
    // still busy: both are busy in the writer's context.
    let writer = requests
        .iter()
        .find(|r| system(r).starts_with("You are writer."))
        .unwrap();
    let prompt = system(writer);
    for line in [
        "- Available: 1\n- Busy: 2\n",
        "| researcher | busy |",
        "| writer | busy | read_code, write_code |",
        "- ID: t2\n- Description: write the notes\n- Required capabilities: write_code\n- Assigned agent: writer\n",
    ] {
        assert!(prompt.contains(line), "{line}\n---\n{prompt}");
    }

    // Everyone is available again; each task's context is stored with it.
    let pool = fixture.tasks.pool();
    assert_eq!(pool.summary().available, 3, "{pool:?}");
    let kids = children(&fixture);
    let agents: Vec<&str> = kids.iter().map(|kid| kid.agent.as_str()).collect();
    assert_eq!(agents, ["researcher", "writer"]);
    let step = &fixture.store.steps(kids[1].id).unwrap()[0];
    assert_eq!(step.kind, "task");
    assert_eq!(step.content["task_id"], "t2");
    let context = &step.content["capability_context"];
    assert_rfc3339(context["timestamp"].as_str().unwrap());
    assert_eq!(context["task"]["id"], "t2");
    assert_eq!(
        context["task"]["requiredCapabilities"],
        json!(["write_code"])
    );
    assert_eq!(context["assignedTo"], "writer");
    assert_eq!(context["resourcePool"]["busy"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_no_available_agent_can_take_gets_the_stop_report_and_an_event() {
    let fixture = setup(
        TaskConfig::default(),
        vec![
            agent_with("main", &["task"]),
            agent_with("researcher", &["web_search", "gate"]),
        ],
        "research",
    );
    let open = Arc::new(Notify::new());
    let gate = Arc::new(Gate {
        open: Arc::clone(&open),
    }) as Arc<dyn Tool>;
    let (runtime, _server) = build_runtime(
        &fixture,
        |request| match (system(request), last_is_user(request)) {
            (s, true) if s.starts_with("You are main.") => calls(&[
                (
                    "t1",
                    "task",
                    json!({"goal": "search A", "agent": "researcher"}),
                ),
                (
                    "t2",
                    "task",
                    json!({"goal": "search B", "capabilities": ["web_search"]}),
                ),
                (
                    "t3",
                    "task",
                    json!({"goal": "open an issue", "capabilities": "mcp:github"}),
                ),
                (
                    "t4",
                    "task",
                    json!({"goal": "beam me up", "capabilities": ["teleport"]}),
                ),
            ]),
            (s, true) if s.starts_with("You are researcher.") => {
                calls(&[("g1", "gate", json!({}))])
            }
            (s, _) if s.starts_with("You are researcher.") => text("found A"),
            _ => text("reported"),
        },
        vec![gate],
    )
    .await;
    let main = agent_with("main", &["task"]);
    let mut run = runtime.run(
        &main,
        "research",
        RunOptions::new().run_id(fixture.parent.id.to_string()),
    );
    let mut events = Vec::new();
    while let Some(event) = run.next().await {
        // The researcher holds its task until the second task has been stopped.
        if matches!(&event, RunEvent::TaskStopped { id, .. } if id == "t2") {
            open.notify_one();
        }
        events.push(event);
    }
    let stopped: Vec<&RunEvent> = events
        .iter()
        .filter(|event| matches!(event, RunEvent::TaskStopped { .. }))
        .collect();
    assert_eq!(
        stopped,
        [
            &RunEvent::TaskStopped {
                id: "t2".into(),
                task: "search B".into(),
                missing_capabilities: vec!["web_search".into()],
                unavailable_executors: vec!["researcher (busy)".into()],
                reason: "no available agent has the capability web_search".into(),
            },
            &RunEvent::TaskStopped {
                id: "t3".into(),
                task: "open an issue".into(),
                missing_capabilities: vec!["mcp:github".into()],
                unavailable_executors: vec![],
                reason: "no available agent has the capability mcp:github".into(),
            },
        ]
    );
    let results = results(&events);
    let (first, is_error) = &results["t1"];
    assert!(
        !is_error && first.starts_with("found A\n\n[task sub-agent researcher"),
        "{first}"
    );
    let (stop, is_error) = &results["t2"];
    assert!(*is_error);
    assert_eq!(
        stop,
        "STOP: task `t2` was not dispatched: no available agent has the capability web_search.\n\
         Task: search B\n\
         Required capabilities: web_search\n\
         Capability catalog:\n\
         - web_search: 0/1 available; researcher (busy)\n\
         Decision: not enough resources, so the task did not run. Report the missing capability \
         web_search to the user, then wait for an agent to be released or ask the user to add one."
    );
    let (stop, is_error) = &results["t3"];
    assert!(*is_error);
    assert!(
        stop.contains("- mcp:github: 0/0 available (no agent has mcp.github.*)\n"),
        "{stop}"
    );
    let (unknown, is_error) = &results["t4"];
    assert!(*is_error);
    assert!(
        unknown.contains("unknown capability `teleport` in `capabilities`; known: read_code,"),
        "{unknown}"
    );
    // Only the first task ran; its agent is free again.
    assert_eq!(children(&fixture).len(), 1);
    assert_eq!(
        status(&fixture.tasks.pool(), "researcher"),
        ExecutorStatus::Available
    );
}

#[tokio::test]
async fn a_failed_agent_is_error_for_the_rest_of_the_turn_and_available_at_the_next() {
    let fixture = setup(
        TaskConfig::default(),
        vec![
            agent_with("main", &["task"]),
            AgentDefinition {
                spec: agentctl_core::AgentSpec {
                    model: Some("openai:flaky".into()),
                    ..agent_with("flaky", &["read_file"]).spec
                },
                ..agent("flaky")
            },
        ],
        "try",
    );
    let server = FakeServer::openai_routed(|request| {
        if system(request).starts_with("You are flaky.") {
            return text("fine");
        }
        match tool_messages(request) {
            0 => calls(&[("t1", "task", json!({"goal": "a", "agent": "flaky"}))]),
            1 => calls(&[("t2", "task", json!({"goal": "b", "agent": "flaky"}))]),
            _ => text("gave up"),
        }
    })
    .await;
    // The flaky model's provider cannot be built the first time (no key), then can.
    let builds = Arc::new(AtomicUsize::new(0));
    let built = agentctl_providers::BuiltinProviders::new(crate::suite::engine::wire::options(
        &server,
        fixture._dir.path(),
    ));
    let factory = move |model: &ModelRef, settings: &Settings| {
        if model.model == "flaky" && builds.fetch_add(1, Ordering::SeqCst) == 0 {
            return Err(ProviderError::MissingApiKey {
                provider: "openai".into(),
                model: "flaky".into(),
                env_var: "OPENAI_API_KEY".into(),
            });
        }
        built.build(model, settings)
    };
    let mut tools = ToolRegistry::new();
    tools.register_typed(fixture.tasks.clone());
    let runtime = Runtime::new(Settings::default(), factory, tools);
    let main = agent_with("main", &["task"]);

    let turn = |run_id: String| {
        let runtime = runtime.clone();
        let main = main.clone();
        async move {
            let run = runtime.run(&main, "try", RunOptions::new().run_id(run_id));
            results(&collect(run).await)
        }
    };
    let first = turn(fixture.parent.id.to_string()).await;
    let (failed, is_error) = &first["t1"];
    assert!(
        *is_error && failed.starts_with("task stopped (failed):"),
        "{failed}"
    );
    let (stop, is_error) = &first["t2"];
    assert!(*is_error);
    assert!(
        stop.starts_with(
            "STOP: task `t2` was not dispatched: agent `flaky` failed earlier in this turn (error).\n"
        ),
        "{stop}"
    );
    assert!(
        stop.contains("Unavailable agents: flaky (error)\n"),
        "{stop}"
    );
    assert_eq!(
        status(&fixture.tasks.pool(), "flaky"),
        ExecutorStatus::Error
    );

    // The next top-level run resets it: its tasks run.
    let next = fixture
        .store
        .start_run(
            &fixture.session,
            &NewRun::new("main", ContextMode::Isolated),
        )
        .unwrap();
    let second = turn(next.id.to_string()).await;
    for id in ["t1", "t2"] {
        let (answer, is_error) = &second[id];
        assert!(
            !is_error && answer.starts_with("fine\n\n[task sub-agent flaky"),
            "{answer}"
        );
    }
    assert_eq!(
        status(&fixture.tasks.pool(), "flaky"),
        ExecutorStatus::Available
    );
}

#[tokio::test]
async fn the_task_schema_takes_hints_and_capabilities_as_a_string_or_a_list() {
    let fixture = setup(TaskConfig::default(), vec![agent("main")], "x");
    let mut tools = ToolRegistry::new();
    tools.register_typed(fixture.tasks.clone());
    let spec = tools.specs().into_iter().next().unwrap();
    for key in ["hints", "resources", "capabilities"] {
        let property = &spec.parameters["properties"][key];
        assert_eq!(
            property["anyOf"],
            json!([{"type": "string"}, {"type": "array", "items": {"type": "string"}}]),
            "{key}: {property}"
        );
        assert!(property["description"].is_string(), "{key}: {property}");
    }
    let error = TaskTool::new(Arc::clone(&fixture.store) as _, &fixture.session, vec![]);
    let mut registry = ToolRegistry::new();
    registry.register_typed(error);
    let ctx = ToolContext::new(
        "1",
        "main",
        "c",
        std::path::Path::new("."),
        CancellationToken::new(),
    );
    let error = registry
        .get("task")
        .unwrap()
        .call(json!({"goal": "x", "hints": 5}), &ctx)
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("invalid type: integer `5`, expected a string or a list of strings"),
        "{error}"
    );
}

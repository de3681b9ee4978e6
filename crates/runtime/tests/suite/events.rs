//! Event order and results.

use super::support::{Queue, agent, calls, collect, kinds, runtime, text};
use agentctl_core::{ContextMode, Message};
use agentctl_core::{RunEvent, RunOptions, ToolRegistry};
use agentctl_test_support::LookupTool;
use serde_json::json;

#[tokio::test]
async fn text_only_run_events_in_order() {
    let provider = Queue::new(vec![text("Hello there friend")]);
    let runtime = runtime(provider.clone(), ToolRegistry::new());
    let handle = runtime.run(&agent("greeter"), "hi", RunOptions::new().stream(true));
    let run_id = handle.run_id().to_owned();
    let events = collect(handle).await;
    assert_eq!(
        kinds(&events),
        [
            "run_started",
            "model_request",
            "text_delta",
            "text_delta",
            "text_delta",
            "usage",
            "turn_committed",
            "run_finished"
        ]
    );
    let RunEvent::RunStarted {
        run_id: started_id,
        agent,
        model,
        context_mode,
    } = &events[0]
    else {
        panic!()
    };
    assert_eq!(started_id, &run_id);
    assert_eq!(
        (agent.as_str(), model.as_str()),
        ("greeter", "openai:gpt-4o-mini")
    );
    assert_eq!(*context_mode, ContextMode::Isolated);
    let RunEvent::ModelRequest {
        turn,
        message_count,
        tool_count,
        model_context_window,
        prompt_token_budget,
        estimated_prompt_tokens,
    } = &events[1]
    else {
        panic!()
    };
    assert_eq!((*turn, *message_count, *tool_count), (1, 1, 0));
    assert_eq!(
        (*model_context_window, *prompt_token_budget),
        (128_000, 123_904)
    );
    assert!(*estimated_prompt_tokens > 0);
    let RunEvent::RunFinished { result } = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(result.text, "Hello there friend");
    assert_eq!(result.metadata.iterations, 1);
    assert_eq!(result.metadata.tokens_used.input, 10);
    let request = &provider.requests()[0];
    assert_eq!(request.system.as_deref(), Some("You are greeter."));
    assert_eq!(request.model, "gpt-4o-mini");
    assert!(request.stream);
}

#[tokio::test]
async fn unstreamed_text_still_reaches_listeners_once() {
    let provider = Queue::new(vec![text("whole answer")]);
    let events =
        collect(runtime(provider, ToolRegistry::new()).run(&agent("a"), "hi", RunOptions::new()))
            .await;
    let deltas: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            RunEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["whole answer"]);
}

#[tokio::test]
async fn tool_run_events_in_order_and_errors_fed_back() {
    let provider = Queue::new(vec![
        calls(&[
            ("c1", "lookup", json!({"key": "capital"})),
            ("c2", "lookup", json!({"key": "nope"})),
        ]),
        calls(&[
            ("c3", "lookup", json!({"wrong": 1})),
            ("c4", "missing_tool", json!({})),
        ]),
        text("The capital is Paris."),
    ]);
    let mut tools = ToolRegistry::new();
    tools.register_typed(LookupTool);
    let runtime = runtime(provider.clone(), tools);
    let handle = runtime.run(&agent("a"), "capital?", RunOptions::new());
    let events = collect(handle).await;
    assert_eq!(
        kinds(&events),
        [
            "run_started",
            "model_request",
            "usage",
            "tool_call",
            "tool_call",
            "tool_decision",
            "tool_decision",
            "tool_result",
            "tool_result",
            "turn_committed",
            "model_request",
            "usage",
            "tool_call",
            "tool_call",
            "tool_decision",
            "tool_result",
            "tool_result",
            "turn_committed",
            "model_request",
            "text_delta",
            "usage",
            "turn_committed",
            "run_finished"
        ]
    );
    let results: Vec<(String, bool)> = events
        .iter()
        .filter_map(|event| match event {
            RunEvent::ToolResult {
                content, is_error, ..
            } => Some((content.clone(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(results[0], ("Paris".to_owned(), false));
    assert_eq!(results[1], ("no such key: nope".to_owned(), true));
    assert!(
        results[2]
            .0
            .starts_with("invalid arguments for `lookup`: missing field `key`"),
        "{}",
        results[2].0
    );
    assert_eq!(
        results[3],
        (
            "Unknown tool: missing_tool. Available tools: lookup".to_owned(),
            true
        )
    );
    // The model saw the tool spec and, on turn 2, the paired results.
    let requests = provider.requests();
    assert_eq!(requests[0].tools[0].name, "lookup");
    assert_eq!(requests[0].tools[0].parameters["required"], json!(["key"]));
    assert_eq!(requests[1].messages.len(), 4);
    assert!(matches!(
        &requests[1].messages[2],
        Message::Tool { call_id, content, is_error: false, .. } if call_id == "c1" && content == "Paris"
    ));
    assert!(matches!(
        &requests[1].messages[3],
        Message::Tool { is_error: true, .. }
    ));
    let RunEvent::RunFinished { result } = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(result.metadata.iterations, 3);
    assert_eq!(result.metadata.tokens_used.input, 50);
    assert_eq!(result.metadata.tokens_used.output, 19);
}

#[tokio::test]
async fn run_to_completion_returns_conversation_for_continuation() {
    let provider = Queue::new(vec![text("first"), text("second")]);
    let runtime = runtime(provider.clone(), ToolRegistry::new());
    let first = runtime
        .run_to_completion(&agent("a"), "one", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(
        first.messages,
        [Message::user("one"), Message::assistant("first")]
    );
    let second = runtime
        .run_to_completion(
            &agent("a"),
            "two",
            RunOptions::new().history(first.messages),
        )
        .await
        .unwrap();
    assert_eq!(second.text, "second");
    assert_eq!(provider.requests()[1].messages.len(), 3);
    assert_eq!(second.messages.len(), 4);
}

#[tokio::test]
async fn run_context_mode_starts_fresh() {
    let provider = Queue::new(vec![text("x")]);
    let runtime = runtime(provider.clone(), ToolRegistry::new());
    let options = RunOptions {
        context_mode: Some(ContextMode::Run),
        history: vec![Message::user("old"), Message::assistant("old answer")],
        ..RunOptions::default()
    };
    let result = runtime
        .run_to_completion(&agent("a"), "new", options)
        .await
        .unwrap();
    assert_eq!(result.metadata.context_mode, ContextMode::Run);
    assert_eq!(provider.requests()[0].messages, [Message::user("new")]);
}

#[tokio::test]
async fn max_turns_fails_with_partial_text_and_event() {
    let mut with_text = calls(&[("c1", "lookup", json!({"key": "capital"}))]);
    with_text.text = Some("Looking it up.".into());
    let provider = Queue::new(vec![with_text.clone(), with_text]);
    let mut tools = ToolRegistry::new();
    tools.register_typed(LookupTool);
    let mut definition = agent("looper");
    definition.spec.max_turns = Some(5);
    let runtime = runtime(provider.clone(), tools);
    let handle = runtime.run(&definition, "go", RunOptions::new().max_turns(2));
    let events = collect(handle).await;
    let RunEvent::RunFailed { error } = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(
        error,
        "agent `looper` reached the limit of 2 turns without finishing: raise `maxTurns` in the agent file"
    );
    // The second turn's tool calls are not run.
    assert_eq!(
        kinds(&events)
            .iter()
            .filter(|kind| *kind == "tool_result")
            .count(),
        1
    );
    let error = runtime
        .run_to_completion(&definition, "go", RunOptions::new().max_turns(0))
        .await
        .unwrap_err();
    assert!(matches!(
        error,
        agentctl_core::RunError::MaxTurns { turns: 0, .. }
    ));

    // The agent file's maxTurns applies when the options set none.
    let mut with_text = calls(&[("c1", "lookup", json!({"key": "capital"}))]);
    with_text.text = Some("Looking it up.".into());
    let provider = Queue::new(vec![with_text; 3]);
    let mut tools = ToolRegistry::new();
    tools.register_typed(LookupTool);
    definition.spec.max_turns = Some(1);
    let error = super::support::runtime(provider, tools)
        .run_to_completion(&definition, "go", RunOptions::new())
        .await
        .unwrap_err();
    let agentctl_core::RunError::MaxTurns {
        turns,
        partial_text,
        ..
    } = error
    else {
        panic!()
    };
    assert_eq!((turns, partial_text.as_str()), (1, "Looking it up."));
}

//! Budgets (seed 002 §10.3): `maxTokens` and `maxCost` stop a run cleanly before the model
//! call after the one that reached them — its tools are not run — and a finished run reports
//! what its tokens cost by the catalogue's list price.

use super::support::{Queue, agent, calls, runtime, text};
use agentctl_core::{BudgetReached, RunError, RunOptions, ToolRegistry, Usage};
use agentctl_test_support::LookupTool;
use serde_json::json;

fn tools() -> ToolRegistry {
    let mut tools = ToolRegistry::new();
    tools.register_typed(LookupTool);
    tools
}

#[tokio::test]
async fn the_token_budget_stops_the_run_before_its_next_call() {
    // Each tool-calling answer uses 20 + 7 tokens.
    let mut lookup = calls(&[("c1", "lookup", json!({"key": "capital"}))]);
    lookup.text = Some("Looking it up.".into());
    let provider = Queue::new(vec![lookup.clone(), lookup, text("done")]);
    let mut definition = agent("spender");
    definition.spec.max_tokens = Some(50);
    let error = runtime(provider.clone(), tools())
        .run_to_completion(&definition, "go", RunOptions::new())
        .await
        .unwrap_err();
    let RunError::Budget {
        budget,
        partial_text,
        ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(
        *budget,
        BudgetReached::Tokens {
            used: 54,
            limit: 50
        }
    );
    assert_eq!(partial_text, "Looking it up.\n\nLooking it up.");
    assert_eq!(provider.requests().len(), 2, "no call after the budget");
    assert_eq!(
        error.to_string(),
        "agent `spender` stopped at its budget: 54 tokens used of `maxTokens: 50`"
    );

    // The run's options win over the agent file.
    let provider = Queue::new(vec![text("done")]);
    let result = runtime(provider, tools())
        .run_to_completion(
            &definition,
            "go",
            RunOptions {
                token_budget: Some(1_000),
                ..RunOptions::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(result.text, "done");
}

#[tokio::test]
async fn the_cost_budget_prices_tokens_by_the_catalogue() {
    // gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
    let mut expensive = calls(&[("c1", "lookup", json!({"key": "capital"}))]);
    expensive.usage = Usage {
        input_tokens: 1_000_000,
        output_tokens: 0,
    };
    let provider = Queue::new(vec![expensive, text("done")]);
    let mut definition = agent("spender");
    definition.spec.max_cost = Some(0.10);
    let error = runtime(provider.clone(), tools())
        .run_to_completion(&definition, "go", RunOptions::new())
        .await
        .unwrap_err();
    let RunError::Budget {
        budget: BudgetReached::Cost { used, limit },
        ..
    } = error
    else {
        panic!("{error:?}")
    };
    assert!((used - 0.15).abs() < 1e-9 && (limit - 0.10).abs() < 1e-9);
    assert_eq!(provider.requests().len(), 1);

    // A finished run says what it cost: 10 input and 5 output tokens of gpt-4o-mini.
    let result = runtime(Queue::new(vec![text("hi")]), tools())
        .run_to_completion(&agent("a"), "go", RunOptions::new())
        .await
        .unwrap();
    let cost = result.metadata.cost_usd.unwrap();
    assert!(
        (cost - (10.0 * 0.15 + 5.0 * 0.6) / 1e6).abs() < 1e-12,
        "{cost}"
    );
}

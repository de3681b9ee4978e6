//! Triage through handoffs: a `triage` agent hands each request to a specialist (`billing` or
//! `tech`) with its `handoff_to_<specialist>` tool; the specialist — with its own tools, not the
//! triage agent's — looks the answer up with `lookup` and replies. Three model calls per
//! request, one session for all of them.
//!
//! ```sh
//! cargo run --example triage                                        # offline, a scripted model
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 cargo run --example triage  # any OpenAI-compatible API
//! ```

use agentctl::prelude::*;

/// Arguments of the specialists' `lookup` tool.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// What to look up, e.g. `refund policy`.
    query: String,
}

const REQUESTS: &[&str] = &[
    "I was charged twice: can I get a refund?",
    "My internet keeps dropping every evening.",
];

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let model = match std::env::var_os("OPENAI_BASE_URL") {
        Some(_) => "openai:gpt-4o-mini",
        None => "scripted:examples/triage.yaml",
    };
    let lookup = tool_fn(
        "lookup",
        "Look an answer up in the support knowledge base.",
        |args: LookupArgs| async move {
            Ok(if args.query.to_lowercase().contains("refund") {
                "Refunds are paid back within 5 working days."
            } else {
                "Restart the router, then check the status page."
            })
        },
    )
    .risk(RiskLevel::Safe)
    .read_only()
    .into_tool();
    let specialist = |name: &str, topic: &str| {
        Agent::new(
            name,
            "Call `lookup` once with the customer's question, then answer in one sentence.",
        )
        .description(format!("Handles {topic} questions."))
        .model(model)
        .tool(lookup.clone())
    };
    let triage = Agent::new(
        "triage",
        "Hand every request to the right specialist: billing for money, tech for the rest.",
    )
    .model(model)
    .handoff("billing")
    .handoff("tech");
    let session = Session::builder()
        .agent(triage)
        .agent(specialist("billing", "billing and payment"))
        .agent(specialist("tech", "technical"))
        .build()
        .await?;
    for request in REQUESTS {
        let turn = session.turn(Target::Agent("triage".into()), *request, TurnOptions::new());
        let outcome = turn.finish().await;
        let answer = outcome.result?.text;
        println!(
            "Q: {request}\n   {} → {}",
            outcome.agents.join(" → "),
            answer.trim()
        );
    }
    session.shutdown().await;
    Ok(())
}

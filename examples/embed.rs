//! Embedding agentctl, one step past hello world: an agent defined in code with a tool of your
//! own (a typed closure), and a session driven the way every front end drives one — operations
//! in, one stream of events out.
//!
//! ```sh
//! cargo run --example embed                                        # offline, a scripted model
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 cargo run --example embed  # any OpenAI-compatible API
//! ```

use agentctl::prelude::*;
use std::io::Write as _;

/// Arguments of the `lookup` tool; the model sees this type's JSON Schema and doc comments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// The key to look up, e.g. `capital-of-france`.
    key: String,
}

const TABLE: &[(&str, &str)] = &[
    ("capital-of-france", "Paris"),
    ("capital-of-japan", "Tokyo"),
    ("boiling-point-of-water", "100 °C at sea level"),
];

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let model = match std::env::var_os("OPENAI_BASE_URL") {
        Some(_) => "openai:gpt-4o-mini",
        None => "scripted:examples/embed.yaml",
    };
    // A tool states its risk and whether it changes anything; one that does not is `medium`
    // and mutating: asked about, never run concurrently.
    let lookup = tool_fn(
        "lookup",
        "Look a key up in the reference table.",
        |args: LookupArgs| async move {
            match TABLE.iter().find(|(key, _)| *key == args.key) {
                Some((_, value)) => Ok(value.to_string()),
                None => Err(ToolError::failed(format!("no key `{}`", args.key))),
            }
        },
    )
    .risk(RiskLevel::Safe)
    .read_only();
    let clerk = Agent::new(
        "table-clerk",
        "Answer from the reference table: call `lookup` with the key, then answer in one sentence.",
    )
    .model(model)
    .tool(lookup);
    // Questions about calls the policy leaves to a person come as events.
    let session = Session::builder()
        .agent(clerk)
        .questions(Questions::Ask)
        .build()
        .await?;
    let mut events = session.events()?;
    let turn = session.submit(Op::UserTurn {
        target: Target::Active,
        prompt: "What is the capital of France?".into(),
        options: TurnOptions::new().stream(true),
    })?;
    while let Some(event) = events.next().await {
        match event.msg {
            EventMsg::Run(RunEvent::TextDelta { text, .. }) => {
                print!("{text}");
                std::io::stdout().flush()?;
            }
            EventMsg::Run(RunEvent::ToolCall {
                name, arguments, ..
            }) => {
                eprintln!("→ {name} {arguments}");
            }
            // `lookup` is safe and never asks; a front end would ask its user here.
            EventMsg::ApprovalRequested(question) => {
                let answer = ApprovalAnswer::Deny;
                session.submit(Op::Approve {
                    call_id: question.call_id,
                    answer,
                })?;
            }
            EventMsg::TurnFinished(outcome) if event.turn == turn => {
                let result = outcome.result?;
                println!("\n({} model calls)", result.metadata.iterations);
                break;
            }
            _ => {}
        }
    }
    session.shutdown().await;
    Ok(())
}

//! The smallest embedding: one agent, one question. Offline on a scripted model; against any
//! OpenAI-compatible endpoint when `OPENAI_BASE_URL` is set (and `OPENAI_API_KEY` if it needs one).
use agentctl::prelude::*;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let model = match std::env::var_os("OPENAI_BASE_URL") {
        Some(_) => "openai:gpt-4o-mini",
        None => "scripted:examples/hello.yaml",
    };
    let agent = Agent::new("greeter", "Greet the user in one sentence.").model(model);
    let session = Session::builder().agent(agent).build().await?;
    println!("{}", session.ask("Hello!").await?.text);
    Ok(())
}

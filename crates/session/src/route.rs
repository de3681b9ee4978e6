//! Auto-routing explained without running anything, as `agentctl route` (or any front end)
//! shows it: the router over the discovered agents' triggers and its decision for a prompt
//! — the decision a session's auto-routing takes.

use crate::project::Project;
use agentctl_definitions::Discovery;
use agentctl_routing::{RouteDecision, Router};

/// The router over the project's runnable agents and what it decides for one prompt.
#[derive(Debug)]
#[non_exhaustive]
pub struct RouteExplanation {
    /// The agents found, with the broken files (whose triggers never route).
    pub discovery: Discovery,
    /// The router over the runnable agents' triggers, with the entries it skipped.
    pub router: Router,
    /// The best match, else the `agents.defaultAgent` fallback, else none.
    pub decision: RouteDecision,
}

impl Project {
    /// What auto-routing does with `prompt` among the project's agents.
    pub fn explain_route(&self, prompt: &str) -> RouteExplanation {
        let discovery = self.discover();
        let agents: Vec<_> = discovery
            .agents
            .iter()
            .map(|loaded| loaded.definition.clone())
            .collect();
        let router = Router::new(&agents);
        let default = self.settings().agents.default_agent.as_deref();
        let decision = router.decide(prompt, default);
        RouteExplanation {
            discovery,
            router,
            decision,
        }
    }
}

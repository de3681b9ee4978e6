//! An agent's `effort` against the model it names (part of the `model resolvable` check): a
//! model the catalogue says does not reason gets no effort, and a level the model does not
//! accept is sent as the nearest one it does — each a warning at `effort`, as the run's
//! notice would say.

use crate::error::{Diagnostic, Severity};
use crate::parse::LoadedAgent;
use agentctl_core::{EffortPlan, ModelCatalogue, ModelRef};

/// The warning for the agent's `effort` on `model`, if it is not sent as written.
pub(crate) fn effort_on_model(agent: &LoadedAgent, model: &ModelRef) -> Option<Diagnostic> {
    let effort = agent.definition.spec.effort?;
    let message = match ModelCatalogue::builtin().plan_effort(&model.provider, &model.model, effort)
    {
        EffortPlan::Send(_) => return None,
        EffortPlan::NotSent(asked) => format!(
            "effort `{asked}` is not sent: `{model}` does not reason (the model catalogue), so \
             it has no effort to set; pick a reasoning model or drop `effort`"
        ),
        EffortPlan::Nearest { asked, sent } => {
            format!("effort `{asked}` is sent as `{sent}`: the nearest level `{model}` accepts")
        }
    };
    Some(agent.diagnostic(Severity::Warning, "effort", message))
}

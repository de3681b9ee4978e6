//! Context modes as a front end shows them: the mode an agent runs with, and why.

pub use crate::modes::set_context_mode;
pub use agentctl_context::{ModeInputs, ModeSource, ResolvedMode, resolve_mode};

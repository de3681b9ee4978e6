//! Tools as a front end lists them and answers their approval questions.

pub use crate::listing::ToolsListing;
pub use agentctl_tools::{ApprovalAnswer, ApprovalRequest, AutoApprove, ToolListing};

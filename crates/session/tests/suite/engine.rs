//! The session engine end to end, on the wire (strict fakes of the model API): approvals as
//! events, graphs reached by every path, store writes off the async workers.

mod approvals;
mod code;
mod graphs;
mod hooked;
mod store;
pub(super) mod wire;

//! Cassettes of model calls: the YAML format ([`Cassette`]: turns, each with what the request
//! must show and the answer or error it gets) and its replay ([`CassetteReplay`]: which turn
//! a request takes). The `scripted:` provider replays cassettes and the recording provider
//! writes them (`agentctl-providers`); the test fakes serve them over HTTP, matched exactly
//! as `scripted:` matches them. Parsing only: reading files is the caller's.
//!
//! ```
//! use agentctl_cassette::CassetteReplay;
//! let replay = CassetteReplay::from_yaml("version: 1\nturns:\n  - response: { text: Hi! }\n", "inline")?;
//! assert_eq!(replay.remaining(), 1);
//! # Ok::<(), agentctl_core::ProviderError>(())
//! ```

mod format;
mod replay;

pub use format::{
    Cassette, Expect, ScriptedCall, ScriptedError, ScriptedResponse, Turn, TurnOrder,
    last_tool_result, last_user,
};
pub use replay::{CassetteReplay, ReplayedTurn, request_hint, split_text};

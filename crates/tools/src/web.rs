//! The web tools: `web_fetch` reads a page as Markdown, `web_search` asks a configured search
//! service.
//!
//! Both are bound by the same rules, because a model choosing a URL is a model choosing whom
//! agentctl talks to:
//! - only `http://` and `https://`, GET for pages;
//! - every host is resolved here and the connection goes to the address that was checked
//!   ([`address`]): private, loopback, link-local, unique-local, CGNAT, multicast, unspecified
//!   and IPv4-mapped addresses are refused unless `web.allowPrivateAddresses` or
//!   `web.allowedHosts` says otherwise, so neither a redirect nor a DNS answer that changes
//!   between check and connect (rebinding) reaches the local network;
//! - redirects are followed by hand, at most [`MAX_REDIRECTS`], each target checked again;
//! - bodies are streamed and cut at `web.maxBytes`, and the whole call at its time limit;
//! - nothing runs when the sandbox settings turn the network off.
//!
//! A search URL written in the settings is trusted (the user chose it, it may be a private
//! SearXNG), and search services' redirects are not followed.

mod address;
mod fetch;
mod http;
mod markdown;
mod search;

pub(crate) use fetch::WebFetch;
pub(crate) use search::WebSearch;

use crate::config::BuiltinToolsConfig;
use agentctl_core::{ToolContext, ToolError};
use std::future::Future;
use std::time::Duration;

/// Most redirects `web_fetch` follows before giving up.
pub const MAX_REDIRECTS: usize = 5;
/// Time limit of a web call, in seconds, unless `tools.timeouts.<tool>` sets one (it is also
/// never more than `tools.timeoutSeconds`).
pub const DEFAULT_WEB_TIMEOUT_SECS: u64 = 30;
/// Most bytes of Markdown (or text) `web_fetch` returns; the rest is cut with a note.
pub const MAX_FETCH_OUTPUT_BYTES: usize = 100 * 1024;
/// Results `web_search` returns when the call asks for no number.
pub const DEFAULT_SEARCH_RESULTS: u32 = 5;
/// Most results `web_search` returns.
pub const MAX_SEARCH_RESULTS: u32 = 20;

/// Why a web call failed; rendered for the model as the tool's error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WebError {
    #[error(
        "{tool} is off: the sandbox settings limit network access (`sandbox.network` is \
         false or an allow-list, which agentctl's own requests would bypass); set \
         `sandbox.network` to true in settings.json to allow it"
    )]
    NetworkOff { tool: &'static str },
    #[error("`{url}` is not a URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error(
        "only http:// and https:// URLs can be fetched; `{url}` uses `{scheme}:` and was refused"
    )]
    Scheme { url: String, scheme: String },
    #[error(
        "refused {url}: {subject} {kind}; web tools reach only public addresses unless \
         settings allow it (`web.allowedHosts: [\"{pattern}\"]` for this host, or \
         `web.allowPrivateAddresses: true`)"
    )]
    Blocked {
        url: String,
        /// `10.0.0.1 is` or `intranet resolves to 10.0.0.1,`.
        subject: String,
        kind: &'static str,
        pattern: String,
    },
    #[error("{from} redirected to a URL that was refused: {source}")]
    Redirected {
        from: String,
        #[source]
        source: Box<WebError>,
    },
    #[error("cannot resolve {host}: {reason}")]
    Resolve { host: String, reason: String },
    #[error("too many redirects: {url} redirected more than {limit} times")]
    TooManyRedirects { url: String, limit: usize },
    #[error("{url} redirects to `{location}`, which is not a URL that can be followed: {reason}")]
    BadRedirect {
        url: String,
        location: String,
        reason: String,
    },
    #[error(
        "{url} answered with a redirect to {location}, which is not followed for a search \
         service; set `web.search.url` to the final address"
    )]
    RedirectNotFollowed { url: String, location: String },
    #[error("request to {url} failed: {reason}")]
    Transport { url: String, reason: String },
    #[error("{url} did not finish within {} s (the time limit of {tool}; raise `tools.timeouts.{tool}` to wait longer)", .limit.as_secs_f64())]
    Timeout {
        url: String,
        tool: &'static str,
        limit: Duration,
    },
    #[error("{0}")]
    Other(String),
}

impl From<WebError> for ToolError {
    fn from(error: WebError) -> Self {
        ToolError::failed(error.to_string())
    }
}

/// Refuses every call when the sandbox confines tools and limits the network (off, or an
/// allow-list these requests would bypass), as it would for a `bash` command (with the
/// sandbox `off` nothing is confined, `bash` included).
fn network_allowed(config: &BuiltinToolsConfig, tool: &'static str) -> Result<(), WebError> {
    let sandbox = config.sandbox();
    if sandbox.is_confining() && !sandbox.network().is_on() {
        Err(WebError::NetworkOff { tool })
    } else {
        Ok(())
    }
}

/// The time limit of `tool`: its own `tools.timeouts` entry, else
/// [`DEFAULT_WEB_TIMEOUT_SECS`] lowered to `tools.timeoutSeconds`.
fn time_limit(config: &BuiltinToolsConfig, tool: &str) -> Duration {
    config.own_timeout(tool).unwrap_or_else(|| {
        Duration::from_secs(DEFAULT_WEB_TIMEOUT_SECS).min(config.timeout_for(tool))
    })
}

/// Runs `work` until it ends, the time limit passes or the run is cancelled.
async fn bounded<T>(
    ctx: &ToolContext,
    limit: Duration,
    timed_out: impl FnOnce() -> WebError,
    work: impl Future<Output = Result<T, WebError>>,
) -> Result<T, ToolError> {
    tokio::select! {
        result = tokio::time::timeout(limit, work) => match result {
            Ok(result) => result.map_err(ToolError::from),
            Err(_) => Err(timed_out().into()),
        },
        () = ctx.cancellation().cancelled() => Err(ToolError::Cancelled),
    }
}

/// `text` cut to at most `max` bytes at a character boundary, and whether it was cut.
fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_whole_characters() {
        assert_eq!(cut("héllo", 2), ("h", true));
        assert_eq!(cut("héllo", 3), ("hé", true));
        assert_eq!(cut("hé", 10), ("hé", false));
    }

    #[test]
    fn time_limits_follow_the_settings() {
        let mut settings = agentctl_core::Settings::default();
        let config = BuiltinToolsConfig::from_settings(&settings);
        assert_eq!(time_limit(&config, "web_fetch").as_secs(), 30);
        settings.tools.timeout_seconds = std::num::NonZeroU64::new(10).unwrap();
        settings
            .tools
            .timeouts
            .insert("web_search".into(), std::num::NonZeroU64::new(90).unwrap());
        let config = BuiltinToolsConfig::from_settings(&settings);
        assert_eq!(time_limit(&config, "web_fetch").as_secs(), 10);
        assert_eq!(time_limit(&config, "web_search").as_secs(), 90);
    }
}

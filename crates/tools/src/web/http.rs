//! One HTTP exchange of a web tool: the host checked and pinned, redirects followed by hand
//! and checked again, the body streamed up to a cap.

use super::WebError;
use super::address::{AddressPolicy, Destination};
use reqwest::header::{HeaderMap, LOCATION};
use reqwest::{Method, Response, Url};
use serde_json::Value;
use std::time::Duration;

/// How long connecting to one address may take; the call's own limit still bounds the whole.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A request a web tool sends.
pub(crate) struct Request<'a> {
    pub(crate) method: Method,
    pub(crate) url: Url,
    pub(crate) headers: HeaderMap,
    pub(crate) json: Option<&'a Value>,
    /// Redirects to follow (GET only); with 0 a redirect is an error.
    pub(crate) max_redirects: usize,
}

/// An answer whose body has not been read yet.
pub(crate) struct Opened {
    pub(crate) response: Response,
    /// The URL that answered, after redirects.
    pub(crate) url: Url,
    /// The URL asked for, when it redirected.
    pub(crate) redirected_from: Option<Url>,
}

/// A body read up to a cap.
pub(crate) struct Body {
    pub(crate) bytes: Vec<u8>,
    /// True when the body was longer than the cap and the rest was not read.
    pub(crate) truncated: bool,
}

/// Refuses every scheme but `http` and `https`.
pub(crate) fn check_scheme(url: &Url) -> Result<(), WebError> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        scheme => Err(WebError::Scheme {
            url: url.to_string(),
            scheme: scheme.to_owned(),
        }),
    }
}

/// Sends `request`, checking the address of every host it reaches under `policy`.
pub(crate) async fn send(policy: &AddressPolicy, request: Request<'_>) -> Result<Opened, WebError> {
    let start = request.url.clone();
    let mut url = request.url;
    let mut redirects = 0;
    loop {
        check_scheme(&url)?;
        let destination = policy
            .resolve(&url)
            .await
            .map_err(|error| match redirects {
                0 => error,
                _ => WebError::Redirected {
                    from: start.to_string(),
                    source: Box::new(error),
                },
            })?;
        let client = client_for(&destination)?;
        let mut builder = client
            .request(request.method.clone(), url.clone())
            .headers(request.headers.clone());
        if let Some(json) = request.json {
            builder = builder.json(json);
        }
        let response = builder.send().await.map_err(|error| WebError::Transport {
            url: url.to_string(),
            reason: error_chain(&error),
        })?;
        let location = response
            .status()
            .is_redirection()
            .then(|| response.headers().get(LOCATION))
            .flatten()
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        let Some(location) = location else {
            return Ok(Opened {
                response,
                redirected_from: (url != start).then_some(start),
                url,
            });
        };
        let next = url.join(&location).map_err(|error| WebError::BadRedirect {
            url: url.to_string(),
            location: location.clone(),
            reason: error.to_string(),
        })?;
        if request.max_redirects == 0 || request.method != Method::GET {
            let mut shown = url.clone();
            // Only search services are not followed; their query stays out of the message.
            shown.set_query(None);
            return Err(WebError::RedirectNotFollowed {
                url: shown.to_string(),
                location: next.to_string(),
            });
        }
        if redirects == request.max_redirects {
            return Err(WebError::TooManyRedirects {
                url: start.to_string(),
                limit: request.max_redirects,
            });
        }
        check_scheme(&next).map_err(|error| WebError::BadRedirect {
            url: url.to_string(),
            location: next.to_string(),
            reason: error.to_string(),
        })?;
        redirects += 1;
        url = next;
    }
}

/// Reads `response`'s body, at most `max` bytes: the rest is left unread and the connection
/// dropped, so a huge or endless body costs no more than the cap.
pub(crate) async fn read_capped(
    url: &Url,
    mut response: Response,
    max: u64,
) -> Result<Body, WebError> {
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| WebError::Transport {
            url: url.to_string(),
            reason: error_chain(&error),
        })?
    {
        let room = max - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Body {
                bytes,
                truncated: true,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Body {
        bytes,
        truncated: false,
    })
}

/// A client that connects only to `destination`'s checked addresses and follows no redirect
/// by itself. A host name is pinned to its addresses, so the client never asks DNS again.
fn client_for(destination: &Destination) -> Result<reqwest::Client, WebError> {
    agentctl_core::install_crypto_provider();
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // A proxy would connect wherever the name resolves for it: the check would be moot.
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .user_agent(concat!("agentctl/", env!("CARGO_PKG_VERSION")));
    if destination.by_name {
        builder = builder.resolve_to_addrs(&destination.host, &destination.addrs);
    }
    builder.build().map_err(|error| WebError::Transport {
        url: destination.host.clone(),
        reason: error_chain(&error),
    })
}

/// A transport error with its causes on one line, without the URL (the caller names it).
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(&format!(" for url ({url})"), "");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

//! The wire formats of the search services: how each is asked, and how its answer is read.

use crate::web::WebError;
use agentctl_core::SearchBackend;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde::Deserialize;
use serde_json::{Value, json};

/// The Brave Search API's web search endpoint.
const BRAVE_URL: &str = "https://api.search.brave.com/res/v1/web/search";
/// Tavily's search endpoint.
const TAVILY_URL: &str = "https://api.tavily.com/search";

/// One result, as every service's is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SearchResult {
    pub(crate) title: String,
    pub(crate) url: String,
    pub(crate) snippet: String,
}

/// A search request, ready to send.
pub(crate) struct Endpoint {
    pub(crate) method: Method,
    pub(crate) url: Url,
    pub(crate) headers: HeaderMap,
    pub(crate) json: Option<Value>,
}

/// The service's public endpoint, used when `web.search.url` is not set; `None` for a
/// self-hosted service.
pub(crate) fn public_url(backend: SearchBackend) -> Option<&'static str> {
    match backend {
        SearchBackend::Searxng => None,
        SearchBackend::Brave => Some(BRAVE_URL),
        SearchBackend::Tavily => Some(TAVILY_URL),
    }
}

/// The environment variable holding the key when `web.search.apiKeyEnv` names none; `None`
/// for a service that takes no key.
pub(crate) fn default_key_env(backend: SearchBackend) -> Option<&'static str> {
    match backend {
        SearchBackend::Searxng => None,
        SearchBackend::Brave => Some("BRAVE_API_KEY"),
        SearchBackend::Tavily => Some("TAVILY_API_KEY"),
    }
}

/// The request asking `backend` at `base` for `count` results for `query`.
pub(crate) fn endpoint(
    backend: SearchBackend,
    base: &Url,
    key: Option<&str>,
    query: &str,
    count: u32,
) -> Result<Endpoint, WebError> {
    let mut url = base.clone();
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    let (method, json) = match backend {
        SearchBackend::Searxng => {
            // `web.search.url` may be the instance or its `/search` page.
            if !url.path().trim_end_matches('/').ends_with("/search") {
                url.path_segments_mut()
                    .map_err(|()| WebError::BadUrl {
                        url: base.to_string(),
                        reason: "it cannot have a path (web.search.url)".into(),
                    })?
                    .pop_if_empty()
                    .push("search");
            }
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("format", "json");
            (Method::GET, None)
        }
        SearchBackend::Brave => {
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("count", &count.to_string());
            headers.insert(
                HeaderName::from_static("x-subscription-token"),
                secret(backend, key.unwrap_or_default())?,
            );
            (Method::GET, None)
        }
        SearchBackend::Tavily => {
            let bearer = format!("Bearer {}", key.unwrap_or_default());
            headers.insert(AUTHORIZATION, secret(backend, &bearer)?);
            (
                Method::POST,
                Some(json!({"query": query, "max_results": count})),
            )
        }
    };
    Ok(Endpoint {
        method,
        url,
        headers,
        json,
    })
}

/// A header value holding a key, kept out of debug output.
fn secret(backend: SearchBackend, text: &str) -> Result<HeaderValue, WebError> {
    let mut value = HeaderValue::from_str(text).map_err(|_| {
        // Never echo the key.
        WebError::Other(format!(
            "the API key for the {} search service contains characters an HTTP header cannot \
             carry (a line break?)",
            backend.as_str()
        ))
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// What to do about a refusal, when the status says more than itself.
pub(crate) fn status_hint(backend: SearchBackend, status: StatusCode) -> &'static str {
    match (backend, status.as_u16()) {
        (SearchBackend::Searxng, 403) => {
            " (a SearXNG instance answers 403 to JSON requests unless `json` is listed under \
             `search.formats` in its settings.yml)"
        }
        (SearchBackend::Brave | SearchBackend::Tavily, 401 | 403) => {
            " (check the API key in the variable `web.search.apiKeyEnv` names)"
        }
        (_, 429) => " (rate limited; try again later)",
        _ => "",
    }
}

/// Reads `backend`'s answer; the error says what did not fit.
pub(crate) fn parse(backend: SearchBackend, bytes: &[u8]) -> Result<Vec<SearchResult>, String> {
    let results = match backend {
        SearchBackend::Searxng => {
            serde_json::from_slice::<Listed>(bytes)
                .map_err(|error| error.to_string())?
                .results
        }
        SearchBackend::Tavily => {
            serde_json::from_slice::<Listed>(bytes)
                .map_err(|error| error.to_string())?
                .results
        }
        SearchBackend::Brave => serde_json::from_slice::<BraveAnswer>(bytes)
            .map_err(|error| error.to_string())?
            .web
            .map(|web| web.results)
            .unwrap_or_default(),
    };
    Ok(results
        .into_iter()
        .filter_map(|result| {
            let url = result.url.filter(|url| !url.trim().is_empty())?;
            Some(SearchResult {
                title: result.title.unwrap_or_default(),
                url,
                snippet: result.content.or(result.description).unwrap_or_default(),
            })
        })
        .collect())
}

/// SearXNG's and Tavily's answer: `{"results": [{title, url, content}]}`.
#[derive(Deserialize)]
struct Listed {
    results: Vec<RawResult>,
}

/// Brave's answer: `{"web": {"results": [{title, url, description}]}}`; no `web` when
/// nothing was found.
#[derive(Deserialize)]
struct BraveAnswer {
    #[serde(default)]
    web: Option<BraveWeb>,
}

#[derive(Deserialize)]
struct BraveWeb {
    #[serde(default)]
    results: Vec<RawResult>,
}

/// One result of any service; a field may be missing or null.
#[derive(Deserialize)]
struct RawResult {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searxng_urls_gain_their_search_path_once() {
        for (base, expected) in [
            (
                "http://localhost:8888",
                "http://localhost:8888/search?q=a+b&format=json",
            ),
            ("http://h/searx/", "http://h/searx/search?q=a+b&format=json"),
            ("http://h/search", "http://h/search?q=a+b&format=json"),
            (
                "http://h/search?categories=it",
                "http://h/search?categories=it&q=a+b&format=json",
            ),
        ] {
            let base = Url::parse(base).unwrap();
            let request = endpoint(SearchBackend::Searxng, &base, None, "a b", 5).unwrap();
            assert_eq!(request.url.as_str(), expected);
        }
    }

    #[test]
    fn keys_go_in_headers_marked_sensitive() {
        let base = Url::parse(BRAVE_URL).unwrap();
        let request = endpoint(SearchBackend::Brave, &base, Some("k1"), "q", 7).unwrap();
        assert!(request.url.as_str().ends_with("?q=q&count=7"));
        let token = &request.headers["x-subscription-token"];
        assert!(token.is_sensitive());
        let base = Url::parse(TAVILY_URL).unwrap();
        let request = endpoint(SearchBackend::Tavily, &base, Some("k2"), "q", 3).unwrap();
        assert_eq!(request.headers[AUTHORIZATION], "Bearer k2");
        assert_eq!(request.json, Some(json!({"query": "q", "max_results": 3})));
        let error = endpoint(SearchBackend::Brave, &base, Some("bad\nkey"), "q", 1)
            .err()
            .unwrap()
            .to_string();
        assert!(!error.contains("bad"), "{error}");
    }

    #[test]
    fn answers_with_missing_or_null_fields_are_read() {
        let results = parse(
            SearchBackend::Searxng,
            br#"{"results": [{"title": null, "url": "https://a/"}, {"title": "no url"}]}"#,
        )
        .unwrap();
        assert_eq!(
            results,
            [SearchResult {
                title: String::new(),
                url: "https://a/".into(),
                snippet: String::new()
            }]
        );
        assert_eq!(parse(SearchBackend::Brave, b"{}").unwrap(), []);
        assert!(
            parse(SearchBackend::Tavily, b"{}")
                .unwrap_err()
                .contains("results")
        );
        assert!(parse(SearchBackend::Searxng, b"<html>").is_err());
    }
}

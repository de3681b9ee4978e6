//! `web.*` as written: what `web_fetch` may reach and the `web_search` service.
//!
//! Values that cannot work are refused here, with the file and line, rather than when a model
//! first calls the tool: a search URL that is not HTTP(S), an API key written where the name
//! of its environment variable belongs, a host pattern with a scheme or a path.

use super::Object;
use agentctl_core::{HostPattern, SearchBackend};
use serde::{Deserialize, Deserializer, Serialize, de};
use std::num::NonZeroU64;

/// `web.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawWeb {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow_private_addresses: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allowed_hosts: Option<Vec<HostPattern>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_bytes: Option<NonZeroU64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    search: Option<Object<RawWebSearch>>,
}

/// `web.search.*` as written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawWebSearch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    backend: Option<SearchBackend>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<HttpUrl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    api_key_env: Option<EnvVarName>,
}

/// An `http://` or `https://` URL with a host.
#[derive(Debug, Serialize)]
#[serde(transparent)]
struct HttpUrl(String);

impl<'de> Deserialize<'de> for HttpUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let rest = text
            .strip_prefix("https://")
            .or_else(|| text.strip_prefix("http://"));
        match rest {
            Some(rest) if !rest.is_empty() && !rest.starts_with(['/', '?', '#']) => Ok(Self(text)),
            _ => Err(de::Error::custom(format!(
                "`{text}` is not an http:// or https:// URL of a search service, e.g. `http://localhost:8888`"
            ))),
        }
    }
}

/// The name of an environment variable (letters, digits and `_`, not starting with a digit).
#[derive(Debug, Serialize)]
#[serde(transparent)]
struct EnvVarName(String);

impl<'de> Deserialize<'de> for EnvVarName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let valid = text
            .chars()
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
            && text
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        if valid {
            Ok(Self(text))
        } else {
            // Never echo the value: it may be the key itself, pasted in the wrong place.
            Err(de::Error::custom(
                "expected the name of an environment variable holding the API key (e.g. \
                 `BRAVE_API_KEY`), not the key itself; keys never go in settings files",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_layer;
    use serde_json::{Value, json};
    use std::path::Path;

    fn parse(text: &str) -> Result<Value, String> {
        parse_layer(Path::new("/p/settings.json"), text)
            .map(|layer| Value::Object(layer.value))
            .map_err(|error| error.to_string())
    }

    #[test]
    fn web_keys_are_read() {
        let value = parse(
            r#"{"web": {"allowPrivateAddresses": false, "allowedHosts": ["Wiki.Internal", "[::1]:3000"],
                        "maxBytes": 1000,
                        "search": {"backend": "brave", "url": "https://api.example/search", "apiKeyEnv": "MY_KEY"}}}"#,
        )
        .unwrap();
        assert_eq!(
            value,
            json!({"web": {"allowPrivateAddresses": false, "allowedHosts": ["wiki.internal", "[::1]:3000"],
                           "maxBytes": 1000,
                           "search": {"backend": "brave", "url": "https://api.example/search", "apiKeyEnv": "MY_KEY"}}})
        );
    }

    #[test]
    fn bad_web_values_are_located_errors() {
        let cases = [
            (
                r#"{"web": {"search": {"backend": "google"}}}"#,
                "/p/settings.json:1:39: web.search.backend: unknown variant `google`, expected one of `searxng`, `brave`, `tavily`",
            ),
            (
                r#"{"web": {"search": {"url": "ftp://x"}}}"#,
                "/p/settings.json:1:37: web.search.url: `ftp://x` is not an http:// or https:// URL",
            ),
            (
                r#"{"web": {"allowedHosts": ["ok", "http://x/"]}}"#,
                "/p/settings.json:1:44: web.allowedHosts[1]: `http://x/` is not a host",
            ),
            (
                r#"{"web": {"allowedHosts": ["localhost:0"]}}"#,
                "web.allowedHosts[0]: `0` in `localhost:0` is not a port",
            ),
            (
                r#"{"web": {"maxBytes": 0}}"#,
                "web.maxBytes: invalid value: integer `0`, expected a nonzero u64",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn an_api_key_in_place_of_its_variable_is_refused_without_echoing_it() {
        let error = parse(r#"{"web": {"search": {"apiKeyEnv": "BSA-secret-123"}}}"#).unwrap_err();
        assert!(error.contains("web.search.apiKeyEnv"), "{error}");
        assert!(error.contains("not the key itself"), "{error}");
        assert!(!error.contains("secret-123"), "{error}");
    }
}

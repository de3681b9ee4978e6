//! Where spans go and how: the standard `OTEL_*` variables, read once and checked, so a typo
//! in an endpoint or a header is a clear error when tracing starts rather than spans that
//! silently go nowhere.

use reqwest::Url;
use reqwest::header::{HeaderName, HeaderValue};
use std::fmt;
use std::time::Duration;

/// Where spans go when no endpoint variable is set: a collector on this machine.
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318/v1/traces";

/// How long one export may take (`OTEL_EXPORTER_OTLP_TIMEOUT`'s default, 10 s), retries included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest [`crate::OtelSink`]'s `flush` and `shutdown` wait for a collector: a
/// collector that accepts connections but never answers holds the process this long at most.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);

pub(super) const TRACES_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
pub(super) const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
pub(super) const TRACES_HEADERS: &str = "OTEL_EXPORTER_OTLP_TRACES_HEADERS";
pub(super) const HEADERS: &str = "OTEL_EXPORTER_OTLP_HEADERS";
const TRACES_TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT";
const TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TIMEOUT";
const TRACES_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL";
const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
const SERVICE_NAME: &str = "OTEL_SERVICE_NAME";
/// The GenAI conventions' switch for recording message content.
pub const CAPTURE_CONTENT_VAR: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// A setting of the OpenTelemetry exporter that cannot be used; each names the variable (or
/// setting) and what is wrong with it. Header values never appear: they often carry tokens.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// The endpoint is not an `http`/`https` URL.
    #[error(
        "{var}=`{value}` is not an OTLP/HTTP endpoint: {reason}; expected a URL such as http://localhost:4318"
    )]
    Endpoint {
        /// The variable (or setting) it came from.
        var: &'static str,
        /// The value as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An entry of the headers variable is not a valid `key=value` HTTP header.
    #[error(
        "{var}: entry {entry} (`{key}`) is not a header: {reason}; expected comma-separated key=value pairs with percent-encoded values"
    )]
    Header {
        /// The variable it came from.
        var: &'static str,
        /// 1-based position of the entry.
        entry: usize,
        /// The entry's key (its value is not shown).
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The timeout is not a positive number of milliseconds.
    #[error("{var}=`{value}` is not a timeout: expected a positive number of milliseconds")]
    Timeout {
        /// The variable it came from.
        var: &'static str,
        /// The value as given.
        value: String,
    },
    /// A protocol other than OTLP over HTTP with protobuf was asked for.
    #[error(
        "{var}=`{value}`: agentctl sends OTLP over HTTP with protobuf only (port 4318); set it to http/protobuf or unset it"
    )]
    Protocol {
        /// The variable it came from.
        var: &'static str,
        /// The value as given.
        value: String,
    },
    /// A vendor backend (`langsmith`, `langfuse`) lacks the variable with its key.
    #[error("the {backend} backend needs {var}: set it to the key of your {backend} project")]
    MissingKey {
        /// The backend, as written (`langsmith`, `langfuse`).
        backend: &'static str,
        /// The variable to set.
        var: &'static str,
    },
    /// The exporter could not be started.
    #[error("cannot start the OpenTelemetry exporter for {endpoint}: {reason}")]
    Start {
        /// The endpoint it was for.
        endpoint: String,
        /// Why.
        reason: String,
    },
}

/// How [`crate::OtelSink`] exports: the collector's traces URL, extra headers, time limits,
/// the service name and whether message content is recorded.
///
/// ```
/// use agentctl_trace::OtelConfig;
///
/// let vars = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"), ("OTEL_EXPORTER_OTLP_HEADERS", "x-team=agents")];
/// let config = OtelConfig::from_lookup(|name| {
///     vars.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
/// })?;
/// assert_eq!(config.endpoint, "http://collector:4318/v1/traces");
/// assert_eq!(config.headers, [("x-team".to_string(), "agents".to_string())]);
/// assert!(!config.capture_content);
/// # Ok::<(), agentctl_trace::OtelError>(())
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct OtelConfig {
    /// The full traces URL, e.g. `http://localhost:4318/v1/traces`.
    pub endpoint: String,
    /// Headers sent with every export (decoded values), e.g. an API key.
    pub headers: Vec<(String, String)>,
    /// How long one export may take, retries included.
    pub timeout: Duration,
    /// The longest `flush` and `shutdown` wait (see [`DEFAULT_SHUTDOWN_TIMEOUT`]).
    pub shutdown_timeout: Duration,
    /// `service.name` of the resource; `None` takes `OTEL_SERVICE_NAME`, then a `service.name`
    /// in `OTEL_RESOURCE_ATTRIBUTES`, then `agentctl`.
    pub service_name: Option<String>,
    /// Whether prompts, answers, tool arguments and results go into spans.
    pub capture_content: bool,
}

impl fmt::Debug for OtelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values are credentials more often than not.
        let headers: Vec<String> = self
            .headers
            .iter()
            .map(|(key, _)| format!("{key}=…"))
            .collect();
        f.debug_struct("OtelConfig")
            .field("endpoint", &self.endpoint)
            .field("headers", &headers)
            .field("timeout", &self.timeout)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("service_name", &self.service_name)
            .field("capture_content", &self.capture_content)
            .finish()
    }
}

impl OtelConfig {
    /// Export to `endpoint` (the full traces URL) with the defaults: no headers,
    /// [`DEFAULT_TIMEOUT`], [`DEFAULT_SHUTDOWN_TIMEOUT`], no content.
    pub fn new(endpoint: impl Into<String>) -> Result<Self, OtelError> {
        let endpoint = check_endpoint("OtelConfig::endpoint", &endpoint.into())?;
        Ok(Self {
            // Normalised (spaces escaped …) so the exporter's own URI parser takes it.
            endpoint: endpoint.to_string(),
            headers: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            service_name: None,
            capture_content: false,
        })
    }

    /// The standard variables of the process environment; see [`OtelConfig::from_lookup`].
    pub fn from_env() -> Result<Self, OtelError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// The standard variables, as `lookup` gives them: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
    /// (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (plus `/v1/traces`), the `…_HEADERS` and
    /// `…_TIMEOUT` pairs (the traces one first), `…_PROTOCOL` (only `http/protobuf`),
    /// `OTEL_SERVICE_NAME` and `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, OtelError> {
        let first = |names: [&'static str; 2]| {
            names.into_iter().find_map(|name| {
                lookup(name)
                    .map(|value| value.trim().to_owned())
                    .filter(|value| !value.is_empty())
                    .map(|value| (name, value))
            })
        };
        let endpoint = if let Some(endpoint) = lookup(TRACES_ENDPOINT)
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty())
        {
            check_endpoint(TRACES_ENDPOINT, &endpoint)?.to_string()
        } else if let Some(base) = lookup(ENDPOINT)
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty())
        {
            check_endpoint(ENDPOINT, &base)?;
            let traces = format!("{}/v1/traces", base.trim_end_matches('/'));
            check_endpoint(ENDPOINT, &traces)?.to_string()
        } else {
            DEFAULT_ENDPOINT.to_owned()
        };
        if let Some((var, value)) = first([TRACES_PROTOCOL, PROTOCOL])
            && value != "http/protobuf"
        {
            return Err(OtelError::Protocol { var, value });
        }
        let headers = match first([TRACES_HEADERS, HEADERS]) {
            Some((var, value)) => parse_headers(var, &value)?,
            None => Vec::new(),
        };
        let timeout = match first([TRACES_TIMEOUT, TIMEOUT]) {
            Some((var, value)) => match value.parse::<u64>() {
                Ok(millis) if millis > 0 => Duration::from_millis(millis),
                _ => return Err(OtelError::Timeout { var, value }),
            },
            None => DEFAULT_TIMEOUT,
        };
        let service_name = lookup(SERVICE_NAME)
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty());
        Ok(Self {
            endpoint,
            headers,
            timeout,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            service_name,
            capture_content: lookup(CAPTURE_CONTENT_VAR).is_some_and(|value| truthy(&value)),
        })
    }
}

/// Whether `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` asks for message content in
/// spans (`true`, `1`, or the GenAI utilities' `span_only` / `span_and_event`).
pub fn capture_content_from_env() -> bool {
    std::env::var(CAPTURE_CONTENT_VAR).is_ok_and(|value| truthy(&value))
}

/// The standard switch that turns the OpenTelemetry SDK off for every signal.
pub const SDK_DISABLED_VAR: &str = "OTEL_SDK_DISABLED";

/// Whether `OTEL_SDK_DISABLED` turns OpenTelemetry export off: `true` in any case, as the
/// specification says (a boolean variable is true only for `true`); anything else leaves it on.
pub fn sdk_disabled_from_env() -> bool {
    sdk_disabled(std::env::var(SDK_DISABLED_VAR).ok().as_deref())
}

fn sdk_disabled(value: Option<&str>) -> bool {
    value.is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

fn truthy(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "true" | "1" | "yes" | "span_only" | "span_and_event"
    )
}

/// `value` parsed as an `http`/`https` URL with a host.
pub(super) fn check_endpoint(var: &'static str, value: &str) -> Result<Url, OtelError> {
    let error = |reason: String| OtelError::Endpoint {
        var,
        value: value.to_owned(),
        reason,
    };
    let url = Url::parse(value).map_err(|parse| error(parse.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(error(format!(
            "the scheme is `{}`, not http or https",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(error("it has no host".to_owned()));
    }
    Ok(url)
}

/// `key=value,key2=value2`, values percent-decoded (the W3C baggage form the OTLP exporter
/// specification uses).
fn parse_headers(var: &'static str, text: &str) -> Result<Vec<(String, String)>, OtelError> {
    let mut headers = Vec::new();
    for (index, entry) in text.split(',').enumerate() {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let error = |key: &str, reason: &str| OtelError::Header {
            var,
            entry: index + 1,
            key: key.to_owned(),
            reason: reason.to_owned(),
        };
        let Some((key, value)) = entry.split_once('=') else {
            // Show only what comes before a `:` or a space: `Authorization: Bearer …` is a
            // common slip, and the token must not end up in an error message.
            let key: String = entry
                .split([':', ' '])
                .next()
                .unwrap_or("")
                .chars()
                .take(40)
                .collect();
            return Err(error(&key, "it has no `=`"));
        };
        let key = key.trim();
        HeaderName::from_bytes(key.as_bytes())
            .map_err(|_| error(key, "the key is not a valid header name"))?;
        let value = percent_decode(value.trim())
            .ok_or_else(|| error(key, "the value has a bad percent-escape or is not UTF-8"))?;
        HeaderValue::from_str(&value)
            .map_err(|_| error(key, "the value has characters a header cannot carry"))?;
        headers.push((key.to_owned(), value));
    }
    Ok(headers)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The endpoint as warnings show it: without a user name or password, should the URL carry one.
pub(crate) fn shown_endpoint(endpoint: &str) -> String {
    match Url::parse(endpoint) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string()
        }
        _ => endpoint.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<OtelConfig, OtelError> {
        OtelConfig::from_lookup(|name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    #[test]
    fn endpoints_follow_the_exporter_specification() {
        assert_eq!(config(&[]).unwrap().endpoint, DEFAULT_ENDPOINT);
        let base = config(&[(ENDPOINT, "https://otel.example.com:4318")]).unwrap();
        assert_eq!(base.endpoint, "https://otel.example.com:4318/v1/traces");
        let both = config(&[
            (ENDPOINT, "http://ignored:4318"),
            (TRACES_ENDPOINT, "http://collector:9999/custom"),
        ])
        .unwrap();
        assert_eq!(both.endpoint, "http://collector:9999/custom");
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (var, value, expected) in [
            (
                ENDPOINT,
                "localhost:4318",
                "OTEL_EXPORTER_OTLP_ENDPOINT=`localhost:4318`",
            ),
            (TRACES_ENDPOINT, "ftp://x/v1/traces", "scheme is `ftp`"),
            (ENDPOINT, "not a url", "not an OTLP/HTTP endpoint"),
            (TIMEOUT, "ten", "OTEL_EXPORTER_OTLP_TIMEOUT=`ten`"),
            (TIMEOUT, "0", "positive number of milliseconds"),
            (PROTOCOL, "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL=`grpc`"),
        ] {
            let error = config(&[(var, value)]).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
        assert!(config(&[(PROTOCOL, "http/protobuf")]).is_ok());
    }

    #[test]
    fn headers_are_decoded_and_bad_ones_never_show_their_value() {
        let ok = config(&[(HEADERS, "api-key=abc%3D%3D, x-team = agents ,")]).unwrap();
        assert_eq!(
            ok.headers,
            [
                ("api-key".to_owned(), "abc==".to_owned()),
                ("x-team".to_owned(), "agents".to_owned())
            ]
        );
        assert!(!format!("{ok:?}").contains("abc=="));
        for bad in [
            "Authorization: Bearer sk-secret-token",
            "bad key=sk-secret-token",
            "x=sk-secret-token%zz",
            "x=sk-secret-token%0a",
        ] {
            let error = config(&[(TRACES_HEADERS, bad)]).unwrap_err().to_string();
            assert!(error.contains(TRACES_HEADERS), "{error}");
            assert!(!error.contains("sk-secret-token"), "{error}");
        }
    }

    #[test]
    fn capture_content_and_service_name_come_from_their_variables() {
        let on = config(&[(CAPTURE_CONTENT_VAR, "TRUE"), (SERVICE_NAME, "bot")]).unwrap();
        assert!(on.capture_content);
        assert_eq!(on.service_name.as_deref(), Some("bot"));
        assert!(
            !config(&[(CAPTURE_CONTENT_VAR, "false")])
                .unwrap()
                .capture_content
        );
    }

    #[test]
    fn only_true_in_any_case_disables_the_sdk() {
        for on in ["true", "TRUE", " True "] {
            assert!(sdk_disabled(Some(on)), "{on}");
        }
        for off in [
            None,
            Some(""),
            Some("false"),
            Some("1"),
            Some("yes"),
            Some("truthy"),
        ] {
            assert!(!sdk_disabled(off), "{off:?}");
        }
    }

    #[test]
    fn warnings_show_no_credentials() {
        assert_eq!(
            shown_endpoint("https://user:pw@collector:4318/v1/traces"),
            "https://collector:4318/v1/traces"
        );
    }
}

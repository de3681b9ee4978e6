//! OTLP exports to tracing vendors that take OpenTelemetry over HTTP: LangSmith and Langfuse
//! (seed 002 §6 names `langsmith` as a tracing backend). Each reads its endpoint and key from
//! the variables its own SDKs read; time limits, the service name and content capture come
//! from the standard `OTEL_*` variables as for `otel`.

use super::config::{ENDPOINT, HEADERS, OtelConfig, OtelError, TRACES_ENDPOINT, TRACES_HEADERS};
use base64::Engine as _;

/// LangSmith's API (`/otel/v1/traces` is appended) unless `LANGSMITH_ENDPOINT` says otherwise.
pub const LANGSMITH_DEFAULT_ENDPOINT: &str = "https://api.smith.langchain.com";
/// Langfuse Cloud (`/api/public/otel/v1/traces` is appended) unless `LANGFUSE_HOST` (or
/// `LANGFUSE_BASE_URL`) says otherwise.
pub const LANGFUSE_DEFAULT_HOST: &str = "https://cloud.langfuse.com";

impl OtelConfig {
    /// Export to LangSmith: `$LANGSMITH_ENDPOINT/otel/v1/traces` with the `x-api-key` header
    /// from `LANGSMITH_API_KEY` (required) and `Langsmith-Project` from `LANGSMITH_PROJECT`
    /// (LangSmith's default project without it).
    ///
    /// ```
    /// use agentctl_trace::OtelConfig;
    ///
    /// let config = OtelConfig::langsmith_from_lookup(|name| {
    ///     (name == "LANGSMITH_API_KEY").then(|| "lsv2_pt_x".to_owned())
    /// })?;
    /// assert_eq!(config.endpoint, "https://api.smith.langchain.com/otel/v1/traces");
    /// assert_eq!(config.headers[0], ("x-api-key".to_owned(), "lsv2_pt_x".to_owned()));
    /// # Ok::<(), agentctl_trace::OtelError>(())
    /// ```
    pub fn langsmith_from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, OtelError> {
        let get = |name: &str| set(&lookup, name);
        let key = get("LANGSMITH_API_KEY").ok_or(OtelError::MissingKey {
            backend: "langsmith",
            var: "LANGSMITH_API_KEY",
        })?;
        let base = get("LANGSMITH_ENDPOINT");
        let (var, base) = match &base {
            Some(base) => ("LANGSMITH_ENDPOINT", base.as_str()),
            None => ("LANGSMITH_ENDPOINT (default)", LANGSMITH_DEFAULT_ENDPOINT),
        };
        let mut headers = vec![("x-api-key".to_owned(), key)];
        if let Some(project) = get("LANGSMITH_PROJECT") {
            headers.push(("Langsmith-Project".to_owned(), project));
        }
        vendor(&lookup, var, base, "/otel/v1/traces", headers)
    }

    /// The standard variables of the process environment, for LangSmith; see
    /// [`OtelConfig::langsmith_from_lookup`].
    pub fn langsmith_from_env() -> Result<Self, OtelError> {
        Self::langsmith_from_lookup(|name| std::env::var(name).ok())
    }

    /// Export to Langfuse: `$LANGFUSE_HOST/api/public/otel/v1/traces` (or
    /// `$LANGFUSE_BASE_URL`), authenticated by Basic auth with `LANGFUSE_PUBLIC_KEY` and
    /// `LANGFUSE_SECRET_KEY` (both required), on Langfuse's current ingestion version.
    ///
    /// ```
    /// use agentctl_trace::OtelConfig;
    ///
    /// let config = OtelConfig::langfuse_from_lookup(|name| match name {
    ///     "LANGFUSE_PUBLIC_KEY" => Some("pk-lf-1".to_owned()),
    ///     "LANGFUSE_SECRET_KEY" => Some("sk-lf-2".to_owned()),
    ///     "LANGFUSE_HOST" => Some("http://localhost:3000".to_owned()),
    ///     _ => None,
    /// })?;
    /// assert_eq!(config.endpoint, "http://localhost:3000/api/public/otel/v1/traces");
    /// assert_eq!(config.headers[0].1, "Basic cGstbGYtMTpzay1sZi0y");
    /// # Ok::<(), agentctl_trace::OtelError>(())
    /// ```
    pub fn langfuse_from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, OtelError> {
        let get = |name: &str| set(&lookup, name);
        let missing = |var| OtelError::MissingKey {
            backend: "langfuse",
            var,
        };
        let public = get("LANGFUSE_PUBLIC_KEY").ok_or_else(|| missing("LANGFUSE_PUBLIC_KEY"))?;
        let secret = get("LANGFUSE_SECRET_KEY").ok_or_else(|| missing("LANGFUSE_SECRET_KEY"))?;
        let host = ["LANGFUSE_HOST", "LANGFUSE_BASE_URL"]
            .into_iter()
            .find_map(|var| get(var).map(|host| (var, host)));
        let (var, host) = match &host {
            Some((var, host)) => (*var, host.as_str()),
            None => ("LANGFUSE_HOST (default)", LANGFUSE_DEFAULT_HOST),
        };
        let credentials =
            base64::engine::general_purpose::STANDARD.encode(format!("{public}:{secret}"));
        let headers = vec![
            ("Authorization".to_owned(), format!("Basic {credentials}")),
            ("x-langfuse-ingestion-version".to_owned(), "4".to_owned()),
        ];
        vendor(&lookup, var, host, "/api/public/otel/v1/traces", headers)
    }

    /// The standard variables of the process environment, for Langfuse; see
    /// [`OtelConfig::langfuse_from_lookup`].
    pub fn langfuse_from_env() -> Result<Self, OtelError> {
        Self::langfuse_from_lookup(|name| std::env::var(name).ok())
    }
}

/// A variable's value, trimmed, when it is set to something.
fn set(lookup: &impl Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    lookup(name)
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// The standard configuration (time limits, service name, content) with a vendor's traces URL
/// (`base` + `path`) and headers instead of the `OTEL_EXPORTER_OTLP_*` endpoint and headers.
fn vendor(
    lookup: &impl Fn(&str) -> Option<String>,
    var: &'static str,
    base: &str,
    path: &str,
    headers: Vec<(String, String)>,
) -> Result<OtelConfig, OtelError> {
    let mut config = OtelConfig::from_lookup(|name| {
        if [TRACES_ENDPOINT, ENDPOINT, TRACES_HEADERS, HEADERS].contains(&name) {
            None
        } else {
            lookup(name)
        }
    })?;
    let url = format!("{}{path}", base.trim_end_matches('/'));
    config.endpoint = super::config::check_endpoint(var, &url)?.to_string();
    config.headers = headers;
    Ok(config)
}

//! Knobs shared by every provider: retries, time limits, where environment variables and
//! relative cassette paths are looked up. Tests build these explicitly so they never depend on
//! the process environment or on real-world time limits.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How failed requests (429, 5xx, connection errors, timeouts) are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, including the first (at least 1).
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each further retry, with jitter.
    pub base_delay: Duration,
    /// Upper bound of any delay, including one asked for by `Retry-After`.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries: one attempt only.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }
}

/// Where API keys and base URLs are read from: the process environment or an explicit map.
///
/// ```
/// use agentctl_providers::Env;
/// let env = Env::from_pairs([("OPENAI_API_KEY", "sk-test")]);
/// assert_eq!(env.get("OPENAI_API_KEY").as_deref(), Some("sk-test"));
/// assert_eq!(env.get("HOME"), None);
/// ```
#[derive(Clone)]
pub struct Env(Arc<Lookup>);

/// A variable lookup.
type Lookup = dyn Fn(&str) -> Option<String> + Send + Sync;

impl Env {
    /// Reads the process environment.
    pub fn process() -> Self {
        Self(Arc::new(|name| std::env::var(name).ok()))
    }

    /// Reads only the given pairs.
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let map: BTreeMap<String, String> = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Self(Arc::new(move |name| map.get(name).cloned()))
    }

    /// Reads through any function.
    pub fn from_fn(lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(lookup))
    }

    /// The value of `name`, if set and not empty.
    pub fn get(&self, name: &str) -> Option<String> {
        (self.0)(name).filter(|value| !value.trim().is_empty())
    }
}

impl Default for Env {
    fn default() -> Self {
        Self::process()
    }
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print values: they include API keys.
        f.write_str("Env(..)")
    }
}

/// Options for [`build_provider`](crate::build_provider).
#[derive(Debug, Clone)]
pub struct ProviderOptions {
    /// Retry policy of every HTTP provider.
    pub retry: RetryPolicy,
    /// Limit on waiting for the answer's headers (and, when not streaming, its whole body).
    pub request_timeout: Duration,
    /// Limit on a stream going quiet: no new bytes for this long ends the call (checked a
    /// quarter of the limit apart while bytes come, so the call ends within 1.25× of it).
    pub idle_timeout: Duration,
    /// Source of API keys and base URLs.
    pub env: Env,
    /// Directory that relative `scripted:PATH` cassettes are resolved against; `None` means the
    /// process working directory.
    pub working_dir: Option<PathBuf>,
}

impl Default for ProviderOptions {
    fn default() -> Self {
        Self {
            retry: RetryPolicy::default(),
            request_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(60),
            env: Env::process(),
            working_dir: None,
        }
    }
}

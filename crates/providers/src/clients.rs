//! One HTTP client per client configuration per process.
//!
//! Building a `reqwest::Client` loads the system's trust store (about 150 files opened and 300
//! `statx` calls on Debian, a few milliseconds), and a client's connections are pooled inside
//! it. A provider built per conversation, per handoff or per sub-agent with a client of its own
//! paid both every time: the trust store loaded again, and a new TCP (and TLS) connection for
//! its first request. Providers now borrow a client from this process-wide pool, keyed by what
//! changes a client — its connect time limit and the proxy variables it reads when built — so
//! the trust store loads once and connections are reused across providers, conversations and
//! sessions. The base URL is not part of the key: a client pools connections per host.
//!
//! A client holds nothing of a provider's: keys and configured headers travel with each
//! request (see `http.rs`), so providers sharing a client never see each other's.

use crate::timers::TimerPool;
use std::ffi::OsString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The proxy variables a client reads when it is built (hyper-util's `Matcher::from_system`):
/// a process that sets one later gets a client that follows it.
const PROXY_VARIABLES: [&str; 9] = [
    "ALL_PROXY",
    "all_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "NO_PROXY",
    "no_proxy",
    // Set for CGI programs, where `HTTP_PROXY` may come from a request header and is ignored.
    "REQUEST_METHOD",
];

/// Distinct configurations kept. A process normally has one or two; one that keeps making new
/// ones (a time limit computed per provider) gets fresh clients past this many instead of a
/// pool that grows without end.
const KEEP: usize = 16;

/// A client shared by every provider built with the same configuration, with the timers of
/// their requests' time limits.
#[derive(Debug)]
pub(crate) struct SharedClient {
    /// The HTTP client: cloning it shares its connection pool.
    pub client: reqwest::Client,
    /// Timers kept between requests (see `timers.rs`), shared like the connections.
    pub timers: TimerPool,
}

/// What makes two clients differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientKey {
    connect_timeout: Duration,
    proxies: [Option<OsString>; PROXY_VARIABLES.len()],
}

impl ClientKey {
    /// The key of a client with this connect time limit, under the process's proxy variables
    /// as they are now.
    pub fn new(connect_timeout: Duration) -> Self {
        Self {
            connect_timeout,
            proxies: PROXY_VARIABLES.map(std::env::var_os),
        }
    }
}

static CLIENTS: Mutex<Vec<(ClientKey, Arc<SharedClient>)>> = Mutex::new(Vec::new());
static BUILT: AtomicU64 = AtomicU64::new(0);

/// The client of `key`, built with `build` the first time it is asked for. The pool's lock is
/// held while building, so providers built at once for the same configuration build one client.
pub(crate) fn shared_client<E>(
    key: ClientKey,
    build: impl FnOnce(Duration) -> Result<reqwest::Client, E>,
) -> Result<Arc<SharedClient>, E> {
    let mut clients = CLIENTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, client)) = clients.iter().find(|(known, _)| *known == key) {
        return Ok(Arc::clone(client));
    }
    let client = Arc::new(SharedClient {
        client: build(key.connect_timeout)?,
        timers: TimerPool::default(),
    });
    BUILT.fetch_add(1, Ordering::Relaxed);
    if clients.len() >= KEEP {
        // The oldest goes; the providers holding it keep it.
        clients.remove(0);
    }
    clients.push((key, Arc::clone(&client)));
    Ok(client)
}

/// How many HTTP clients this process has built for model and embedding providers: one per
/// client configuration (connect time limit, proxy variables), however many providers,
/// conversations, handoffs and sessions were built — a figure to check that connections are
/// shared.
///
/// ```
/// use agentctl_core::{ModelRef, Settings};
/// use agentctl_providers::{Env, ProviderOptions, build_provider, http_clients_built};
///
/// let options = ProviderOptions { env: Env::from_pairs([("OPENAI_API_KEY", "sk-test")]), ..Default::default() };
/// let model = ModelRef { provider: "openai".into(), model: "gpt-4o-mini".into() };
/// build_provider(&model, &Settings::default(), &options).unwrap();
/// let built = http_clients_built();
/// for _ in 0..10 {
///     build_provider(&model, &Settings::default(), &options).unwrap();
/// }
/// assert_eq!(http_clients_built(), built);
/// ```
pub fn http_clients_built() -> u64 {
    BUILT.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(timeout: Duration) -> Result<reqwest::Client, reqwest::Error> {
        reqwest::Client::builder().connect_timeout(timeout).build()
    }

    #[test]
    fn one_client_per_configuration() {
        agentctl_core::install_crypto_provider();
        // Time limits no other test uses: the pool is the process's.
        let first = shared_client(ClientKey::new(Duration::from_millis(90_001)), build).unwrap();
        let again = shared_client(ClientKey::new(Duration::from_millis(90_001)), build).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let other = shared_client(ClientKey::new(Duration::from_millis(90_002)), build).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        // A failed build is not kept.
        let failed = shared_client(ClientKey::new(Duration::from_millis(90_003)), |_| Err(()));
        assert!(failed.is_err());
        let clients = CLIENTS.lock().unwrap();
        assert!(
            !clients
                .iter()
                .any(|(key, _)| key.connect_timeout == Duration::from_millis(90_003))
        );
    }

    #[test]
    fn proxy_variables_are_part_of_the_key() {
        let key = ClientKey::new(Duration::from_secs(1));
        let mut proxied = key.clone();
        proxied.proxies[4] = Some("http://proxy.invalid:3128".into());
        assert_ne!(key, proxied);
    }
}

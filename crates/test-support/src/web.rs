//! A fake web site on `127.0.0.1:0` for the web tools: the same reply for every request to a
//! path, every request recorded, a 404 that names the path for anything else.
//!
//! Unlike the model servers it checks nothing: a web page has no request rules. Replies are
//! the model servers' [`Reply`], so a page can be delayed (a server that never answers), sent
//! in pieces, or be a redirect (`Reply::raw(302, "text/plain", "").header("location", …)`).

use crate::server::{read_request, write_reply};
use crate::wire::{RecordedRequest, Reply};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

#[derive(Default)]
struct State {
    pages: HashMap<String, Reply>,
    requests: Vec<RecordedRequest>,
}

/// A fake web site on `127.0.0.1`; stops when dropped.
///
/// ```no_run
/// # async fn demo() {
/// use agentctl_test_support::{FakeWeb, Reply};
/// let site = FakeWeb::start().await;
/// site.page("/hello", Reply::raw(200, "text/html", "<h1>Hi</h1>"));
/// // … fetch site.url("/hello") …
/// assert_eq!(site.requests()[0].path, "/hello");
/// # }
/// ```
pub struct FakeWeb {
    address: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl FakeWeb {
    /// Starts a site with no pages.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|error| panic!("fake web: cannot bind 127.0.0.1:0: {error}"));
        let address = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("fake web: {error}"));
        let state = Arc::new(Mutex::new(State::default()));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut stream).await else {
                        return;
                    };
                    let reply = {
                        let mut state = shared.lock().unwrap_or_else(PoisonError::into_inner);
                        let path = request.path.split('?').next().unwrap_or_default();
                        let reply = state.pages.get(path).cloned().unwrap_or_else(|| {
                            Reply::raw(404, "text/plain", format!("fake web: no page at {path}"))
                        });
                        state.requests.push(request);
                        reply
                    };
                    write_reply(&mut stream, reply).await;
                });
            }
        });
        Self {
            address,
            state,
            task,
        }
    }

    /// Serves `reply` to every request for `path` (the query is not part of the match).
    pub fn page(&self, path: &str, reply: Reply) {
        self.lock().pages.insert(path.to_owned(), reply);
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// `127.0.0.1:PORT`, as a host pattern for settings.
    pub fn host(&self) -> String {
        self.address.to_string()
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for FakeWeb {
    fn drop(&mut self) {
        self.task.abort();
    }
}

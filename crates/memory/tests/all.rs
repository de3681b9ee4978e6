//! Integration tests of agentctl-memory: the store on real SQLite files, the tools as a run
//! calls them, embeddings from an in-process model and over HTTP from the strict fake server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod hostile;
    #[cfg(unix)]
    mod private;
    mod store;
    mod support;
    mod tools;
}

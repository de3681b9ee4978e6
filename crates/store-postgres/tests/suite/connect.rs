//! Connecting: calls from inside async code, errors that name the store without its
//! password, and stores dropped cleanly.

use super::support::scratch;
use agentctl_core::{ContextMode, Message};
use agentctl_store::*;
use agentctl_store_postgres::PgStore;
use std::sync::Arc;

#[test]
fn an_unreachable_server_is_a_retryable_error_without_the_password() {
    let error = PgStore::connect("postgres://app:pa55-w0rd-x@127.0.0.1:1/agents?connect_timeout=5")
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("session store postgres://app@127.0.0.1:1/agents: "),
        "{text}"
    );
    assert!(!text.contains("pa55-w0rd-x"), "{text}");
    assert!(error.is_retryable(), "{text}");
    let error = PgStore::connect("postgres://app:pa55-w0rd-x@127.0.0.1:1/agents?sslmode=bogus")
        .unwrap_err();
    assert!(!error.to_string().contains("pa55-w0rd-x"));
    assert!(!error.is_retryable());
}

#[test]
fn a_missing_database_says_what_to_do() {
    let Some(database) = scratch() else { return };
    let missing = format!("{}_missing", database.url());
    let error = PgStore::connect(&missing).unwrap_err().to_string();
    assert!(error.contains("does not exist"), "{error}");
    assert!(error.contains("createdb"), "{error}");
}

/// The store traits are synchronous; called inline from async code (as agentctl does), the
/// PostgreSQL store must neither panic (no `block_on` inside a runtime) nor stall its caller's
/// runtime.
#[tokio::test(flavor = "current_thread")]
async fn calls_from_inside_a_current_thread_runtime() {
    let Some(database) = scratch() else { return };
    let store = PgStore::connect(database.url()).unwrap();
    let session = store.create_session(None).unwrap().id;
    store
        .append_messages(
            &session,
            None,
            &[NewMessage::new(
                ContextScope::Main,
                None,
                Message::user("inline"),
            )],
        )
        .unwrap();
    tokio::task::yield_now().await;
    assert_eq!(
        store
            .messages(&session, &MessageQuery::timeline())
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_from_tasks_of_a_multi_thread_runtime() {
    let Some(database) = scratch() else { return };
    let store: Arc<dyn SessionStore> = Arc::new(PgStore::connect(database.url()).unwrap());
    let session = store.create_session(None).unwrap().id;
    let tasks: Vec<_> = (0..8)
        .map(|n| {
            let (store, session) = (Arc::clone(&store), session.clone());
            tokio::spawn(async move {
                let run = store
                    .start_run(&session, &NewRun::new(format!("a{n}"), ContextMode::Run))
                    .unwrap();
                store
                    .record_turn(
                        run.id,
                        &[NewMessage::new(run.context_scope, None, Message::user("x"))],
                        &[],
                    )
                    .unwrap();
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(store.runs(&session).unwrap().len(), 8);
    // Dropped inside the runtime: the store's own thread is joined without a panic.
    drop(store);
}

//! The examples of the store contracts (agentctl-store links no store, so its traits' examples
//! run here, on the SQLite store).

use agentctl_store::ContextError;

/// The example of `clear_agent_context` (agentctl-store's `store.rs`).
#[test]
fn clear_agent_context() -> Result<(), ContextError> {
    use agentctl_core::Message;
    use agentctl_store::*;
    use agentctl_store_sqlite::*;

    let store = SqliteStore::open_in_memory()?;
    let session = store.create_session(None)?.id;
    let reviewer = ContextScope::agent("reviewer");
    store.append_messages(
        &session,
        None,
        &[
            NewMessage::new(ContextScope::Main, None, Message::user("hello")),
            NewMessage::new(
                reviewer.clone(),
                Some("reviewer"),
                Message::assistant("noted"),
            ),
        ],
    )?;
    let cleared = store.clear_agent_context("reviewer")?;
    assert_eq!(
        (cleared.sessions, cleared.messages, cleared.summaries),
        (1, 1, 0)
    );
    assert!(
        store
            .messages(&session, &MessageQuery::scope(reviewer))?
            .is_empty()
    );
    assert_eq!(
        store
            .messages(&session, &MessageQuery::scope(ContextScope::Main))?
            .len(),
        1
    );
    Ok(())
}

/// The example of `graph_log` (agentctl-store's `store.rs`).
#[test]
fn graph_log() -> Result<(), ContextError> {
    use agentctl_store::*;
    use agentctl_store_sqlite::*;
    use serde_json::json;

    let store = SqliteStore::open_in_memory()?;
    let session = store.create_session(None)?;
    let input = store.start_graph(
        &session.id,
        "debug-flow",
        &json!({"input": "it crashes"}),
        "analyzer",
    )?;
    assert_eq!(
        (input.branch, input.step, input.next.as_deref()),
        (0, 0, Some("analyzer"))
    );

    // After each node: the state, the node's run and the next node, in one transaction.
    let state = json!({"input": "it crashes", "analysis": {"can_auto_fix": true}});
    store.write_checkpoint(&NewCheckpoint {
        session: &session.id,
        branch: 0,
        step: 1,
        node: "analyzer",
        run: None,
        next: Some("fixer"),
        reason: None,
        state: &state,
        parallel: None,
    })?;
    // A second writer of step 1 (another process resuming the same graph) is refused.
    let again = store.write_checkpoint(&NewCheckpoint {
        session: &session.id,
        branch: 0,
        step: 1,
        node: "analyzer",
        run: None,
        next: Some("fixer"),
        reason: None,
        state: &state,
        parallel: None,
    });
    assert!(matches!(
        again,
        Err(ContextError::CheckpointConflict { .. })
    ));

    // Resume reads the latest checkpoint; time travel forks an earlier one into branch 1.
    let latest = store.latest_checkpoint(&session.id, 0)?;
    assert_eq!(
        latest.and_then(|checkpoint| checkpoint.next).as_deref(),
        Some("fixer")
    );
    let fork = store.fork_graph(&session.id, 0, 0)?;
    assert_eq!((fork.branch, fork.step, fork.parent), (1, 0, Some((0, 0))));
    assert_eq!(store.graph_checkpoints(&session.id, 0)?.len(), 2);
    assert_eq!(store.graph_branches(&session.id)?.len(), 2);
    Ok(())
}

/// The example of `open_session` (agentctl-store's `session.rs`).
#[test]
fn open_session() -> Result<(), ContextError> {
    use agentctl_store::{SessionChoice, open_session};
    use agentctl_store_sqlite::SqliteStore;
    let store = SqliteStore::open_in_memory()?;
    let first = open_session(&store, &SessionChoice::Continue)?;
    let again = open_session(&store, &SessionChoice::Continue)?;
    assert_eq!(first.id, again.id);
    let resumed = open_session(&store, &SessionChoice::Resume(first.id.clone()))?;
    assert_eq!(resumed.id, first.id);
    assert!(open_session(&store, &SessionChoice::Resume("nope".into())).is_err());
    Ok(())
}

/// The example of `run_recorder` (agentctl-store's `recorder.rs`).
#[test]
fn run_recorder() -> Result<(), ContextError> {
    use agentctl_core::{ContextMode, Message, RunEvent};
    use agentctl_store::*;
    use agentctl_store_sqlite::*;
    use std::sync::Arc;

    let store = Arc::new(SqliteStore::open_in_memory()?);
    let session = store.create_session(None)?.id;
    let run = NewRun::new("helper", ContextMode::Shared);
    let mut recorder = RunRecorder::start(store.clone(), &session, &run, "hello", Vec::new())?;
    let answer = Message::Assistant {
        content: Some("Hi!".into()),
        tool_calls: vec![],
    };
    recorder.event(&RunEvent::TurnCommitted {
        turn: 1,
        messages: vec![answer],
    });
    let ending = RunEnding {
        status: RunStatus::Completed,
        answer_visible: true,
        step: None,
        handoff: None,
    };
    assert!(recorder.finish(ending).is_none());
    assert_eq!(
        store.messages(&session, &MessageQuery::timeline())?.len(),
        2
    );
    Ok(())
}

/// The example of `export_session` (agentctl-store's `transfer.rs`).
#[test]
fn export_session() -> Result<(), ContextError> {
    use agentctl_core::Message;
    use agentctl_store::*;
    use agentctl_store_sqlite::*;

    let from = SqliteStore::open_in_memory()?;
    let session = from.create_session(Some("demo"))?;
    from.append_messages(
        &session.id,
        None,
        &[NewMessage::new(
            ContextScope::Main,
            None,
            Message::user("hi"),
        )],
    )?;
    let bundle = export_session(&from, &session.id)?;
    assert_eq!(bundle.messages.len(), 1);

    let to = SqliteStore::open_in_memory()?;
    assert!(matches!(
        to.import_session(&bundle)?,
        ImportOutcome::Copied {
            messages: 1,
            runs: 0
        }
    ));
    assert_eq!(to.import_session(&bundle)?, ImportOutcome::AlreadyThere);
    assert_eq!(to.session(&session.id)?.title.as_deref(), Some("demo"));
    Ok(())
}

/// The example of `copy_sessions` (agentctl-store's `transfer/copy.rs`).
#[test]
fn copy_sessions() -> Result<(), ContextError> {
    use agentctl_core::Message;
    use agentctl_store::*;
    use agentctl_store_sqlite::*;

    let (laptop, server) = (
        SqliteStore::open_in_memory()?,
        SqliteStore::open_in_memory()?,
    );
    let id = laptop.create_session(None)?.id;
    let say = |text: &str| {
        [NewMessage::new(
            ContextScope::Main,
            None,
            Message::user(text),
        )]
    };
    laptop.append_messages(&id, None, &say("one"))?;
    let first = copy_sessions(&laptop, &server, &mut |_, _| {})?;
    assert_eq!(first.copied, 1);
    laptop.append_messages(&id, None, &say("two"))?;
    let second = copy_sessions(&laptop, &server, &mut |_, _| {})?;
    assert_eq!(second.updated, 1);
    assert_eq!(server.messages(&id, &MessageQuery::default())?.len(), 2);
    // Both sides write: the session is left alone and reported.
    laptop.append_messages(&id, None, &say("three"))?;
    server.append_messages(&id, None, &say("elsewhere"))?;
    let third = copy_sessions(&laptop, &server, &mut |_, _| {})?;
    assert_eq!(third.conflicts, [(id, Conflict::BothChanged)]);
    Ok(())
}

/// The example of `fingerprint` (agentctl-store's `transfer/fingerprint.rs`).
#[test]
fn fingerprint() -> Result<(), ContextError> {
    use agentctl_core::Message;
    use agentctl_store::*;
    use agentctl_store_sqlite::*;

    let store = SqliteStore::open_in_memory()?;
    let id = store.create_session(None)?.id;
    let before = export_session(&store, &id)?.fingerprint();
    assert_eq!(export_session(&store, &id)?.fingerprint(), before);
    store.append_messages(
        &id,
        None,
        &[NewMessage::new(
            ContextScope::Main,
            None,
            Message::user("hi"),
        )],
    )?;
    assert_ne!(export_session(&store, &id)?.fingerprint(), before);
    Ok(())
}

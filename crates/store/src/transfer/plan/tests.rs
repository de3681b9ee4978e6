//! Tests of [`ImportPlan`](super::ImportPlan).

use super::*;
use crate::record::{ContextSummary, RunRecord, RunStatus, SessionInfo, StoredMessage};
use crate::scope::ContextScope;
use crate::source::Source;
use agentctl_core::{Message, Usage};

fn bundle() -> SessionBundle {
    let scope = ContextScope::run(7);
    SessionBundle {
        session: SessionInfo {
            id: "s".into(),
            title: Some("about sk-secret".into()),
            created_at: 1,
            updated_at: 2,
            message_count: 1,
            run_count: 1,
        },
        mode_overrides: Default::default(),
        runs: vec![RunRecord {
            id: 7,
            session_id: "s".into(),
            agent: "a".into(),
            parent_run_id: None,
            context_scope: scope.clone(),
            status: RunStatus::Completed,
            model: None,
            source: Source::CLI,
            usage: Usage::default(),
            started_at: 1,
            finished_at: Some(2),
        }],
        steps: Vec::new(),
        messages: vec![StoredMessage {
            id: 3,
            run_id: Some(7),
            timeline_scope: "main".into(),
            context_scope: scope.clone(),
            agent: None,
            role: "user",
            visible: true,
            source: Source::CLI,
            token_estimate: 2,
            created_at: 1,
            message: Message::user("the key is sk-secret"),
        }],
        summaries: vec![ContextSummary {
            id: 1,
            scope,
            until_message_id: 3,
            summary_text: "sk-secret said".into(),
            created_at: 1,
            updated_at: 2,
        }],
        replaced_summaries: Vec::new(),
        state: Vec::new(),
        checkpoints: Vec::new(),
        spans: Vec::new(),
    }
}

fn text(value: &Value) -> &str {
    match value {
        Value::Text(text) => text,
        _ => "",
    }
}

#[test]
fn rows_come_in_order_with_new_ids_and_secrets_masked() {
    let bundle = bundle();
    let redactor = Redactor::new(["sk-secret"]);
    let mut plan = ImportPlan::new(&bundle, &redactor).unwrap();
    let mut writes = Vec::new();
    let mut next_id = 100;
    while let Some(write) = plan.next_write().unwrap() {
        if write.kind == WriteKind::InsertReturningId {
            next_id += 1;
            plan.written(next_id);
        }
        writes.push(write);
    }
    let tables: Vec<(&str, WriteKind)> = writes
        .iter()
        .map(|write| (write.table.name, write.kind))
        .collect();
    assert_eq!(
        tables,
        [
            ("sessions", WriteKind::Insert),
            ("agent_runs", WriteKind::InsertReturningId),
            ("agent_runs", WriteKind::Update),
            ("chat_messages", WriteKind::InsertReturningId),
            ("chat_context_summaries", WriteKind::Insert),
        ]
    );
    // Every value has its described column, and every column a value.
    for write in &writes {
        assert!(write.typed_values().all(|(_, column)| column.is_some()));
        let keys = if write.kind == WriteKind::Update {
            write.table.primary_key.len()
        } else {
            0
        };
        assert_eq!(write.values.len(), write.columns.len() + keys);
    }
    // The run is 101 and the message 102: the scope, the message's run and the
    // summary's cursor follow.
    assert_eq!(
        writes[2].values,
        [
            Value::Text("run:101".into()),
            Value::Null,
            Value::Integer(101)
        ]
    );
    assert_eq!(writes[3].values[1], Value::Integer(101));
    assert_eq!(text(&writes[3].values[3]), "run:101");
    assert_eq!(writes[4].values[1], Value::Text("run:101".into()));
    assert_eq!(writes[4].values[2], Value::Integer(102));
    for write in &writes {
        for value in &write.values {
            assert!(!text(value).contains("sk-secret"), "{write:?}");
        }
    }
    assert_eq!(
        plan.outcome(),
        ImportOutcome::Copied {
            messages: 1,
            runs: 1
        }
    );
}

//! The tables of the current session schema (SQLite version 9, PostgreSQL version 4).
//!
//! Written with a few `const fn` builders so each column reads as one line.

use super::{Backend, Column, ColumnType, DefaultValue, ForeignKey, Index, OnDelete, Table};

const fn col(name: &'static str, ty: ColumnType) -> Column {
    Column {
        name,
        ty,
        nullable: false,
        default: None,
        references: None,
        check: None,
        only: None,
    }
}

const fn null(name: &'static str, ty: ColumnType) -> Column {
    Column {
        nullable: true,
        ..col(name, ty)
    }
}

const fn id() -> Column {
    col("id", ColumnType::Id)
}

const fn text(name: &'static str) -> Column {
    col(name, ColumnType::Text)
}

const fn int(name: &'static str) -> Column {
    col(name, ColumnType::Integer)
}

const fn only(column: Column, backend: Backend) -> Column {
    Column {
        only: Some(backend),
        ..column
    }
}

const fn refers(column: Column, table: &'static str, on_delete: OnDelete) -> Column {
    Column {
        references: Some(ForeignKey {
            table,
            column: "id",
            on_delete,
        }),
        ..column
    }
}

/// `session_id`: the session the row belongs to, gone with it.
const fn session_id() -> Column {
    refers(text("session_id"), "sessions", OnDelete::Cascade)
}

/// A `source` column: what wrote the row, `cli` for rows older than the column.
const fn source() -> Column {
    Column {
        default: Some((DefaultValue::Text("cli"), None)),
        ..text("source")
    }
}

const fn checked(column: Column, check: &'static str) -> Column {
    Column {
        check: Some(check),
        ..column
    }
}

const fn index(name: &'static str, columns: &'static [&'static str]) -> Index {
    Index {
        name: Some(name),
        columns,
        unique: false,
        only: None,
    }
}

const SESSIONS: Table = Table {
    name: "sessions",
    columns: &[
        text("id"),
        null("title", ColumnType::Text),
        int("created_at"),
        int("updated_at"),
        only(
            Column {
                default: Some((DefaultValue::Integer(0), None)),
                ..int("message_count")
            },
            Backend::Sqlite,
        ),
        only(
            Column {
                default: Some((DefaultValue::Integer(0), None)),
                ..int("run_count")
            },
            Backend::Sqlite,
        ),
        only(col("seq", ColumnType::Sequence), Backend::Postgres),
    ],
    primary_key: &["id"],
    indexes: &[
        Index {
            only: Some(Backend::Sqlite),
            ..index("idx_sessions_updated", &["updated_at"])
        },
        Index {
            only: Some(Backend::Postgres),
            ..index("idx_sessions_updated", &["updated_at DESC", "seq DESC"])
        },
    ],
    without_rowid: false,
};

const AGENT_RUNS: Table = Table {
    name: "agent_runs",
    columns: &[
        id(),
        session_id(),
        text("agent_id"),
        refers(
            null("parent_run_id", ColumnType::Integer),
            "agent_runs",
            OnDelete::Cascade,
        ),
        text("context_scope"),
        text("status"),
        null("model", ColumnType::Text),
        null("usage", ColumnType::Json),
        int("started_at"),
        null("finished_at", ColumnType::Integer),
        only(null("owner_client", ColumnType::Integer), Backend::Postgres),
        null("owner_pid", ColumnType::Integer),
        only(null("owner_start", ColumnType::Integer), Backend::Sqlite),
        only(null("owner_boot", ColumnType::Text), Backend::Sqlite),
        only(null("owner_host", ColumnType::Text), Backend::Postgres),
        source(),
    ],
    primary_key: &["id"],
    indexes: &[
        index("idx_agent_runs_session", &["session_id", "id"]),
        index("idx_agent_runs_parent", &["parent_run_id"]),
        index("idx_agent_runs_status", &["session_id", "status"]),
        index(
            "idx_agent_runs_context_scope_started_at",
            &["context_scope", "started_at DESC"],
        ),
    ],
    without_rowid: false,
};

const CHAT_MESSAGES: Table = Table {
    name: "chat_messages",
    columns: &[
        id(),
        session_id(),
        refers(
            null("run_id", ColumnType::Integer),
            "agent_runs",
            OnDelete::SetNull,
        ),
        text("timeline_scope"),
        text("context_scope"),
        null("agent_id", ColumnType::Text),
        text("role"),
        col("content", ColumnType::Json),
        col("visible", ColumnType::Flag),
        col("token_estimate", ColumnType::Int32),
        int("created_at"),
        source(),
    ],
    primary_key: &["id"],
    indexes: &[
        index(
            "idx_chat_messages_timeline",
            &["session_id", "timeline_scope", "visible", "id"],
        ),
        index(
            "idx_chat_messages_context",
            &["session_id", "context_scope", "id"],
        ),
        index("idx_chat_messages_run", &["run_id"]),
    ],
    without_rowid: false,
};

const CHAT_CONTEXT_SUMMARIES: Table = Table {
    name: "chat_context_summaries",
    columns: &[
        id(),
        session_id(),
        text("scope"),
        int("until_message_id"),
        text("summary_text"),
        int("created_at"),
        // SQLite added the column to existing rows, hence its default.
        Column {
            default: Some((DefaultValue::Integer(0), Some(Backend::Sqlite))),
            ..int("updated_at")
        },
    ],
    primary_key: &["id"],
    indexes: &[
        Index {
            unique: true,
            only: Some(Backend::Sqlite),
            ..index("idx_chat_context_summaries_scope", &["session_id", "scope"])
        },
        Index {
            name: None,
            columns: &["session_id", "scope"],
            unique: true,
            only: Some(Backend::Postgres),
        },
    ],
    without_rowid: false,
};

const CHAT_CONTEXT_SUMMARY_HISTORY: Table = Table {
    name: "chat_context_summary_history",
    columns: &[
        id(),
        session_id(),
        text("scope"),
        int("until_message_id"),
        text("summary_text"),
        int("created_at"),
        int("replaced_at"),
    ],
    primary_key: &["id"],
    indexes: &[index(
        "idx_chat_context_summary_history_scope",
        &["session_id", "scope", "id"],
    )],
    without_rowid: false,
};

const AGENT_RUN_STEPS: Table = Table {
    name: "agent_run_steps",
    columns: &[
        id(),
        refers(int("run_id"), "agent_runs", OnDelete::Cascade),
        int("step_index"),
        text("kind"),
        col("content", ColumnType::Json),
        int("created_at"),
        null("prompt_token_budget", ColumnType::Integer),
        null("estimated_prompt_tokens", ColumnType::Integer),
        null("model_context_window", ColumnType::Integer),
    ],
    primary_key: &["id"],
    indexes: &[Index {
        name: None,
        columns: &["run_id", "step_index"],
        unique: true,
        only: None,
    }],
    without_rowid: false,
};

const SESSION_MODE_OVERRIDES: Table = Table {
    name: "session_mode_overrides",
    columns: &[session_id(), text("agent_id"), text("mode")],
    primary_key: &["session_id", "agent_id"],
    indexes: &[],
    without_rowid: false,
};

const SESSION_STATE: Table = Table {
    name: "session_state",
    columns: &[
        session_id(),
        text("key"),
        col("value", ColumnType::Json),
        int("updated_at"),
        text("updated_by"),
    ],
    primary_key: &["session_id", "key"],
    indexes: &[],
    without_rowid: true,
};

const GRAPH_CHECKPOINTS: Table = Table {
    name: "graph_checkpoints",
    columns: &[
        session_id(),
        checked(int("branch"), "branch >= 0"),
        checked(int("step"), "step >= 0"),
        text("graph"),
        null("node", ColumnType::Text),
        refers(
            null("run_id", ColumnType::Integer),
            "agent_runs",
            OnDelete::SetNull,
        ),
        null("next_node", ColumnType::Text),
        null("reason", ColumnType::Text),
        col("state", ColumnType::Json),
        checked(text("source"), "source IN ('input', 'node', 'fork')"),
        null("parent_branch", ColumnType::Integer),
        null("parent_step", ColumnType::Integer),
        int("created_at"),
        null("parallel", ColumnType::Json),
    ],
    primary_key: &["session_id", "branch", "step"],
    indexes: &[index("idx_graph_checkpoints_run", &["run_id"])],
    without_rowid: true,
};

const TRACE_SPANS: Table = Table {
    name: "trace_spans",
    columns: &[
        session_id(),
        text("trace_id"),
        text("span_id"),
        null("parent_id", ColumnType::Text),
        text("kind"),
        int("start_ns"),
        col("span", ColumnType::Json),
    ],
    primary_key: &["session_id", "trace_id", "span_id"],
    indexes: &[
        Index {
            only: Some(Backend::Sqlite),
            ..index("idx_trace_spans_start", &["session_id", "start_ns"])
        },
        Index {
            only: Some(Backend::Postgres),
            ..index(
                "idx_trace_spans_start",
                &["session_id", "start_ns", "span_id"],
            )
        },
    ],
    without_rowid: true,
};

const SESSION_SYNC: Table = Table {
    name: "session_sync",
    columns: &[session_id(), text("mine"), text("theirs"), int("marked_at")],
    primary_key: &["session_id"],
    indexes: &[],
    without_rowid: true,
};

/// Every table of the session schema, each after the tables it refers to.
pub static TABLES: &[Table] = &[
    SESSIONS,
    AGENT_RUNS,
    CHAT_MESSAGES,
    CHAT_CONTEXT_SUMMARIES,
    CHAT_CONTEXT_SUMMARY_HISTORY,
    AGENT_RUN_STEPS,
    SESSION_MODE_OVERRIDES,
    SESSION_STATE,
    GRAPH_CHECKPOINTS,
    TRACE_SPANS,
    SESSION_SYNC,
];

//! JSON in model texts, checked against JSON Schemas.
//!
//! Shared by the `schema:` guardrails, the `task` tool's result schemas and the handoff
//! payload schemas, so that a model reads the same accepted forms and the same error wording
//! wherever it is asked for JSON.

mod extract;
mod schema;

pub use extract::{JsonForm, extract_json};
pub use schema::{JsonSchemaCheck, MAX_SCHEMA_ERRORS};

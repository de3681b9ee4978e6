//! Guardrails for agentctl: checks on what goes into a run and what comes out of it.
//!
//! An agent file declares `guardrails:` ([`Guardrail`](agentctl_core::Guardrail)); the
//! [`Guardrails`] factory compiles them, once per run, into [`CompiledGuardrails`], which the
//! agent loop asks at each phase through [`RunGuardrails`](agentctl_core::RunGuardrails):
//!
//! - **`schema:`** — the text must be a bare JSON document or hold exactly one ` ```json `
//!   block matching the JSON Schema ([`JsonSchemaCheck`], also used by the `task` tool and
//!   handoff payloads);
//! - **built-in validators** — `regex`, `not-regex`, `max-length`, `json`, `contains-secret`;
//! - **registered validators** — a program's own [`Validator`]s in a [`ValidatorRegistry`],
//!   named by `validator:` (or by the guardrail's name with `validator: custom`);
//! - **`command:`** — a program that reads the text on stdin, run sandboxed in the project
//!   root like the `bash` tool's commands ([`CommandEnvironment`]).
//!
//! A failing guardrail rejects the run, asks the model to repair its answer (with a prompt
//! naming the errors and, for schemas, the schema), or only warns, as its `policy` says.
//! [`check_declarations`] lists every problem of a declaration for `agents validate`, by the
//! same rules the factory compiles with; [`GuardrailsCheck`] registers that check with
//! agent-file validation (`agentctl-definitions`).
//!
//! ```
//! use agentctl_core::{Guardrail, GuardrailStage};
//! use agentctl_guardrails::{Guardrails, ValidatorRegistry, check_declarations};
//!
//! let declared = [Guardrail {
//!     name: "no-keys".into(),
//!     stage: GuardrailStage::Output,
//!     validator: Some("contains-secret".into()),
//!     ..Guardrail::default()
//! }];
//! assert!(check_declarations("writer", &declared, Some(&ValidatorRegistry::new())).is_empty());
//! let compiled = Guardrails::default().compile("writer", &declared, ".".as_ref()).unwrap();
//! assert_eq!(compiled.names().collect::<Vec<_>>(), ["no-keys"]);
//! ```

mod builtin;
mod command;
mod declare;
mod definition_check;
mod factory;
mod json;
mod programs;
mod run;
mod shell;
mod validator;

pub use command::{CommandEnvironment, MAX_STDERR_BYTES};
pub use declare::{MAX_REPAIRS_LIMIT, check_declarations};
pub use definition_check::GuardrailsCheck;
pub use factory::Guardrails;
pub use json::{JsonForm, JsonSchemaCheck, MAX_SCHEMA_ERRORS, extract_json};
pub use programs::SkippedProgram;
pub use run::CompiledGuardrails;
pub use shell::{ShellOutcome, ShellRun};
pub use validator::{
    BUILTIN_VALIDATORS, CUSTOM_VALIDATOR, FnValidator, RegisterError, Validator, ValidatorInput,
    ValidatorRegistry, validator_fn,
};

//! The rules of `guardrails:` declarations: [`check_declarations`] lists every problem for
//! `agents validate`, and the factory compiles with the same rules.

use crate::builtin::{Builtin, compile_pattern};
use crate::json::JsonSchemaCheck;
use crate::validator::{BUILTIN_VALIDATORS, CUSTOM_VALIDATOR, Validator, ValidatorRegistry};
use agentctl_core::{Guardrail, GuardrailPolicy, GuardrailSpecError, GuardrailStage};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most repair attempts a guardrail may ask for.
pub const MAX_REPAIRS_LIMIT: u32 = 10;

/// What a declaration checks, compiled.
pub(crate) enum Declared {
    /// A `schema:`.
    Schema(Arc<JsonSchemaCheck>),
    /// A built-in validator.
    Builtin(Builtin),
    /// A validator the program registered.
    Registered {
        /// The name it is registered under.
        name: String,
        validator: Arc<dyn Validator>,
    },
    /// A `command:` validator: the program and its arguments.
    Command(Vec<String>),
}

/// Every problem of an agent's `guardrails:` declarations, in declaration order, each located
/// by its field (`guardrails[1].pattern`, or `guardrails[1]` for the whole entry) with a
/// one-line message saying what to change. Empty when all can be used.
///
/// `registry` is the embedding program's validators: a `validator:` that is neither built in
/// nor registered is a problem. Without one (`None`: loading agent files, before anyone knows
/// which validators the program registers) every name is taken as registered; the runtime
/// checks it when it compiles the agent's guardrails.
///
/// ```
/// use agentctl_core::{Guardrail, GuardrailStage};
/// use agentctl_guardrails::{ValidatorRegistry, check_declarations};
///
/// let guardrails = [Guardrail {
///     name: "no-todo".into(),
///     stage: GuardrailStage::Output,
///     validator: Some("not-regex".into()),
///     pattern: Some("TODO(".into()),
///     ..Guardrail::default()
/// }];
/// let problems = check_declarations("writer", &guardrails, Some(&ValidatorRegistry::new()));
/// assert_eq!(problems[0].field, "guardrails[0].pattern");
/// assert_eq!(
///     problems[0].message,
///     "not a valid regular expression: unclosed group (at character 5)"
/// );
/// ```
pub fn check_declarations(
    agent: &str,
    guardrails: &[Guardrail],
    registry: Option<&ValidatorRegistry>,
) -> Vec<GuardrailSpecError> {
    declare(agent, guardrails, registry)
        .err()
        .unwrap_or_default()
}

/// The compiled declarations, or every problem.
pub(crate) fn declare(
    agent: &str,
    guardrails: &[Guardrail],
    registry: Option<&ValidatorRegistry>,
) -> Result<Vec<Declared>, Vec<GuardrailSpecError>> {
    let mut problems = Vec::new();
    let mut declared = Vec::new();
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, guardrail) in guardrails.iter().enumerate() {
        let mut problem = |field: &str, message: String| {
            let field = if field.is_empty() {
                format!("guardrails[{index}]")
            } else {
                format!("guardrails[{index}].{field}")
            };
            problems.push(GuardrailSpecError {
                agent: agent.to_owned(),
                field,
                message,
            });
        };
        let name = guardrail.name.trim();
        if name.is_empty() {
            problem(
                "name",
                "the name is empty; give the guardrail a name (events and errors show it)".into(),
            );
        } else if let Some(first) = names.get(name) {
            problem(
                "name",
                format!(
                    "`{name}` is the name of guardrails[{first}] already; give each guardrail its own name"
                ),
            );
        } else {
            names.insert(name, index);
        }
        if let Some(compiled) = declare_one(guardrail, registry, &mut problem) {
            declared.push(compiled);
        }
    }
    if problems.is_empty() {
        Ok(declared)
    } else {
        Err(problems)
    }
}

/// Checks one declaration, reporting each problem to `problem(field, message)`; its compiled
/// check when what it checks is usable.
fn declare_one(
    guardrail: &Guardrail,
    registry: Option<&ValidatorRegistry>,
    problem: &mut impl FnMut(&str, String),
) -> Option<Declared> {
    let sources: Vec<&str> = [
        guardrail.schema.is_some().then_some("schema"),
        guardrail.validator.is_some().then_some("validator"),
        (!guardrail.command.is_empty()).then_some("command"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let declared = match sources.as_slice() {
        [] => {
            problem(
                "",
                "nothing to check: set one of `schema`, `validator` or `command`".into(),
            );
            None
        }
        [_] => {
            if let Some(schema) = &guardrail.schema {
                declare_schema(schema, problem)
            } else if let Some(validator) = &guardrail.validator {
                declare_validator(guardrail, validator, registry, problem)
            } else {
                declare_command(&guardrail.command, problem)
            }
        }
        several => {
            problem(
                "",
                format!(
                    "sets `{}`; keep exactly one of `schema`, `validator` and `command`",
                    several.join("` and `")
                ),
            );
            None
        }
    };
    check_options(guardrail, problem);
    declared
}

/// Reports the options set where they do not apply (or out of range): validator options on
/// another validator, `timeoutSeconds` without a command, `parallel` outside the input stage,
/// repairs of an input or with another policy.
fn check_options(guardrail: &Guardrail, problem: &mut impl FnMut(&str, String)) {
    let validator = guardrail.validator.as_deref();
    if guardrail.pattern.is_some() && !matches!(validator, Some("regex" | "not-regex")) {
        problem(
            "pattern",
            "`pattern` only applies to the `regex` and `not-regex` validators; remove it".into(),
        );
    }
    if guardrail.max_length.is_some() && validator != Some("max-length") {
        problem(
            "maxLength",
            "`maxLength` only applies to the `max-length` validator; remove it".into(),
        );
    }
    // A named validator may be a program (`.agentctl/validators/NAME`), which runs as a
    // command does.
    let program = validator.is_some_and(|name| !BUILTIN_VALIDATORS.contains(&name));
    match guardrail.timeout_seconds {
        Some(_) if guardrail.command.is_empty() && !program => problem(
            "timeoutSeconds",
            "`timeoutSeconds` only applies to `command` validators and validator programs; remove it".into(),
        ),
        Some(0) => problem(
            "timeoutSeconds",
            "must be at least 1 (seconds); leave it out for the default of 30".into(),
        ),
        _ => {}
    }
    let stage = guardrail.stage;
    if guardrail.parallel && stage != GuardrailStage::Input {
        problem(
            "parallel",
            "`parallel` only applies to input guardrails (they run alongside the first model call); remove it or set `stage: input`".into(),
        );
    }
    if guardrail.policy == GuardrailPolicy::Repair && stage == GuardrailStage::Input {
        problem(
            "policy",
            "an input cannot be repaired (the model did not write it); use `reject` or `warn`"
                .into(),
        );
    }
    match guardrail.max_repairs {
        Some(_) if guardrail.policy != GuardrailPolicy::Repair => problem(
            "maxRepairs",
            "`maxRepairs` only applies with `policy: repair`; remove it".into(),
        ),
        Some(limit) if limit > MAX_REPAIRS_LIMIT => problem(
            "maxRepairs",
            format!("{limit} is too many repair attempts; at most {MAX_REPAIRS_LIMIT}"),
        ),
        _ => {}
    }
}

fn declare_schema(
    schema: &serde_json::Value,
    problem: &mut impl FnMut(&str, String),
) -> Option<Declared> {
    match JsonSchemaCheck::compile(schema) {
        Ok(check) => Some(Declared::Schema(Arc::new(check))),
        Err(error) => {
            problem("schema", format!("not a valid JSON Schema: {error}"));
            None
        }
    }
}

fn declare_validator(
    guardrail: &Guardrail,
    validator: &str,
    registry: Option<&ValidatorRegistry>,
    problem: &mut impl FnMut(&str, String),
) -> Option<Declared> {
    let builtins = BUILTIN_VALIDATORS.join(", ");
    match validator {
        "regex" | "not-regex" => {
            let Some(pattern) = &guardrail.pattern else {
                let what = if validator == "regex" {
                    "must match"
                } else {
                    "must not match"
                };
                problem(
                    "pattern",
                    format!(
                        "`{validator}` needs a `pattern`: the regular expression the text {what}"
                    ),
                );
                return None;
            };
            match compile_pattern(pattern) {
                Ok(regex) if validator == "regex" => Some(Declared::Builtin(Builtin::Regex(regex))),
                Ok(regex) => Some(Declared::Builtin(Builtin::NotRegex(regex))),
                Err(error) => {
                    problem("pattern", error);
                    None
                }
            }
        }
        "max-length" => match guardrail.max_length {
            Some(limit) if limit > 0 => Some(Declared::Builtin(Builtin::MaxLength(limit))),
            Some(_) => {
                problem("maxLength", "must be at least 1 (characters)".into());
                None
            }
            None => {
                problem(
                    "maxLength",
                    "`max-length` needs `maxLength`: the most characters the text may have".into(),
                );
                None
            }
        },
        "json" => Some(Declared::Builtin(Builtin::Json)),
        "contains-secret" => Some(Declared::Builtin(Builtin::ContainsSecret)),
        named => declare_named(guardrail, named, registry, &builtins, problem),
    }
}

/// A validator named by the settings' programs or the embedding program's registry (or
/// `custom`, the one under the guardrail's own name).
fn declare_named(
    guardrail: &Guardrail,
    named: &str,
    registry: Option<&ValidatorRegistry>,
    builtins: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<Declared> {
    let (name, missing) = if named == CUSTOM_VALIDATOR {
        let name = guardrail.name.trim();
        (
            name,
            format!(
                "`custom` uses the validator registered under this guardrail's name `{name}`, and none is"
            ),
        )
    } else {
        (named, format!("unknown validator `{named}`"))
    };
    // Without a registry, whether the name is registered is the runtime's to check.
    let registry = registry?;
    if let Some(program) = registry.program(name) {
        return Some(Declared::Command(vec![program.display().to_string()]));
    }
    match registry.get(name) {
        Some(found) => Some(Declared::Registered {
            name: name.to_owned(),
            validator: found,
        }),
        None => {
            problem(
                "validator",
                format!(
                    "{missing}: the built-ins are {builtins}; an executable `.agentctl/validators/{name}` (or `~/.agentctl/validators/{name}`) becomes one, a program embedding agentctl registers its own, or use `command:` to run a program"
                ),
            );
            None
        }
    }
}

fn declare_command(command: &[String], problem: &mut impl FnMut(&str, String)) -> Option<Declared> {
    let Some(program) = command.first() else {
        problem("command", "the command is empty".into());
        return None;
    };
    if program.trim().is_empty() {
        problem(
            "command",
            "the program name is empty; write the command as a list: [prog, arg…]".into(),
        );
        return None;
    }
    if command.len() == 1 && program.contains(char::is_whitespace) {
        problem(
            "command",
            format!(
                "`{program}` is one string with spaces, and no shell splits it; write the command as a list: [prog, arg…]"
            ),
        );
        return None;
    }
    if command.iter().any(|arg| arg.contains('\0')) {
        problem(
            "command",
            "an argument holds a NUL character, which no program can receive; remove it".into(),
        );
        return None;
    }
    Some(Declared::Command(command.to_vec()))
}

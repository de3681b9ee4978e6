//! Every declaration problem, located by its field, and the factory's use of the same rules.

use super::support::{command, input, schema, validator};
use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, Guardrail, GuardrailFactory, GuardrailPolicy,
    GuardrailSpecError, Scope, SourceFormat,
};
use agentctl_guardrails::{Guardrails, ValidatorRegistry, check_declarations, validator_fn};
use serde_json::json;
use std::path::Path;

fn problems(guardrails: &[Guardrail]) -> Vec<(String, String)> {
    let mut registry = ValidatorRegistry::new();
    registry
        .register("house-style", validator_fn(|_| Ok(())))
        .unwrap();
    check_declarations("writer", guardrails, Some(&registry))
        .into_iter()
        .map(|problem| {
            assert_eq!(problem.agent, "writer");
            (problem.field, problem.message)
        })
        .collect()
}

fn one(guardrail: Guardrail) -> Vec<(String, String)> {
    problems(&[guardrail])
}

fn is(field: &str, message: &str) -> Vec<(String, String)> {
    vec![(field.to_owned(), message.to_owned())]
}

#[test]
fn names_must_be_given_and_unique() {
    assert_eq!(
        problems(&[
            validator("a", "json"),
            validator(" ", "json"),
            validator("a", "json")
        ]),
        [
            (
                "guardrails[1].name".to_owned(),
                "the name is empty; give the guardrail a name (events and errors show it)"
                    .to_owned()
            ),
            (
                "guardrails[2].name".to_owned(),
                "`a` is the name of guardrails[0] already; give each guardrail its own name"
                    .to_owned()
            ),
        ]
    );
}

#[test]
fn exactly_one_of_schema_validator_command() {
    assert_eq!(
        one(Guardrail {
            name: "empty".into(),
            ..Guardrail::default()
        }),
        is(
            "guardrails[0]",
            "nothing to check: set one of `schema`, `validator` or `command`"
        )
    );
    assert_eq!(
        one(Guardrail {
            schema: Some(json!({})),
            ..command("both", &["jq"])
        }),
        is(
            "guardrails[0]",
            "sets `schema` and `command`; keep exactly one of `schema`, `validator` and `command`"
        )
    );
}

#[test]
fn schemas_must_compile() {
    let found = one(schema("bad", json!({"type": "objekt"})));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "guardrails[0].schema");
    assert!(
        found[0].1.starts_with("not a valid JSON Schema: /type: "),
        "{found:?}"
    );
    assert!(
        one(schema(
            "draft7",
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})
        ))
        .is_empty()
    );
}

#[test]
fn validators_must_exist() {
    assert!(one(validator("style", "house-style")).is_empty());
    assert!(one(validator("house-style", "custom")).is_empty());
    assert_eq!(
        one(validator("style", "spell-check")),
        is(
            "guardrails[0].validator",
            "unknown validator `spell-check`: the built-ins are regex, not-regex, max-length, contains-secret, json; an executable `.agentctl/validators/spell-check` (or `~/.agentctl/validators/spell-check`) becomes one, a program embedding agentctl registers its own, or use `command:` to run a program"
        )
    );
    assert_eq!(
        one(validator("tone", "custom")),
        is(
            "guardrails[0].validator",
            "`custom` uses the validator registered under this guardrail's name `tone`, and none is: the built-ins are regex, not-regex, max-length, contains-secret, json; an executable `.agentctl/validators/tone` (or `~/.agentctl/validators/tone`) becomes one, a program embedding agentctl registers its own, or use `command:` to run a program"
        )
    );
}

#[test]
fn patterns_and_lengths_belong_to_their_validators() {
    assert_eq!(
        one(validator("r", "regex")),
        is(
            "guardrails[0].pattern",
            "`regex` needs a `pattern`: the regular expression the text must match"
        )
    );
    assert_eq!(
        one(validator("r", "not-regex")),
        is(
            "guardrails[0].pattern",
            "`not-regex` needs a `pattern`: the regular expression the text must not match"
        )
    );
    assert_eq!(
        one(Guardrail {
            pattern: Some("[a-".into()),
            ..validator("r", "regex")
        }),
        is(
            "guardrails[0].pattern",
            "not a valid regular expression: unclosed character class (at character 1)"
        )
    );
    let huge = one(Guardrail {
        pattern: Some(r"(\w{100}){100}".into()),
        ..validator("r", "not-regex")
    });
    assert_eq!(huge[0].0, "guardrails[0].pattern");
    assert!(
        huge[0].1.starts_with("the regular expression is too big"),
        "{huge:?}"
    );
    assert_eq!(
        one(validator("m", "max-length")),
        is(
            "guardrails[0].maxLength",
            "`max-length` needs `maxLength`: the most characters the text may have"
        )
    );
    assert_eq!(
        one(Guardrail {
            max_length: Some(0),
            ..validator("m", "max-length")
        }),
        is("guardrails[0].maxLength", "must be at least 1 (characters)")
    );
    assert_eq!(
        one(Guardrail {
            pattern: Some("x".into()),
            max_length: Some(3),
            ..validator("j", "json")
        }),
        [
            (
                "guardrails[0].pattern".to_owned(),
                "`pattern` only applies to the `regex` and `not-regex` validators; remove it"
                    .to_owned()
            ),
            (
                "guardrails[0].maxLength".to_owned(),
                "`maxLength` only applies to the `max-length` validator; remove it".to_owned()
            ),
        ]
    );
}

#[test]
fn commands_are_lists_with_their_own_timeouts() {
    assert_eq!(
        one(command("c", &["python check.py --strict"])),
        is(
            "guardrails[0].command",
            "`python check.py --strict` is one string with spaces, and no shell splits it; write the command as a list: [prog, arg…]"
        )
    );
    assert_eq!(
        one(command("c", &["", "x"])),
        is(
            "guardrails[0].command",
            "the program name is empty; write the command as a list: [prog, arg…]"
        )
    );
    assert!(one(command("c", &["python", "check.py"])).is_empty());
    assert_eq!(
        one(Guardrail {
            timeout_seconds: Some(0),
            ..command("c", &["jq"])
        }),
        is(
            "guardrails[0].timeoutSeconds",
            "must be at least 1 (seconds); leave it out for the default of 30"
        )
    );
    assert_eq!(
        one(Guardrail {
            timeout_seconds: Some(5),
            ..validator("j", "json")
        }),
        is(
            "guardrails[0].timeoutSeconds",
            "`timeoutSeconds` only applies to `command` validators and validator programs; remove it"
        )
    );
}

#[test]
fn policies_fit_their_stage() {
    assert_eq!(
        one(input(Guardrail {
            policy: GuardrailPolicy::Repair,
            ..validator("j", "json")
        })),
        is(
            "guardrails[0].policy",
            "an input cannot be repaired (the model did not write it); use `reject` or `warn`"
        )
    );
    assert_eq!(
        one(Guardrail {
            parallel: true,
            ..validator("j", "json")
        }),
        is(
            "guardrails[0].parallel",
            "`parallel` only applies to input guardrails (they run alongside the first model call); remove it or set `stage: input`"
        )
    );
    assert!(
        one(input(Guardrail {
            parallel: true,
            ..validator("j", "json")
        }))
        .is_empty()
    );
    assert_eq!(
        one(Guardrail {
            max_repairs: Some(3),
            ..validator("j", "json")
        }),
        is(
            "guardrails[0].maxRepairs",
            "`maxRepairs` only applies with `policy: repair`; remove it"
        )
    );
    assert_eq!(
        one(Guardrail {
            max_repairs: Some(11),
            policy: GuardrailPolicy::Repair,
            ..validator("j", "json")
        }),
        is(
            "guardrails[0].maxRepairs",
            "11 is too many repair attempts; at most 10"
        )
    );
    assert!(
        one(Guardrail {
            max_repairs: Some(10),
            policy: GuardrailPolicy::Repair,
            ..validator("j", "json")
        })
        .is_empty()
    );
}

fn agent(guardrails: Vec<Guardrail>) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "writer".into(),
            guardrails,
            ..AgentSpec::default()
        },
        system_prompt: String::new(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "writer.md".into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

#[test]
fn the_factory_refuses_with_the_first_problem_and_skips_agents_without_guardrails() {
    let factory = Guardrails::default();
    assert!(
        factory
            .guardrails(&agent(vec![]), Path::new("."))
            .unwrap()
            .is_none()
    );
    let compiled = factory
        .guardrails(&agent(vec![validator("j", "json")]), Path::new("."))
        .unwrap()
        .unwrap();
    assert!(compiled.covers(agentctl_core::GuardrailPhase::Output));
    let error = factory
        .guardrails(
            &agent(vec![validator("r", "regex"), validator("u", "unknown")]),
            Path::new("."),
        )
        .err()
        .unwrap();
    assert_eq!(
        error,
        GuardrailSpecError {
            agent: "writer".into(),
            field: "guardrails[0].pattern".into(),
            message: "`regex` needs a `pattern`: the regular expression the text must match".into(),
        }
    );
    assert_eq!(
        error.to_string(),
        "agent `writer`: guardrails[0].pattern: `regex` needs a `pattern`: the regular expression the text must match"
    );
    assert_eq!(
        factory
            .check_declarations(
                "writer",
                &[validator("r", "regex"), validator("u", "unknown")]
            )
            .len(),
        2
    );
}

#[test]
fn without_a_registry_validator_names_are_left_to_the_runtime() {
    let declared = [
        validator("mine", "house-rules"),
        Guardrail {
            validator: Some("custom".into()),
            ..validator("no-harmful-code", "custom")
        },
        Guardrail {
            pattern: Some("(".into()),
            ..validator("broken", "regex")
        },
    ];
    let problems: Vec<String> = check_declarations("writer", &declared, None)
        .into_iter()
        .map(|problem| problem.field)
        .collect();
    assert_eq!(problems, ["guardrails[2].pattern"]);
}

//! Whatever an author writes in `when` (and whatever state a model stored), parsing and
//! evaluating a condition answers with a value or an error: never a panic, a stack overflow or
//! a hang.

use agentctl_routing::state::{ChainFacts, condition_variables};
use agentctl_routing::{Condition, ConditionErrorKind};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Pieces of CEL, valid and broken, that random expressions are made of.
const TOKENS: &[&str] = &[
    "task",
    "fix",
    "memory",
    "payload",
    "last",
    "agent",
    "turn",
    "x",
    ".",
    "status",
    "applied",
    "==",
    "!=",
    "<",
    ">=",
    "&&",
    "||",
    "!",
    "-",
    "+",
    "*",
    "/",
    "%",
    "?",
    ":",
    ",",
    "in",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "has(",
    "size(",
    ".map(x,",
    ".all(x,",
    ".exists(x,",
    ".filter(x,",
    "1",
    "0",
    "2.5",
    "18446744073709551615u",
    "9223372036854775807",
    "'x'",
    "\"s\"",
    "'''",
    "r'\\'",
    "b'x'",
    "'\\u00e9'",
    "//c\n",
    " ",
    "\n",
    "null",
    "true",
    "matches('a+')",
    "int(",
    "string(",
    "type(",
    "dyn(",
    "?.",
    "[?",
    "`",
    "@",
    "\\",
];

fn state() -> BTreeMap<String, Value> {
    BTreeMap::from([
        ("task".to_owned(), json!({"status": "need-review"})),
        (
            "fix".to_owned(),
            json!({"applied": true, "files": ["a", "b"], "n": 3}),
        ),
        ("x".to_owned(), json!([1, 2, 3])),
    ])
}

fn check(expression: &str) {
    match Condition::parse(expression) {
        Ok(condition) => {
            let facts = ChainFacts {
                agent: "a".into(),
                last: json!({"verdict": "ok"}),
                turn: 1,
            };
            let variables = condition_variables(&state(), &facts, &json!({"p": [1]}));
            let _ = condition.evaluate(&variables);
        }
        Err(error) => {
            assert!(error.is_invalid_expression(), "{error}");
            assert!(!error.message.is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn token_soup(tokens in proptest::collection::vec(proptest::sample::select(TOKENS), 0..60)) {
        check(&tokens.concat());
    }

    #[test]
    fn arbitrary_text(text in ".{0,120}") {
        check(&text);
    }
}

#[test]
fn every_kind_of_nesting_is_bounded() {
    for (open, close) in [
        ("(", ")"),
        ("[", "]"),
        ("{1: ", "}"),
        ("size(", ")"),
        ("-(", ")"),
        ("!(", ")"),
        ("[1].map(x, ", ")"),
        ("true ? ", " : false"),
        ("false ? true : ", ""),
        ("x.all(y, ", ")"),
    ] {
        for depth in [10, 50, 95, 200, 2000] {
            let expression = format!("{}true{}", open.repeat(depth), close.repeat(depth));
            if expression.len() > 4096 {
                let error = Condition::parse(&expression).unwrap_err();
                assert_eq!(error.kind, ConditionErrorKind::TooComplex);
                continue;
            }
            check(&expression);
        }
    }
}

/// Big state values a model may have stored are read in linear work.
#[test]
fn big_state_values() {
    let items: Vec<Value> = (0..20_000)
        .map(|n| json!({"n": n, "done": n % 2 == 0}))
        .collect();
    let state = BTreeMap::from([("items".to_owned(), Value::Array(items))]);
    let variables = condition_variables(&state, &ChainFacts::default(), &Value::Null);
    let condition =
        Condition::parse("items.exists(i, i.n == 19999) && size(items) == 20000").unwrap();
    assert!(condition.evaluate(&variables).unwrap());
}

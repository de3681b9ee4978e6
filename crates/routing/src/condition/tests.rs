use super::*;
use serde_json::json;

fn vars(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn eval(expression: &str, variables: Value) -> Result<bool, ConditionError> {
    Condition::parse(expression)
        .unwrap_or_else(|error| panic!("{error}"))
        .evaluate(&vars(variables))
}

#[test]
fn seed_examples() {
    let state = json!({
        "task": {"status": "need-review"},
        "analysis": {"can_auto_fix": true},
        "fix": {"applied": false},
    });
    assert!(eval("task.status == 'need-review'", state.clone()).unwrap());
    assert!(eval("analysis.can_auto_fix", state.clone()).unwrap());
    assert!(!eval("fix.applied", state.clone()).unwrap());
    assert!(!eval("task.status == 'done'", state).unwrap());
}

#[test]
fn comparisons() {
    let state = json!({
        "s": "abc", "n": 3, "f": 2.5, "big": u64::MAX, "b": true, "l": [1, 2, 3],
        "m": {"k": "v"}, "nothing": null,
    });
    for (expression, expected) in [
        ("s == 'abc'", true),
        ("s != \"abc\"", false),
        ("s.startsWith('a') && s.contains('bc')", true),
        ("s.matches('^a.c$')", true),
        ("n == 3 && n > 2 && n <= 3", true),
        ("n == 3.0", true),
        ("f > n", false),
        ("f < 3", true),
        ("big > 0u", true),
        ("b == true && !(b == false)", true),
        ("size(l) == 3 && 2 in l", true),
        ("l.all(x, x > 0) && l.exists(x, x == 3)", true),
        ("l.filter(x, x > 1).size() == 2", true),
        ("m.k == 'v' && 'k' in m", true),
        ("nothing == null", true),
        ("n > 5 || s == 'abc'", true),
        ("n > 5 && s == 'abc'", false),
        ("n > 1 ? s == 'abc' : false", true),
        ("type(n) == int && type(f) == double", true),
    ] {
        assert_eq!(
            eval(expression, state.clone()),
            Ok(expected),
            "{expression}"
        );
    }
}

#[test]
fn has_tests_presence() {
    let state = json!({"fix": {"applied": true}, "memory": {"fix": {"applied": true}}});
    assert!(eval("has(fix.applied)", state.clone()).unwrap());
    assert!(!eval("has(fix.files)", state.clone()).unwrap());
    assert!(eval("has(memory.fix) && !has(memory.analysis)", state.clone()).unwrap());
    // Guarded reads: `&&` stops at the first false, so the missing field is never read.
    assert!(!eval("has(fix.files) && size(fix.files) > 0", state).unwrap());
}

#[test]
fn a_missing_key_is_an_error_that_names_it() {
    let error = eval("fix.applied", json!({"task": {}})).unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::Missing);
    assert_eq!(
        error.to_string(),
        "condition `fix.applied`: no state key `fix`: set it with `memory_set` first, or test \
         for it with `has(memory.fix)`"
    );
    let error = eval("fix.applied", json!({"fix": {"files": []}})).unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::Missing);
    assert!(
        error.message.starts_with("`fix` has no field `applied`"),
        "{error}"
    );
    let error = eval("task.status == 'x'", json!({"task": {}})).unwrap_err();
    assert!(
        error.message.starts_with("`task` has no field `status`"),
        "{error}"
    );
    let error = eval("a.b.c", json!({"a": {"b": {}}})).unwrap_err();
    assert!(
        error.message.starts_with("`a.b` has no field `c`"),
        "{error}"
    );
    let error = eval("m['k']", json!({"m": {}})).unwrap_err();
    assert_eq!(error.message, "no key `k` in the map it reads");
    let error = eval("fix.applied.x", json!({"fix": {"applied": true}})).unwrap_err();
    assert_eq!(
        error.message,
        "`fix.applied` is a bool, not a map: it has no fields"
    );
    assert!(!error.is_invalid_expression());
}

#[test]
fn a_non_boolean_result_is_an_error() {
    let error = eval("task.status", json!({"task": {"status": "done"}})).unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::NotBoolean);
    assert!(
        error
            .message
            .starts_with("evaluates to a string (\"done\"), not a boolean"),
        "{error}"
    );
    let error = eval("1 + 2", json!({})).unwrap_err();
    assert!(
        error.message.starts_with("evaluates to an int (3)"),
        "{error}"
    );
    let error = eval("fix", json!({"fix": {"applied": true}})).unwrap_err();
    assert!(error.message.starts_with("evaluates to a map"), "{error}");
}

#[test]
fn other_evaluation_errors() {
    let error = eval("n == 'x' || n / 0 == 1", json!({"n": 1})).unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::Evaluation);
    let error = eval("nope(1)", json!({})).unwrap_err();
    assert_eq!(error.message, "unknown function `nope`");
}

#[test]
fn syntax_errors_are_located() {
    let error = Condition::parse("task.status = 'x'").unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::Syntax);
    assert_eq!((error.line, error.column), (Some(1), Some(13)));
    assert!(error.is_invalid_expression());
    let shown = error.to_string();
    assert!(
        shown.starts_with("invalid condition `task.status = 'x'`: "),
        "{shown}"
    );
    assert!(
        shown.ends_with("(compare with `==`) at column 13"),
        "{shown}"
    );

    let error = Condition::parse("fix.applied &&").unwrap_err();
    assert_eq!(error.column, Some(15));
    assert_eq!(
        error.to_string(),
        "invalid condition `fix.applied &&`: mismatched input the end of the condition at column 15"
    );

    let error = Condition::parse("a &&\n  b ==").unwrap_err();
    assert_eq!((error.line, error.column), (Some(2), Some(7)));
    assert!(
        error.to_string().ends_with("at line 2, column 7"),
        "{error}"
    );

    // Prose, as `when` used to be written, is refused at once.
    let error = Condition::parse("after the fix").unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::Syntax);
    assert!(error.column.is_some());

    for empty in ["", "   "] {
        let error = Condition::parse(empty).unwrap_err();
        assert!(
            error.message.starts_with("the condition is empty"),
            "{error}"
        );
    }
}

#[test]
fn hostile_expressions_are_bounded_errors() {
    // Each of these overflowed a 2 MiB stack (the parser's or the evaluator's) in a debug
    // build, or does exponential work, before the limits.
    let deep_parens = format!("{}true{}", "(".repeat(2000), ")".repeat(2000));
    let error = Condition::parse(&deep_parens).unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::TooComplex);
    assert!(error.message.contains("opening brackets"), "{error}");

    let long = "a".repeat(MAX_CONDITION_LEN + 1);
    assert_eq!(
        Condition::parse(&long).unwrap_err().kind,
        ConditionErrorKind::TooComplex
    );

    let nested_maps = format!(
        "size({}1{}) > 0",
        "[1,2,3].map(x, ".repeat(3),
        ")".repeat(3)
    );
    let error = Condition::parse(&nested_maps).unwrap_err();
    assert!(error.message.contains("comprehensions"), "{error}");

    // Within the limits, deep trees still evaluate (on the deep-stack thread).
    let nested = format!("{}true{}", "(".repeat(90), ")".repeat(90));
    assert!(eval(&nested, json!({})).unwrap());
    let too_deep = format!(
        "{}true{}",
        "(".repeat(MAX_BRACKETS),
        ")".repeat(MAX_BRACKETS)
    );
    let error = Condition::parse(&too_deep).unwrap_err();
    assert_eq!(error.kind, ConditionErrorKind::TooComplex);
    assert!(
        error.to_string().ends_with("(more than 96 levels)"),
        "{error}"
    );
    let chain = format!("1{} == 400", " + 1".repeat(399));
    assert!(eval(&chain, json!({})).unwrap());
    let ternaries = format!("{}true", "false ? false : ".repeat(90));
    assert!(eval(&ternaries, json!({})).unwrap());
    let lists = format!("size({}1{}) == 1", "[".repeat(90), "]".repeat(90));
    assert!(eval(&lists, json!({})).unwrap());
    let strings_with_brackets = format!("'{}' != ''", "(".repeat(MAX_BRACKETS + 1));
    assert_eq!(
        Condition::parse(&strings_with_brackets).unwrap_err().kind,
        ConditionErrorKind::TooComplex
    );
}

#[test]
fn deep_values_from_the_state_evaluate() {
    let mut value = json!(true);
    for _ in 0..120 {
        value = json!({ "a": value });
    }
    let path = format!("v{} == true", ".a".repeat(120));
    assert!(eval(&path, json!({ "v": value })).unwrap());
}

#[test]
fn conditions_are_shared_and_thread_safe() {
    fn send_sync<T: Send + Sync + Clone>() {}
    send_sync::<Condition>();
    send_sync::<ConditionError>();
    let condition = Condition::parse("n > 1").unwrap();
    let copy = condition.clone();
    assert!(Arc::ptr_eq(&condition.inner, &copy.inner));
    assert_eq!(copy.expression(), "n > 1");
    let handles: Vec<_> = (0..4)
        .map(|n| {
            let condition = condition.clone();
            std::thread::spawn(move || condition.evaluate(&vars(json!({ "n": n }))).unwrap())
        })
        .collect();
    let results: Vec<bool> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results, [false, false, true, true]);
    assert_eq!(format!("{condition:?}"), "Condition(\"n > 1\")");
}

#[test]
fn variables_read() {
    let condition =
        Condition::parse("fix.applied && l.exists(x, x.done) && has(memory.a) && size(task) > 0")
            .unwrap();
    assert_eq!(
        condition.variables().collect::<Vec<_>>(),
        ["fix", "l", "memory", "task"]
    );
}

/// `check` is what a listing runs on every file, hostile ones included: it refuses what
/// `parse` refuses, with the same error, and stays bounded on plain-looking expressions past
/// the recogniser's limits (they go to the parser, which has its own).
#[test]
fn check_agrees_with_parse_on_hostile_expressions() {
    let many_terms = vec!["a.b == 1"; 200].join(" && ");
    let long_path = format!("{} == 1", vec!["a"; 300].join("."));
    let many_nots = format!("{}a", "!".repeat(50));
    let over_long = format!("a == '{}'", "x".repeat(MAX_CONDITION_LEN));
    let long_number = format!("a == {}", "9".repeat(40));
    for expression in [
        format!("{}true{}", "(".repeat(2000), ")".repeat(2000)),
        over_long,
        many_terms,
        long_path,
        many_nots,
        long_number,
        "a == 'unterminated".to_owned(),
        "a == 'x' &&".to_owned(),
        "task.status = 'x'".to_owned(),
        "a\u{0} == 1".to_owned(),
        "a == '\u{202e}'".to_owned(),
        String::new(),
        "   ".to_owned(),
    ] {
        assert_eq!(
            Condition::check(&expression).err(),
            Condition::parse(&expression).err(),
            "{expression:.80}"
        );
    }
}

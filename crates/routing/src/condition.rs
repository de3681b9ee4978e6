//! `when` conditions: CEL expressions over the session state, compiled once and evaluated
//! against the variables [`condition_variables`](crate::state::condition_variables) builds.
//!
//! The grammar is the [Common Expression Language](https://cel.dev) through the `cel` crate:
//! `task.status == 'need-review'`, `analysis.can_auto_fix`, `fix.applied && size(fix.files) > 0`,
//! `has(memory.review) && memory.review.blocking == 0`, `payload.priority in ['high', 'urgent']`.
//!
//! **A key that is not there is an error, not `false`.** `fix.applied` with no `fix` in the
//! state fails with ``no state key `fix` ``, and with a `fix` lacking `applied` with
//! `` `fix` has no field `applied` ``. The model reads that message when its hand-off is
//! refused, so it learns to set the key first (`memory_set`); a silent `false` would look like
//! "the work is not done" and send it round in circles. A condition that means "if set"
//! says so with `has()`: `has(fix.applied) && fix.applied`, or `has(memory.fix)` for a
//! top-level key (`memory` is the map of all keys, so it always exists).
//!
//! **Bounded work.** Expressions are written by agent authors, the values they read by
//! models. The parser recurses once per bracket level and the evaluator once per level of the
//! expression tree, with large frames in debug builds, so: an expression is at most
//! [`MAX_CONDITION_LEN`] bytes with at most 100 brackets, it is parsed and evaluated on the
//! caller's stack only when that has room for its depth (else on a large stack segment of
//! its own, through `stacker`), and comprehensions (`all`, `exists`,
//! `map`, `filter`) nest at most two deep (each level multiplies the work by a list's length).

mod plain;
mod shape;
mod value;

use cel::common::value::Val;
use cel::objects::Value as CelValue;
use cel::{Context, Env, ExecutionError, Program};
use serde_json::{Map, Value};
use shape::Shape;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, LazyLock};
use value::{describe, json_kind, to_cel};

/// Longest condition accepted, in bytes. A `when` is one line of logic; this bounds the work
/// of parsing one.
pub const MAX_CONDITION_LEN: usize = 4096;
/// Most opening brackets (`(`, `[`, `{`, wherever they are) in a condition: each can add a
/// level of parser recursion.
const MAX_BRACKETS: usize = 100;
/// Deepest expression tree accepted (a chain of 500 `+` is that deep).
const MAX_DEPTH: usize = 512;
/// Most comprehensions nested in one another.
const MAX_COMPREHENSION_DEPTH: usize = 2;
/// Stack segment a parse or an evaluation switches to when the caller's stack has too little
/// room left: enough for [`MAX_BRACKETS`] parser levels and [`MAX_DEPTH`] evaluator levels in
/// a debug build. Reserved, not committed.
const DEEP_STACK: usize = 64 << 20;

/// The standard CEL environment (functions, macros), built once.
static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| Arc::new(Env::stdlib()));

/// A compiled `when` condition. Cheap to clone (shared), `Send + Sync`.
///
/// ```
/// use agentctl_routing::Condition;
/// use serde_json::json;
///
/// let condition = Condition::parse("task.status == 'need-review' && fix.applied")?;
/// let variables = json!({
///     "task": {"status": "need-review"},
///     "fix": {"applied": true},
/// });
/// assert!(condition.evaluate(variables.as_object().unwrap())?);
///
/// let error = Condition::parse("task.status = 'x'").unwrap_err();
/// assert_eq!(error.column, Some(13));
///
/// let missing = condition.evaluate(json!({"task": {"status": "need-review"}}).as_object().unwrap());
/// assert!(missing.unwrap_err().to_string().contains("no state key `fix`"));
/// # Ok::<(), agentctl_routing::ConditionError>(())
/// ```
#[derive(Clone)]
pub struct Condition {
    inner: Arc<Compiled>,
}

struct Compiled {
    expression: String,
    program: Program,
    shape: Shape,
}

impl fmt::Debug for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Condition")
            .field(&self.inner.expression)
            .finish()
    }
}

impl PartialEq for Condition {
    fn eq(&self, other: &Self) -> bool {
        self.inner.expression == other.inner.expression
    }
}

/// What kind of problem a [`ConditionError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConditionErrorKind {
    /// The expression is not valid CEL (located by `line` and `column`).
    Syntax,
    /// The expression is too long or nests too deeply.
    TooComplex,
    /// It reads a state key or a field that is not set.
    Missing,
    /// It evaluated to something other than a boolean.
    NotBoolean,
    /// Evaluating it failed otherwise (types that do not compare, a function that does not
    /// exist, a division by zero).
    Evaluation,
}

/// A condition that does not compile or could not be evaluated.
///
/// Displayed as ``invalid condition `task.status = 'x'`: … at column 13`` for expressions that
/// do not compile and ``condition `fix.applied`: no state key `fix` …`` for evaluations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct ConditionError {
    /// The expression as written.
    pub expression: String,
    /// What kind of problem it is.
    pub kind: ConditionErrorKind,
    /// What is wrong and, where it helps, what to do.
    pub message: String,
    /// 1-based line of a syntax error in the expression, when the parser gives one.
    pub line: Option<usize>,
    /// 1-based column of a syntax error in its line, when the parser gives one.
    pub column: Option<usize>,
}

impl ConditionError {
    fn new(expression: &str, kind: ConditionErrorKind, message: impl Into<String>) -> Self {
        Self {
            expression: expression.to_owned(),
            kind,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// True for errors of the expression itself (found when it is compiled), false for errors
    /// of one evaluation (a key not set yet).
    pub fn is_invalid_expression(&self) -> bool {
        matches!(
            self.kind,
            ConditionErrorKind::Syntax | ConditionErrorKind::TooComplex
        )
    }

    fn render(&self) -> String {
        let mut shown: String = self.expression.chars().take(120).collect();
        if shown.len() < self.expression.len() {
            shown.push('…');
        }
        if !self.is_invalid_expression() {
            return format!("condition `{shown}`: {}", self.message);
        }
        let at = match (self.line, self.column) {
            (Some(line), Some(column)) if self.expression.contains('\n') => {
                format!(" at line {line}, column {column}")
            }
            (_, Some(column)) => format!(" at column {column}"),
            _ => String::new(),
        };
        format!("invalid condition `{shown}`: {}{at}", self.message)
    }
}

impl Condition {
    /// Compiles a CEL expression; syntax errors carry the line and column the parser reports.
    pub fn parse(expression: &str) -> Result<Condition, ConditionError> {
        check_bounds(expression)?;
        let compiled = compile_on_deep_stack(expression)?;
        Ok(Condition {
            inner: Arc::new(compiled),
        })
    }

    /// Checks `expression` as [`parse`](Self::parse) does, with the same errors, without
    /// keeping a program: for validating files that are listed, not run. The plain forms most
    /// conditions take — fields of the state compared with literals or negated, joined by
    /// `&&` and `||` (`task.status == 'review' && !fix.applied`) — are recognised without the
    /// CEL parser (0.24 µs against 20 µs for the condition above in `--bench routing`);
    /// anything else is parsed.
    ///
    /// ```
    /// use agentctl_routing::Condition;
    ///
    /// assert!(Condition::check("task.status == 'need-review' || fix.applied").is_ok());
    /// assert!(Condition::check("size(fix.files) > 0").is_ok());
    /// let error = Condition::check("task.status = 'x'").unwrap_err();
    /// assert_eq!(error, Condition::parse("task.status = 'x'").unwrap_err());
    /// ```
    pub fn check(expression: &str) -> Result<(), ConditionError> {
        check_bounds(expression)?;
        if plain::is_plain(expression) {
            return Ok(());
        }
        compile_on_deep_stack(expression).map(drop)
    }

    /// The expression as written.
    pub fn expression(&self) -> &str {
        &self.inner.expression
    }

    /// The top-level names the condition reads (`task`, `fix`, `memory`, …), sorted.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.inner.shape.variables.iter().map(String::as_str)
    }

    /// Evaluates the condition with `variables` (see
    /// [`condition_variables`](crate::state::condition_variables)). A key or field that is
    /// not there is an error naming it ([`ConditionErrorKind::Missing`]), as is a result that
    /// is not a boolean.
    pub fn evaluate(&self, variables: &Map<String, Value>) -> Result<bool, ConditionError> {
        let compiled = &*self.inner;
        stacker::maybe_grow(evaluator_stack(compiled.shape.depth), DEEP_STACK, || {
            // The evaluator is another crate's code: a panic in it is an error, not a crash.
            catch_unwind(AssertUnwindSafe(|| compiled.evaluate(variables)))
                .unwrap_or_else(|_| Err(compiled.panicked()))
        })
    }
}

/// The checks made before an expression is parsed: not empty, not too long, not too many
/// brackets.
fn check_bounds(expression: &str) -> Result<(), ConditionError> {
    let too_complex =
        |message: String| ConditionError::new(expression, ConditionErrorKind::TooComplex, message);
    if expression.trim().is_empty() {
        return Err(ConditionError::new(
            expression,
            ConditionErrorKind::Syntax,
            "the condition is empty: write a CEL expression such as `task.status == 'done'`",
        ));
    }
    if expression.len() > MAX_CONDITION_LEN {
        return Err(too_complex(format!(
            "the condition is {} bytes long, more than the {MAX_CONDITION_LEN} allowed",
            expression.len()
        )));
    }
    // Counted everywhere, strings and comments included: a bound that needs no lexer.
    let brackets = expression.matches(['(', '[', '{']).count();
    if brackets > MAX_BRACKETS {
        return Err(too_complex(format!(
            "the condition has {brackets} opening brackets, more than the {MAX_BRACKETS} allowed"
        )));
    }
    Ok(())
}

/// Parses and checks `expression`; runs with room for its depth (the parser and [`Shape`]
/// recurse, and a rejected tree is dropped here too).
fn compile(expression: &str) -> Result<Compiled, ConditionError> {
    let program = ENV
        .compile(expression)
        .map_err(|errors| syntax_error(expression, &errors))?;
    let shape = Shape::of(program.expression());
    let too_complex =
        |message: String| ConditionError::new(expression, ConditionErrorKind::TooComplex, message);
    if shape.depth > MAX_DEPTH {
        return Err(too_complex(format!(
            "the expression nests {} levels deep, more than the {MAX_DEPTH} allowed",
            shape.depth
        )));
    }
    if shape.comprehension_depth > MAX_COMPREHENSION_DEPTH {
        return Err(too_complex(format!(
            "comprehensions (all, exists, exists_one, map, filter) nest {} deep, more than the \
             {MAX_COMPREHENSION_DEPTH} allowed",
            shape.comprehension_depth
        )));
    }
    Ok(Compiled {
        expression: expression.to_owned(),
        program,
        shape,
    })
}

/// Compiles `expression` on the caller's stack when it has room for the parser's recursion,
/// else on a fresh [`DEEP_STACK`] segment of the same thread: no thread hop, so the files of
/// an agent listing compile their conditions on every core at once.
fn compile_on_deep_stack(expression: &str) -> Result<Compiled, ConditionError> {
    stacker::maybe_grow(parser_stack(expression), DEEP_STACK, || {
        // The parser is another crate's code: a panic in it is an error, not a crash.
        catch_unwind(AssertUnwindSafe(|| compile(expression))).unwrap_or_else(|_| {
            Err(ConditionError::new(
                expression,
                ConditionErrorKind::Evaluation,
                "the CEL library failed on this expression",
            ))
        })
    })
}

/// Stack the parser and [`Shape`] may need for `expression`, with a wide margin: a base, a
/// level per bracket or `?` (each adds a round of the grammar's rules), and some per byte (a
/// chain of operators is as deep as it is long). Measured: a condition with one bracket
/// takes 512 KiB in a debug build and under 64 KiB in a release build; four take 1 MiB and
/// 128 KiB.
fn parser_stack(expression: &str) -> usize {
    let levels = expression.matches(['(', '[', '{', '?']).count();
    let (base, per_level, per_byte) = if cfg!(debug_assertions) {
        (1 << 20, 384 << 10, 1 << 10)
    } else {
        (256 << 10, 64 << 10, 256)
    };
    base + levels * per_level + expression.len() * per_byte
}

/// Stack the evaluator may need for a tree `depth` levels deep, with a wide margin (16 levels
/// took a few hundred KiB in a debug build).
fn evaluator_stack(depth: usize) -> usize {
    let (base, per_level) = if cfg!(debug_assertions) {
        (512 << 10, 48 << 10)
    } else {
        (128 << 10, 12 << 10)
    };
    base + depth * per_level
}

/// The first syntax error, with its position and the parser's wording made shorter.
fn syntax_error(expression: &str, errors: &cel::ParseErrors) -> ConditionError {
    let Some(first) = errors.errors.first() else {
        return ConditionError::new(expression, ConditionErrorKind::Syntax, "does not parse");
    };
    if first.msg.contains("Recursion limit") {
        return ConditionError::new(
            expression,
            ConditionErrorKind::TooComplex,
            "the expression nests too deeply for the CEL parser (more than 96 levels)",
        );
    }
    let mut message = first
        .msg
        .trim_start_matches("Syntax error: ")
        .replace("'<EOF>'", "the end of the condition");
    // ANTLR lists every token it could have taken; a dozen of them help nobody.
    if let Some(start) = message.find(" expecting {")
        && message[start..].matches(',').count() > 3
    {
        message.truncate(start);
    }
    let line = usize::try_from(first.pos.0).ok().filter(|line| *line > 0);
    let column = usize::try_from(first.pos.1)
        .ok()
        .filter(|column| *column > 0);
    // `=` is the mistake everybody makes once.
    let at = line.zip(column).and_then(|(line, column)| {
        let text = expression.lines().nth(line - 1)?;
        Some(text.chars().skip(column - 1).collect::<String>())
    });
    if at
        .as_deref()
        .is_some_and(|rest| rest.starts_with('=') && !rest.starts_with("=="))
    {
        message.push_str(" (compare with `==`)");
    }
    ConditionError {
        expression: expression.to_owned(),
        kind: ConditionErrorKind::Syntax,
        message,
        line,
        column,
    }
}

impl Compiled {
    fn evaluate(&self, variables: &Map<String, Value>) -> Result<bool, ConditionError> {
        let mut context = Context::with_env(Arc::clone(&ENV));
        // Only what the expression reads is converted.
        for name in &self.shape.variables {
            if let Some(value) = variables.get(name) {
                let value = Box::<dyn Val>::try_from(to_cel(value)).map_err(|error| {
                    self.error(ConditionErrorKind::Evaluation, error.to_string())
                })?;
                context.add_variable_as_val(name.clone(), value);
            }
        }
        match self.program.execute(&context) {
            Ok(CelValue::Bool(result)) => Ok(result),
            Ok(other) => Err(self.error(
                ConditionErrorKind::NotBoolean,
                format!(
                    "evaluates to {}, not a boolean: compare it (`== 'done'`, `> 0`) or test it \
                     with `has()`",
                    describe(&other)
                ),
            )),
            Err(error) => Err(self.explain(&error, variables)),
        }
    }

    fn error(&self, kind: ConditionErrorKind, message: impl Into<String>) -> ConditionError {
        ConditionError::new(&self.expression, kind, message)
    }

    fn panicked(&self) -> ConditionError {
        self.error(
            ConditionErrorKind::Evaluation,
            "the CEL library failed on this expression",
        )
    }

    /// Turns the evaluator's error into what the model (or the author) should do.
    fn explain(&self, error: &ExecutionError, variables: &Map<String, Value>) -> ConditionError {
        use ConditionErrorKind::{Evaluation, Missing};
        match error {
            ExecutionError::UndeclaredReference(name)
                if self.shape.variables.iter().any(|v| v == name.as_str()) =>
            {
                self.error(
                    Missing,
                    format!(
                        "no state key `{name}`: set it with `memory_set` first, or test for it \
                         with `has(memory.{name})`"
                    ),
                )
            }
            ExecutionError::UndeclaredReference(name) => {
                self.error(Evaluation, format!("unknown function `{name}`"))
            }
            ExecutionError::NoSuchKey(field) => match self.parent_of(field, variables) {
                Some(parent) => self.error(
                    Missing,
                    format!(
                        "`{parent}` has no field `{field}`: set it first, or test for it with \
                         `has({parent}.{field})`"
                    ),
                ),
                None => self.error(Missing, format!("no key `{field}` in the map it reads")),
            },
            ExecutionError::NoSuchOverload(overload) if overload.function() == "_._" => {
                let parent = self
                    .shape
                    .paths
                    .iter()
                    .filter_map(|path| {
                        let (_, prefix) = path.split_last()?;
                        let value = lookup(variables, prefix)?;
                        (!value.is_object()).then(|| (prefix.join("."), json_kind(value)))
                    })
                    .next();
                match parent {
                    Some((parent, kind)) => self.error(
                        Evaluation,
                        format!("`{parent}` is {kind}, not a map: it has no fields"),
                    ),
                    None => self.error(Evaluation, "reads a field of a value that is not a map"),
                }
            }
            other => self.error(Evaluation, other.to_string()),
        }
    }

    /// The dotted path (`fix`, `task`, `analysis.result`) whose value is a map lacking
    /// `field`, among the paths the expression reads.
    fn parent_of(&self, field: &str, variables: &Map<String, Value>) -> Option<String> {
        self.shape.paths.iter().find_map(|path| {
            let (last, prefix) = path.split_last()?;
            if last != field {
                return None;
            }
            let parent = lookup(variables, prefix)?.as_object()?;
            (!parent.contains_key(field)).then(|| prefix.join("."))
        })
    }
}

/// The value at `path` in `variables`, following object fields.
fn lookup<'a>(variables: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(variables.get(first)?, |value, segment| value.get(segment))
}

#[cfg(test)]
mod tests;

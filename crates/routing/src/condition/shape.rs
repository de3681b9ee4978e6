//! What a compiled condition looks like: how deep its tree goes (which decides whether it can
//! be evaluated on the caller's stack), how deeply its comprehensions nest, and the dotted
//! paths it reads (so a missing field can be named with its parent: `fix` has no `applied`).

use cel::common::ast::{EntryExpr, Expr, IdedEntryExpr, IdedExpr};

/// Facts about one compiled expression, gathered once at parse time.
#[derive(Debug, Default)]
pub(crate) struct Shape {
    /// Longest path from the root to a leaf of the expression tree.
    pub(crate) depth: usize,
    /// Most comprehensions (`all`, `exists`, `map`, `filter`, …) nested in one another.
    pub(crate) comprehension_depth: usize,
    /// Every `a.b.c` the expression reads, as segments (`["a", "b", "c"]`).
    pub(crate) paths: Vec<Vec<String>>,
    /// Top-level names the expression reads (variables, not comprehension variables).
    pub(crate) variables: Vec<String>,
    /// Functions it calls by name (`size`, `has`, operators excluded).
    pub(crate) functions: Vec<String>,
}

impl Shape {
    /// Walks `expr`. Recursive: run it where the stack is large enough for the tree (the
    /// parser thread), never before the tree's depth is bounded by the parser.
    pub(crate) fn of(expr: &IdedExpr) -> Self {
        let mut shape = Shape::default();
        let mut bound = Vec::new();
        shape.depth = shape.walk(expr, 0, &mut bound);
        shape.paths.sort();
        shape.paths.dedup();
        shape.variables.sort();
        shape.variables.dedup();
        shape.functions.sort();
        shape.functions.dedup();
        shape
    }

    /// Returns the depth below `expr` (1 for a leaf); `bound` holds the comprehension
    /// variables in scope.
    fn walk(&mut self, expr: &IdedExpr, comprehensions: usize, bound: &mut Vec<String>) -> usize {
        let below = match &expr.expr {
            Expr::Unspecified | Expr::Literal(_) => 0,
            Expr::Ident(name) => {
                if !bound.iter().any(|b| b == name) {
                    self.variables.push(name.clone());
                }
                0
            }
            Expr::Select(select) => {
                if !select.test
                    && let Some(mut path) = dotted(&select.operand)
                    && !bound.iter().any(|b| Some(b) == path.first())
                {
                    path.push(select.field.clone());
                    self.paths.push(path);
                }
                self.walk(&select.operand, comprehensions, bound)
            }
            Expr::Call(call) => {
                if !call.func_name.starts_with('_') && !call.func_name.starts_with('@') {
                    self.functions.push(call.func_name.clone());
                }
                let target = call
                    .target
                    .as_deref()
                    .map_or(0, |target| self.walk(target, comprehensions, bound));
                call.args
                    .iter()
                    .map(|arg| self.walk(arg, comprehensions, bound))
                    .fold(target, usize::max)
            }
            Expr::List(list) => list
                .elements
                .iter()
                .map(|element| self.walk(element, comprehensions, bound))
                .fold(0, usize::max),
            Expr::Map(map) => self.walk_entries(&map.entries, comprehensions, bound),
            Expr::Struct(strukt) => self.walk_entries(&strukt.entries, comprehensions, bound),
            Expr::Comprehension(comprehension) => {
                let nested = comprehensions + 1;
                self.comprehension_depth = self.comprehension_depth.max(nested);
                let range = self.walk(&comprehension.iter_range, comprehensions, bound);
                let scope = bound.len();
                bound.push(comprehension.iter_var.clone());
                bound.extend(comprehension.iter_var2.clone());
                bound.push(comprehension.accu_var.clone());
                let inner = [
                    &comprehension.accu_init,
                    &comprehension.loop_cond,
                    &comprehension.loop_step,
                    &comprehension.result,
                ]
                .into_iter()
                .map(|part| self.walk(part, nested, bound))
                .fold(range, usize::max);
                bound.truncate(scope);
                inner
            }
        };
        below + 1
    }

    fn walk_entries(
        &mut self,
        entries: &[IdedEntryExpr],
        comprehensions: usize,
        bound: &mut Vec<String>,
    ) -> usize {
        entries
            .iter()
            .map(|entry| match &entry.expr {
                EntryExpr::MapEntry(entry) => self
                    .walk(&entry.key, comprehensions, bound)
                    .max(self.walk(&entry.value, comprehensions, bound)),
                EntryExpr::StructField(field) => self.walk(&field.value, comprehensions, bound),
            })
            .fold(0, usize::max)
    }
}

/// `a.b.c` as `["a", "b", "c"]`; `None` for anything but identifiers joined by field reads.
fn dotted(expr: &IdedExpr) -> Option<Vec<String>> {
    match &expr.expr {
        Expr::Ident(name) => Some(vec![name.clone()]),
        Expr::Select(select) if !select.test => {
            let mut path = dotted(&select.operand)?;
            path.push(select.field.clone());
            Some(path)
        }
        _ => None,
    }
}

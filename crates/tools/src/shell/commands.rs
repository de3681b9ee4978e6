//! The simple commands of a command line, for permission rules (`Bash(rm:*)`).
//!
//! A rule is matched against every simple command the line holds, wherever it stands: in a
//! pipeline or list (`a && rm x`, `echo x; rm -rf /`), in a command or process substitution,
//! a subshell, a function body, a `sh -c '…'` script or an `eval`. What the tree cannot show
//! (a command name built at run time, `$CMD x`; a script built at run time, `eval "$X"`; a line
//! that does not parse) makes the list [incomplete](CommandList::complete), which the rule
//! check treats as "cannot tell".

use super::words::{Word, lex};
use tree_sitter::Node;

/// Deepest nesting of `sh -c` / `eval` scripts looked into.
const MAX_DEPTH: usize = 8;
/// Longest line looked into.
const MAX_BYTES: usize = 256 * 1024;

/// One simple command: its words, assignments before it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// The command name and its arguments.
    pub words: Vec<Word>,
}

/// Every simple command of a line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CommandList {
    /// The commands, in the order they are written (nested ones after their parent).
    pub commands: Vec<SimpleCommand>,
    /// Targets of every `>`, `<`, `>>` and the like in the line.
    pub redirects: Vec<Word>,
    /// False when part of the line could not be read: a parse error, a command name or a
    /// nested script computed at run time, nesting too deep, a line too long.
    pub complete: bool,
}

/// The simple commands of `script`.
pub(crate) fn simple_commands(script: &str) -> CommandList {
    let mut list = CommandList {
        commands: Vec::new(),
        redirects: Vec::new(),
        complete: true,
    };
    collect_script(script, 0, &mut list);
    list
}

fn collect_script(script: &str, depth: usize, list: &mut CommandList) {
    if depth > MAX_DEPTH || script.len() > MAX_BYTES {
        list.complete = false;
        return;
    }
    let Some(tree) = super::parse(script) else {
        list.complete = false;
        return;
    };
    let root = tree.root_node();
    if root.has_error() {
        list.complete = false;
    }
    let mut collector = Collector {
        src: script,
        depth,
        list,
    };
    collector.visit(root);
}

struct Collector<'s, 'l> {
    src: &'s str,
    depth: usize,
    list: &'l mut CommandList,
}

impl Collector<'_, '_> {
    fn text(&self, node: Node<'_>) -> &str {
        self.src.get(node.byte_range()).unwrap_or_default()
    }

    /// Every node of the tree; each `command` is recorded, and its children visited too
    /// (substitutions inside its words are commands of their own).
    fn visit(&mut self, node: Node<'_>) {
        match node.kind() {
            "command" => self.command(node),
            "file_redirect" => {
                if let Some(target) = node.child_by_field_name("destination") {
                    let target = self.word(target);
                    self.list.redirects.push(target);
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.visit(child);
        }
    }

    fn word(&self, node: Node<'_>) -> Word {
        let lexed = lex(self.text(node));
        Word {
            text: lexed.text,
            plain: lexed.problem.is_none() && !has_expansion(node),
            globs: lexed.globs,
            tilde: lexed.tilde,
        }
    }

    fn command(&mut self, node: Node<'_>) {
        let mut words = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment"
                | "comment"
                | "file_redirect"
                | "heredoc_redirect"
                | "herestring_redirect" => {}
                _ if child.is_named() => words.push(self.word(child)),
                _ => {}
            }
        }
        if words.first().is_some_and(|name| !name.plain) {
            self.list.complete = false;
        }
        self.nested(&words);
        self.list.commands.push(SimpleCommand { words });
    }

    /// Looks into the script a command runs: `sh -c SCRIPT`, `eval WORDS`.
    fn nested(&mut self, words: &[Word]) {
        let Some(name) = words.first() else { return };
        let program = basename(&name.text);
        let script = if program == "eval" {
            let rest = words.get(1..).unwrap_or_default();
            if rest.iter().any(|word| !word.plain) {
                self.list.complete = false;
                return;
            }
            Some(
                rest.iter()
                    .map(|word| word.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        } else if matches!(program, "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh") {
            shell_script(words)
        } else {
            None
        };
        let Some(script) = script else { return };
        if script.is_empty() {
            return;
        }
        collect_script(&script, self.depth + 1, self.list);
    }
}

/// The script of `sh -c SCRIPT` (also `-ec`, `-xc`, …); `None` when not given with `-c`.
fn shell_script(words: &[Word]) -> Option<String> {
    let mut rest = words.iter().skip(1);
    while let Some(word) = rest.next() {
        let text = word.text.as_str();
        if text.starts_with('-') && !text.starts_with("--") && text.contains('c') {
            return rest.next().map(|script| script.text.clone());
        }
        if !text.starts_with('-') && !text.starts_with('+') {
            return None;
        }
    }
    None
}

/// Whether a word holds something computed at run time.
fn has_expansion(node: Node<'_>) -> bool {
    if matches!(
        node.kind(),
        "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion"
            | "brace_expression"
    ) {
        return true;
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).any(has_expansion)
}

/// The last component of a program path: `/usr/bin/rm` → `rm`.
pub(crate) fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(line: &str) -> (Vec<String>, bool) {
        let list = simple_commands(line);
        let names = list
            .commands
            .iter()
            .map(|command| {
                command
                    .words
                    .iter()
                    .map(|word| word.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        (names, list.complete)
    }

    #[test]
    fn every_simple_command_is_found_wherever_it_stands() {
        assert_eq!(
            names("echo x; rm -rf /"),
            (vec!["echo x".into(), "rm -rf /".into()], true)
        );
        assert_eq!(
            names("a && rm x | tee y"),
            (vec!["a".into(), "rm x".into(), "tee y".into()], true)
        );
        let (found, complete) = names("echo $(rm -rf ~) `rm b` <(rm c)");
        assert!(complete);
        for expected in ["rm -rf ~", "rm b", "rm c"] {
            assert!(found.iter().any(|name| name == expected), "{found:?}");
        }
        let (found, _) = names("(cd x && 'r''m' y); f() { rm z; }");
        assert!(found.contains(&"rm y".to_owned()), "{found:?}");
        assert!(found.contains(&"rm z".to_owned()), "{found:?}");
        let (found, complete) = names("sh -c 'ls; rm q' && bash -ec \"eval rm w\"");
        assert!(complete);
        assert!(found.contains(&"rm q".to_owned()), "{found:?}");
        assert!(found.contains(&"rm w".to_owned()), "{found:?}");
        assert_eq!(
            names("FOO=1 npm test > out.txt"),
            (vec!["npm test".into()], true)
        );
    }

    #[test]
    fn what_is_computed_at_run_time_makes_the_list_incomplete() {
        for line in ["$CMD x", "eval \"$X\"", "r$(echo m) x", "echo 'unclosed"] {
            assert!(!simple_commands(line).complete, "{line}");
        }
        let nested = (0..12).fold("rm x".to_owned(), |inner, _| {
            format!("sh -c {}", shell_quote(&inner))
        });
        assert!(!simple_commands(&nested).complete);
    }

    fn shell_quote(text: &str) -> String {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

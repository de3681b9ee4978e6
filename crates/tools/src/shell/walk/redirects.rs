//! Redirections, here-documents and `[ … ]` tests.

use super::{Walker, is_redirect, is_statement};
use crate::shell::files;
use crate::shell::info::Info;
use crate::shell::programs;
use crate::shell::words::Word;
use agentctl_core::RiskLevel::Medium;
use tree_sitter::Node;

impl Walker<'_, '_> {
    /// Rates a redirection of the command `consumer`.
    pub(super) fn redirect(&mut self, node: Node<'_>, consumer: &Info) {
        match node.kind() {
            "file_redirect" => self.file_redirect(node),
            "heredoc_redirect" => {
                self.env
                    .note(Medium, "a here-document `<<` feeds text to the command");
                let mut feeds_shell = consumer.stdin_script;
                let mut body = None;
                let mut literal = false;
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        // `<<'EOF'`, `<<"EOF"`, `<<E\OF`: the body is text, nothing expands.
                        "heredoc_start" => literal = self.text(child).contains(['\'', '"', '\\']),
                        "heredoc_body" => {
                            if !literal {
                                self.scan(child);
                                self.backquotes(child);
                            }
                            body = Some(self.text(child));
                        }
                        kind if is_redirect(kind) => self.redirect(child, consumer),
                        kind if is_statement(kind) => {
                            let infos = self.statement(child);
                            feeds_shell |= infos.is_some_and(|i| i.stdin_script);
                        }
                        _ => {}
                    }
                }
                if feeds_shell && let Some(body) = body {
                    self.env.script(body);
                }
            }
            "herestring_redirect" => {
                self.env
                    .note(Medium, "a here-string `<<<` feeds text to the command");
                let mut cursor = node.walk();
                let words: Vec<Word> = node
                    .named_children(&mut cursor)
                    .map(|child| self.word(child))
                    .collect();
                if consumer.stdin_script {
                    for word in words {
                        self.env.script(&word.text);
                    }
                }
            }
            other => {
                self.env
                    .note(Medium, format!("unexpected redirection `{other}`"));
                self.scan(node);
            }
        }
    }

    /// Rates the commands in backquotes of an unquoted here-document body, which the
    /// grammar leaves as text (`$(…)` and `${…}` in it are nodes, rated by `scan`).
    fn backquotes(&mut self, body: Node<'_>) {
        let text = self.text(body);
        let mut masked: Vec<u8> = text.as_bytes().to_vec();
        let mut cursor = body.walk();
        for child in body.named_children(&mut cursor) {
            if child.kind() == "heredoc_content" {
                continue;
            }
            let start = child.start_byte().saturating_sub(body.start_byte());
            let end = child
                .end_byte()
                .saturating_sub(body.start_byte())
                .min(masked.len());
            for byte in masked.get_mut(start..end).unwrap_or_default() {
                *byte = b'_';
            }
        }
        let mut open: Option<usize> = None;
        let mut at = 0;
        while at < masked.len() {
            match masked[at] {
                b'\\' => at += 1,
                b'`' => match open.take() {
                    Some(start) => {
                        let inner = text.get(start + 1..at).unwrap_or_default();
                        self.env
                            .note(Medium, "a here-document runs a command in backquotes");
                        self.env.script(&unescape_backquoted(inner));
                    }
                    None => open = Some(at),
                },
                _ => {}
            }
            at += 1;
        }
        if open.is_some() {
            self.env.note(
                Medium,
                "a here-document has a backquote that is never closed",
            );
        }
    }

    /// Whether every error in the tree is the grammar's reading of `<>` (a redirection
    /// that opens a file for reading and writing), which `redirects.rs` rates.
    pub(super) fn only_read_write_redirects(&self, node: Node<'_>) -> bool {
        if node.is_missing() {
            return false;
        }
        if node.is_error() {
            return self.text(node) == ">"
                && node.parent().is_some_and(|p| p.kind() == "file_redirect")
                && node
                    .prev_sibling()
                    .is_some_and(|p| p.kind() == "<" && p.end_byte() == node.start_byte());
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).filter(Node::has_error).collect();
        children
            .into_iter()
            .all(|child| self.only_read_write_redirects(child))
    }

    fn file_redirect(&mut self, node: Node<'_>) {
        self.gaps(node, false, false);
        let mut operator = "";
        let mut targets = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "file_descriptor" => {}
                _ if !child.is_named() => operator = child.kind(),
                // The grammar does not know `<>` (open for reading and writing): it parses
                // `<` and an error holding `>`.
                "ERROR" if operator == "<" && self.text(child) == ">" && targets.is_empty() => {
                    operator = "<>";
                }
                _ => targets.push(child),
            }
        }
        if targets.len() > 1 {
            self.env.note(Medium, "the redirection is not understood");
        }
        let Some(&target) = targets.first() else {
            if !matches!(operator, ">&-" | "<&-") {
                self.env.note(Medium, "the redirection is not understood");
            }
            return;
        };
        let duplicate = matches!(operator, ">&" | "<&")
            && (target.kind() == "number" || self.text(target) == "-");
        let word = self.word(target);
        if duplicate {
            return;
        }
        match operator {
            "<" | "<&" => {
                files::read(self.env, "<", &word);
                if let Some(protected) = self.env.paths.place(&word).protected {
                    self.env.redirected_protected.get_or_insert(protected.path);
                }
            }
            ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&" => {
                files::write(self.env, operator, &word);
            }
            other => self
                .env
                .note(Medium, format!("unexpected redirection `{other}`")),
        }
    }

    pub(super) fn test_command(&mut self, node: Node<'_>) -> Option<Info> {
        let opening = node.child(0).map_or("", |first| first.kind());
        if opening != "[" {
            self.env.note(
                Medium,
                "`[[ … ]]` evaluates arithmetic and array subscripts, which can run commands",
            );
            self.scan(node);
            return None;
        }
        let mut words = Vec::new();
        self.test_words(node, &mut words);
        Some(programs::rate(self.env, &Word::literal("["), &words))
    }

    fn test_words(&mut self, node: Node<'_>, words: &mut Vec<Word>) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "unary_expression" | "binary_expression" | "parenthesized_expression" => {
                    self.test_words(child, words);
                }
                "[" | "]" => {}
                _ if !child.is_named() => words.push(Word::literal(child.kind())),
                _ => words.push(self.word(child)),
            }
        }
    }
}

/// The command inside backquotes: `\\`, `` \` `` and `\$` stand for the character itself.
fn unescape_backquoted(inner: &str) -> String {
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('\\' | '`' | '$')) {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

//! Walks the tree-sitter parse tree of a command line.
//!
//! Every node kind is handled explicitly: `program`, `list`, `pipeline`, `command` and
//! `redirected_statement` built from plain words are the only structure that can stay `safe`
//! or `low`; every other kind (substitutions, expansions, functions, subshells, control flow,
//! assignments, here-documents, `ERROR`, and any kind this file does not know) notes at least
//! `medium` and is still walked, so that a destructive command inside it keeps its own rating.
//! The source between the nodes is checked too: only blanks, newlines and line continuations
//! may sit there, so text the grammar skipped cannot hide a command.

mod redirects;
mod syntax;

use syntax::{filler, is_fork_bomb};
pub(crate) use syntax::{is_redirect, is_statement};

use super::Env;
use super::info::{Info, short};
use super::programs;
use super::words::{Word, lex};
use agentctl_core::RiskLevel::{Critical, Medium};
use tree_sitter::Node;

/// Deepest nesting of tree nodes that is walked (a long `a && b && …` chain nests too).
const MAX_NODE_DEPTH: usize = 200;

/// Walks one parsed script.
pub(crate) struct Walker<'e, 's> {
    env: &'e mut Env,
    src: &'s [u8],
    depth: usize,
}

impl<'e, 's> Walker<'e, 's> {
    pub(crate) fn new(env: &'e mut Env, src: &'s [u8]) -> Self {
        Self { env, src, depth: 0 }
    }

    /// Walks the root node.
    pub(crate) fn program(&mut self, root: Node<'_>) {
        let text = String::from_utf8_lossy(self.src);
        if is_fork_bomb(&text) {
            self.env.note(Critical, "fork bomb");
        }
        let head = &self.src[..root.start_byte().min(self.src.len())];
        let tail = &self.src[root.end_byte().min(self.src.len())..];
        if !filler(head, true) || !filler(tail, true) {
            self.odd_spacing();
        }
        if root.has_error() && !self.only_read_write_redirects(root) {
            self.env.note(
                Medium,
                "the shell parser could not understand part of the command",
            );
        }
        self.gaps(root, true, false);
        self.statements(root);
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        std::str::from_utf8(&self.src[node.start_byte()..node.end_byte()]).unwrap_or("")
    }

    fn odd_spacing(&mut self) {
        self.env.note(
            Medium,
            "the command has characters between words that the rater does not understand",
        );
    }

    /// Checks the source between a node's children: blanks and line continuations (and
    /// newlines where `newlines`); with `blank_between`, words must be separated by a blank.
    fn gaps(&mut self, node: Node<'_>, newlines: bool, blank_between: bool) {
        let mut at = node.start_byte();
        let mut previous_word = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            let gap = &self.src[at.min(child.start_byte())..child.start_byte()];
            let word = !is_redirect(child.kind()) && child.kind() != "comment";
            let needs_blank = blank_between && previous_word && word;
            if !filler(gap, newlines) || (needs_blank && !gap.iter().any(u8::is_ascii_whitespace)) {
                self.odd_spacing();
            }
            at = child.end_byte();
            previous_word = word;
        }
        if !filler(
            &self.src[at.min(node.end_byte())..node.end_byte()],
            newlines,
        ) {
            self.odd_spacing();
        }
    }

    /// Walks the statements among a node's children; operators between them are checked.
    fn statements(&mut self, node: Node<'_>) -> Vec<Info> {
        let mut infos = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.is_named() {
                infos.extend(self.statement(child));
                continue;
            }
            match child.kind() {
                ";" | "&&" | "||" | "|" | "|&" | "\n" => {}
                "&" => self
                    .env
                    .note(Medium, "`&` runs a command in the background"),
                other => self
                    .env
                    .note(Medium, format!("unexpected shell syntax `{other}`")),
            }
        }
        infos
    }

    /// Walks one statement; returns what its command runs, for pipelines and redirections.
    fn statement(&mut self, node: Node<'_>) -> Option<Info> {
        if self.depth >= MAX_NODE_DEPTH {
            self.env
                .note(Medium, "the command is nested too deeply to rate");
            return None;
        }
        self.depth += 1;
        let info = self.statement_inner(node);
        self.depth -= 1;
        info
    }

    // Kept whole: one arm per node kind of the bash grammar, the walk's dispatch in one place.
    fn statement_inner(&mut self, node: Node<'_>) -> Option<Info> {
        if node.is_missing() {
            self.env.note(
                Medium,
                format!("the command is incomplete (missing `{}`)", node.kind()),
            );
            return None;
        }
        let medium = |walker: &mut Self, reason: &str| walker.env.note(Medium, reason.to_owned());
        match node.kind() {
            "comment" => None,
            "command" => self.command(node),
            "pipeline" => self.pipeline(node),
            "list" => {
                self.gaps(node, true, false);
                let infos = self.statements(node);
                infos.into_iter().last()
            }
            "redirected_statement" => self.redirected(node),
            "test_command" => self.test_command(node),
            "subshell" => {
                medium(self, "`( … )` runs commands in a subshell");
                self.scan(node);
                None
            }
            "compound_statement" => {
                medium(self, "`{ … }` groups commands");
                self.scan(node);
                None
            }
            "if_statement"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement" => {
                let keyword = node.kind().trim_end_matches("_statement");
                self.env.note(
                    Medium,
                    format!("shell control flow (`{keyword}`) is not rated as safe"),
                );
                self.scan(node);
                None
            }
            "function_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map_or("", |name| self.text(name));
                self.env.note(
                    Medium,
                    format!("defines the shell function `{name}`, which can replace a command"),
                );
                self.scan(node);
                None
            }
            "negated_command" => {
                medium(self, "`!` negates a command");
                self.scan(node);
                None
            }
            "declaration_command" => {
                medium(
                    self,
                    "`export`/`declare` set variables or print them (secrets included)",
                );
                self.scan(node);
                None
            }
            "unset_command" => {
                medium(self, "`unset` removes variables or functions");
                self.scan(node);
                None
            }
            "variable_assignment" | "variable_assignments" => {
                medium(
                    self,
                    "sets a shell variable (`IFS`, `PATH` and others change what later commands do)",
                );
                self.scan(node);
                None
            }
            "ERROR" => {
                medium(
                    self,
                    "the shell parser could not understand part of the command",
                );
                self.scan(node);
                None
            }
            other => {
                self.env
                    .note(Medium, format!("unexpected shell syntax `{other}`"));
                self.scan(node);
                None
            }
        }
    }

    /// Walks everything under a node that is not plain structure, to rate the commands inside.
    fn scan(&mut self, node: Node<'_>) {
        if self.depth >= MAX_NODE_DEPTH {
            self.env
                .note(Medium, "the command is nested too deeply to rate");
            return;
        }
        self.depth += 1;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if is_statement(child.kind()) {
                self.statement(child);
            } else {
                self.flag_dynamic(child);
                if child.kind() == "heredoc_redirect" || child.kind() == "herestring_redirect" {
                    self.redirect(child, &Info::default());
                } else {
                    self.scan(child);
                }
            }
        }
        self.depth -= 1;
    }

    /// Notes why a node inside a word is not plain; `false` for the plain kinds.
    fn flag_dynamic(&mut self, node: Node<'_>) -> bool {
        let reason = match node.kind() {
            "command_substitution" => "command substitution `$(…)` can run anything",
            "process_substitution" => "process substitution `<(…)` can run anything",
            "arithmetic_expansion" => {
                "arithmetic `$((…))` can run commands through array subscripts"
            }
            "simple_expansion" | "expansion" => {
                let text = self.text(node);
                let reason = format!("`{}` expands to a value the rater cannot see", short(text));
                self.env.note(Medium, reason);
                return true;
            }
            "ansi_c_string" => "`$'…'` quoting means different things to bash and sh",
            "translated_string" => "`$\"…\"` is translated when the command runs",
            "brace_expression" => "brace expansion `{a..b}` differs between bash and sh",
            "extglob_pattern" => "extended glob patterns are not rated",
            "ERROR" => "the shell parser could not understand part of the command",
            _ => return false,
        };
        self.env.note(Medium, reason);
        true
    }

    /// Reads one word: its value, and whether both the grammar and the lexer find it plain.
    /// Substitutions inside are walked and rated.
    pub(crate) fn word(&mut self, node: Node<'_>) -> Word {
        let mut plain = true;
        self.word_parts(node, &mut plain);
        if std::str::from_utf8(&self.src[node.start_byte()..node.end_byte()]).is_err() {
            plain = false;
            self.env
                .note(Medium, "a word is cut in the middle of a character");
        }
        let lexed = lex(self.text(node));
        if let Some(problem) = lexed.problem
            && plain
        {
            self.env.note(Medium, problem);
        }
        Word {
            text: lexed.text,
            plain: plain && lexed.problem.is_none(),
            globs: lexed.globs,
            tilde: lexed.tilde,
        }
    }

    fn word_parts(&mut self, node: Node<'_>, plain: &mut bool) {
        if self.depth >= MAX_NODE_DEPTH {
            *plain = false;
            self.env
                .note(Medium, "the command is nested too deeply to rate");
            return;
        }
        self.depth += 1;
        let kind = node.kind();
        if self.flag_dynamic(node) {
            *plain = false;
            self.scan(node);
        } else if node.is_named()
            && !matches!(
                kind,
                "word"
                    | "raw_string"
                    | "string"
                    | "string_content"
                    | "concatenation"
                    | "number"
                    | "command_name"
                    | "test_operator"
            )
        {
            *plain = false;
            self.env.note(
                Medium,
                format!("unexpected shell syntax `{kind}` in a word"),
            );
            self.scan(node);
        } else {
            if kind == "concatenation" && !self.adjacent(node) {
                self.odd_spacing();
            }
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                self.word_parts(child, plain);
            }
        }
        self.depth -= 1;
    }

    /// Whether a node's children touch each other (the parts of one word).
    fn adjacent(&self, node: Node<'_>) -> bool {
        let mut at = node.start_byte();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.start_byte() != at {
                return false;
            }
            at = child.end_byte();
        }
        at == node.end_byte()
    }

    fn command(&mut self, node: Node<'_>) -> Option<Info> {
        self.gaps(node, false, true);
        let saved_download = std::mem::take(&mut self.env.saw_download);
        let mut name = None;
        let mut args = Vec::new();
        let mut redirects = Vec::new();
        let mut assignments = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    assignments.push(self.text(child));
                    self.scan(child);
                }
                "command_name" => name = Some(self.word(child)),
                "comment" => {}
                kind if is_redirect(kind) => redirects.push(child),
                _ if !child.is_named() => self.env.note(
                    Medium,
                    format!("unexpected shell syntax `{}`", child.kind()),
                ),
                _ => args.push(self.word(child)),
            }
        }
        let nested_download = self.env.saw_download;
        let info = match &name {
            Some(name) => {
                let info = programs::rate(self.env, name, &args);
                if !assignments.is_empty() {
                    let names: Vec<&str> = assignments
                        .iter()
                        .map(|a| a.split('=').next().unwrap_or(a))
                        .collect();
                    self.env.note(
                        Medium,
                        format!(
                            "sets {} for `{}`, which can change what it runs",
                            names.join(", "),
                            info.program
                        ),
                    );
                }
                if nested_download && info.runs_code {
                    self.env.note(
                        Critical,
                        format!(
                            "`{}` runs a script downloaded from the network",
                            info.program
                        ),
                    );
                }
                info
            }
            None => {
                self.env.note(
                    Medium,
                    "sets a shell variable (`IFS`, `PATH` and others change what later commands do)",
                );
                Info::default()
            }
        };
        for redirect in redirects {
            self.redirect(redirect, &info);
        }
        self.env.saw_download = saved_download || nested_download || info.download;
        Some(info)
    }

    fn pipeline(&mut self, node: Node<'_>) -> Option<Info> {
        self.gaps(node, true, false);
        let infos = self.statements(node);
        for (at, info) in infos.iter().enumerate() {
            let Some(next) = infos.get(at + 1) else { break };
            if info.download
                && let Some(shell) = infos[at + 1..].iter().find(|later| later.stdin_script)
            {
                self.env.note(
                    Critical,
                    format!(
                        "`{}` output is piped into `{}`: runs a downloaded script",
                        info.program, shell.program
                    ),
                );
            }
            if next.stdin_script
                && let Some(text) = &info.printed
            {
                self.env.script(text);
            }
        }
        let mut last = infos.into_iter().reduce(|a, b| Info {
            stdin_script: a.stdin_script || b.stdin_script,
            download: a.download || b.download,
            ..b
        });
        if let Some(last) = &mut last {
            last.printed = None;
        }
        last
    }

    fn redirected(&mut self, node: Node<'_>) -> Option<Info> {
        self.gaps(node, false, false);
        let mut info = None;
        let mut redirects = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if is_redirect(child.kind()) {
                redirects.push(child);
            } else if child.is_named() {
                info = self.statement(child).or(info);
            } else {
                self.env.note(
                    Medium,
                    format!("unexpected shell syntax `{}`", child.kind()),
                );
            }
        }
        let consumer = info.clone().unwrap_or_default();
        for redirect in redirects {
            self.redirect(redirect, &consumer);
        }
        info
    }
}

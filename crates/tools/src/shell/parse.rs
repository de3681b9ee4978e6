//! A small, forgiving tokenizer for POSIX-ish command lines.
//!
//! It does not run or expand anything: it splits a line into pipelines of simple commands (words
//! plus redirections) and collects the text of subshells and substitutions so the caller can
//! classify them separately.

/// One simple command: its words (quotes removed) and redirections.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Simple {
    /// Words, unquoted; variables and substitutions kept as written (`$HOME`, `$(pwd)`).
    pub words: Vec<String>,
    /// Redirections: operator (`>`, `>>`, `<`, `<<`) and target.
    pub redirects: Vec<(String, String)>,
    /// Texts of the `$(…)`, backtick and `<(…)` substitutions inside this command.
    pub substitutions: Vec<String>,
}

/// A parsed command line.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// Pipelines in order; a pipeline of one command is a plain command.
    pub pipelines: Vec<Vec<Simple>>,
    /// Subshells and substitutions, to classify on their own.
    pub nested: Vec<String>,
    /// A quote or bracket was never closed.
    pub unterminated: bool,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    out: Parsed,
    pipeline: Vec<Simple>,
    command: Simple,
    word: String,
    word_started: bool,
    redirect: Option<String>,
    heredocs: Vec<String>,
}

pub(crate) fn parse(line: &str) -> Parsed {
    let mut parser = Parser {
        chars: line.chars().collect(),
        pos: 0,
        out: Parsed::default(),
        pipeline: Vec::new(),
        command: Simple::default(),
        word: String::new(),
        word_started: false,
        redirect: None,
        heredocs: Vec::new(),
    };
    parser.run();
    parser.out
}

impl Parser {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn run(&mut self) {
        while let Some(ch) = self.peek(0) {
            self.pos += 1;
            match ch {
                ' ' | '\t' | '\r' => self.end_word(),
                '\n' => {
                    self.end_pipeline();
                    self.skip_heredocs();
                }
                '#' if !self.word_started => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\'' => {
                    self.word_started = true;
                    let text = self.until('\'');
                    self.word.push_str(&text);
                }
                '"' => self.double_quoted(),
                '\\' => {
                    self.word_started = true;
                    match self.peek(0) {
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            self.word.push(next);
                            self.pos += 1;
                        }
                        None => {}
                    }
                }
                '$' if self.peek(0) == Some('(') => self.dollar_paren(),
                '`' => self.backtick(),
                '<' | '>' if self.peek(0) == Some('(') && !self.word_started => {
                    self.pos += 1;
                    let inner = self.balanced();
                    self.word_started = true;
                    self.word.push_str(&format!("{ch}(…)"));
                    self.command.substitutions.push(inner.clone());
                    self.out.nested.push(inner);
                }
                '(' if !self.word_started => {
                    let inner = self.balanced();
                    self.out.nested.push(inner);
                }
                '(' if self.peek(0) == Some(')') => {
                    self.pos += 1;
                    self.word.push_str("()");
                }
                ')' => self.end_pipeline(),
                '|' => {
                    if self.peek(0) == Some('|') {
                        self.pos += 1;
                        self.end_pipeline();
                    } else {
                        if self.peek(0) == Some('&') {
                            self.pos += 1;
                        }
                        self.end_command();
                    }
                }
                '&' => match self.peek(0) {
                    Some('&') => {
                        self.pos += 1;
                        self.end_pipeline();
                    }
                    Some('>') => {
                        self.pos += 1;
                        self.redirect_op('>');
                    }
                    _ => self.end_pipeline(),
                },
                ';' => self.end_pipeline(),
                '<' | '>' => {
                    if !self.word.is_empty() && self.word.chars().all(|c| c.is_ascii_digit()) {
                        self.word.clear();
                        self.word_started = false;
                    } else {
                        self.end_word();
                    }
                    self.redirect_op(ch);
                }
                other => {
                    self.word_started = true;
                    self.word.push(other);
                }
            }
        }
        self.end_pipeline();
    }

    /// Reads up to an unescaped `close`, or marks the line unterminated.
    fn until(&mut self, close: char) -> String {
        let mut text = String::new();
        while let Some(ch) = self.peek(0) {
            self.pos += 1;
            if ch == close {
                return text;
            }
            text.push(ch);
        }
        self.out.unterminated = true;
        text
    }

    fn double_quoted(&mut self) {
        self.word_started = true;
        while let Some(ch) = self.peek(0) {
            self.pos += 1;
            match ch {
                '"' => return,
                '\\' => {
                    if let Some(next) = self.peek(0) {
                        self.pos += 1;
                        if !matches!(next, '$' | '`' | '"' | '\\' | '\n') {
                            self.word.push('\\');
                        }
                        if next != '\n' {
                            self.word.push(next);
                        }
                    }
                }
                '$' if self.peek(0) == Some('(') => self.dollar_paren(),
                '`' => self.backtick(),
                other => self.word.push(other),
            }
        }
        self.out.unterminated = true;
    }

    fn dollar_paren(&mut self) {
        self.word_started = true;
        self.pos += 1;
        if self.peek(0) == Some('(') {
            // Arithmetic `$((…))`: nothing runs.
            self.pos += 1;
            let inner = self.balanced();
            if self.peek(0) == Some(')') {
                self.pos += 1;
            }
            self.word.push_str(&format!("$(({inner}))"));
            return;
        }
        let inner = self.balanced();
        self.word.push_str(&format!("$({inner})"));
        self.command.substitutions.push(inner.clone());
        self.out.nested.push(inner);
    }

    fn backtick(&mut self) {
        self.word_started = true;
        let inner = self.until('`');
        self.word.push_str(&format!("`{inner}`"));
        self.command.substitutions.push(inner.clone());
        self.out.nested.push(inner);
    }

    /// Reads up to the `)` matching an already consumed `(`, skipping quoted text.
    fn balanced(&mut self) -> String {
        let start = self.pos;
        let mut depth = 1;
        while let Some(ch) = self.peek(0) {
            self.pos += 1;
            match ch {
                '\\' => self.pos += 1,
                '\'' | '"' | '`' => {
                    while let Some(inner) = self.peek(0) {
                        self.pos += 1;
                        if inner == '\\' && ch != '\'' {
                            self.pos += 1;
                        } else if inner == ch {
                            break;
                        }
                    }
                }
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        let end = self.pos - 1;
                        return self.chars[start..end].iter().collect();
                    }
                }
                _ => {}
            }
        }
        self.out.unterminated = true;
        let end = self.pos.min(self.chars.len());
        self.chars[start..end].iter().collect()
    }

    fn redirect_op(&mut self, first: char) {
        let mut op = first.to_string();
        while let Some(next @ ('>' | '<' | '|' | '&' | '-')) = self.peek(0) {
            if next == '-' && !op.ends_with("<<") {
                break;
            }
            op.push(next);
            self.pos += 1;
        }
        if op.ends_with('&') {
            // `2>&1`, `>&-`: duplicates a descriptor, names no file.
            while self.peek(0).is_some_and(|c| c.is_ascii_digit() || c == '-') {
                self.pos += 1;
            }
            return;
        }
        let op = op.replace('|', "");
        self.redirect = Some(op);
    }

    fn end_word(&mut self) {
        if !self.word_started {
            return;
        }
        let word = std::mem::take(&mut self.word);
        self.word_started = false;
        match self.redirect.take() {
            Some(op) if op.starts_with("<<") && op != "<<<" => {
                self.heredocs.push(word.clone());
                self.command.redirects.push((op, word));
            }
            Some(op) => self.command.redirects.push((op, word)),
            None => self.command.words.push(word),
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        let command = std::mem::take(&mut self.command);
        if !command.words.is_empty() || !command.redirects.is_empty() {
            self.pipeline.push(command);
        }
    }

    fn end_pipeline(&mut self) {
        self.end_command();
        if !self.pipeline.is_empty() {
            let pipeline = std::mem::take(&mut self.pipeline);
            self.out.pipelines.push(pipeline);
        }
    }

    /// Skips here-document bodies after the line that opened them.
    fn skip_heredocs(&mut self) {
        for delimiter in std::mem::take(&mut self.heredocs) {
            loop {
                let start = self.pos;
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                let at_end = self.peek(0).is_none();
                self.pos += usize::from(!at_end);
                if line.trim() == delimiter || at_end {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(parsed: &Parsed) -> Vec<Vec<Vec<String>>> {
        parsed
            .pipelines
            .iter()
            .map(|p| p.iter().map(|c| c.words.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_chains_pipes_quotes_and_redirects() {
        let parsed =
            parse(r#"FOO=1 git log --format="%h %s" | head -n 5 && echo 'a b' > out.txt 2>&1; ls"#);
        assert_eq!(
            words(&parsed),
            vec![
                vec![
                    vec!["FOO=1", "git", "log", "--format=%h %s"],
                    vec!["head", "-n", "5"]
                ],
                vec![vec!["echo", "a b"]],
                vec![vec!["ls"]],
            ]
            .into_iter()
            .map(|p| p
                .into_iter()
                .map(|c| c.into_iter().map(String::from).collect())
                .collect())
            .collect::<Vec<Vec<Vec<String>>>>()
        );
        assert_eq!(
            parsed.pipelines[1][0].redirects,
            vec![(">".to_owned(), "out.txt".to_owned())]
        );
    }

    #[test]
    fn collects_substitutions_and_heredocs() {
        let parsed = parse("echo \"$(rm -rf x)\" `id` <(curl y)\ncat <<EOF\nrm -rf /\nEOF\nls");
        assert_eq!(parsed.nested, vec!["rm -rf x", "id", "curl y"]);
        assert_eq!(parsed.pipelines.len(), 3);
        assert!(!parsed.unterminated);
        assert!(parse("echo 'open").unterminated);
    }
}

//! Programs whose first argument is a program in another language: `sed`, `awk`, `jq`.
//!
//! A `sed` script is parsed command by command; only scripts made of the commands that print
//! and edit the stream are `safe` (no `e`, `w`, `W`, `r`, `R`, no `s///e` or `s///w`). Anything
//! the parser does not follow is `medium`. `awk` is always `medium`: its programs can run
//! commands and write files in too many ways to prove harmless.

use super::Env;
use super::files::{read_args, write};
use super::info::short;
use super::opts::{self, is_option};
use super::words::Word;
use agentctl_core::RiskLevel::{Low, Medium, Safe};

/// Rates `sed`.
// Kept whole: one pass over sed's options and scripts; the rating needs all of them together.
pub(crate) fn sed(env: &mut Env, args: &[Word]) {
    let mut scripts = Vec::new();
    let mut files = Vec::new();
    let mut in_place = false;
    let mut iter = args.iter();
    let mut after_dashes = false;
    while let Some(arg) = iter.next() {
        let text = arg.as_str();
        if after_dashes || !is_option(text) {
            files.push(arg);
            continue;
        }
        if text == "--" {
            after_dashes = true;
            continue;
        }
        if let Some(body) = text.strip_prefix("--") {
            let (name, value) = body
                .split_once('=')
                .map_or((body, None), |(n, v)| (n, Some(v)));
            match long_name(name) {
                Some("expression") => match value {
                    Some(value) => scripts.push(value.to_owned()),
                    None => scripts.extend(iter.next().map(|w| w.text.clone())),
                },
                Some("in-place") => in_place = true,
                Some("file") => {
                    env.note(Medium, "sed -f runs a script file the rater cannot see");
                    iter.next();
                }
                Some("line-length") if value.is_none() => {
                    iter.next();
                }
                Some(_) => {}
                None => env.note(Medium, format!("sed option `{}` is not known", short(text))),
            }
            continue;
        }
        for (at, letter) in text.char_indices().skip(1) {
            let rest = &text[at + 1..];
            match letter {
                'n' | 'r' | 'E' | 's' | 'u' | 'z' | 'b' => {}
                'e' | 'f' | 'l' => {
                    let value = if rest.is_empty() {
                        iter.next().map(|w| w.text.clone())
                    } else {
                        Some(rest.to_owned())
                    };
                    match letter {
                        'e' => scripts.extend(value),
                        'f' => env.note(Medium, "sed -f runs a script file the rater cannot see"),
                        _ => {}
                    }
                    break;
                }
                // `-i` takes the rest of the cluster as a backup suffix: `-ie` is not `-i -e`.
                'i' => {
                    in_place = true;
                    break;
                }
                _ => {
                    env.note(Medium, format!("sed option `-{letter}` is not known"));
                    break;
                }
            }
        }
    }
    if scripts.is_empty() && !files.is_empty() {
        scripts.push(files.remove(0).text.clone());
    }
    for script in &scripts {
        if let Err(why) = check_sed(script) {
            env.note(Medium, format!("`sed` script {why}"));
        }
    }
    if in_place {
        env.note(Low, "sed -i edits files in place");
        for file in &files {
            write(env, "sed -i", file);
        }
    }
    let files: Vec<Word> = files.into_iter().cloned().collect();
    read_args(env, "sed", &files);
    env.note(Safe, "sed only prints");
}

/// GNU sed's long options, to resolve abbreviations (`--exp` is `--expression`).
fn long_name(written: &str) -> Option<&'static str> {
    const LONG: &[&str] = &[
        "expression",
        "file",
        "in-place",
        "line-length",
        "quiet",
        "silent",
        "regexp-extended",
        "separate",
        "unbuffered",
        "null-data",
        "zero-terminated",
        "posix",
        "debug",
        "sandbox",
        "follow-symlinks",
        "binary",
        "help",
        "version",
    ];
    if let Some(exact) = LONG.iter().find(|name| **name == written) {
        return Some(exact);
    }
    let mut found = LONG.iter().filter(|name| name.starts_with(written));
    match (found.next(), found.next()) {
        (Some(only), None) if !written.is_empty() => Some(only),
        _ => None,
    }
}

/// Checks a sed script: `Err(what it does)` if it runs commands, reads or writes files, or
/// uses anything the checker does not follow.
pub(crate) fn check_sed(script: &str) -> Result<(), &'static str> {
    let mut p = SedParser {
        chars: script.chars().collect(),
        at: 0,
    };
    p.script()
}

struct SedParser {
    chars: Vec<char>,
    at: usize,
}

const UNKNOWN: &str = "uses syntax the rater does not follow";

impl SedParser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        self.at += 1;
        c
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.at += 1;
        }
    }

    fn script(&mut self) -> Result<(), &'static str> {
        loop {
            while matches!(self.peek(), Some(' ' | '\t' | '\n' | ';')) {
                self.at += 1;
            }
            let Some(c) = self.peek() else { return Ok(()) };
            if c == '#' {
                self.skip_line();
                continue;
            }
            if c == '}' {
                self.at += 1;
                self.end_of_command()?;
                continue;
            }
            self.addresses()?;
            self.skip_blanks();
            while self.peek() == Some('!') {
                self.at += 1;
                self.skip_blanks();
            }
            self.command()?;
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    fn addresses(&mut self) -> Result<(), &'static str> {
        if !self.address()? {
            return Ok(());
        }
        self.skip_blanks();
        if self.peek() == Some(',') {
            self.at += 1;
            self.skip_blanks();
            if matches!(self.peek(), Some('+' | '~')) {
                self.at += 1;
                self.number();
            } else if !self.address()? {
                return Err(UNKNOWN);
            }
        }
        Ok(())
    }

    /// One address; `false` if there is none here.
    fn address(&mut self) -> Result<bool, &'static str> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                self.number();
                if self.peek() == Some('~') {
                    self.at += 1;
                    self.number();
                }
            }
            Some('$') => self.at += 1,
            Some('/') => {
                self.at += 1;
                self.regex('/')?;
                self.regex_flags();
            }
            Some('\\') => {
                self.at += 1;
                let delimiter = self.bump().ok_or(UNKNOWN)?;
                if delimiter == '\n' || delimiter == '\\' {
                    return Err(UNKNOWN);
                }
                self.regex(delimiter)?;
                self.regex_flags();
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn regex_flags(&mut self) {
        while matches!(self.peek(), Some('I' | 'M')) {
            self.at += 1;
        }
    }

    fn number(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
    }

    /// A regular expression up to `delimiter`; bracket expressions may hold it (GNU and BSD
    /// sed agree), but a bracket that holds it is refused so no reading of it can differ.
    fn regex(&mut self, delimiter: char) -> Result<(), &'static str> {
        loop {
            match self.bump().ok_or(UNKNOWN)? {
                c if c == delimiter => return Ok(()),
                '\n' => return Err(UNKNOWN),
                '\\' => {
                    self.bump().ok_or(UNKNOWN)?;
                }
                '[' => self.bracket(delimiter)?,
                _ => {}
            }
        }
    }

    fn bracket(&mut self, delimiter: char) -> Result<(), &'static str> {
        if self.peek() == Some('^') {
            self.at += 1;
        }
        if self.peek() == Some(']') {
            self.at += 1;
        }
        loop {
            match self.bump().ok_or(UNKNOWN)? {
                ']' => return Ok(()),
                '\n' => return Err(UNKNOWN),
                c if c == delimiter => return Err(UNKNOWN),
                '[' if matches!(self.peek(), Some(':' | '.' | '=')) => {
                    let kind = self.bump().ok_or(UNKNOWN)?;
                    loop {
                        let c = self.bump().ok_or(UNKNOWN)?;
                        if c == '\n' || c == delimiter {
                            return Err(UNKNOWN);
                        }
                        if c == kind && self.peek() == Some(']') {
                            self.at += 1;
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The replacement of `s`, up to `delimiter`.
    fn replacement(&mut self, delimiter: char) -> Result<(), &'static str> {
        loop {
            match self.bump().ok_or(UNKNOWN)? {
                c if c == delimiter => return Ok(()),
                '\\' => {
                    self.bump().ok_or(UNKNOWN)?;
                }
                '\n' => return Err(UNKNOWN),
                _ => {}
            }
        }
    }

    fn end_of_command(&mut self) -> Result<(), &'static str> {
        self.skip_blanks();
        match self.peek() {
            None | Some(';' | '\n' | '}' | '#') => Ok(()),
            Some(_) => Err(UNKNOWN),
        }
    }

    fn command(&mut self) -> Result<(), &'static str> {
        let command = self.bump().ok_or(UNKNOWN)?;
        match command {
            '{' => Ok(()),
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {
                self.end_of_command()
            }
            'l' | 'q' | 'Q' | 'L' => {
                self.skip_blanks();
                self.number();
                self.end_of_command()
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                // A label ends at `;` or a newline; sed may read it even shorter, never longer.
                while let Some(c) = self.peek() {
                    if c == ';' || c == '\n' {
                        break;
                    }
                    self.at += 1;
                }
                Ok(())
            }
            'a' | 'i' | 'c' => {
                // The text runs to the first newline not escaped by a backslash.
                let mut escaped = false;
                while let Some(c) = self.bump() {
                    match c {
                        '\\' => escaped = !escaped,
                        '\n' if !escaped => break,
                        _ => escaped = false,
                    }
                }
                Ok(())
            }
            's' => {
                let delimiter = self.bump().ok_or(UNKNOWN)?;
                if delimiter == '\n' || delimiter == '\\' {
                    return Err(UNKNOWN);
                }
                self.regex(delimiter)?;
                self.replacement(delimiter)?;
                while let Some(flag) = self.peek() {
                    match flag {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => self.at += 1,
                        'e' => return Err("runs a command (`s///e`)"),
                        'w' => return Err("writes a file (`s///w`)"),
                        _ => break,
                    }
                }
                self.end_of_command()
            }
            'y' => {
                let delimiter = self.bump().ok_or(UNKNOWN)?;
                if delimiter == '\n' || delimiter == '\\' {
                    return Err(UNKNOWN);
                }
                self.replacement(delimiter)?;
                self.replacement(delimiter)?;
                self.end_of_command()
            }
            'e' => Err("runs a command (`e`)"),
            'w' | 'W' => Err("writes a file (`w`)"),
            'r' | 'R' => Err("reads a file (`r`)"),
            _ => Err(UNKNOWN),
        }
    }
}

/// Rates `awk`: always `medium`; a literal `system("…")` command is rated too.
pub(crate) fn awk(env: &mut Env, program: &str, args: &[Word]) {
    env.note(
        Medium,
        format!("{program} programs can run commands (`system`, pipes) and write files"),
    );
    for arg in args {
        let mut rest = arg.as_str();
        while let Some(at) = rest.find("system(") {
            rest = &rest[at + "system(".len()..];
            let trimmed = rest.trim_start();
            if let Some(body) = trimmed.strip_prefix('"')
                && let Some(end) = body.find('"')
            {
                env.script(&body[..end]);
            }
        }
    }
    read_args(
        env,
        program,
        opts::operands(args)
            .into_iter()
            .skip(1)
            .cloned()
            .collect::<Vec<_>>()
            .as_slice(),
    );
}

/// Rates `jq`: `safe` unless the filter reads the environment or other files.
pub(crate) fn jq(env: &mut Env, program: &str, args: &[Word]) {
    if opts::any(args, "fL", &["from-file", "library-path"]) {
        env.note(
            Medium,
            format!("{program} -f/-L reads a program or modules the rater cannot see"),
        );
    }
    let operands = opts::operands(args);
    if let Some(filter) = operands.first() {
        let text = filter.as_str();
        if [
            "env",
            "ENV",
            "import",
            "include",
            "input_filename",
            "$__loc__",
        ]
        .iter()
        .any(|word| text.contains(word))
        {
            env.note(
                Medium,
                format!("the {program} filter reads environment variables or other files"),
            );
        }
    }
    if program == "yq" && opts::any(args, "i", &["inplace"]) {
        env.note(Low, "yq -i edits files in place");
        for file in operands.iter().skip(1) {
            write(env, "yq -i", file);
        }
    }
    let rest: Vec<Word> = operands.into_iter().skip(1).cloned().collect();
    read_args(env, program, &rest);
    let values: Vec<Word> = args
        .iter()
        .filter(|a| is_option(a.as_str()))
        .cloned()
        .collect();
    read_args(env, program, &values);
    env.note(Safe, format!("{program} only reads"));
}

#[cfg(test)]
mod tests {
    use super::check_sed;

    #[test]
    fn printing_and_editing_scripts_pass() {
        for script in [
            "s/a/b/g",
            "1,5p",
            "/start/,/end/d",
            "s|[/]x|y|",
            ":a;N;$!ba;s/\\n/ /g",
            "$!{N};P;D",
            "/x/I,+3{s/a/b/2;p}",
            "y/abc/xyz/",
            "a hello; e rm -rf x",
            "0~3 s/x/y/",
            "\\%x%d",
            "s/[[:space:]]*$//",
            "1q",
        ] {
            assert_eq!(check_sed(script), Ok(()), "{script}");
        }
    }

    #[test]
    fn scripts_that_run_read_or_write_fail() {
        for script in [
            "1e rm -rf x",
            "e",
            "s/x/rm -rf y/e",
            "s/x/y/w /tmp/f",
            "w out",
            "r /etc/passwd",
            "R x",
            "W x",
            "p;e id",
            "a x\\\ne id\ne id",
            "s/[/]/x/e",
            "s/a/b/;x;e",
            "/x/!e",
            "s/x/y/ge",
            "{e}",
        ] {
            assert!(check_sed(script).is_err(), "{script}");
        }
    }

    #[test]
    fn scripts_not_understood_fail() {
        for script in ["s/x/y", "k", "1,", "s/[x/y/", "p x"] {
            assert!(check_sed(script).is_err(), "{script}");
        }
    }
}

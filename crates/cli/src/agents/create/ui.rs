//! The wizard's questions: asked on a terminal with `dialoguer`, or answered at once by their
//! defaults when nobody can answer.
//!
//! Every question is asked the same way in both cases, so the flow in `create.rs` is written
//! once: a question names the flag that answers it, and without a terminal a question with no
//! default fails with that flag in the message instead of waiting for input that never comes.

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Confirm, Input, MultiSelect, Select};
use std::io::IsTerminal as _;

/// Who answers the wizard's questions.
pub(super) enum Ui {
    /// A person at a terminal.
    Terminal(Box<ColorfulTheme>),
    /// Nobody: each question takes its default. Says why nobody is asked.
    Defaults(&'static str),
}

impl Ui {
    /// A terminal when stdin and stderr are both terminals, `CI` is not set and the user did
    /// not pass `--no-input`.
    pub(super) fn detect(no_input: bool) -> Self {
        if no_input {
            Self::Defaults("--no-input was given")
        } else if in_ci() {
            Self::Defaults("CI is set")
        } else if !std::io::stdin().is_terminal() {
            Self::Defaults("stdin is not a terminal")
        } else if !std::io::stderr().is_terminal() {
            Self::Defaults("stderr is not a terminal")
        } else {
            Self::Terminal(Box::default())
        }
    }

    /// True when questions are asked.
    pub(super) fn is_terminal(&self) -> bool {
        matches!(self, Self::Terminal(_))
    }

    /// A heading before a group of questions (`🔧 Tools`), on a terminal only; an empty one
    /// ends the questions with a blank line.
    pub(super) fn section(&self, title: &str) -> anyhow::Result<()> {
        if self.is_terminal() {
            let line = if title.is_empty() {
                String::new()
            } else {
                format!("\n{title}\n")
            };
            dialoguer::console::Term::stderr().write_line(&line)?;
        }
        Ok(())
    }

    /// A note under a question (what was skipped and why), on a terminal only.
    pub(super) fn note(&self, text: &str) -> anyhow::Result<()> {
        if self.is_terminal() {
            dialoguer::console::Term::stderr().write_line(&format!("  {text}"))?;
        }
        Ok(())
    }

    /// A line of text. Without a terminal: `default`, or an error naming `flag` when there is
    /// none (a required answer). An empty answer is allowed when `optional`, and `check` runs
    /// on every non-empty answer (the user is asked again while it fails).
    pub(super) fn text(
        &self,
        question: &Question<'_>,
        default: Option<String>,
        optional: bool,
        mut check: impl FnMut(&str) -> Result<(), String>,
    ) -> anyhow::Result<String> {
        let theme = match self {
            Self::Defaults(why) => {
                return match default {
                    Some(value) => Ok(value),
                    None if optional => Ok(String::new()),
                    None => Err(question.missing(why)),
                };
            }
            Self::Terminal(theme) => theme,
        };
        let mut input = Input::<String>::with_theme(theme.as_ref())
            .with_prompt(question.prompt)
            .allow_empty(optional)
            .validate_with(move |answer: &String| -> Result<(), String> {
                let answer = answer.trim();
                if answer.is_empty() {
                    Ok(())
                } else {
                    check(answer)
                }
            });
        if let Some(default) = default {
            input = input.default(default);
        }
        let answer = input.interact_text().map_err(|e| question.failed(e))?;
        Ok(answer.trim().to_owned())
    }

    /// One of `items`. Without a terminal: `default`.
    pub(super) fn select(
        &self,
        question: &Question<'_>,
        items: &[String],
        default: usize,
    ) -> anyhow::Result<usize> {
        match self {
            Self::Defaults(_) => Ok(default),
            Self::Terminal(theme) => Select::with_theme(theme.as_ref())
                .with_prompt(question.prompt)
                .items(shown(items))
                .default(default)
                .interact()
                .map_err(|e| question.failed(e)),
        }
    }

    /// Any of `items`, `checked` ticked at first. Without a terminal: the ticked ones.
    pub(super) fn multi_select(
        &self,
        question: &Question<'_>,
        items: &[String],
        checked: &[bool],
    ) -> anyhow::Result<Vec<usize>> {
        match self {
            Self::Defaults(_) => Ok(checked
                .iter()
                .enumerate()
                .filter_map(|(i, on)| on.then_some(i))
                .collect()),
            Self::Terminal(theme) => MultiSelect::with_theme(theme.as_ref())
                .with_prompt(question.prompt)
                .items(shown(items))
                .defaults(checked)
                .interact()
                .map_err(|e| question.failed(e)),
        }
    }

    /// Yes or no. Without a terminal: `default`.
    pub(super) fn confirm(&self, question: &Question<'_>, default: bool) -> anyhow::Result<bool> {
        match self {
            Self::Defaults(_) => Ok(default),
            Self::Terminal(theme) => Confirm::with_theme(theme.as_ref())
                .with_prompt(question.prompt)
                .default(default)
                .interact()
                .map_err(|e| question.failed(e)),
        }
    }
}

/// A question and the flag that answers it instead.
pub(super) struct Question<'a> {
    /// What the terminal shows.
    pub prompt: &'a str,
    /// The flag (or argument) that answers it, as `--description '…'`.
    pub flag: &'a str,
    /// What the answer is for, in the error without a terminal.
    pub what: &'a str,
}

impl Question<'_> {
    /// The error of a required question nobody can answer.
    fn missing(&self, why: &str) -> anyhow::Error {
        anyhow::anyhow!(
            "missing {}: pass {} (nothing is asked: {why})",
            self.what,
            self.flag
        )
    }

    /// The error of a question the terminal could not answer.
    fn failed(&self, error: dialoguer::Error) -> anyhow::Error {
        anyhow::anyhow!(
            "cannot read the answer to `{}` from the terminal ({error}); nothing was written: pass {} instead",
            self.prompt,
            self.flag
        )
    }
}

/// Items as the terminal may show them: names from settings and agent files (aliases, MCP
/// servers) with their control characters escaped, so a project's files cannot move the
/// cursor or rewrite the lines of the wizard.
fn shown(items: &[String]) -> Vec<String> {
    items
        .iter()
        .map(|item| crate::output::terminal_safe(item).into_owned())
        .collect()
}

/// True when a CI system runs us (`CI` set to anything but empty, `0` or `false`): nobody
/// watches the terminal there, even when there is one.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.trim(), "" | "0" | "false"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_files_cannot_drive_the_terminal() {
        let items = ["fast\x1b[2J\x1b[1;1Hgotcha".to_owned(), "plain".to_owned()];
        let shown = shown(&items);
        assert!(!shown[0].contains('\x1b'), "{:?}", shown[0]);
        assert!(shown[0].starts_with("fast") && shown[0].ends_with("gotcha"));
        assert_eq!(shown[1], "plain");
    }

    #[test]
    fn without_a_terminal_questions_take_defaults_or_name_their_flag() {
        let ui = Ui::Defaults("stdin is not a terminal");
        let question = Question {
            prompt: "Title",
            flag: "--title TITLE",
            what: "title",
        };
        assert_eq!(
            ui.text(&question, Some("T".into()), false, |_| Ok(()))
                .unwrap(),
            "T"
        );
        assert_eq!(ui.text(&question, None, true, |_| Ok(())).unwrap(), "");
        let error = ui.text(&question, None, false, |_| Ok(())).unwrap_err();
        assert_eq!(
            error.to_string(),
            "missing title: pass --title TITLE (nothing is asked: stdin is not a terminal)"
        );
        let items = ["a".to_owned(), "b".to_owned()];
        assert_eq!(ui.select(&question, &items, 1).unwrap(), 1);
        assert_eq!(
            ui.multi_select(&question, &items, &[true, false]).unwrap(),
            [0]
        );
        assert!(!ui.confirm(&question, false).unwrap());
    }
}

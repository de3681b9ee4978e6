//! `isolation: worktree` (Claude Code's subagent field): a `task` child works in a git
//! worktree of its own, outside the project, on a new branch `agentctl/<agent>-<id>` from the
//! project's `HEAD`. When it finishes, its changes are committed to that branch and the
//! worktree removed; the parent reads the branch's name (or that there were no changes, and
//! the branch is gone) at the end of the child's answer. The parent's working tree is never
//! touched. Git runs with the repository's hooks and file monitor off (`core.hooksPath`,
//! `core.fsmonitor`, `--no-verify`): no command of the repository runs because an agent
//! committed.

use agentctl_core::AgentDefinition;
use std::path::{Path, PathBuf};
use tokio::process::Command;

/// The front-matter field, kept in the agent's `extra`.
const FIELD: &str = "isolation";

/// Whether `agent` asks to work in a worktree of its own.
pub(crate) fn wants_worktree(agent: &AgentDefinition) -> bool {
    agent.extra.get(FIELD).and_then(|v| v.as_str()) == Some("worktree")
}

/// A child's worktree; removed (and its branch dropped) if the child never finishes.
pub(crate) struct Worktree {
    repo: PathBuf,
    path: PathBuf,
    branch: String,
    done: bool,
}

/// Runs git in `dir` with the repository's hooks off; its stdout, or what it said.
async fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|error| format!("git could not start: {error}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
    }
}

impl Worktree {
    /// A worktree of the repository `root` is in, on a new branch for `agent`'s run `id`.
    pub(crate) async fn add(root: &Path, agent: &str, id: &str) -> Result<Self, String> {
        let repo = git(root, &["rev-parse", "--show-toplevel"])
            .await
            .map_err(|_| {
                format!(
                    "`isolation: worktree` needs a git repository, and {} is not in one",
                    root.display()
                )
            })?;
        let repo = PathBuf::from(repo);
        git(&repo, &["rev-parse", "--verify", "HEAD"])
            .await
            .map_err(|_| {
                "`isolation: worktree` needs a commit to start from: the repository has none"
                    .to_owned()
            })?;
        let slug = |text: &str| -> String {
            text.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect()
        };
        let branch = format!("agentctl/{}-{}", slug(agent), slug(id));
        let path = std::env::temp_dir().join(format!(
            "agentctl-worktree-{}-{}-{}",
            slug(agent),
            slug(id),
            std::process::id()
        ));
        let target = path.to_string_lossy().into_owned();
        git(
            &repo,
            &["worktree", "add", "--quiet", "-b", &branch, &target, "HEAD"],
        )
        .await
        .map_err(|error| format!("git worktree add failed: {error}"))?;
        Ok(Self {
            repo,
            path,
            branch,
            done: false,
        })
    }

    /// Where the child works.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Commits the child's changes to its branch and removes the worktree: the note the
    /// parent reads.
    pub(crate) async fn finish(mut self, agent: &str) -> String {
        self.done = true;
        let committed = async {
            git(&self.path, &["add", "-A"]).await?;
            if git(&self.path, &["diff", "--cached", "--quiet"])
                .await
                .is_ok()
            {
                return Ok(false);
            }
            let message = format!("{agent}: work of an agentctl sub-agent");
            git(
                &self.path,
                &[
                    "-c",
                    "user.name=agentctl",
                    "-c",
                    "user.email=agentctl@localhost",
                    "commit",
                    "--quiet",
                    "--no-verify",
                    "-m",
                    &message,
                ],
            )
            .await
            .map(|_| true)
        }
        .await;
        let target = self.path.to_string_lossy().into_owned();
        let _ = git(&self.repo, &["worktree", "remove", "--force", &target]).await;
        match committed {
            Ok(true) => format!(
                "[worktree] the changes are committed to the branch `{}` (merge it, or drop it with `git branch -D {}`)",
                self.branch, self.branch
            ),
            Ok(false) => {
                let _ = git(&self.repo, &["branch", "-D", &self.branch]).await;
                "[worktree] no changes".to_owned()
            }
            Err(error) => format!(
                "[worktree] the changes could not be committed to `{}`: {error}",
                self.branch
            ),
        }
    }
}

impl Drop for Worktree {
    /// A child that never finished (cancelled, failed): its worktree and branch go.
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let run = |args: &[&str]| {
            let _ = std::process::Command::new("git")
                .arg("-C")
                .arg(&self.repo)
                .args(args)
                .output();
        };
        run(&[
            "worktree",
            "remove",
            "--force",
            &self.path.to_string_lossy(),
        ]);
        run(&["branch", "-D", &self.branch]);
    }
}

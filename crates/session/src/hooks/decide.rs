//! What a hook's run says, by Claude Code's rules: exit code 0 is success (its stdout read as
//! JSON when it is a JSON object), 2 blocks with its stderr as the reason for the model, any
//! other code is an error shown to the user that blocks nothing. The JSON fields read:
//! `continue` (false stops: the call is refused, the agent stops), `stopReason`,
//! `decision: block|approve` with `reason`, `hookSpecificOutput.permissionDecision`
//! `allow|deny|ask` with `permissionDecisionReason`, `updatedInput` and `additionalContext`
//! (in `hookSpecificOutput` or at the top).

use agentctl_core::{AfterTool, BeforeTool, HookPermission, StopVerdict};
use agentctl_guardrails::ShellOutcome;
use serde_json::{Map, Value};

/// Characters of stderr kept as a reason.
const MAX_REASON_CHARS: usize = 4000;

/// One hook's answer.
#[derive(Debug, Default)]
pub(crate) struct Reply {
    /// Exit code 2: block, with this reason.
    pub(crate) blocked: Option<String>,
    /// Its JSON output (exit code 0).
    pub(crate) json: Option<Map<String, Value>>,
    /// Its plain output (exit code 0, not JSON).
    pub(crate) text: Option<String>,
    /// What went wrong, for the user (blocks nothing).
    pub(crate) problem: Option<String>,
}

impl Reply {
    /// The reply of a hook that ran (or could not start).
    pub(crate) fn of(outcome: Result<ShellOutcome, String>) -> Self {
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(problem) => {
                return Self {
                    problem: Some(problem),
                    ..Self::default()
                };
            }
        };
        let stderr = bounded(&String::from_utf8_lossy(&outcome.stderr));
        match outcome.code {
            _ if outcome.timed_out => Self {
                problem: Some(outcome.status),
                ..Self::default()
            },
            Some(0) if outcome.stdout_truncated => Self {
                problem: Some(format!(
                    "its output was longer than {} bytes: cut, and not read as JSON",
                    outcome.stdout.len()
                )),
                ..Self::default()
            },
            Some(0) => {
                let stdout = String::from_utf8_lossy(&outcome.stdout);
                match serde_json::from_str::<Value>(stdout.trim()) {
                    Ok(Value::Object(json)) => Self {
                        json: Some(json),
                        ..Self::default()
                    },
                    _ => Self {
                        text: Some(stdout.trim().to_owned()).filter(|text| !text.is_empty()),
                        ..Self::default()
                    },
                }
            }
            Some(2) => Self {
                blocked: Some(if stderr.is_empty() {
                    "(the hook gave no reason)".to_owned()
                } else {
                    stderr
                }),
                ..Self::default()
            },
            _ => Self {
                problem: Some(if stderr.is_empty() {
                    outcome.status
                } else {
                    format!("{}: {stderr}", outcome.status)
                }),
                ..Self::default()
            },
        }
    }

    fn field(&self, name: &str) -> Option<&Value> {
        let json = self.json.as_ref()?;
        json.get("hookSpecificOutput")
            .and_then(|specific| specific.get(name))
            .or_else(|| json.get(name))
    }

    fn text_field(&self, name: &str) -> Option<String> {
        self.field(name)
            .and_then(Value::as_str)
            .map(bounded)
            .filter(|text| !text.is_empty())
    }

    /// Why it stops everything (`continue: false`).
    fn stop(&self) -> Option<String> {
        let json = self.json.as_ref()?;
        (json.get("continue") == Some(&Value::Bool(false))).then(|| {
            self.text_field("stopReason")
                .unwrap_or_else(|| "a hook stopped the run".to_owned())
        })
    }

    /// The reason of `decision: block`, or of exit code 2.
    fn block(&self) -> Option<String> {
        if let Some(reason) = &self.blocked {
            return Some(reason.clone());
        }
        (self.field("decision").and_then(Value::as_str) == Some("block")).then(|| {
            self.text_field("reason")
                .unwrap_or_else(|| "(the hook gave no reason)".to_owned())
        })
    }

    fn context(&self) -> Option<String> {
        self.text_field("additionalContext")
    }

    fn permission(&self) -> Option<(HookPermission, String)> {
        let reason = self
            .text_field("permissionDecisionReason")
            .or_else(|| self.text_field("reason"))
            .unwrap_or_default();
        let permission = match self.field("permissionDecision").and_then(Value::as_str) {
            Some("allow") => HookPermission::Allow,
            Some("deny") => HookPermission::Deny,
            Some("ask") => HookPermission::Ask,
            // Claude Code's older spelling.
            _ if self.field("decision").and_then(Value::as_str) == Some("approve") => {
                HookPermission::Allow
            }
            _ => return None,
        };
        Some((permission, reason))
    }
}

/// The `PreToolUse` answer of several hooks: any block blocks; the strictest permission wins
/// (deny, then ask, then allow); the last `updatedInput` that is an object rewrites the call.
pub(crate) fn before_tool(replies: &[Reply]) -> BeforeTool {
    let mut before = BeforeTool::default();
    for reply in replies {
        if let Some(reason) = reply.stop().or_else(|| reply.block()) {
            before.block.get_or_insert(reason);
        }
        if let Some((permission, reason)) = reply.permission() {
            let rank = |permission: HookPermission| match permission {
                HookPermission::Deny => 2,
                HookPermission::Ask => 1,
                HookPermission::Allow => 0,
            };
            let stricter = before
                .permission
                .as_ref()
                .is_none_or(|(held, _)| rank(permission) > rank(*held));
            if stricter {
                before.permission = Some((permission, reason));
            }
        }
        if let Some(input) = reply
            .field("updatedInput")
            .filter(|input| input.is_object())
        {
            before.input = Some(input.clone());
        }
        before.context = joined(before.context.take(), reply.context());
    }
    before
}

/// The `PostToolUse` answer of several hooks.
pub(crate) fn after_tool(replies: &[Reply]) -> AfterTool {
    let mut after = AfterTool::default();
    for reply in replies {
        after.feedback = joined(
            after.feedback.take(),
            reply.stop().or_else(|| reply.block()),
        );
        after.context = joined(after.context.take(), reply.context());
    }
    after
}

/// The `Stop` answer of several hooks: the first block makes the agent go on, unless a hook
/// said `continue: false`.
pub(crate) fn stop(replies: &[Reply]) -> StopVerdict {
    if replies.iter().any(|reply| reply.stop().is_some()) {
        return StopVerdict::Stop;
    }
    replies
        .iter()
        .find_map(Reply::block)
        .map_or(StopVerdict::Stop, StopVerdict::Continue)
}

/// The `UserPromptSubmit` answer of several hooks: the reason the prompt is refused, or the
/// context to add to it (`additionalContext`, or plain output).
pub(crate) fn prompt(replies: &[Reply]) -> Result<Option<String>, String> {
    if let Some(reason) = replies
        .iter()
        .find_map(|reply| reply.stop().or_else(|| reply.block()))
    {
        return Err(reason);
    }
    Ok(replies.iter().fold(None, |context, reply| {
        joined(context, reply.context().or_else(|| reply.text.clone()))
    }))
}

/// The reason the first of `replies` that blocks gives (exit code 2, `decision: block`,
/// `continue: false`): for events whose hooks can only stop what is about to happen
/// (`PreCompact`).
pub(crate) fn blocked<'a>(mut replies: impl Iterator<Item = &'a Reply>) -> Option<String> {
    replies.find_map(|reply| reply.stop().or_else(|| reply.block()))
}

fn joined(held: Option<String>, more: Option<String>) -> Option<String> {
    match (held, more) {
        (Some(held), Some(more)) => Some(format!("{held}\n{more}")),
        (held, more) => held.or(more),
    }
}

/// `text` trimmed and cut to [`MAX_REASON_CHARS`].
fn bounded(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= MAX_REASON_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(MAX_REASON_CHARS).collect();
    cut.push('…');
    cut
}

/// The `PermissionRequest` answer of several hooks: a block (exit 2, `decision: block`) or a
/// `decision.behavior: deny` denies, with its reason; otherwise an `allow` (`behavior` or
/// `permissionDecision`) allows; otherwise the person is asked (`None`).
pub(crate) fn permission_request(replies: &[Reply]) -> Option<Result<String, String>> {
    let behaviour = |reply: &Reply| {
        let decision = reply.field("decision")?;
        let behaviour = decision.get("behavior").and_then(Value::as_str)?;
        let message = decision
            .get("message")
            .and_then(Value::as_str)
            .map(bounded)
            .unwrap_or_default();
        Some((behaviour.to_owned(), message))
    };
    for reply in replies {
        if let Some(reason) = reply.stop().or_else(|| reply.block()) {
            return Some(Err(reason));
        }
        match behaviour(reply) {
            Some((behaviour, message)) if behaviour == "deny" => return Some(Err(message)),
            _ if matches!(reply.permission(), Some((HookPermission::Deny, _))) => {
                return Some(Err(reply.permission().map(|(_, r)| r).unwrap_or_default()));
            }
            _ => {}
        }
    }
    replies.iter().find_map(|reply| match behaviour(reply) {
        Some((behaviour, message)) if behaviour == "allow" => Some(Ok(message)),
        _ => match reply.permission() {
            Some((HookPermission::Allow, reason)) => Some(Ok(reason)),
            _ => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ran(code: i32, stdout: &str, stderr: &str) -> Reply {
        Reply::of(Ok(ShellOutcome {
            code: Some(code),
            timed_out: false,
            status: format!("exited with status {code}"),
            stdout: stdout.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr: stderr.as_bytes().to_vec(),
        }))
    }

    #[test]
    fn exit_two_blocks_with_stderr_and_other_codes_block_nothing() {
        let before = before_tool(&[ran(2, "", "no rm here\n"), ran(1, "", "oops")]);
        assert_eq!(before.block.as_deref(), Some("no rm here"));
        let reply = ran(1, "", "oops");
        assert_eq!(reply.problem.as_deref(), Some("exited with status 1: oops"));
        assert_eq!(before_tool(&[reply]), BeforeTool::default());
    }

    #[test]
    fn json_permissions_inputs_and_context() {
        let allow = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow", "permissionDecisionReason": "fine",
            "updatedInput": {"command": "ls"}, "additionalContext": "note"}});
        let deny = json!({"hookSpecificOutput": {"permissionDecision": "deny",
            "permissionDecisionReason": "no"}});
        let before = before_tool(&[
            ran(0, &allow.to_string(), ""),
            ran(0, &deny.to_string(), ""),
        ]);
        assert_eq!(before.permission, Some((HookPermission::Deny, "no".into())));
        assert_eq!(before.input, Some(json!({"command": "ls"})));
        assert_eq!(before.context.as_deref(), Some("note"));
    }

    #[test]
    fn stop_blocks_unless_a_hook_says_continue_false() {
        let block = json!({"decision": "block", "reason": "run the tests"}).to_string();
        assert_eq!(
            stop(&[ran(0, &block, "")]),
            StopVerdict::Continue("run the tests".into())
        );
        let halt = json!({"continue": false}).to_string();
        assert_eq!(
            stop(&[ran(0, &block, ""), ran(0, &halt, "")]),
            StopVerdict::Stop
        );
        assert_eq!(stop(&[ran(0, "not json", "")]), StopVerdict::Stop);
    }

    #[test]
    fn a_compaction_is_blocked_by_exit_two_block_or_continue_false_only() {
        let block = json!({"decision": "block", "reason": "mid-migration"}).to_string();
        let halt = json!({"continue": false, "stopReason": "later"}).to_string();
        let context = json!({"additionalContext": "keep the plan"}).to_string();
        let blocked = |replies: &[Reply]| super::blocked(replies.iter());
        assert_eq!(blocked(&[ran(2, "", "busy")]), Some("busy".into()));
        assert_eq!(blocked(&[ran(0, &block, "")]), Some("mid-migration".into()));
        assert_eq!(blocked(&[ran(0, &halt, "")]), Some("later".into()));
        assert_eq!(blocked(&[ran(0, &context, ""), ran(1, "", "oops")]), None);
    }

    #[test]
    fn prompts_are_refused_or_given_context() {
        assert_eq!(prompt(&[ran(2, "", "secret")]), Err("secret".into()));
        assert_eq!(
            prompt(&[ran(0, "today is Friday", "")]),
            Ok(Some("today is Friday".into()))
        );
    }
}

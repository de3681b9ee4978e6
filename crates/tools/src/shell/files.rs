//! Rules for commands that write or delete files: redirection targets, `rm`, `find`.

use super::RiskAssessment;
use super::parse::Simple;
use super::rules::{classify_simple, has_flag, operands};
use agentctl_core::RiskLevel::{self, Critical, High, Low, Medium, Safe};

fn verdict(level: RiskLevel, reason: impl Into<String>) -> RiskAssessment {
    RiskAssessment::new(level, reason)
}

/// The risk of writing to `target` (redirection, `tee`, `cp` destination); `None` for
/// harmless sinks such as `/dev/null`.
pub(crate) fn path_write_risk(target: &str) -> Option<RiskAssessment> {
    const SINKS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];
    const DISKS: &[&str] = &[
        "/dev/sd",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/nvme",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/mapper",
    ];
    const SYSTEM: &[&str] = &[
        "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/sys", "/proc", "/var",
        "/opt", "/root", "/dev",
    ];
    let under = |prefix: &str| {
        target == prefix
            || target
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    if SINKS.contains(&target) || target.starts_with("/dev/fd/") {
        return None;
    }
    if DISKS.iter().any(|disk| target.starts_with(disk)) {
        return Some(verdict(
            Critical,
            format!("writes to the disk device {target}"),
        ));
    }
    if under("/tmp") || under("/var/tmp") {
        return Some(verdict(Low, format!("writes {target}")));
    }
    if SYSTEM.iter().any(|prefix| under(prefix)) {
        return Some(verdict(High, format!("writes to the system path {target}")));
    }
    if target.starts_with('/') || target.starts_with('~') || target.starts_with("$HOME") {
        return Some(verdict(
            Medium,
            format!("writes outside the project: {target}"),
        ));
    }
    if target.split('/').any(|part| part == "..") {
        return Some(verdict(
            Medium,
            format!("writes outside the project: {target}"),
        ));
    }
    Some(verdict(Low, format!("writes the file {target}")))
}

pub(super) fn rm_risk(args: &[String]) -> RiskAssessment {
    let recursive = has_flag(args, &["--recursive"], 'r') || has_flag(args, &[], 'R');
    let force = has_flag(args, &["--force"], 'f');
    let catastrophic = args.iter().any(|a| a == "--no-preserve-root")
        || operands(args).any(|target| {
            let trimmed = target.trim_end_matches('/');
            let top_level = trimmed.starts_with('/') && trimmed.matches('/').count() == 1;
            matches!(
                target.as_str(),
                "/" | "/*"
                    | "~"
                    | "~/"
                    | "~/*"
                    | "$HOME"
                    | "$HOME/"
                    | "$HOME/*"
                    | "${HOME}"
                    | "*"
                    | "."
                    | "./"
                    | "./*"
                    | ".."
                    | "../"
                    | ".*"
            ) || top_level
        });
    let name = match (recursive, force) {
        (true, true) => "rm -rf",
        (true, false) => "rm -r",
        _ => "rm",
    };
    if recursive && catastrophic {
        return verdict(
            Critical,
            format!("{name} would wipe the system, the home folder or the whole project"),
        );
    }
    if recursive {
        return verdict(High, format!("{name} removes files recursively"));
    }
    verdict(High, "rm deletes files")
}

pub(super) fn find_risk(args: &[String], depth: usize) -> RiskAssessment {
    let mut result = verdict(Safe, "find only lists files");
    let mut rest = args;
    while let Some(at) = rest.iter().position(|a| {
        matches!(
            a.as_str(),
            "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir" | "-fprint" | "-fprintf" | "-fls"
        )
    }) {
        let action = rest[at].as_str();
        rest = &rest[at + 1..];
        let next = match action {
            "-delete" => verdict(High, "find -delete removes files"),
            "-fprint" | "-fprintf" | "-fls" => verdict(Low, format!("find {action} writes a file")),
            _ => {
                let end = rest
                    .iter()
                    .position(|a| a == ";" || a == "+")
                    .unwrap_or(rest.len());
                let inner = Simple {
                    words: rest[..end].to_vec(),
                    ..Simple::default()
                };
                rest = &rest[end.min(rest.len())..];
                let mut inner = classify_simple(&inner, depth + 1);
                inner.reason = format!("find {action}: {}", inner.reason);
                inner
            }
        };
        result = result.max(next);
    }
    result
}

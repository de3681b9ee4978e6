//! Which process owns a run, and whether that process is still there.
//!
//! A run records its owner when it starts; [`RunLog::interrupt_stale_runs`](agentctl_store::RunLog)
//! marks a `running` run `interrupted` only when its owner is gone. A pid alone is not enough:
//! pids are reused, so the owner also carries the process's start time (Linux
//! `/proc/<pid>/stat`) and the kernel's boot id — a pid of an earlier boot, or the same pid
//! with another start time, is another process.

use std::sync::OnceLock;

/// The process that owns a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owner {
    pub(crate) pid: u32,
    /// Start time of the process in clock ticks since boot, where `/proc` tells it.
    pub(crate) start: Option<u64>,
    /// The kernel's boot id, where `/proc` tells it.
    pub(crate) boot: Option<String>,
}

/// What `/proc` says about a pid.
enum ProcState {
    /// A live (not zombie) process, with its start time.
    Live(Option<u64>),
    /// No such process, or a zombie.
    Gone,
    /// `/proc` cannot tell (not mounted, not readable).
    Unknown,
}

impl Owner {
    /// This process.
    pub(crate) fn current() -> &'static Owner {
        static CURRENT: OnceLock<Owner> = OnceLock::new();
        CURRENT.get_or_init(|| {
            let pid = std::process::id();
            let start = match proc_state("self") {
                ProcState::Live(start) => start,
                ProcState::Gone | ProcState::Unknown => None,
            };
            let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
                .ok()
                .map(|id| id.trim().to_owned())
                .filter(|id| !id.is_empty());
            Owner { pid, start, boot }
        })
    }

    /// An owner as stored; `None` for runs written before owners were recorded.
    pub(crate) fn from_columns(
        pid: Option<i64>,
        start: Option<i64>,
        boot: Option<String>,
    ) -> Option<Owner> {
        Some(Owner {
            pid: u32::try_from(pid?).ok()?,
            start: start.and_then(|start| u64::try_from(start).ok()),
            boot,
        })
    }

    /// The start time as stored (SQLite integers are signed).
    pub(crate) fn start_column(&self) -> Option<i64> {
        self.start.and_then(|start| i64::try_from(start).ok())
    }

    /// True when the owning process has exited (or the machine rebooted since): its run can
    /// never finish. When nothing can tell, the process counts as gone, as before owners
    /// were recorded.
    pub(crate) fn is_gone(&self) -> bool {
        let me = Owner::current();
        if let (Some(theirs), Some(mine)) = (&self.boot, &me.boot)
            && theirs != mine
        {
            return true;
        }
        if self.pid == me.pid && self.start == me.start {
            return false;
        }
        // Without `/proc` for ourselves, another pid's entry tells nothing either.
        let state = if me.start.is_some() {
            proc_state(&self.pid.to_string())
        } else {
            ProcState::Unknown
        };
        match state {
            ProcState::Live(start) => matches!((self.start, start), (Some(a), Some(b)) if a != b),
            ProcState::Gone => true,
            ProcState::Unknown => !signal_reaches(self.pid),
        }
    }
}

/// Reads `/proc/<pid>/stat`: state and start time.
fn proc_state(pid: &str) -> ProcState {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => parse_stat(&stat),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => ProcState::Gone,
        Err(_) => ProcState::Unknown,
    }
}

/// `pid (comm) state ppid … starttime …`: the command may hold spaces and parentheses, so
/// the fields are counted after the last `)`; the state is field 3, the start time field 22.
fn parse_stat(stat: &str) -> ProcState {
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return ProcState::Unknown;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    match fields.first() {
        Some(&("Z" | "X" | "x")) => ProcState::Gone,
        Some(_) => ProcState::Live(fields.get(19).and_then(|start| start.parse().ok())),
        None => ProcState::Unknown,
    }
}

/// Whether a signal could be sent to `pid` (`kill(pid, 0)`): it exists, even when it belongs
/// to another user.
#[cfg(unix)]
fn signal_reaches(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(error) => error != rustix::io::Errno::SRCH,
    }
}

#[cfg(not(unix))]
fn signal_reaches(_pid: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_reused_pid_is_not_it() {
        let me = Owner::current().clone();
        assert!(!me.is_gone());
        if let Some(start) = me.start {
            let reused = Owner {
                start: Some(start + 1),
                ..me.clone()
            };
            assert!(reused.is_gone());
        }
        if me.boot.is_some() {
            let other_boot = Owner {
                boot: Some("another-boot".into()),
                ..me
            };
            assert!(other_boot.is_gone());
        }
    }

    #[test]
    fn an_exited_process_is_gone() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let owner = Owner {
            pid,
            start: None,
            boot: Owner::current().boot.clone(),
        };
        assert!(owner.is_gone());
    }

    #[test]
    fn a_live_child_is_not_gone_until_it_exits() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let start = match proc_state(&pid.to_string()) {
            ProcState::Live(start) => start,
            _ => None,
        };
        let owner = Owner {
            pid,
            start,
            boot: Owner::current().boot.clone(),
        };
        assert!(!owner.is_gone());
        child.kill().unwrap();
        // Not yet reaped: a zombie is gone too.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !owner.is_gone() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(owner.is_gone());
        child.wait().unwrap();
        assert!(owner.is_gone());
    }

    #[test]
    fn stat_lines_with_odd_commands() {
        let line = "42 (a) b) (c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 0 0";
        assert!(matches!(parse_stat(line), ProcState::Live(Some(987_654))));
        assert!(matches!(parse_stat("42 (zz) Z 1 2 3"), ProcState::Gone));
        assert!(matches!(parse_stat("garbage"), ProcState::Unknown));
    }

    #[test]
    fn legacy_rows_have_no_owner() {
        assert_eq!(Owner::from_columns(None, Some(1), None), None);
        assert_eq!(Owner::from_columns(Some(-1), None, None), None);
        let owner = Owner::from_columns(Some(7), Some(9), Some("b".into())).unwrap();
        assert_eq!(owner.start_column(), Some(9));
    }
}

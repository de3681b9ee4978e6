//! Process groups that die: [`ProcessGroup`] signals every process of a command's group, and
//! kills them all when dropped unless released.
//!
//! A child started with `process_group(0)` leads a new group whose id is its pid; the pipeline
//! and background jobs it starts join that group. Killing only the child (what
//! `kill_on_drop` does) leaves `sleep 100 | cat` running; signalling the group does not.
//! A process can still leave the group on purpose (`setsid`): it then stays confined by the
//! sandbox, but is not killed with the group.

/// The process group of a child that leads its own group. Dropping it sends `SIGKILL` to the
/// whole group, unless [`release`](Self::release)d.
#[derive(Debug)]
pub struct ProcessGroup {
    id: Option<u32>,
}

impl ProcessGroup {
    /// The group led by the process `leader` (a child spawned with `process_group(0)`).
    /// `None` (from a child that has already been reaped) gives a group that does nothing.
    pub fn led_by(leader: Option<u32>) -> Self {
        Self {
            id: leader.filter(|id| *id > 1),
        }
    }

    /// The group id (the leader's pid).
    pub fn id(&self) -> Option<u32> {
        self.id
    }

    /// Sends `SIGTERM` to every process of the group.
    pub fn terminate(&self) {
        self.signal(false);
    }

    /// Sends `SIGKILL` to every process of the group.
    pub fn kill(&self) {
        self.signal(true);
    }

    /// Whether some process (zombies included) is still in the group.
    pub fn exists(&self) -> bool {
        #[cfg(unix)]
        if let Some(pid) = self.pid() {
            return rustix::process::test_kill_process_group(pid).is_ok();
        }
        false
    }

    /// Gives up the kill on drop: the group is left as it is.
    pub fn release(mut self) {
        self.id = None;
    }

    #[cfg(unix)]
    fn pid(&self) -> Option<rustix::process::Pid> {
        self.id
            .and_then(|id| i32::try_from(id).ok())
            .and_then(rustix::process::Pid::from_raw)
    }

    fn signal(&self, kill: bool) {
        #[cfg(unix)]
        if let Some(pid) = self.pid() {
            let signal = if kill {
                rustix::process::Signal::KILL
            } else {
                rustix::process::Signal::TERM
            };
            // The group may be gone already: nothing left to do then.
            let _ = rustix::process::kill_process_group(pid, signal);
        }
        #[cfg(not(unix))]
        let _ = kill;
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn dropping_kills_the_whole_group_and_release_does_not() {
        use std::os::unix::process::CommandExt as _;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 100 | cat"])
            .process_group(0)
            .spawn()
            .unwrap();
        let group = ProcessGroup::led_by(Some(child.id()));
        assert!(group.exists());
        drop(group);
        let status = child.wait().unwrap();
        assert!(!status.success());

        let mut child = std::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .process_group(0)
            .spawn()
            .unwrap();
        ProcessGroup::led_by(Some(child.id())).release();
        assert_eq!(child.wait().unwrap().code(), Some(3));
        assert!(!ProcessGroup::led_by(None).exists());
    }
}

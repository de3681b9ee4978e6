//! Process groups as `/proc` shows them (Linux): whether a killed group is really gone.

/// Processes of group `pgid` that can still run: present in `/proc`, not zombies, not
/// exiting and without a pending SIGKILL.
pub fn live_members(pgid: u32) -> Vec<u32> {
    const PF_EXITING: u64 = 0x4;
    const SIGKILL_BIT: u64 = 1 << 8;
    let mut live = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, after_comm)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = after_comm.split_whitespace().collect();
        let (Some(&state), Some(pgrp), Some(flags)) =
            (fields.first(), fields.get(2), fields.get(6))
        else {
            continue;
        };
        if pgrp.parse::<u32>().ok() != Some(pgid) || matches!(state, "Z" | "X" | "x") {
            continue;
        }
        if flags.parse::<u64>().unwrap_or(0) & PF_EXITING != 0 {
            continue;
        }
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let kill_pending = status.lines().any(|line| {
            let mask = line
                .strip_prefix("SigPnd:")
                .or_else(|| line.strip_prefix("ShdPnd:"));
            mask.and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
                .is_some_and(|mask| mask & SIGKILL_BIT != 0)
        });
        if !kill_pending {
            live.push(pid);
        }
    }
    live
}

/// Waits (at most 10 s, far more than a kill takes) until no process of group `pgid` can
/// still run; returns those that still can.
pub async fn wait_group_dead(pgid: u32) -> Vec<u32> {
    for _ in 0..500 {
        if live_members(pgid).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    live_members(pgid)
}

/// The process group of a live process whose command line (arguments joined by NUL bytes)
/// contains `marker`, e.g. `"sleep\0100123"`: how a test finds a command's group when the
/// command runs in a PID namespace of its own, where `$$` is not the host's pid.
pub fn group_of(marker: &str) -> Option<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
        })
        .find_map(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let (_, after_comm) = stat.rsplit_once(')')?;
            after_comm.split_whitespace().nth(2)?.parse().ok()
        })
}

/// Waits (at most 10 s) for a process whose command line contains `marker` and returns its
/// process group.
pub async fn wait_for_group(marker: &str) -> u32 {
    for _ in 0..500 {
        if let Some(group) = group_of(marker) {
            return group;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("no process with {marker:?} in its command line appeared")
}

//! What the sandbox could enforce on this machine: [`SandboxStatus`] and its [`SandboxGap`]s.

use std::fmt;

/// Whether, and how far, a process was (or would be) confined.
///
/// Front ends print it once per run (from [`probe`](crate::probe)); [`spawn`](crate::spawn)
/// returns it with every child.
///
/// ```
/// use agentctl_sandbox::{SandboxGap, SandboxStatus};
///
/// let full = SandboxStatus::Enforced { namespaces: true, landlock_abi: Some(7), gaps: vec![] };
/// assert_eq!(full.to_string(), "enforced (namespaces + Landlock ABI 7)");
/// let fallback = SandboxStatus::Enforced {
///     namespaces: false,
///     landlock_abi: Some(7),
///     gaps: vec![SandboxGap::NoNamespaces {
///         reason: "bubblewrap not found: install the bubblewrap package".into(),
///     }],
/// };
/// assert!(fallback.to_string().starts_with("partly enforced (Landlock ABI 7): protected paths are writable and other processes are visible (bubblewrap not found"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxStatus {
    /// Confined, by namespaces (bubblewrap), Landlock, or both.
    Enforced {
        /// Whether the process runs in its own user, mount, PID (and maybe network)
        /// namespaces: protected paths read-only, nothing of the file system visible but what
        /// the policy shows, its own `/proc`.
        namespaces: bool,
        /// The Landlock ABI in effect (the lower of the kernel's and the one agentctl was
        /// tested with), or `None` when Landlock adds nothing or is unavailable.
        landlock_abi: Option<u32>,
        /// Restrictions the policy asked for that this system cannot enforce.
        gaps: Vec<SandboxGap>,
    },
    /// The policy's mode is `off`: nothing is confined, by choice.
    Off,
    /// Confinement was asked for but this system cannot provide any (no bubblewrap that can
    /// create namespaces and no Landlock, or not Linux). Processes run unconfined; approvals
    /// remain the only defence.
    Unavailable {
        /// Why, e.g. `Landlock is not enabled in this kernel`.
        reason: String,
    },
}

impl SandboxStatus {
    /// Whether processes are confined (perhaps with [gaps](SandboxGap)).
    pub fn is_enforced(&self) -> bool {
        matches!(self, SandboxStatus::Enforced { .. })
    }

    /// The gaps of an enforced status (none otherwise).
    pub fn gaps(&self) -> &[SandboxGap] {
        match self {
            SandboxStatus::Enforced { gaps, .. } => gaps,
            SandboxStatus::Off | SandboxStatus::Unavailable { .. } => &[],
        }
    }
}

impl fmt::Display for SandboxStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (namespaces, abi, gaps) = match self {
            SandboxStatus::Off => return f.write_str("off"),
            SandboxStatus::Unavailable { reason } => return write!(f, "unavailable: {reason}"),
            SandboxStatus::Enforced {
                namespaces,
                landlock_abi,
                gaps,
            } => (*namespaces, *landlock_abi, gaps),
        };
        let layers = match (namespaces, abi) {
            (true, Some(abi)) => format!("namespaces + Landlock ABI {abi}"),
            (true, None) => "namespaces".to_owned(),
            (false, Some(abi)) => format!("Landlock ABI {abi}"),
            (false, None) => "nothing".to_owned(),
        };
        if gaps.is_empty() {
            return write!(f, "enforced ({layers})");
        }
        write!(f, "partly enforced ({layers}): ")?;
        for (index, gap) in gaps.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{gap}")?;
        }
        Ok(())
    }
}

/// A restriction the policy asks for that this system (or this spawn) cannot enforce.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SandboxGap {
    /// No namespaces (bubblewrap is missing or cannot create them): protected paths are
    /// writable, and other processes are visible in the shared `/proc`: their command lines,
    /// and the environments of those of the same user that are dumpable (agentctl makes
    /// itself non-dumpable; Landlock keeps their memory out of reach).
    NoNamespaces {
        /// Why, e.g. `bubblewrap not found: install the bubblewrap package`.
        reason: String,
    },
    /// `network: false` is not enforced for TCP: Landlock's TCP rules need ABI 4 (Linux 6.7)
    /// and there are no namespaces.
    Network,
    /// Without namespaces Landlock cannot refuse UDP, so DNS queries (and other UDP) still
    /// leave with `network: false` or an allow-list.
    Udp,
    /// The network allow-list cannot be enforced (no namespaces, or no bridge program): the
    /// command gets no network instead.
    AllowList {
        /// Why, e.g. `agentctl's network bridge is not registered`.
        reason: String,
    },
    /// The protected mounts are not checked from inside the sandbox before the command runs
    /// (no helper program): a process of another sandbox racing the mounts could leave one
    /// writable.
    Unchecked {
        /// Why, e.g. `no sandbox helper program is registered`.
        reason: String,
    },
    /// Files outside the writable directories can still be truncated: needs ABI 3 (Linux 6.2).
    Truncate,
    /// Device ioctls are not restricted: needs ABI 5 (Linux 6.10).
    DeviceIoctl,
    /// Signals to processes outside the sandbox, and abstract Unix sockets, are not
    /// restricted: needs ABI 6 (Linux 6.12).
    Scoping,
    /// The walk for nested protected folders stopped after this many folders: nested
    /// repositories beyond them are not protected.
    WalkCapped {
        /// The number of folders read.
        folders: usize,
    },
    /// The walk for what `Read(…)`/`Edit(…)` deny rules name stopped after this many
    /// entries: paths beyond them are refused only when a command names them.
    DenyWalkCapped {
        /// The number of entries read.
        entries: usize,
    },
    /// Without namespaces Landlock can only grant: the folders holding a path a deny rule
    /// names keep their other entries, but what is created in them later cannot be read
    /// (`Read` deny) or nothing can be created in them (`Edit` deny).
    DenyFolders,
}

impl SandboxGap {
    /// The Landlock ABI that closes this gap, for gaps that one closes.
    pub fn needs_abi(&self) -> Option<u32> {
        match self {
            SandboxGap::Truncate => Some(3),
            SandboxGap::Network => Some(4),
            SandboxGap::DeviceIoctl => Some(5),
            SandboxGap::Scoping => Some(6),
            SandboxGap::NoNamespaces { .. }
            | SandboxGap::Unchecked { .. }
            | SandboxGap::Udp
            | SandboxGap::AllowList { .. }
            | SandboxGap::WalkCapped { .. }
            | SandboxGap::DenyWalkCapped { .. }
            | SandboxGap::DenyFolders => None,
        }
    }

    /// The gaps of Landlock ABI `abi` confining the file system on its own (no namespaces),
    /// for a policy that does or does not restrict TCP.
    pub(crate) fn of_abi(abi: u32, restrict_tcp: bool) -> Vec<SandboxGap> {
        [
            SandboxGap::Truncate,
            SandboxGap::Network,
            SandboxGap::DeviceIoctl,
            SandboxGap::Scoping,
        ]
        .into_iter()
        .filter(|gap| restrict_tcp || *gap != SandboxGap::Network)
        .filter(|gap| gap.needs_abi().is_some_and(|needed| abi < needed))
        .collect()
    }
}

impl fmt::Display for SandboxGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxGap::NoNamespaces { reason } => {
                return write!(
                    f,
                    "protected paths are writable and other processes are visible ({reason})"
                );
            }
            SandboxGap::Udp => return f.write_str("UDP (and so DNS) is not restricted"),
            SandboxGap::Unchecked { reason } => {
                return write!(
                    f,
                    "protected paths are not checked from inside before the command runs \
                     ({reason})"
                );
            }
            SandboxGap::AllowList { reason } => {
                return write!(
                    f,
                    "the network allow-list cannot be enforced, so there is no network \
                     ({reason})"
                );
            }
            SandboxGap::WalkCapped { folders } => {
                return write!(
                    f,
                    "nested repositories beyond the first {folders} folders are not protected"
                );
            }
            SandboxGap::DenyWalkCapped { entries } => {
                return write!(
                    f,
                    "deny rules cover only what the first {entries} entries searched hold; \
                     other paths are refused only when a command names them"
                );
            }
            SandboxGap::DenyFolders => {
                return f.write_str(
                    "new entries of folders holding a denied path cannot be read or made",
                );
            }
            SandboxGap::Network
            | SandboxGap::Truncate
            | SandboxGap::DeviceIoctl
            | SandboxGap::Scoping => {}
        }
        let what = match self {
            SandboxGap::Network => "TCP is not restricted",
            SandboxGap::Truncate => "files outside the writable directories can be truncated",
            SandboxGap::DeviceIoctl => "device ioctls are not restricted",
            _ => "signals and abstract Unix sockets are not restricted",
        };
        let abi = self.needs_abi().unwrap_or_default();
        write!(f, "{what} (needs Landlock ABI {abi})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_depend_on_the_abi_and_the_network_setting() {
        assert!(SandboxGap::of_abi(7, true).is_empty());
        assert_eq!(
            SandboxGap::of_abi(3, true),
            [
                SandboxGap::Network,
                SandboxGap::DeviceIoctl,
                SandboxGap::Scoping
            ]
        );
        assert_eq!(
            SandboxGap::of_abi(3, false),
            [SandboxGap::DeviceIoctl, SandboxGap::Scoping]
        );
        let status = SandboxStatus::Enforced {
            namespaces: false,
            landlock_abi: Some(5),
            gaps: SandboxGap::of_abi(5, false),
        };
        assert_eq!(
            status.to_string(),
            "partly enforced (Landlock ABI 5): signals and abstract Unix sockets are not \
             restricted (needs Landlock ABI 6)"
        );
        let status = SandboxStatus::Enforced {
            namespaces: true,
            landlock_abi: None,
            gaps: vec![SandboxGap::WalkCapped { folders: 50_000 }],
        };
        assert_eq!(
            status.to_string(),
            "partly enforced (namespaces): nested repositories beyond the first 50000 folders \
             are not protected"
        );
    }
}

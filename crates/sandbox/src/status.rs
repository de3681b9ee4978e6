//! What the sandbox could enforce on this machine: [`SandboxStatus`].

use std::fmt;

/// Whether, and how far, a process was (or would be) confined.
///
/// Front ends print it once per run (from [`probe`](crate::probe)); [`spawn`](crate::spawn)
/// returns it with every child.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxStatus {
    /// Confined by Landlock.
    Enforced {
        /// The Landlock ABI version in effect (the lower of the kernel's and the one agentctl
        /// was tested with).
        abi: u32,
        /// Restrictions the policy asked for that this kernel cannot enforce.
        gaps: Vec<SandboxGap>,
    },
    /// The policy's mode is `off`: nothing is confined, by choice.
    Off,
    /// Confinement was asked for but this system cannot provide it (no Landlock in the
    /// kernel, Landlock disabled at boot, a container that filters its system calls, or not
    /// Linux). Processes run unconfined; approvals remain the only defence.
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
}

impl fmt::Display for SandboxStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxStatus::Enforced { abi, gaps } if gaps.is_empty() => {
                write!(f, "enforced (Landlock ABI {abi})")
            }
            SandboxStatus::Enforced { abi, gaps } => {
                write!(f, "partly enforced (Landlock ABI {abi}): ")?;
                for (index, gap) in gaps.iter().enumerate() {
                    if index > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{gap}")?;
                }
                Ok(())
            }
            SandboxStatus::Off => f.write_str("off"),
            SandboxStatus::Unavailable { reason } => write!(f, "unavailable: {reason}"),
        }
    }
}

/// A restriction the policy asks for that the running kernel's Landlock cannot enforce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SandboxGap {
    /// `network: false` is not enforced: TCP rules need Landlock ABI 4 (Linux 6.7).
    Network,
    /// Files outside the writable directories can still be truncated: needs ABI 3 (Linux 6.2).
    Truncate,
    /// Device ioctls are not restricted: needs ABI 5 (Linux 6.10).
    DeviceIoctl,
    /// Signals to processes outside the sandbox, and abstract Unix sockets, are not
    /// restricted: needs ABI 6 (Linux 6.12).
    Scoping,
}

impl SandboxGap {
    /// The Landlock ABI that closes this gap.
    pub fn needs_abi(self) -> u32 {
        match self {
            SandboxGap::Truncate => 3,
            SandboxGap::Network => 4,
            SandboxGap::DeviceIoctl => 5,
            SandboxGap::Scoping => 6,
        }
    }

    /// The gaps of Landlock ABI `abi` for a policy that does (`network: false`) or does not
    /// restrict TCP.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn of_abi(abi: u32, restrict_network: bool) -> Vec<SandboxGap> {
        [
            SandboxGap::Truncate,
            SandboxGap::Network,
            SandboxGap::DeviceIoctl,
            SandboxGap::Scoping,
        ]
        .into_iter()
        .filter(|gap| restrict_network || *gap != SandboxGap::Network)
        .filter(|gap| abi < gap.needs_abi())
        .collect()
    }
}

impl fmt::Display for SandboxGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            SandboxGap::Network => "TCP is not restricted",
            SandboxGap::Truncate => "files outside the writable directories can be truncated",
            SandboxGap::DeviceIoctl => "device ioctls are not restricted",
            SandboxGap::Scoping => "signals and abstract Unix sockets are not restricted",
        };
        write!(f, "{what} (needs Landlock ABI {})", self.needs_abi())
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
            abi: 5,
            gaps: SandboxGap::of_abi(5, true),
        };
        assert_eq!(
            status.to_string(),
            "partly enforced (Landlock ABI 5): signals and abstract Unix sockets are not \
             restricted (needs Landlock ABI 6)"
        );
    }
}

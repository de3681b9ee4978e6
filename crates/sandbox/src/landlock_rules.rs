//! The Landlock rules of a [`SandboxPolicy`], applied to the calling thread.

use crate::policy::SandboxPolicy;
use crate::status::{SandboxGap, SandboxStatus};
use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, RestrictionStatus,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError, RulesetStatus, Scope,
    path_beneath_rules,
};
use std::path::PathBuf;

/// The newest Landlock ABI these rules were written and tested against. Rights of newer ABIs
/// (e.g. UDP, or connecting to pathname Unix sockets) are not requested until they are tested:
/// an untested right can break commands in ways nobody has seen.
const TESTED_ABI: ABI = ABI::V7;

/// Character devices anyone may write, confined or not. `/dev/tty` is not among them: output
/// written there would bypass the captured streams and could forge approval prompts.
const WRITABLE_DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// Confines the calling thread (and every process it starts from now on) to `policy`, with
/// `writable` as the directories it may change. Sets `no_new_privs` too.
///
/// Never fails: a system that cannot confine gives [`SandboxStatus::Unavailable`] with the
/// reason, and the thread is left unconfined (save for `no_new_privs`).
pub(crate) fn restrict_current_thread(
    policy: &SandboxPolicy,
    writable: &[PathBuf],
) -> SandboxStatus {
    match try_restrict(policy, writable) {
        Ok(status) => status_of(&status, !policy.network()),
        Err(error) => SandboxStatus::Unavailable {
            reason: format!("Landlock refused the rules: {error}"),
        },
    }
}

fn try_restrict(
    policy: &SandboxPolicy,
    writable: &[PathBuf],
) -> Result<RestrictionStatus, RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TESTED_ABI))?
        // ABI 6 scoping. A confined process must not signal processes outside its sandbox (the
        // agent, the user's editor), nor reach abstract Unix sockets made outside it: an X11
        // server listens on one, and a client of it can type into the user's terminal.
        .scope(Scope::Signal | Scope::AbstractUnixSocket)?;
    if !policy.network() {
        ruleset = ruleset.handle_access(AccessNet::from_all(TESTED_ABI))?;
    }
    let writable_devices = AccessFs::WriteFile | AccessFs::Truncate;
    ruleset
        .create()?
        .no_new_privs(true)
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(TESTED_ABI)))?
        .add_rules(path_beneath_rules(WRITABLE_DEVICES, writable_devices))?
        // Every right, REFER included, but only beneath the writable directories: a hard link
        // or rename that would bring a file from outside in is refused, since the outside has
        // no REFER.
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(TESTED_ABI)))?
        .restrict_self()
}

fn status_of(status: &RestrictionStatus, restrict_network: bool) -> SandboxStatus {
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => abi_number(effective_abi),
        LandlockStatus::NotEnabled => {
            return SandboxStatus::Unavailable {
                reason: "Landlock is built into this kernel but not enabled (see the `lsm=` \
                         boot parameter)"
                    .into(),
            };
        }
        LandlockStatus::NotImplemented => {
            return SandboxStatus::Unavailable {
                reason: "this kernel has no Landlock (it needs Linux 5.13 or newer built with \
                         it), or a container filters its system calls"
                    .into(),
            };
        }
    };
    match status.ruleset {
        RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => {
            let abi = abi.min(abi_number(TESTED_ABI));
            SandboxStatus::Enforced {
                abi,
                gaps: SandboxGap::of_abi(abi, restrict_network),
            }
        }
        RulesetStatus::NotEnforced => SandboxStatus::Unavailable {
            reason: format!("Landlock ABI {abi} did not enforce the rules"),
        },
    }
}

/// The number of a Landlock ABI (`ABI` is `non_exhaustive`, so no cast).
fn abi_number(abi: ABI) -> u32 {
    abi.to_string().parse().unwrap_or(0)
}

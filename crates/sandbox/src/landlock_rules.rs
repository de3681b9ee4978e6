//! The Landlock rules of a spawn, applied to the calling thread.
//!
//! Two rule sets. Under namespaces, Landlock only **scopes** (signals, abstract Unix sockets)
//! and can refuse TCP: a domain that handles file-system rights forbids `mount`, which
//! bubblewrap needs, while a scope-and-network-only domain does not. Without namespaces,
//! Landlock does all it can: reads only beneath the visible folders, writes only beneath the
//! writable ones, TCP refused when asked.

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, RestrictionStatus,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError, RulesetStatus, Scope,
    path_beneath_rules,
};
use std::path::PathBuf;

/// The newest Landlock ABI these rules were written and tested against. Rights of newer ABIs
/// (e.g. UDP, or connecting to pathname Unix sockets) are not requested until they are tested:
/// an untested right can break commands in ways nobody has seen.
pub(crate) const TESTED_ABI: ABI = ABI::V7;

/// Character devices anyone may write, confined or not. `/dev/tty` is not among them: output
/// written there would bypass the captured streams and could forge approval prompts.
const WRITABLE_DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// Which rules to apply.
#[derive(Debug)]
pub(crate) enum Rules<'a> {
    /// In namespaces: scoping, and TCP refused when `deny_tcp`.
    Scoping { deny_tcp: bool },
    /// On its own: reads beneath `readable`, listing beneath `listable` (the folders on the
    /// way to a hidden path), writes beneath `writable`, TCP refused when `deny_tcp`.
    Full {
        readable: &'a [PathBuf],
        listable: &'a [PathBuf],
        writable: &'a [PathBuf],
        deny_tcp: bool,
    },
}

/// Confines the calling thread (and every process it starts from now on) with `rules`, and
/// sets `no_new_privs`. `Ok(Some(abi))` when Landlock enforces something, `Ok(None)` when it
/// adds nothing here (an old kernel, scoping only), `Err(reason)` when Landlock is unavailable
/// and the rules needed it; the thread is then left as it was.
pub(crate) fn restrict_current_thread(rules: &Rules<'_>) -> Result<Option<u32>, String> {
    let status = match rules {
        Rules::Scoping { deny_tcp } => scoping(*deny_tcp),
        Rules::Full {
            readable,
            listable,
            writable,
            deny_tcp,
        } => full((readable, listable, writable), *deny_tcp),
    }
    .map_err(|error| format!("Landlock refused the rules: {error}"))?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => abi_number(effective_abi),
        LandlockStatus::NotEnabled => {
            return Err(
                "Landlock is built into this kernel but not enabled (see the `lsm=` \
                        boot parameter)"
                    .into(),
            );
        }
        LandlockStatus::NotImplemented => {
            return Err(
                "this kernel has no Landlock (it needs Linux 5.13 or newer built with \
                        it), or a container filters its system calls"
                    .into(),
            );
        }
    };
    match status.ruleset {
        RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => {
            Ok(Some(abi.min(abi_number(TESTED_ABI))))
        }
        RulesetStatus::NotEnforced if matches!(rules, Rules::Scoping { .. }) => Ok(None),
        RulesetStatus::NotEnforced => Err(format!("Landlock ABI {abi} did not enforce the rules")),
    }
}

fn scoping(deny_tcp: bool) -> Result<RestrictionStatus, RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        // ABI 6 scoping. A confined process must not signal processes outside its sandbox (the
        // agent, the user's editor), nor reach abstract Unix sockets made outside it: an X11
        // server listens on one, and a client of it can type into the user's terminal.
        .scope(Scope::Signal | Scope::AbstractUnixSocket)?;
    if deny_tcp {
        ruleset = ruleset.handle_access(AccessNet::from_all(TESTED_ABI))?;
    }
    ruleset.create()?.no_new_privs(true).restrict_self()
}

fn full(
    (readable, listable, writable): (&[PathBuf], &[PathBuf], &[PathBuf]),
    deny_tcp: bool,
) -> Result<RestrictionStatus, RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TESTED_ABI))?
        .scope(Scope::Signal | Scope::AbstractUnixSocket)?;
    if deny_tcp {
        ruleset = ruleset.handle_access(AccessNet::from_all(TESTED_ABI))?;
    }
    let writable_devices = AccessFs::WriteFile | AccessFs::Truncate;
    ruleset
        .create()?
        .no_new_privs(true)
        .add_rules(path_beneath_rules(
            readable,
            AccessFs::from_read(TESTED_ABI),
        ))?
        .add_rules(path_beneath_rules(listable, AccessFs::ReadDir))?
        .add_rules(path_beneath_rules(WRITABLE_DEVICES, writable_devices))?
        // Every right to change, REFER included, but only beneath the writable directories (the
        // readable ones include them: reading a writable folder is granted, and withheld from
        // hidden paths, with the reads): a hard link or rename that would bring a file from
        // outside in is refused, since the outside has no REFER, and so is one that would take
        // a hidden file where it could be read, since a file may not gain rights by moving.
        .add_rules(path_beneath_rules(
            writable,
            AccessFs::from_write(TESTED_ABI),
        ))?
        .restrict_self()
}

/// The number of a Landlock ABI (`ABI` is `non_exhaustive`, so no cast).
fn abi_number(abi: ABI) -> u32 {
    abi.to_string().parse().unwrap_or(0)
}

//! Which layers confine a spawn, how its network is set up, and the status that results.

use crate::bwrap::{self, Net};
use crate::command::SandboxCommand;
use crate::deny::DENY_WALK_CAP;
use crate::error::SandboxError;
use crate::helper;
use crate::layout::{Layout, LayoutRequest, WALK_CAP};
use crate::policy::SandboxPolicy;
use crate::proxy::socket_in;
use crate::status::{SandboxGap, SandboxStatus};
use agentctl_core::{NetworkAccess, SandboxMode};
use std::path::{Path, PathBuf};
use tokio::process::Child;
use tokio::runtime::Handle;

/// What Landlock gave: an ABI, nothing to add, or why it is unavailable.
type Landlock = Result<Option<u32>, String>;

/// Which rules a confined thread applies (a stand-in where Landlock does not exist).
#[cfg(target_os = "linux")]
use crate::landlock_rules::Rules;
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
enum Rules<'a> {
    Scoping {
        deny_tcp: bool,
    },
    Full {
        readable: &'a [PathBuf],
        listable: &'a [PathBuf],
        writable: &'a [PathBuf],
        deny_tcp: bool,
    },
}

/// How a spawn's network is set up.
struct Network {
    net: Net,
    /// Whether Landlock refuses TCP (without a network namespace).
    deny_tcp: bool,
    /// The proxy's folder, for an allow-list the helper bridges to.
    proxy: Option<PathBuf>,
    gaps: Vec<SandboxGap>,
}

/// Spawns `command` with namespaces when bubblewrap works here, else with Landlock alone.
pub(super) fn spawn_confined(
    command: SandboxCommand,
    policy: &SandboxPolicy,
    project_root: &Path,
    temp_dir: &Path,
    runtime: &Handle,
) -> Result<(std::io::Result<Child>, SandboxStatus), SandboxError> {
    match namespaces(policy) {
        Ok(bwrap) => in_namespaces(command, policy, (project_root, temp_dir), runtime, &bwrap),
        Err(reason) => landlock_only(command, policy, (project_root, temp_dir), runtime, reason),
    }
}

/// The status a spawn under `policy` would get (no proxy is started, no walk is made).
pub(super) fn probe(policy: &SandboxPolicy) -> SandboxStatus {
    let namespaces = namespaces(policy);
    let helper = helper::helper(policy.helper_override());
    let mut network = network(policy, namespaces.is_ok(), &helper, None);
    if let (Ok(_), Err(reason)) = (&namespaces, &helper)
        && policy.mode() == SandboxMode::WorkspaceWrite
    {
        network.gaps.push(SandboxGap::Unchecked {
            reason: reason.clone(),
        });
    }
    let empty: [PathBuf; 0] = [];
    let rules = match &namespaces {
        Ok(_) => Rules::Scoping {
            deny_tcp: network.deny_tcp,
        },
        Err(_) => Rules::Full {
            readable: &empty,
            listable: &empty,
            writable: &empty,
            deny_tcp: network.deny_tcp,
        },
    };
    match on_confined_thread(&rules, "(probe)", || ()) {
        Ok(((), landlock)) => status(namespaces.map(|_| ()), landlock, network, false),
        Err(error) => SandboxStatus::Unavailable {
            reason: error.to_string(),
        },
    }
}

/// The bubblewrap program, if one can create namespaces here.
fn namespaces(policy: &SandboxPolicy) -> Result<PathBuf, String> {
    if !cfg!(target_os = "linux") {
        return Err("namespaces are a Linux feature".into());
    }
    let bwrap = bwrap::locate(policy.bwrap_override())?;
    bwrap::usable(&bwrap, |bwrap| {
        let rules = Rules::Scoping { deny_tcp: false };
        match on_confined_thread(&rules, "bubblewrap", || bwrap::probe_once(bwrap)) {
            Ok((outcome, _)) => outcome,
            Err(error) => Err(error.to_string()),
        }
    })?;
    Ok(bwrap)
}

/// The network of `policy` with or without namespaces; `runtime` starts an allow-list's proxy
/// (a probe passes none and only checks for the helper).
fn network(
    policy: &SandboxPolicy,
    namespaces: bool,
    helper: &Result<PathBuf, String>,
    runtime: Option<&Handle>,
) -> Network {
    // A network namespace of its own reaches nothing but its own loopback, which local test
    // servers need: Landlock refuses TCP only where there is no such namespace.
    let isolated = |gaps| Network {
        net: Net::Isolated,
        deny_tcp: !namespaces,
        proxy: None,
        gaps,
    };
    let allow = match policy.network() {
        NetworkAccess::On => {
            return Network {
                net: Net::Shared,
                deny_tcp: false,
                proxy: None,
                gaps: Vec::new(),
            };
        }
        NetworkAccess::Off => return isolated(Vec::new()),
        NetworkAccess::Allow(allow) => allow,
    };
    let proxy = match (namespaces, helper) {
        (false, _) => Err("it needs namespaces".to_owned()),
        (true, Err(reason)) => Err(reason.clone()),
        (true, Ok(_)) => match runtime {
            Some(runtime) => policy
                .proxy
                .folder(allow, runtime)
                .map(Some)
                .map_err(|error| format!("cannot start the proxy: {error}")),
            None => Ok(None),
        },
    };
    match proxy {
        Ok(proxy) => Network {
            net: Net::Isolated,
            deny_tcp: false,
            proxy,
            gaps: Vec::new(),
        },
        Err(reason) => isolated(vec![SandboxGap::AllowList { reason }]),
    }
}

fn in_namespaces(
    mut command: SandboxCommand,
    policy: &SandboxPolicy,
    (project_root, temp_dir): (&Path, &Path),
    runtime: &Handle,
    bwrap: &Path,
) -> Result<(std::io::Result<Child>, SandboxStatus), SandboxError> {
    let program = command.display_name();
    let helper = helper::helper(policy.helper_override());
    if let Err(error) = command.check_program() {
        let status = status(
            Ok(()),
            Ok(None),
            network(policy, true, &helper, None),
            false,
        );
        return Ok((Err(error), status));
    }
    let mut network = network(policy, true, &helper, Some(runtime));
    let mut own_files: Vec<PathBuf> = network.proxy.iter().cloned().collect();
    own_files.extend(helper.iter().cloned());
    let layout = Layout::new(&LayoutRequest {
        policy,
        project_root,
        temp_dir,
        path_var: command.get_env("PATH"),
        cargo_home: command.get_env("CARGO_HOME"),
        rustup_home: command.get_env("RUSTUP_HOME"),
        own_files: &own_files,
        protect: true,
        shared_network: network.net == Net::Shared,
    });
    let mut args = bwrap::arguments(&layout, network.net, &command.working_dir());
    args.push("--".into());
    match &helper {
        Ok(helper) => {
            args.push(helper.into());
            let socket = network.proxy.as_deref().map(socket_in);
            // What deny rules hide is checked like the protected paths: a read-only mount
            // (an empty folder or file) reached without a link a process could have swapped.
            let mut checked = layout.protected.clone();
            checked.extend(layout.hidden.iter().cloned());
            args.extend(helper::arguments(
                &layout.sandbox_writable,
                &checked,
                socket.as_deref(),
            ));
        }
        Err(reason) if !layout.protected.is_empty() || !layout.hidden.is_empty() => {
            network.gaps.push(SandboxGap::Unchecked {
                reason: reason.clone(),
            });
        }
        Err(_) => {}
    }
    args.push(std::mem::take(&mut command.program));
    args.append(&mut command.args);
    let mut process = command.build(bwrap, args);
    let rules = Rules::Scoping {
        deny_tcp: network.deny_tcp,
    };
    let (child, landlock) = on_confined_thread(&rules, &program, || {
        let _entered = runtime.enter();
        process.spawn()
    })?;
    network.gaps.extend(deny_gaps(&layout, true));
    Ok((child, status(Ok(()), landlock, network, layout.walk_capped)))
}

fn landlock_only(
    command: SandboxCommand,
    policy: &SandboxPolicy,
    (project_root, temp_dir): (&Path, &Path),
    runtime: &Handle,
    why_not_namespaces: String,
) -> Result<(std::io::Result<Child>, SandboxStatus), SandboxError> {
    let program = command.display_name();
    let mut network = network(policy, false, &Err(String::new()), None);
    let layout = Layout::new(&LayoutRequest {
        policy,
        project_root,
        temp_dir,
        path_var: command.get_env("PATH"),
        cargo_home: command.get_env("CARGO_HOME"),
        rustup_home: command.get_env("RUSTUP_HOME"),
        own_files: &[],
        protect: false,
        shared_network: network.net == Net::Shared,
    });
    let readable = layout.readable_paths();
    let listable = layout.listable_paths();
    let writable = layout.writable_paths();
    let rules = Rules::Full {
        readable: &readable,
        listable: &listable,
        writable: &writable,
        deny_tcp: network.deny_tcp,
    };
    let mut process = command.build_direct();
    let (child, landlock) = on_confined_thread(&rules, &program, || {
        let _entered = runtime.enter();
        process.spawn()
    })?;
    network.gaps.extend(deny_gaps(&layout, false));
    Ok((
        child,
        status(Err(why_not_namespaces), landlock, network, false),
    ))
}

/// What of the deny rules a spawn with `layout` cannot enforce.
fn deny_gaps(layout: &Layout, namespaces: bool) -> Vec<SandboxGap> {
    let mut gaps = Vec::new();
    if layout.deny_capped {
        gaps.push(SandboxGap::DenyWalkCapped {
            entries: DENY_WALK_CAP,
        });
    }
    let denies = !layout.hidden.is_empty() || !layout.locked.is_empty();
    if !namespaces && denies {
        gaps.push(SandboxGap::DenyFolders);
    }
    gaps
}

/// The status of a spawn with (`Ok`) or without namespaces, Landlock's outcome, its
/// network's gaps and whether the protected-path walk was cut short.
fn status(
    namespaces: Result<(), String>,
    landlock: Landlock,
    network: Network,
    walk_capped: bool,
) -> SandboxStatus {
    let mut gaps = Vec::new();
    match (namespaces, landlock) {
        (Ok(()), landlock) => {
            let abi = landlock.ok().flatten();
            if network.net == Net::Shared && abi.is_none_or(|abi| abi < 6) {
                gaps.push(SandboxGap::Scoping);
            }
            gaps.extend(network.gaps);
            if walk_capped {
                gaps.push(SandboxGap::WalkCapped { folders: WALK_CAP });
            }
            SandboxStatus::Enforced {
                namespaces: true,
                landlock_abi: abi,
                gaps,
            }
        }
        (Err(reason), Ok(Some(abi))) => {
            gaps.push(SandboxGap::NoNamespaces { reason });
            gaps.extend(SandboxGap::of_abi(abi, network.deny_tcp));
            if network.deny_tcp {
                gaps.push(SandboxGap::Udp);
            }
            gaps.extend(network.gaps);
            SandboxStatus::Enforced {
                namespaces: false,
                landlock_abi: Some(abi),
                gaps,
            }
        }
        (Err(reason), Ok(None)) => SandboxStatus::Unavailable { reason },
        (Err(reason), Err(landlock)) => SandboxStatus::Unavailable {
            reason: format!("{landlock}; and {reason}"),
        },
    }
}

/// Runs `work` on a new thread confined by `rules`, and returns its result and Landlock's
/// outcome. `work` must only start processes (see the module docs).
fn on_confined_thread<T: Send>(
    rules: &Rules<'_>,
    program: &str,
    work: impl FnOnce() -> T + Send,
) -> Result<(T, Landlock), SandboxError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("agentctl-sandbox".into())
            .spawn_scoped(scope, || {
                let landlock = restrict(rules);
                (work(), landlock)
            })
            .map_err(|source| SandboxError::Thread {
                program: program.to_owned(),
                source,
            })?;
        thread.join().map_err(|_| SandboxError::ThreadPanicked {
            program: program.to_owned(),
        })
    })
}

#[cfg(target_os = "linux")]
fn restrict(rules: &Rules<'_>) -> Landlock {
    crate::landlock_rules::restrict_current_thread(rules)
}

#[cfg(not(target_os = "linux"))]
fn restrict(_rules: &Rules<'_>) -> Landlock {
    Err("the sandbox uses Landlock, which only Linux has".into())
}

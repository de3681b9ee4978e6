//! OS confinement of what agentctl tools run.
//!
//! Approval prompts rate a command before it runs, and no rating is perfect; this crate makes
//! the operating system hold the line when a rating is wrong. [`spawn`] starts a
//! [`SandboxCommand`] under a [`SandboxPolicy`]; [`probe`] tells a front end once per run what
//! is enforced ([`SandboxStatus`], with its [`SandboxGap`]s).
//!
//! # What is enforced
//!
//! With **bubblewrap** (`bwrap` 0.8+, found only in [`BWRAP_LOCATIONS`], checked once per
//! process) a command runs in user, mount, PID, IPC and UTS namespaces, every capability
//! dropped and no nested user namespaces (so nothing can be unmounted or remounted):
//!
//! - **What it sees**: a root built from nothing: the system directories ([`SYSTEM_DIRS`])
//!   read-only, a fresh `/tmp`, `/run` (with the host's network, the folder of
//!   `/etc/resolv.conf`'s target) and home, a `/dev` of harmless devices with `/dev/tty` masked; then the project, its own temp
//!   dir, `sandbox.writableRoots`, `sandbox.readableRoots` and the detected toolchains (the
//!   folders of its `PATH` outside the system, [`HOME_TOOLCHAINS`]), with Cargo's credentials
//!   and the system's password and host-key files masked. `~/.ssh`, `~/.aws`, `~/.config`,
//!   `~/.netrc`, `~/.gitconfig`, `~/.docker` and the rest of the home, and other tests' or
//!   users' `/tmp` files, are not there.
//! - **What it writes**: the project (in `workspace-write`), its temp dir and the writable
//!   roots, except the **protected paths**, mounted read-only on top: `.agentctl` (created
//!   0700 if missing), `.git`, `.claude`, `.gemini` at the root and in nested folders (a
//!   breadth-first walk of up to [`WALK_CAP`] folders of every writable root, no symlink
//!   followed), a worktree's git folders, and `sandbox.protectedPaths`. Writing, renaming,
//!   linking or deleting there fails with `EROFS`/`EBUSY` whatever the path's spelling
//!   (`/proc/self/cwd/…`, `/dev/fd/../cwd/…`, symlinks, `..`), since the kernel checks the
//!   mount, not the name. Before the command starts, the helper (agentctl's own executable,
//!   see [`run_helper_if_requested`]) checks from inside that each protected path is a
//!   read-only mount reached without symbolic links, and refuses to run it otherwise (a
//!   process of another sandbox could swap a folder for a link while bubblewrap mounts by
//!   path). Nothing optional is mounted beneath a writable folder, for the same reason.
//! - **Deny rules**: what the policy's `Read(…)` patterns
//!   ([`SandboxPolicy::with_denied`], [`SandboxPolicy::with_permission_denies`]) name when the
//!   command starts is hidden (an empty read-only folder, an empty file) and what its `Edit(…)`
//!   patterns name is mounted read-only (and checked like the protected paths), found by a
//!   walk of at most [`DENY_WALK_CAP`] entries a pattern: a folder all of whose entries a
//!   pattern covers (`secrets/**`) as a whole, other globs (`*.pem`) by the files that exist.
//!   Without namespaces Landlock grants the other entries of the folders on the way one by
//!   one (their names stay listable; new entries there cannot be read, or made).
//! - **Processes**: its own PID namespace and `/proc`: agentctl, its MCP servers and every other
//!   process are not even visible. [`set_non_dumpable`] (called by `agentctl` at start) also
//!   keeps same-user processes outside any sandbox out of agentctl's `environ` and memory.
//! - **Network**: `true` shares the host's; `false` gives a network namespace with only a
//!   loopback (no TCP, UDP or DNS out); `{"allow": [hosts]}` adds a bridge on
//!   `127.0.0.1:<port>` inside (run by the helper) to an HTTP proxy agentctl runs on a Unix socket outside, which lets CONNECT and
//!   absolute-form requests through to the listed hosts only (`*.` for subdomains, an optional
//!   port; an address only when listed) and answers `403` otherwise. `HTTP_PROXY`,
//!   `HTTPS_PROXY`, `http_proxy`, `https_proxy` and `ALL_PROXY` point at the bridge.
//! - **Lifetime**: the command stays in the process group [`ProcessGroup`] kills; killing it
//!   kills the PID namespace's init, and the kernel then kills everything inside, a process
//!   that called `setsid` included.
//!
//! **Landlock** is a second layer, applied to a short-lived thread that starts the child (see
//! the `confine` module): with namespaces it scopes signals and abstract Unix sockets (an
//! X11 server's, which matters when the network is shared); `no_new_privs` is set.
//!
//! # Without bubblewrap
//!
//! Where bubblewrap is missing or cannot create namespaces (an AppArmor profile, an old
//! version, a container), Landlock does what it can: reads only beneath the same visible set
//! (credentials inside toolchains left out), writes only beneath the writable one, TCP
//! refused when the network is off. The status then says `partly enforced (Landlock ABI n)`
//! with the gaps: protected paths are writable, other processes are visible (their command
//! lines, and the environments of dumpable same-user processes; Landlock does keep their
//! memory out of reach), UDP (so DNS) is open, and an allow-list cannot be enforced, so there
//! is no TCP at all (it fails closed). Without Landlock either, processes run unconfined and
//! [`SandboxStatus::Unavailable`] says why.
//!
//! # Defaults, and why
//!
//! `workspace-write` with **network allowed**: the work agents are asked to do (`cargo
//! build`, `npm install`, `git pull`) needs it, every `bash` command passes the approval gate
//! where the user sees it, and a refused connection looks to a model like an outage it then
//! tries to work around. Use `false` or an allow-list for repositories you do not trust.
//! Package caches outside the project (`~/.npm`, `~/.cargo/registry`) are readable but not
//! writable: `npm install` fails until `~/.npm` is in `sandbox.writableRoots`; add such
//! directories knowingly, since a later, unconfined build trusts what is in them.
//!
//! # What it does not cover
//!
//! With the network shared, pathname Unix sockets the command can see are reachable (none of
//! `/run` is visible, but a socket in the project or a writable root is), and so is anything
//! on the network, including a local daemon that acts for the command. A protected folder
//! that does not exist yet (`.claude`, a nested `.git`) can be created by a command, and is
//! protected only from the next command on (a process still running from an earlier command
//! can change it, and what it created, even later); a protected name that is a symbolic link
//! is not protected. Git works in the project's own repository or worktree (read-only), not
//! in a nested worktree whose repository lies outside the project. The allow-list checks
//! host names, not where they resolve to, and cannot see inside HTTPS; only HTTP clients that
//! honour the proxy variables get through (not `ssh`, `git://`). The session database is
//! protected only where it lives under `.agentctl`. Root running agentctl without namespaces
//! keeps its capabilities in commands. An embedding program that does not call
//! [`run_helper_if_requested`] gets no allow-list network and no check of the protected
//! mounts (the status says so).
//!
//! ```
//! use agentctl_sandbox::{EnvPolicy, SandboxPolicy, probe};
//!
//! let policy = SandboxPolicy::from_settings(&agentctl_core::SandboxSettings::default());
//! println!("sandbox: {}", probe(&policy));
//! let env = EnvPolicy::default().for_command([("PATH", "/bin"), ("OPENAI_API_KEY", "sk-1")]);
//! assert_eq!(env.len(), 1);
//! ```

mod bwrap;
mod command;
mod confine;
mod deny;
mod env;
mod error;
mod group;
mod helper;
#[cfg(target_os = "linux")]
mod landlock_rules;
mod layout;
mod pattern;
mod policy;
mod program;
mod proxy;
mod status;

pub use bwrap::BWRAP_LOCATIONS;
pub use command::SandboxCommand;
pub use confine::{SpawnedChild, probe, spawn};
pub use deny::DENY_WALK_CAP;
pub use env::{DEFAULT_SERVER_ENV, EnvPolicy, SECRET_NAME_PATTERNS};
pub use error::SandboxError;
pub use group::ProcessGroup;
pub use helper::{run_helper_if_requested, set_non_dumpable};
pub use layout::{HOME_TOOLCHAINS, SYSTEM_DIRS, WALK_CAP};
pub use pattern::PathPattern;
pub use policy::SandboxPolicy;
pub use program::program_roots;
pub use status::{SandboxGap, SandboxStatus};

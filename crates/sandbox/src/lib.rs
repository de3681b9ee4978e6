//! OS confinement of what agentctl tools run.
//!
//! Approval prompts rate a command before it runs, and no rating is perfect; this crate makes
//! the operating system hold the line when a rating is wrong:
//!
//! - **Landlock** ([`spawn`], [`SandboxPolicy`]): a confined process reads anywhere but
//!   writes only beneath the project root, its own temp dir and configured extra directories
//!   (`workspace-write`), or only its temp dir (`read-only`). Hard links and renames that
//!   would bring an outside file into the project are refused (no `REFER` right outside).
//!   With `network: false`, TCP `bind` and `connect` are refused. Signals to processes
//!   outside the sandbox and abstract Unix sockets made outside it (an X11 server's) are
//!   refused. `no_new_privs` is set, so set-uid programs (`sudo`) gain nothing. Linux only;
//!   elsewhere, and on kernels without Landlock, processes run unconfined and
//!   [`SandboxStatus::Unavailable`] says why ([`probe`] tells a front end once per run).
//! - **Scrubbed environments** ([`EnvPolicy`]): shell commands lose variables that look like
//!   secrets; MCP stdio servers get only the MCP SDKs' default set plus their own `env`.
//! - **Process groups that die** ([`ProcessGroup`]): a command and everything it starts are
//!   killed together on timeout, cancellation or drop.
//!
//! # How a child is confined without `unsafe`
//!
//! Landlock and `no_new_privs` apply to the calling thread and are inherited by the processes
//! it starts. [`spawn`] therefore starts a short-lived thread, restricts that thread, spawns
//! the child from it (inside the caller's tokio runtime) and lets the thread exit; the rest of
//! agentctl is never restricted. See the `confine` module source for the details.
//!
//! # Defaults, and why
//!
//! `workspace-write` with **network allowed**. codex refuses network in its workspace-write
//! mode; agentctl does not, because every `bash` command already passes the approval gate
//! where the user sees it, because Landlock can only refuse TCP (UDP, and so DNS, stays open:
//! `network: false` narrows exfiltration but does not close it), and because the work agents
//! are asked to do (`cargo build`, `npm install`, `git pull`) needs TCP, while a refused
//! connect looks to a model like an outage it then tries to work around. Set
//! `network: false` for repositories you do not trust.
//!
//! Package caches outside the project (`~/.npm`, `~/.cargo/registry`, `~/.cache/go-build`)
//! are not writable either: `npm install` fails until `~/.npm` is in `sandbox.writableRoots`.
//! Add such directories knowingly: a later, unconfined build trusts what is in them.
//! `/dev/shm` (POSIX semaphores, e.g. Python `multiprocessing`) is likewise opt-in.
//!
//! # What it does not cover
//!
//! Reads are not restricted (a command can read `~/.ssh` and, with network allowed, send it
//! away). UDP and pathname Unix sockets are not restricted: DNS works, and so do D-Bus and the
//! Docker socket, through which a daemon outside the sandbox can act for the command
//! (`systemd-run --user`, `docker run -v /:/host`). The project root is writable as a whole,
//! `.git/hooks` and `.agentctl/settings.json` included (Landlock cannot carve a read-only
//! hole in a writable tree), so a command can leave something that runs or applies later. A
//! process that calls `setsid` leaves the group that is killed, though it stays confined.
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
mod env;
mod error;
mod group;
mod helper;
#[cfg(target_os = "linux")]
mod landlock_rules;
mod layout;
mod policy;
mod proxy;
mod status;

pub use bwrap::BWRAP_LOCATIONS;
pub use command::SandboxCommand;
pub use confine::{SpawnedChild, probe, spawn};
pub use env::{DEFAULT_SERVER_ENV, EnvPolicy, SECRET_NAME_PATTERNS};
pub use error::SandboxError;
pub use group::ProcessGroup;
pub use helper::{run_helper_if_requested, set_non_dumpable};
pub use layout::{HOME_TOOLCHAINS, SYSTEM_DIRS, WALK_CAP};
pub use policy::SandboxPolicy;
pub use status::{SandboxGap, SandboxStatus};

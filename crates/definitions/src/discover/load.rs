//! Loading the files [`discover_in`](super::discover_in) found, on every core.
//!
//! Each file is read, parsed and checked on its own, so the files are shared out among a few
//! threads (one per core, the caller's included) and the results put back in discovery order:
//! what is found does not depend on how many threads found it.

use super::{AgentDir, Prompts, WalkedFile, declared_name};
use crate::error::{DefinitionError, Diagnostic, ErrorKind};
use crate::graph_file::parse_graph_bytes;
use crate::parse::{LoadedAgent, parse_bytes, read_capped, read_listed};
use crate::semantic::Checks;
use crate::validate::definition_errors;
use agentctl_core::SourceFormat;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Fewer files than this are loaded on the caller's thread: a thread costs more than they do.
const FILES_PER_THREAD: usize = 32;
/// Files a thread takes at a time.
const BATCH: usize = 8;
/// Stack of a loading thread: the main thread's, since parsing recurses as deep there.
const STACK: usize = 8 << 20;

/// What loading one file gave.
pub(super) enum Outcome {
    /// An agent, with its definition errors (an agent with some never runs).
    Loaded(Box<LoadedAgent>, Vec<Diagnostic>),
    /// A Markdown file without front matter in a Claude Code or Gemini CLI folder.
    Skipped(PathBuf),
    /// A file that did not load, and the `name:` it declares if that can be read.
    Failed(DefinitionError, Option<(PathBuf, String)>),
}

/// Loads `files` (each with the index of its folder in `dirs`), results in the same order.
pub(super) fn load_all(
    dirs: &[AgentDir],
    files: &[WalkedFile],
    prompts: Prompts,
    checks: &Checks,
) -> Vec<Outcome> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = cores.min(files.len() / FILES_PER_THREAD).max(1);
    if threads == 1 {
        return files
            .iter()
            .map(|file| load(&dirs[file.dir], file, prompts, checks))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(BATCH, Ordering::Relaxed);
            let Some(batch) = files.get(start..(start + BATCH).min(files.len())) else {
                break;
            };
            if batch.is_empty() {
                break;
            }
            for (offset, file) in batch.iter().enumerate() {
                done.push((start + offset, load(&dirs[file.dir], file, prompts, checks)));
            }
        }
        done
    };
    let mut slots: Vec<Option<Outcome>> =
        std::iter::repeat_with(|| None).take(files.len()).collect();
    std::thread::scope(|scope| {
        // A thread that cannot start leaves its share to the others.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("agentctl-load".into())
                    .stack_size(STACK)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        let mut results = vec![work()];
        for helper in helpers {
            match helper.join() {
                Ok(done) => results.push(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        for (index, outcome) in results.into_iter().flatten() {
            slots[index] = Some(outcome);
        }
    });
    slots.into_iter().flatten().collect()
}

/// Reads, parses and checks one file.
fn load(dir: &AgentDir, file: &WalkedFile, prompts: Prompts, checks: &Checks) -> Outcome {
    let path = file.path.as_path();
    let read = if file.regular {
        read_listed(path)
    } else {
        read_capped(path)
    };
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(error) => return Outcome::Failed(error, None),
    };
    let parsed = if dir.graphs {
        parse_graph_bytes(&bytes, path, dir.scope)
    } else {
        parse_bytes(&bytes, path, dir.format, dir.scope)
    };
    match parsed {
        Ok(mut agent) => {
            if let Some(plugin) = &dir.plugin {
                agent.set_plugin(plugin);
            }
            let errors = definition_errors(&agent, checks);
            if prompts == Prompts::Drop {
                agent.keep_summary_only();
            }
            Outcome::Loaded(Box::new(agent), errors)
        }
        Err(error)
            if error.kind == ErrorKind::MissingFrontMatter
                && dir.format != SourceFormat::Native =>
        {
            Outcome::Skipped(path.to_path_buf())
        }
        Err(error) => {
            let declared = declared_name(&bytes, path).map(|name| (path.to_path_buf(), name));
            Outcome::Failed(error, declared)
        }
    }
}

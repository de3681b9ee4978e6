//! One path word resolved as the kernel resolves it: component by component from the left,
//! each symbolic link followed where it is met, so that `..` applies to where the link led
//! (`a/b/up/../x` with `up -> ../..` is not `a/b/x`). `/proc` and `/dev/fd` are modelled, not
//! read: the rater's own `/proc/self` is not the command's. `/dev/fd` is `/proc/self/fd`,
//! `/proc/self/cwd` the command's folder, `/proc/self/root` the root, descriptors 0–2 streams;
//! another process's files (`/proc/<pid>/…`, `/proc/*/…`) are foreign.

use super::glob::Pattern;
use std::cell::Cell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Most symbolic links followed in one path (the kernel's limit).
const MAX_LINKS: usize = 40;
/// Most places one word may resolve to (folders the shell may be in × pattern matches).
const MAX_BRANCHES: usize = 1024;
/// Most components of one word that are resolved.
const MAX_COMPONENTS: usize = 4096;

/// Where a path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// A path of the file system, absolute, with the symbolic links of its existing part
    /// followed.
    Fs(PathBuf),
    /// `/proc` itself.
    Proc,
    /// `/proc/<pid>` (`own`: the command's shell, `/proc/self`), or one of its threads.
    Process { own: bool, task: bool },
    /// `/proc/<pid>/fd`.
    Fds { own: bool },
    /// `/proc/<pid>/task`.
    Tasks { own: bool },
    /// A file of a process (`environ`, `cmdline`, `mem`, `maps`, …), `depth` below it.
    ProcFile { own: bool, task: bool, depth: usize },
    /// A stream: the command's stdin, stdout or stderr, `/dev/null`, `/dev/tty`.
    Stream,
    /// A place the rater cannot know, and why.
    Unknown(&'static str),
}

/// A resolved path, whether it went through another process's folder, and whether through
/// a file descriptor (`/dev/stdin`, `/proc/self/fd/3`: opening one opens the file again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub node: Node,
    pub foreign: bool,
    pub descriptor: bool,
}

/// One component still to resolve.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub text: String,
    pub pattern: Option<Pattern>,
}

impl Part {
    pub(crate) fn literal(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            pattern: None,
        }
    }
}

struct Walk {
    node: Node,
    foreign: bool,
    descriptor: bool,
    links: usize,
    rest: VecDeque<Part>,
}

enum Step {
    /// Go on from each of these.
    Next(Vec<Node>),
    /// The component is a symbolic link: resolve its target from `base`.
    Link { base: Node, target: PathBuf },
    /// The component is a pattern that matched these names.
    Expand(Vec<String>),
}

/// Resolves `parts` from `starts` (the root for an absolute path, else the folders the
/// shell may be in); `cwds` are what `/proc/self/cwd` may be.
pub(crate) fn resolve(
    starts: &[Node],
    parts: Vec<Part>,
    cwds: &[Node],
    budget: &Cell<usize>,
) -> Vec<Target> {
    if parts.len() > MAX_COMPONENTS {
        return vec![unknown("the path is too long to follow")];
    }
    let rest: VecDeque<Part> = parts.into();
    let mut queue: Vec<Walk> = starts
        .iter()
        .map(|node| Walk {
            node: node.clone(),
            foreign: false,
            descriptor: false,
            links: 0,
            rest: rest.clone(),
        })
        .collect();
    let mut done = Vec::new();
    let mut branches = queue.len();
    while let Some(mut walk) = queue.pop() {
        let Some(part) = walk.rest.pop_front() else {
            done.push(Target {
                node: walk.node,
                foreign: walk.foreign,
                descriptor: walk.descriptor,
            });
            continue;
        };
        let descriptor = walk.descriptor || matches!(walk.node, Node::Fds { .. });
        match step(&walk.node, &part, cwds, budget) {
            Step::Next(nodes) => {
                branches += nodes.len().saturating_sub(1);
                for node in nodes {
                    let foreign = walk.foreign || is_foreign(&node);
                    queue.push(Walk {
                        node,
                        foreign,
                        descriptor,
                        links: walk.links,
                        rest: walk.rest.clone(),
                    });
                }
            }
            Step::Link { base, target } => {
                walk.links += 1;
                if walk.links > MAX_LINKS {
                    done.push(unknown("too many symbolic links"));
                    continue;
                }
                for part in split(&target).into_iter().rev() {
                    walk.rest.push_front(part);
                }
                walk.node = base;
                queue.push(walk);
            }
            Step::Expand(names) => {
                branches += names.len().saturating_sub(1);
                for name in names {
                    let mut rest = walk.rest.clone();
                    rest.push_front(Part::literal(&name));
                    queue.push(Walk {
                        node: walk.node.clone(),
                        foreign: walk.foreign,
                        descriptor,
                        links: walk.links,
                        rest,
                    });
                }
            }
        }
        if branches > MAX_BRANCHES {
            done.push(unknown("the path matches too many files to follow"));
            break;
        }
    }
    done
}

fn unknown(why: &'static str) -> Target {
    Target {
        node: Node::Unknown(why),
        foreign: false,
        descriptor: false,
    }
}

fn is_foreign(node: &Node) -> bool {
    matches!(node, Node::Process { own: false, .. })
}

/// The components of a link target, from the root for an absolute one.
fn split(target: &Path) -> Vec<Part> {
    let text = target.to_string_lossy();
    let mut parts: Vec<Part> = text
        .split('/')
        .filter(|part| !part.is_empty())
        .map(Part::literal)
        .collect();
    if text.starts_with('/') {
        // A marker that sends the walk back to `/` (no component may contain a `/`).
        parts.insert(0, Part::literal("/"));
    }
    parts
}

/// A node for an absolute path of the file system (`/proc` is modelled).
fn fs(path: PathBuf) -> Node {
    if path == Path::new("/proc") {
        Node::Proc
    } else {
        Node::Fs(path)
    }
}

fn one(node: Node) -> Step {
    Step::Next(vec![node])
}

fn step(node: &Node, part: &Part, cwds: &[Node], budget: &Cell<usize>) -> Step {
    if part.text == "/" && part.pattern.is_none() {
        return one(Node::Fs(PathBuf::from("/")));
    }
    if part.text.is_empty() || (part.text == "." && part.pattern.is_none()) {
        return one(node.clone());
    }
    let up = part.text == ".." && part.pattern.is_none();
    match node {
        Node::Fs(dir) => fs_step(dir, part, up, budget),
        Node::Proc => proc_step(part, up),
        Node::Process { own, task } => process_step(*own, *task, part, up, cwds),
        Node::Fds { .. } | Node::Tasks { .. } | Node::ProcFile { .. } => {
            below_process(node, part, up)
        }
        Node::Stream => one(Node::Unknown("a path below a stream")),
        Node::Unknown(why) => one(Node::Unknown(why)),
    }
}

/// A step in a folder of the file system: `..`, a pattern, or a name.
fn fs_step(dir: &Path, part: &Part, up: bool, budget: &Cell<usize>) -> Step {
    if up {
        return one(fs(dir.parent().unwrap_or(Path::new("/")).to_path_buf()));
    }
    let Some(pattern) = &part.pattern else {
        return child(dir, &part.text);
    };
    let found = pattern.expand(dir, budget);
    if !found.complete {
        one(Node::Unknown(
            "the folder is too large to match a pattern in",
        ))
    } else if found.names.is_empty() {
        // `sh` keeps a pattern that matches nothing as it is written.
        child(dir, &part.text)
    } else {
        Step::Expand(found.names)
    }
}

/// A step in `/proc`: a process (`self`, `thread-self`, a number, a pattern) or a file.
fn proc_step(part: &Part, up: bool) -> Step {
    if up {
        return one(Node::Fs(PathBuf::from("/")));
    }
    let (own, task) = match part.text.as_str() {
        _ if part.pattern.is_some() || is_number(&part.text) => (false, false),
        "self" => (true, false),
        "thread-self" => (true, true),
        name => return child(Path::new("/proc"), name),
    };
    one(Node::Process { own, task })
}

/// A step in `/proc/<pid>`: its folder, root, descriptors, threads, or one of its files.
fn process_step(own: bool, task: bool, part: &Part, up: bool, cwds: &[Node]) -> Step {
    if up {
        return one(if task {
            Node::Tasks { own }
        } else {
            Node::Proc
        });
    }
    if part.pattern.is_some() {
        return one(Node::Unknown("a pattern in the folder of a process"));
    }
    match part.text.as_str() {
        "cwd" if own => Step::Next(cwds.to_vec()),
        "cwd" => one(Node::Unknown("the working folder of another process")),
        "root" => one(Node::Fs(PathBuf::from("/"))),
        "fd" => one(Node::Fds { own }),
        "task" if !task => one(Node::Tasks { own }),
        "ns" | "map_files" => one(Node::Unknown("a link of a process the rater cannot follow")),
        _ => one(Node::ProcFile {
            own,
            task,
            depth: 1,
        }),
    }
}

/// A step below `/proc/<pid>`: in `fd/` (0–2 of the shell are its streams), `task/`, or a
/// folder of process files.
fn below_process(node: &Node, part: &Part, up: bool) -> Step {
    match *node {
        Node::Fds { own } if up => one(Node::Process { own, task: false }),
        Node::Fds { own } => {
            let standard = matches!(part.text.as_str(), "0" | "1" | "2");
            if own && standard && part.pattern.is_none() {
                one(Node::Stream)
            } else {
                one(Node::Unknown(
                    "a file descriptor the command may have opened",
                ))
            }
        }
        Node::Tasks { own } => one(Node::Process { own, task: !up }),
        Node::ProcFile { own, task, depth } => one(match (up, depth) {
            (true, 1) => Node::Process { own, task },
            (true, depth) => Node::ProcFile {
                own,
                task,
                depth: depth - 1,
            },
            (false, depth) => Node::ProcFile {
                own,
                task,
                depth: depth + 1,
            },
        }),
        _ => one(Node::Unknown("a path the rater cannot follow")),
    }
}

/// A named entry of `dir`: a modelled one (`/proc`, `/dev/fd`, `/dev/stdin`, `/dev/null`), a
/// symbolic link to follow, or a plain path.
fn child(dir: &Path, name: &str) -> Step {
    let link = |target: &str| Step::Link {
        base: Node::Fs(PathBuf::from("/")),
        target: PathBuf::from(target),
    };
    if dir == Path::new("/dev") {
        match name {
            "fd" => return link("/proc/self/fd"),
            "stdin" => return link("/proc/self/fd/0"),
            "stdout" => return link("/proc/self/fd/1"),
            "stderr" => return link("/proc/self/fd/2"),
            "null" | "tty" => return Step::Next(vec![Node::Stream]),
            _ => {}
        }
    }
    let path = dir.join(name);
    if path == Path::new("/proc") {
        return Step::Next(vec![Node::Proc]);
    }
    // Nothing under `/proc/<pid>` is read here: those nodes are modelled above.
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(&path) {
            Ok(target) => Step::Link {
                base: fs(dir.to_path_buf()),
                target,
            },
            Err(_) => Step::Next(vec![Node::Unknown("a symbolic link that cannot be read")]),
        },
        _ => Step::Next(vec![Node::Fs(path)]),
    }
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (Vec<Node>, Vec<Part>) {
        let mut parts: Vec<Part> = text.split('/').map(Part::literal).collect();
        let starts = if text.starts_with('/') {
            parts.remove(0);
            vec![Node::Fs(PathBuf::from("/"))]
        } else {
            vec![Node::Fs(PathBuf::from("/work/project"))]
        };
        (starts, parts)
    }

    fn nodes(text: &str) -> Vec<Node> {
        let cwd = [Node::Fs(PathBuf::from("/work/project"))];
        let (starts, parts) = parts(text);
        resolve(&starts, parts, &cwd, &Cell::new(1000))
            .into_iter()
            .map(|t| t.node)
            .collect()
    }

    fn fs_node(path: &str) -> Vec<Node> {
        vec![Node::Fs(PathBuf::from(path))]
    }

    #[test]
    fn dev_fd_and_proc_self_are_modelled() {
        assert_eq!(nodes("/dev/fd/1"), vec![Node::Stream]);
        assert_eq!(nodes("/dev/stdout"), vec![Node::Stream]);
        assert_eq!(nodes("/dev/null"), vec![Node::Stream]);
        assert_eq!(
            nodes("/dev/fd/../cwd/.git/config"),
            fs_node("/work/project/.git/config")
        );
        assert_eq!(nodes("/proc/self/cwd/../x"), fs_node("/work/x"));
        assert_eq!(nodes("/proc/thread-self/cwd/a"), fs_node("/work/project/a"));
        assert_eq!(nodes("/proc/self/root/etc/passwd"), fs_node("/etc/passwd"));
        assert_eq!(nodes("/dev/fd/../root/etc/passwd"), fs_node("/etc/passwd"));
        assert!(matches!(nodes("/dev/fd/5")[0], Node::Unknown(_)));
        assert!(matches!(nodes("/dev/fd/0/..")[0], Node::Unknown(_)));
        assert_eq!(nodes("/proc/self/fd/../../sys/x"), fs_node("/proc/sys/x"));
        assert_eq!(nodes("/proc/self/.."), vec![Node::Proc]);
        assert_eq!(nodes("/proc/.."), fs_node("/"));
    }

    #[test]
    fn other_processes_are_foreign() {
        let cwd = [Node::Fs(PathBuf::from("/p"))];
        let (starts, list) = parts("/dev/fd/../../1/environ");
        let found = resolve(&starts, list, &cwd, &Cell::new(1000));
        assert_eq!(found.len(), 1);
        assert!(found[0].foreign);
        assert!(matches!(found[0].node, Node::ProcFile { own: false, .. }));
        let (starts, list) = parts("/proc/self/environ");
        let own = resolve(&starts, list, &cwd, &Cell::new(1000));
        assert!(!own[0].foreign);
        assert!(matches!(own[0].node, Node::ProcFile { own: true, .. }));
        assert!(matches!(nodes("/proc/1/cwd/x")[0], Node::Unknown(_)));
    }
}

//! The generated corpus of issue 31: every write rule and every read rule of the rater, each
//! applied to every target spelled every way the kernel accepts — plain, `./`,
//! `/dev/fd/../cwd/…`, `/proc/self/cwd/…`, `/proc/thread-self/cwd/…`, `/proc/self/root/<abs>`,
//! the absolute path, `src/../…`, through an in-project link to the protected folder, through
//! an `up -> ../..` link, with `..` after a link to a folder inside the protected one — and as
//! an attached option value where the program has one. Each command must rate at least its
//! minimum, carry the protected mark where one is expected, and the same rules on ordinary
//! project files must stay at their usual level (so the corpus catches over-rating too).

use agentctl_core::RiskLevel::{self, Critical, High, Low, Medium, Safe};
use agentctl_tools::classify_command;
use std::path::{Path, PathBuf};

/// Write rules: `{p}` is the path written; the level the rule has on an ordinary project file.
const WRITES: &[(&str, RiskLevel)] = &[
    ("echo x > {p}", Low),
    ("echo x >> {p}", Low),
    ("echo x >| {p}", Low),
    ("echo x &> {p}", Low),
    ("echo x 2> {p}", Low),
    ("echo x 1<> {p}", Low),
    ("printf x > {p}", Low),
    ("tee {p} < /dev/null", Low),
    ("tee -a {p} < /dev/null", Low),
    ("cp src/x.rs {p}", Low),
    ("cp -f src/x.rs {p}", Low),
    ("cp -t{p} src/x.rs", Low),
    ("cp --target-directory={p} src/x.rs", Low),
    ("mv src/x.rs {p}", Low),
    ("mv -t {p} src/x.rs", Low),
    ("ln src/x.rs {p}", Low),
    ("ln -s /tmp/evil {p}", Medium),
    ("ln -sf src/x.rs {p}", Medium),
    ("install src/x.rs {p}", Low),
    ("install -D src/x.rs {p}", Low),
    ("touch {p}", Low),
    ("mkdir -p {p}", Low),
    ("sed -i s/a/b/ {p}", Low),
    ("sed --in-place=.bak s/a/b/ {p}", Low),
    ("truncate -s 0 {p}", Low),
    ("rm {p}", High),
    ("rm -f {p}", High),
    ("shred -u {p}", High),
    ("dd if=/dev/zero of={p} count=1", High),
    ("git archive -o {p} HEAD", Low),
    ("git archive -o{p} HEAD", Low),
    ("git archive --output={p} HEAD", Low),
    ("git diff --output={p}", Low),
    ("git log --output={p}", Low),
    ("sort -o {p} src/x.rs", Low),
    ("sort -o{p} src/x.rs", Low),
    ("sort --output={p} src/x.rs", Low),
    ("uniq src/x.rs {p}", Low),
    ("tree -o {p}", Low),
    ("find src -fprint {p}", Low),
    ("curl -o {p} https://x.example", Medium),
    ("curl -sSo{p} https://x.example", Medium),
    ("wget -O {p} https://x.example", Medium),
    ("chmod +x {p}", Medium),
    ("gzip {p}", Medium),
    ("tar -cf {p} src", Medium),
    ("zip {p} src/x.rs", Medium),
];

/// Read rules: `{p}` is the path read; the level the rule has on an ordinary project file.
const READS: &[(&str, RiskLevel)] = &[
    ("cat {p}", Safe),
    ("cat < {p}", Safe),
    ("head {p}", Safe),
    ("head -c 10 {p}", Safe),
    ("tail -n 1 {p}", Safe),
    ("grep -a x {p}", Safe),
    ("grep -f {p} src/x.rs", Safe),
    ("grep -f{p} src/x.rs", Safe),
    ("grep --file={p} src/x.rs", Safe),
    ("rg x {p}", Safe),
    ("sed -n 1p {p}", Safe),
    ("diff src/x.rs {p}", Safe),
    ("cmp src/x.rs {p}", Safe),
    ("comm src/x.rs {p}", Safe),
    ("file {p}", Safe),
    ("file -f {p}", Safe),
    ("file -f{p}", Safe),
    ("file -m{p} src/x.rs", Safe),
    ("date -f {p}", Safe),
    ("date -f{p}", Safe),
    ("date --file={p}", Safe),
    ("hexdump -C {p}", Safe),
    ("hexdump -f{p} src/x.rs", Safe),
    ("od -c {p}", Safe),
    ("xxd {p}", Safe),
    ("wc -c {p}", Safe),
    ("base64 {p}", Safe),
    ("strings {p}", Safe),
    ("cut -c1 {p}", Safe),
    ("sort {p}", Safe),
    ("uniq {p}", Safe),
    ("tac {p}", Safe),
    ("nl {p}", Safe),
    ("rev {p}", Safe),
    ("md5sum {p}", Safe),
    ("stat {p}", Safe),
    ("ls -la {p}", Safe),
    ("jq . {p}", Safe),
    ("tr a b < {p}", Safe),
    ("git blame -S{p} src/x.rs", Safe),
    ("git blame --contents={p} src/x.rs", Safe),
    ("git diff --no-index {p} src/x.rs", Safe),
    ("find {p} -maxdepth 0", Safe),
    ("touch -r {p} src/x.rs", Low),
    ("cp {p} src/copy.rs", Low),
    ("awk 1 {p}", Medium),
];

/// Targets in the project that are protected: (path, minimum level of a write).
const PROTECTED: &[(&str, RiskLevel)] = &[
    (".git/config", High),
    (".git/hooks/pre-commit", High),
    (".agentctl/settings.json", High),
    (".agentctl/sessions.db", Critical),
    (".claude/settings.json", High),
    ("sub/.git/config", High),
];

/// The project: protected folders with a sub-folder `inner`, a nested repository, links to
/// each protected folder (`l-<slug>`) and into it (`in-<slug>` → `<folder>/inner`), an
/// `a/b/up -> ../..` link, and a folder beside the project with a link to it.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn slug(folder: &str) -> String {
    folder.replace(['/', '.'], "")
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let outside = dir.path().join("outside");
    for folder in [".git", ".agentctl", ".claude", "sub/.git", "src"] {
        std::fs::create_dir_all(root.join(folder).join("inner")).unwrap();
        std::os::unix::fs::symlink(root.join(folder), root.join(format!("l-{}", slug(folder))))
            .unwrap();
        std::os::unix::fs::symlink(
            format!("{folder}/inner"),
            root.join(format!("in-{}", slug(folder))),
        )
        .unwrap();
    }
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    std::fs::write(root.join("src/x.rs"), "fn main() {}\n").unwrap();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::os::unix::fs::symlink("../..", root.join("a/b/up")).unwrap();
    std::fs::create_dir_all(outside.join("inner")).unwrap();
    std::fs::write(outside.join("secret"), "secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("l-out")).unwrap();
    std::os::unix::fs::symlink(outside.join("inner"), root.join("in-out")).unwrap();
    Fixture {
        _dir: dir,
        root,
        outside,
    }
}

/// Every spelling of the project path `rel` (`.git/config`) whose first components `folder`
/// (`.git`, `sub/.git`) have links `l-<slug>` and `in-<slug>`.
fn project_spellings(root: &Path, folder: &str, rel: &str) -> Vec<String> {
    let rest = rel
        .strip_prefix(folder)
        .unwrap_or(rel)
        .trim_start_matches('/');
    let slug = slug(folder);
    let root = root.display();
    vec![
        rel.to_owned(),
        format!("./{rel}"),
        format!("/dev/fd/../cwd/{rel}"),
        format!("/proc/self/cwd/{rel}"),
        format!("/proc/thread-self/cwd/{rel}"),
        format!("/proc/self/root{root}/{rel}"),
        format!("/dev/fd/../root{root}/{rel}"),
        format!("{root}/{rel}"),
        format!("src/../{rel}"),
        format!("a/b/up/{rel}"),
        format!("l-{slug}/{rest}"),
        format!("in-{slug}/../{rest}"),
    ]
}

/// Every spelling of a file outside the project.
fn outside_spellings(outside: &Path) -> Vec<String> {
    let abs = outside.join("secret").display().to_string();
    vec![
        abs.clone(),
        format!("/proc/self/root{abs}"),
        format!("/dev/fd/../root{abs}"),
        "../outside/secret".into(),
        "./../outside/secret".into(),
        "src/../../outside/secret".into(),
        "/proc/self/cwd/../outside/secret".into(),
        "/dev/fd/../cwd/../outside/secret".into(),
        "a/b/up/../outside/secret".into(),
        "l-out/secret".into(),
        "in-out/../secret".into(),
    ]
}

/// The home folder and the environment of other processes (agentctl's own among them).
fn secret_spellings() -> Vec<String> {
    let pid = std::process::id();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    // More `..` than the project is deep: `..` stops at `/`.
    let up = "../".repeat(24);
    vec![
        "~/.ssh/id_rsa".into(),
        "$HOME/.ssh/id_rsa".into(),
        "${HOME}/.ssh/id_rsa".into(),
        format!("{home}/.ssh/id_rsa"),
        format!("/proc/self/root{home}/.ssh/id_rsa"),
        format!("/dev/fd/../root{home}/.ssh/id_rsa"),
        format!("{up}proc/{pid}/environ"),
        format!("./{up}proc/1/environ"),
        format!("a/b/up/{up}proc/1/environ"),
        format!("/proc/{pid}/environ"),
        "/proc/1/environ".into(),
        "/proc/*/environ".into(),
        "/dev/fd/../../1/environ".into(),
        "/dev/fd/../../*/environ".into(),
        "/proc/self/../1/environ".into(),
        "/proc/self/root/proc/1/environ".into(),
        "/proc/thread-self/../../../1/environ".into(),
        "/proc/1/cwd/x".into(),
    ]
}

/// One generated command: its minimum, maximum, and whether it must (or must not) be
/// marked protected.
struct Case {
    command: String,
    min: RiskLevel,
    max: Option<RiskLevel>,
    protected: Option<bool>,
}

/// Whether `template` glues `{p}` to a short option (`-o{p}`): the shell does not expand a
/// `~` there, so `-o~/x` names a folder `~` in the project.
fn glued_short(template: &str) -> bool {
    template.split(' ').any(|word| {
        word.starts_with('-') && !word.starts_with("--") && word.ends_with("{p}") && word.len() > 3
    })
}

fn cases(fixture: &Fixture) -> Vec<Case> {
    let mut cases = Vec::new();
    let fill = |template: &str, path: &str| template.replace("{p}", path);
    for (template, _) in WRITES {
        for (rel, min) in PROTECTED {
            let folder = if rel.starts_with("sub/") {
                "sub/.git"
            } else {
                rel.split('/').next().unwrap_or(rel)
            };
            for path in project_spellings(&fixture.root, folder, rel) {
                cases.push(Case {
                    command: fill(template, &path),
                    min: *min,
                    max: None,
                    protected: Some(true),
                });
            }
        }
        for path in outside_spellings(&fixture.outside) {
            cases.push(Case {
                command: fill(template, &path),
                min: Medium,
                max: None,
                protected: Some(false),
            });
        }
        for path in secret_spellings() {
            if path.starts_with('~') && glued_short(template) {
                continue;
            }
            cases.push(Case {
                command: fill(template, &path),
                min: Medium,
                max: None,
                protected: Some(false),
            });
        }
    }
    for (template, _) in READS {
        for path in outside_spellings(&fixture.outside)
            .into_iter()
            .chain(secret_spellings())
        {
            if path.starts_with('~') && glued_short(template) {
                continue;
            }
            cases.push(Case {
                command: fill(template, &path),
                min: Medium,
                max: None,
                protected: Some(false),
            });
        }
    }
    // The same rules on an ordinary project file keep their usual level.
    let ordinary = project_spellings(&fixture.root, "src", "src/x.rs");
    for (template, usual) in WRITES.iter().chain(READS) {
        for path in &ordinary {
            cases.push(Case {
                command: fill(template, path),
                min: *usual,
                max: Some(*usual),
                protected: Some(false),
            });
        }
    }
    cases
}

fn check(case: &Case, root: &Path) -> Option<String> {
    let got = classify_command(&case.command, Some(root));
    let too_low = got.level < case.min;
    let too_high = case.max.is_some_and(|max| got.level > max);
    let mark = match case.protected {
        Some(true) if got.protected.is_none() => Some("not marked protected"),
        Some(false) if got.protected.is_some() => Some("marked protected"),
        _ => None,
    };
    if !(too_low || too_high || mark.is_some()) {
        return None;
    }
    let expected = match case.max {
        Some(max) if max == case.min => format!("{max}"),
        Some(max) => format!("{}..{max}", case.min),
        None => format!(">= {}", case.min),
    };
    Some(format!(
        "{:?}: expected {expected}{}, got {} ({}){}",
        case.command,
        match case.protected {
            Some(true) => ", protected",
            _ => "",
        },
        got.level,
        got.reason,
        mark.map(|m| format!(": {m} ({:?})", got.protected))
            .unwrap_or_default(),
    ))
}

#[cfg(unix)]
#[test]
fn generated_corpus_of_spellings() {
    let fixture = fixture();
    let cases = cases(&fixture);
    assert!(
        cases.len() >= 400,
        "the generated corpus should hold at least 400 commands, it has {}",
        cases.len()
    );
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|case| check(case, &fixture.root))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} generated commands rated wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

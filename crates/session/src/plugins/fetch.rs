//! Getting a plugin's or marketplace's files: a local folder as it is, or a git repository
//! cloned (`git clone --depth 1`, as a child process with a timeout), then a plugin's folder
//! copied into place — never a file from outside it.

use super::PluginOpError;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a `git clone` may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(120);
/// Most files one plugin may hold.
pub const MAX_PLUGIN_FILES: usize = 20_000;
/// Most bytes one plugin may hold.
pub const MAX_PLUGIN_BYTES: u64 = 256 * 1024 * 1024;
/// Deepest folder of a plugin copied.
const MAX_DEPTH: usize = 32;

/// A source as given: a folder on disk or a git repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// A local folder (made absolute).
    Folder(PathBuf),
    /// A git URL, checked ([`check_git_url`]).
    Git(String),
}

/// What `text` names: an existing folder, else a git URL (which must pass [`check_git_url`]).
pub(crate) fn classify(text: &str, cwd: &Path) -> Result<Source, PluginOpError> {
    let path = cwd.join(text);
    if !text.starts_with('-') && !looks_like_url(text) && path.is_dir() {
        return Ok(Source::Folder(path));
    }
    if looks_like_url(text) || text.starts_with('-') || text.ends_with(".git") {
        check_git_url(text)?;
        return Ok(Source::Git(text.to_owned()));
    }
    Err(PluginOpError::NotFound(path))
}

fn looks_like_url(text: &str) -> bool {
    text.contains("://") || text.contains("::") || scp_like(text)
}

/// `git@github.com:owner/repo.git`: a user, a host and a path, no scheme.
fn scp_like(text: &str) -> bool {
    let Some((user_host, _)) = text.split_once(':') else {
        return false;
    };
    user_host.contains('@') && !user_host.contains('/')
}

/// Refuses a git URL git could take for an option (`--upload-pack=…`, a leading `-`), one
/// with a transport that runs a command (`ext::`), spaces or control characters, or a
/// scheme other than `https`, `http`, `ssh`, `git` and `file`.
pub(crate) fn check_git_url(url: &str) -> Result<(), PluginOpError> {
    let refuse = |reason: &str| {
        Err(PluginOpError::UnsafeGitUrl {
            url: url.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if url.starts_with('-') {
        return refuse("it starts with `-`, which git would read as an option");
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return refuse("it holds spaces or control characters");
    }
    if url.contains("::") {
        return refuse("transports such as `ext::` run commands");
    }
    if let Some((scheme, rest)) = url.split_once("://") {
        if !["https", "http", "ssh", "git", "file"].contains(&scheme) {
            return refuse("only https, http, ssh, git and file URLs are cloned");
        }
        if rest.starts_with('-') {
            return refuse("its host starts with `-`");
        }
        return Ok(());
    }
    if scp_like(url) {
        return Ok(());
    }
    refuse("it is neither a folder nor a git URL")
}

/// The GitHub repository `owner/name` of a marketplace entry, as a clone URL.
pub(crate) fn github_url(repo: &str) -> Result<String, PluginOpError> {
    let valid = |part: &str| {
        !part.is_empty()
            && !part.starts_with(['-', '.'])
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match repo.split_once('/') {
        Some((owner, name)) if valid(owner) && valid(name) => {
            Ok(format!("https://github.com/{owner}/{name}.git"))
        }
        _ => Err(PluginOpError::UnsafeGitUrl {
            url: repo.to_owned(),
            reason: "a GitHub repository is `owner/name`".to_owned(),
        }),
    }
}

/// Clones `url` (checked again) into `into` (which must not exist): depth 1, no prompts, no
/// hooks, killed after `timeout`.
pub(crate) fn clone(url: &str, into: &Path, timeout: Duration) -> Result<(), PluginOpError> {
    check_git_url(url)?;
    let mut child = Command::new("git")
        .args([
            "-c",
            "protocol.ext.allow=never",
            "-c",
            "core.hooksPath=/dev/null",
            "clone",
            "--depth",
            "1",
            "--quiet",
            "--no-tags",
            "--",
            url,
        ])
        .arg(into)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "true")
        .env("SSH_ASKPASS", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| PluginOpError::Git {
            url: url.to_owned(),
            message: format!("cannot start git: {source}"),
        })?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let mut stderr = String::new();
                if let Some(pipe) = child.stderr.as_mut() {
                    let _ = pipe.take(8192).read_to_string(&mut stderr);
                }
                return Err(PluginOpError::Git {
                    url: url.to_owned(),
                    message: format!("git clone failed ({status}): {}", stderr.trim()),
                });
            }
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(PluginOpError::GitTimeout {
                    url: url.to_owned(),
                    seconds: timeout.as_secs(),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(error) => {
                return Err(PluginOpError::Git {
                    url: url.to_owned(),
                    message: error.to_string(),
                });
            }
        }
    }
}

/// Copies the plugin folder `from` to `to` (which must not exist). A symbolic link is copied
/// as the file it leads to when that file is in the plugin, and refuses the copy otherwise;
/// `.git` is left out; sockets, pipes and devices are refused; at most
/// [`MAX_PLUGIN_FILES`] files and [`MAX_PLUGIN_BYTES`] bytes.
pub(crate) fn copy_plugin(from: &Path, to: &Path) -> Result<(), PluginOpError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PluginOpError::Io { path, source }
    };
    let root = from.canonicalize().map_err(io(from))?;
    std::fs::create_dir_all(to).map_err(io(to))?;
    let (mut files, mut bytes) = (0usize, 0u64);
    let walk = walkdir::WalkDir::new(&root)
        .follow_links(false)
        .max_depth(MAX_DEPTH)
        .min_depth(1)
        .into_iter()
        .filter_entry(|entry| entry.file_name() != ".git");
    for entry in walk {
        let entry = entry.map_err(|error| PluginOpError::Io {
            path: error.path().unwrap_or(&root).to_path_buf(),
            source: error.into(),
        })?;
        let relative = entry.path().strip_prefix(&root).unwrap_or(entry.path());
        let target = to.join(relative);
        let kind = entry.file_type();
        let source = if kind.is_symlink() {
            let real = entry.path().canonicalize().map_err(io(entry.path()))?;
            if !real.starts_with(&root) || !real.is_file() {
                return Err(PluginOpError::LinkOut {
                    link: entry.path().to_path_buf(),
                    target: real,
                });
            }
            real
        } else if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(io(&target))?;
            continue;
        } else if kind.is_file() {
            entry.path().to_path_buf()
        } else {
            return Err(PluginOpError::NotRegular(entry.path().to_path_buf()));
        };
        files += 1;
        bytes += std::fs::metadata(&source).map_err(io(&source))?.len();
        if files > MAX_PLUGIN_FILES || bytes > MAX_PLUGIN_BYTES {
            return Err(PluginOpError::TooLarge {
                path: root,
                files: MAX_PLUGIN_FILES,
                bytes: MAX_PLUGIN_BYTES,
            });
        }
        std::fs::copy(&source, &target).map_err(io(&source))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_urls_that_are_options_or_run_commands_are_refused() {
        for url in [
            "--upload-pack=touch /tmp/x",
            "-u",
            "ext::sh -c touch% /tmp/pwned",
            "https://host/repo with space.git",
            "ftp://host/repo.git",
            "ssh://-oProxyCommand=x/repo",
            "https://host/a\nb",
        ] {
            assert!(
                matches!(check_git_url(url), Err(PluginOpError::UnsafeGitUrl { .. })),
                "{url:?}"
            );
        }
        for url in [
            "https://github.com/o/r.git",
            "git@github.com:o/r.git",
            "file:///srv/r",
        ] {
            assert!(check_git_url(url).is_ok(), "{url}");
        }
        assert!(github_url("-x/y").is_err());
        assert!(github_url("o/r/../x").is_err());
        assert_eq!(github_url("o/r").unwrap(), "https://github.com/o/r.git");
    }

    #[test]
    fn an_option_given_as_a_source_is_never_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("-x")).unwrap();
        assert!(matches!(
            classify("-x", dir.path()),
            Err(PluginOpError::UnsafeGitUrl { .. })
        ));
        assert!(matches!(
            classify("missing", dir.path()),
            Err(PluginOpError::NotFound(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_plugin_refuse_the_copy_and_links_inside_are_copied() {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("p");
        std::fs::create_dir_all(plugin.join("agents")).unwrap();
        std::fs::write(plugin.join("agents/a.md"), "a").unwrap();
        std::os::unix::fs::symlink(plugin.join("agents/a.md"), plugin.join("b.md")).unwrap();
        std::fs::create_dir_all(plugin.join(".git")).unwrap();
        copy_plugin(&plugin, &dir.path().join("ok")).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("ok/b.md")).unwrap(),
            "a"
        );
        assert!(!dir.path().join("ok/.git").exists());
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), plugin.join("agents/s.md")).unwrap();
        let error = copy_plugin(&plugin, &dir.path().join("bad")).unwrap_err();
        assert!(matches!(error, PluginOpError::LinkOut { .. }), "{error}");
    }
}

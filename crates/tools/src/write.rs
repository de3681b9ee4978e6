//! The mutating file tools: `write_file`, `edit_file` and `delete_file`.
//!
//! Each finds the entry it changes with [`ProjectRoot::write_target`]: the path read exactly as
//! the approval gate read it, then its symlinks followed (for `delete_file` all but the last),
//! refusing the session database whatever approved the call, and a path that symlinks lead into
//! a protected folder its name does not show (the gate asked about the name, so the write must
//! not go elsewhere). All three then go through [`Entry`](crate::open::Entry): they refuse FIFOs,
//! devices, sockets and files with several hard links, never follow a symlink swapped in after
//! the path check, and replace files through a temporary file renamed into place (keeping the
//! old permissions).
//!
//! `write_file` and `edit_file` also change files of a folder granted to the calling agent for
//! writing ([`ReadGrants::grant_writes`]: its memory folder). A path named inside such a folder
//! is resolved in that folder alone, as if it were the root, so a symlink in it that leads
//! anywhere else — even into the project — is refused rather than followed.

use crate::grants::ReadGrants;
use crate::open::{Entry, FileError, Intent};
use crate::paths::{LastLink, ProjectRoot};
use crate::util::{blocking, root_of};
use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use std::io::Read as _;
use std::path::PathBuf;

/// Largest file `edit_file` loads to edit.
const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WriteFileArgs {
    /// File path, relative to the project root; missing folders are created.
    path: String,
    /// The complete new content of the file.
    content: String,
}

/// `write_file`: creates or overwrites a file.
pub(crate) struct WriteFile {
    grants: ReadGrants,
}

impl WriteFile {
    /// `write_file` that also writes the folders `grants` lets each agent write.
    pub(crate) fn new(grants: ReadGrants) -> Self {
        Self { grants }
    }
}

/// The root a write of `given` by the calling agent happens in, and the path as that root
/// reads it: a folder granted to the agent for writing when the path names one, else the
/// project root.
fn write_root(
    grants: &ReadGrants,
    ctx: &ToolContext,
    given: &str,
) -> Result<(ProjectRoot, String), ToolError> {
    let root = root_of(ctx)?;
    Ok(grants
        .write_root(ctx.agent(), root.path(), given)
        .unwrap_or_else(|| (root, given.to_owned())))
}

#[async_trait]
impl TypedTool for WriteFile {
    type Args = WriteFileArgs;

    fn name(&self) -> &str {
        "write_file"
    }

    fn description(&self) -> &str {
        "Create or overwrite a file of the project with the given content (path relative to the \
         project root; missing folders are created)."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Low
    }

    fn is_mutating(&self) -> bool {
        true
    }

    fn written_paths(&self, args: &WriteFileArgs) -> Vec<PathBuf> {
        vec![PathBuf::from(&args.path)]
    }

    async fn call(&self, args: WriteFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (root, given) = write_root(&self.grants, ctx, &args.path)?;
        blocking(move || write_file(&root, &given, &args)).await
    }
}

fn write_file(
    root: &ProjectRoot,
    given: &str,
    args: &WriteFileArgs,
) -> Result<ToolOutput, ToolError> {
    let path = root.write_target(given, LastLink::Follow)?;
    let shown = root.display(&path);
    if path.is_dir() {
        return Err(ToolError::failed(format!("{shown} is a directory")));
    }
    let entry = Entry::new(root, &path, true)?;
    let existing = entry.existing()?;
    entry.replace(args.content.as_bytes(), existing)?;
    let verb = if existing.is_some() {
        "overwrote"
    } else {
        "created"
    };
    Ok(ToolOutput::text(format!(
        "{verb} {shown} ({} bytes)",
        args.content.len()
    )))
}

/// Arguments of `edit_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EditFileArgs {
    /// File path, relative to the project root.
    path: String,
    /// Exact text to replace, including whitespace; must occur exactly once unless
    /// `replace_all` is set.
    old_string: String,
    /// Replacement text.
    new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default)]
    replace_all: bool,
}

/// `edit_file`: replaces an exact string in a file.
pub(crate) struct EditFile {
    grants: ReadGrants,
}

impl EditFile {
    /// `edit_file` that also edits the folders `grants` lets each agent write.
    pub(crate) fn new(grants: ReadGrants) -> Self {
        Self { grants }
    }
}

#[async_trait]
impl TypedTool for EditFile {
    type Args = EditFileArgs;

    fn name(&self) -> &str {
        "edit_file"
    }

    fn description(&self) -> &str {
        "Replace an exact string in a file. old_string must match exactly once (copy it from the \
         file with its whitespace and enough context to be unique), unless replace_all is true."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Low
    }

    fn is_mutating(&self) -> bool {
        true
    }

    fn written_paths(&self, args: &EditFileArgs) -> Vec<PathBuf> {
        vec![PathBuf::from(&args.path)]
    }

    async fn call(&self, args: EditFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (root, given) = write_root(&self.grants, ctx, &args.path)?;
        blocking(move || edit_file(&root, &given, &args)).await
    }
}

fn edit_file(
    root: &ProjectRoot,
    given: &str,
    args: &EditFileArgs,
) -> Result<ToolOutput, ToolError> {
    let path = root.write_target(given, LastLink::Follow)?;
    let shown = root.display(&path);
    if args.old_string.is_empty() {
        return Err(ToolError::failed(
            "old_string is empty; to create a file use write_file",
        ));
    }
    if args.old_string == args.new_string {
        return Err(ToolError::failed(
            "old_string and new_string are the same; nothing to change",
        ));
    }
    let entry = Entry::new(root, &path, false)?;
    let (text, existing) = read_for_edit(&entry)?;
    let count = text.matches(args.old_string.as_str()).count();
    match count {
        0 => {
            return Err(ToolError::failed(format!(
                "old_string not found in {shown}; read the file again and copy the exact text, \
                 including whitespace and indentation"
            )));
        }
        1 => {}
        n if !args.replace_all => {
            return Err(ToolError::failed(format!(
                "old_string occurs {n} times in {shown}; include more surrounding lines to make \
                 it unique, or set replace_all to replace every occurrence"
            )));
        }
        _ => {}
    }
    let updated = text.replace(args.old_string.as_str(), &args.new_string);
    entry.replace(updated.as_bytes(), Some(existing))?;
    let noun = if count == 1 {
        "occurrence"
    } else {
        "occurrences"
    };
    Ok(ToolOutput::text(format!(
        "replaced {count} {noun} in {shown}"
    )))
}

/// The text of the file to edit and what its replacement must keep.
fn read_for_edit(entry: &Entry) -> Result<(String, crate::open::Existing), ToolError> {
    let shown = entry.shown();
    let opened = entry.open(Intent::Change)?;
    if opened.len > MAX_EDIT_BYTES {
        return Err(ToolError::failed(format!(
            "{shown} has {} bytes; edit_file edits files of at most {MAX_EDIT_BYTES} bytes",
            opened.len
        )));
    }
    let mut bytes = Vec::new();
    opened
        .file
        .take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| ToolError::failed(format!("cannot read {shown}: {error}")))?;
    if bytes.len() as u64 > MAX_EDIT_BYTES {
        return Err(ToolError::failed(format!(
            "{shown} grew past {MAX_EDIT_BYTES} bytes while being read; edit_file edits files \
             of at most that size"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::failed(format!(
            "{shown} is not valid UTF-8 text; edit_file only edits text files"
        ))
    })?;
    Ok((text, opened.existing))
}

/// Arguments of `delete_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DeleteFileArgs {
    /// File path, relative to the project root. Folders are refused.
    path: String,
}

/// `delete_file`: deletes one file (or symlink), never a folder.
pub(crate) struct DeleteFile;

#[async_trait]
impl TypedTool for DeleteFile {
    type Args = DeleteFileArgs;

    fn name(&self) -> &str {
        "delete_file"
    }

    fn description(&self) -> &str {
        "Delete one file of the project (path relative to the project root). Folders are refused."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::High
    }

    fn is_mutating(&self) -> bool {
        true
    }

    fn written_paths(&self, args: &DeleteFileArgs) -> Vec<PathBuf> {
        vec![PathBuf::from(&args.path)]
    }

    async fn call(&self, args: DeleteFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        blocking(move || delete_file(&root, &args)).await
    }
}

fn delete_file(root: &ProjectRoot, args: &DeleteFileArgs) -> Result<ToolOutput, ToolError> {
    // The link itself is deleted, never what it points to.
    let path = root.write_target(&args.path, LastLink::Keep)?;
    let shown = root.display(&path);
    match Entry::new(root, &path, false)?.remove() {
        Err(FileError::Directory { .. }) => Err(ToolError::failed(format!(
            "{shown} is a directory; delete_file only deletes files"
        ))),
        other => other.map_err(ToolError::from),
    }?;
    Ok(ToolOutput::text(format!("deleted {shown}")))
}

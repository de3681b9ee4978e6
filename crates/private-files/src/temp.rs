//! Scratch folders of the processes agentctl starts: [`private_temp_dir`].

/// A new folder under the system's temp dir, named `<prefix>XXXXXX`, `0700` whatever the umask,
/// removed when the returned value is dropped. Commands and servers write scratch files there
/// (`$TMPDIR`): other local users must not read them.
///
/// ```
/// let dir = agentctl_private_files::private_temp_dir("agentctl-doc-")?;
/// # #[cfg(unix)] {
/// use std::os::unix::fs::PermissionsExt as _;
/// assert_eq!(std::fs::metadata(dir.path())?.permissions().mode() & 0o777, 0o700);
/// # }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn private_temp_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(crate::DIR_MODE));
    }
    let dir = builder.tempdir()?;
    crate::create::exact_dir_mode(dir.path())?;
    Ok(dir)
}

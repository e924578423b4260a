//! The files a folder argument means: its regular files, recursively, that
//! the format takes. Symbolic links to files are read; links to folders are
//! not followed (a link to `/` must not walk the whole filesystem, nor a
//! link to a parent loop); FIFOs, sockets and devices are skipped (a FIFO
//! would hang the import, `/dev/zero` never ends). Each skip is a warning
//! naming the path.

use std::collections::BTreeMap;
use std::fs::FileType;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, InputError, Result};

/// Where a file's name ends: `.json.gz`, `.traj`, or `` for none.
pub fn ending(p: &Path) -> String {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let name = name.trim_start_matches('.');
    let mut parts = name.rsplitn(3, '.');
    let last = parts.next().unwrap_or("");
    match parts.next() {
        None => String::new(),
        Some(mid) if last == "gz" && parts.next().is_some() => format!(".{mid}.gz"),
        Some(_) => format!(".{last}"),
    }
}

/// Adds to `out` the files under `dir` that `accept` takes; counts the
/// regular files it leaves, by the end of their name, in `left`.
pub fn walk(
    dir: &Path,
    accept: fn(&Path) -> bool,
    out: &mut Vec<PathBuf>,
    left: &mut BTreeMap<String, u64>,
    warn: &mut dyn FnMut(String),
) -> Result<()> {
    let cannot = |e: io::Error| {
        Error::Input(InputError::at(
            &dir.display().to_string(),
            None,
            None,
            format!("cannot read the folder: {e}"),
        ))
    };
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let path = entry.path();
        let shown = path.display().to_string();
        let ty = entry.file_type().map_err(|e| {
            Error::Input(InputError::at(
                &shown,
                None,
                None,
                format!("cannot read: {e}"),
            ))
        })?;
        if ty.is_dir() {
            walk(&path, accept, out, left, warn)?;
        } else if ty.is_file() {
            if accept(&path) {
                out.push(path);
            } else {
                *left.entry(ending(&path)).or_default() += 1;
            }
        } else if ty.is_symlink() {
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => warn(format!(
                    "{shown}: skipped a link to a folder (links to folders are not followed; name the folder to import it)"
                )),
                Ok(m) if m.is_file() => {
                    if accept(&path) {
                        out.push(path);
                    } else {
                        *left.entry(ending(&path)).or_default() += 1;
                    }
                }
                Ok(m) => {
                    if accept(&path) {
                        warn(format!(
                            "{shown}: skipped: a link to {}, not to a regular file",
                            kind(&m.file_type())
                        ));
                    }
                }
                Err(e) => {
                    if accept(&path) {
                        warn(format!("{shown}: skipped: {}", broken_link(&path, &e)));
                    }
                }
            }
        } else if accept(&path) {
            warn(format!(
                "{shown}: skipped: {}, not a regular file",
                kind(&ty)
            ));
        }
    }
    Ok(())
}

/// Why a link cannot be followed, in words.
pub fn broken_link(path: &Path, e: &io::Error) -> String {
    // ELOOP: too many levels of symbolic links.
    if e.raw_os_error() == Some(40) {
        return "a symbolic link loop (the link leads back to itself)".to_string();
    }
    match std::fs::read_link(path) {
        Ok(target) if e.kind() == io::ErrorKind::NotFound => format!(
            "a broken symbolic link (its target {} does not exist)",
            target.display()
        ),
        _ => format!("cannot follow the symbolic link: {e}"),
    }
}

/// What a special file is.
fn kind(ty: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ty.is_socket() {
            return "a socket";
        }
        if ty.is_char_device() {
            return "a character device";
        }
        if ty.is_block_device() {
            return "a block device";
        }
    }
    let _ = ty;
    "a special file"
}

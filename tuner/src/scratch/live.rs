//! The scratch copies alive in this process, which Ctrl-C deletes, and those a killed run left,
//! which the next run deletes.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use super::OWNER;

/// Scratch directories that exist now and are to be deleted.
pub(super) fn live() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    static LIVE: OnceLock<Mutex<BTreeSet<PathBuf>>> = OnceLock::new();
    LIVE.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner)
}

/// Deletes every live scratch directory now (not the leaked ones), for the Ctrl-C handler; the
/// [`Scratch`] values stay but their directories are gone. Returns how many were deleted.
pub fn remove_all_live() -> usize {
    let dirs = std::mem::take(&mut *live());
    let mut removed = 0;
    for dir in dirs {
        // A build being killed may still write for a moment: try again briefly.
        for attempt in 0..5 {
            match fs::remove_dir_all(&dir) {
                Ok(()) => {
                    removed += 1;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => break,
                Err(_) if attempt < 4 => std::thread::sleep(std::time::Duration::from_millis(50)),
                Err(_) => {}
            }
        }
    }
    removed
}
/// Removes the scratch directories in `parent` left by runs that were killed: those whose
/// [`OWNER`] file names a process that no longer exists. Returns how many it removed.
pub fn remove_stale(parent: &Path) -> usize {
    let Ok(entries) = fs::read_dir(parent) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_name().to_string_lossy().starts_with("fptune-") {
            continue;
        }
        let Some(pid) = fs::read_to_string(path.join(OWNER)).ok().and_then(|t| t.trim().parse::<libc::pid_t>().ok()) else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone = pid > 0 && unsafe { libc::kill(pid, 0) } != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}


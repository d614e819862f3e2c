//! Interruption: the Ctrl-C flag and handler, cancellation of one worker's run, and the process
//! groups of live children that both stop.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread;

use anyhow::{Context, Result};

use super::TERM_GRACE;

/// The error [`super::run`] returns when the run was interrupted (Ctrl-C): its child is already stopped.
/// Test for it with [`is_interrupted`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// Whether `error` (or any error in its chain) is [`Interrupted`].
pub fn is_interrupted(error: &anyhow::Error) -> bool {
    error.chain().any(|e| e.is::<Interrupted>())
}

/// The error [`super::run`] returns when the run was cancelled ([`cancellable`]): its child is already
/// stopped. Test for it with [`is_cancelled`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cancelled: its result is no longer needed")]
pub struct Cancelled;

/// Whether `error` (or any error in its chain) is [`Cancelled`].
pub fn is_cancelled(error: &anyhow::Error) -> bool {
    error.chain().any(|e| e.is::<Cancelled>())
}

thread_local! {
    static CANCEL: std::cell::RefCell<Option<Arc<AtomicBool>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` on this thread with `flag` as its cancel flag: once the flag is set, a [`super::run`] in
/// `f` stops its child and returns [`Cancelled`], and later ones refuse to start. For work whose
/// result becomes moot, e.g. a candidate after one found valid.
pub fn cancellable<T>(flag: &Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    let previous = CANCEL.with(|c| c.replace(Some(Arc::clone(flag))));
    let out = f();
    CANCEL.with(|c| *c.borrow_mut() = previous);
    out
}

pub(super) fn cancelled() -> bool {
    CANCEL.with(|c| c.borrow().as_ref().is_some_and(|f| f.load(Ordering::Relaxed)))
}

pub(super) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the run was interrupted (Ctrl-C or [`interrupt`]).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// `Err(Interrupted)` once the run was interrupted: long loops call it between steps.
pub fn check_interrupted() -> Result<(), Interrupted> {
    if interrupted() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}

/// Interrupts the run as Ctrl-C would, without signalling anything: every [`super::run`] in progress
/// stops its child and returns [`Interrupted`], and later ones refuse to start.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Process groups of the children running now, so the Ctrl-C handler can signal them.
pub(super) fn live_groups() -> MutexGuard<'static, BTreeSet<libc::pid_t>> {
    static GROUPS: OnceLock<Mutex<BTreeSet<libc::pid_t>>> = OnceLock::new();
    GROUPS.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sends `signal` to every live child group. Holding the registry's lock while signalling keeps
/// this safe: a group leaves the registry before its leader is reaped.
pub(super) fn signal_live_groups(signal: libc::c_int) {
    let groups = live_groups();
    for &pgid in groups.iter() {
        signal_group(pgid, signal);
    }
}

/// `killpg`, ignoring "no such group" (it has already gone).
pub(super) fn signal_group(pgid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: killpg has no memory-safety preconditions. `pgid` is the id of a child of ours
    // that has not been reaped yet, so it names that child's group and no other.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// Installs the Ctrl-C (`SIGINT`, and `SIGTERM`/`SIGHUP`: a `kill`, a closed terminal) handler:
/// the first Ctrl-C sets the interrupted flag, stops
/// every running child group (`SIGTERM`, then `SIGKILL` after a grace period) and deletes the
/// live scratch copies ([`crate::scratch::remove_all_live`]); the orchestration then notices
/// [`Interrupted`] errors, writes what it has and exits. A second Ctrl-C exits at once with
/// code 130. Installing it twice is harmless.
pub fn install_ctrlc_handler() -> Result<()> {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    ctrlc::set_handler(|| {
        let again = INTERRUPTED.swap(true, Ordering::SeqCst);
        if again {
            signal_live_groups(libc::SIGKILL);
            crate::scratch::remove_all_live();
            crate::exit::ExitCode::InterruptedTwice.exit();
        }
        signal_live_groups(libc::SIGTERM);
        thread::sleep(TERM_GRACE);
        signal_live_groups(libc::SIGKILL);
        crate::scratch::remove_all_live();
    })
    .context("could not install the Ctrl-C handler (is another one installed?)")?;
    let _ = INSTALLED.set(());
    Ok(())
}

//! What the runtime reads from its environment once, before `main`: the single build's unit
//! formats ([`crate::knob::FORMATS_ENV`]), whether to stop at the first overflow
//! ([`crate::stochastic::STOP_ON_OVERFLOW_ENV`]), how order comparisons on noise are decided
//! ([`crate::stochastic::NOISE_ORDER_ENV`]), whether the CPU converts binary16 itself, and which
//! kernels the operators run (`lanes::choose_kernels`, capped by [`crate::stochastic::SIMD_ENV`]).
//! (`FPTUNE_DETECT` is read at the first operation instead, `rng.rs`: a program may set it in its
//! own environment before that.)
//!
//! These are read on the hottest paths there are: every operation on a knob reads its unit's
//! format, every rounding into binary16 whether the CPU has F16C. Read lazily, each read was an
//! atomic load with a call on its first-time path, and neither may leave a loop: LLVM does not
//! hoist an atomic load, nor any load past a call that may write it. Read once before `main`,
//! they are [`Plain`] values, loaded like constants, which LLVM moves out of the loops that read
//! them: a native single build's inner loop then tests formats already in registers instead of
//! loading and checking them at every operation. The kernels' choice is two bits of the detection
//! mask, which the operators load once per operation anyway.

use std::cell::UnsafeCell;

/// A value written before `main` (by [`startup`]) and read with plain loads from then on.
/// Writes after that are `unsafe` (see [`Plain::set`]).
pub(crate) struct Plain<T>(UnsafeCell<T>);

// SAFETY: writes happen before `main`, when one thread runs, or through `Plain::set`, whose
// callers promise that no other thread reads meanwhile.
unsafe impl<T: Send> Sync for Plain<T> {}

impl<T: Copy> Plain<T> {
    pub(crate) const fn new(value: T) -> Plain<T> {
        Plain(UnsafeCell::new(value))
    }

    /// The value.
    #[inline(always)]
    pub(crate) fn get(&self) -> T {
        // SAFETY: see `Sync`: no write races with this read.
        unsafe { *self.0.get() }
    }

    /// Sets the value.
    ///
    /// # Safety
    /// No other thread may read or write the value meanwhile.
    pub(crate) unsafe fn set(&self, value: T) {
        // SAFETY: the caller's promise.
        unsafe { *self.0.get() = value }
    }
}

impl<T: Copy, const N: usize> Plain<[T; N]> {
    /// Element `i`, if there is one.
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> Option<T> {
        if i < N {
            // SAFETY: in bounds; see `Sync`: no write races with this read.
            Some(unsafe { *self.0.get().cast::<T>().add(i) })
        } else {
            None
        }
    }
}

/// Whether [`startup`] ran (a test checks it: a platform or link where it did not would run
/// with the declared formats, without F16C and with the SSE2 kernels).
static STARTED: Plain<bool> = Plain::new(false);

/// Whether the environment was read before `main`.
pub fn started() -> bool {
    STARTED.get()
}

ctor::declarative::ctor! {
    /// Reads the environment. One thread runs before `main`: the writes race with nothing.
    #[ctor(unsafe)]
    fn startup() {
        crate::lanes::choose_kernels();
        // SAFETY (all four): before `main`, one thread.
        unsafe {
            crate::cvt::probe_f16c();
            crate::stochastic::read_stop_on_overflow();
            crate::stochastic::read_noise_order();
            crate::knob::read_formats();
            STARTED.set(true);
        }
    }
}

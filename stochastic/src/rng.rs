//! The random rounding generator: thread-local xorshift64*, two bits per operation.
//!
//! Seeding: `FPTUNE_SEED` ([`crate::contract::SEED_ENV`]) in the environment, or [`set_seed`], makes runs repeatable; otherwise
//! each run draws a seed from the clock and the process id. Every thread derives its own stream
//! from the run seed and the order in which it first rounded, so a deterministic program run with
//! the same seed rounds the same way.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Run seed; 0 means "not chosen yet".
static SEED: AtomicU64 = AtomicU64::new(0);
/// Counts threads that started rounding, to give each its own stream.
static THREADS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static STATE: Cell<u64> = const { Cell::new(0) };
    /// Unused random bits of the last draw, two per operation, above them a marker bit (so the
    /// buffer is empty when only the marker is left: below 4). One xorshift step feeds 31
    /// operations, and an operation's draw is a shift of this word.
    static BITS: Cell<u64> = const { Cell::new(0) };
}

/// SplitMix64 finaliser: spreads a seed over all 64 bits (never returns 0 for our inputs' use).
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let z = z ^ (z >> 31);
    if z == 0 {
        0x2545_F491_4F6C_DD1D
    } else {
        z
    }
}

fn run_seed() -> u64 {
    let s = SEED.load(Ordering::Relaxed);
    if s != 0 {
        return s;
    }
    let chosen = std::env::var(crate::contract::SEED_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            t ^ (u64::from(std::process::id()) << 32)
        });
    let chosen = chosen.max(1);
    match SEED.compare_exchange(0, chosen, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => chosen,
        Err(existing) => existing,
    }
}

#[cold]
fn seed_thread() -> u64 {
    let index = THREADS.fetch_add(1, Ordering::Relaxed);
    mix(run_seed() ^ mix(index))
}

/// Sets the run seed and restarts the calling thread's stream from it, so that what follows is
/// repeatable. Threads that have not rounded yet derive their streams from it too.
pub fn set_seed(seed: u64) {
    SEED.store(seed.max(1), Ordering::Relaxed);
    THREADS.store(1, Ordering::Relaxed);
    STATE.with(|s| s.set(mix(seed.max(1) ^ mix(0))));
    BITS.with(|b| b.set(0));
}

/// The next 64 random bits of this thread (xorshift64*).
#[inline(always)]
pub(crate) fn next_u64() -> u64 {
    STATE.with(|s| {
        let mut x = s.get();
        if x == 0 {
            x = seed_thread();
        }
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        s.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    })
}

/// Rounding directions for the three samples of one operation, as CADNA draws them: two random
/// bits, the third sample rounded opposite to the second, so the three never all round the same
/// way. `+1.0` is toward +inf.
#[inline(always)]
pub(crate) fn directions() -> [f64; 3] {
    directions_of(direction_bits())
}

/// The `±1.0` directions of [`direction_bits`]'s draw.
#[inline(always)]
pub(crate) fn directions_of(r: u64) -> [f64; 3] {
    let one = 1.0f64.to_bits();
    let d0 = f64::from_bits(one | (r << 63));
    let d1 = f64::from_bits(one | ((r >> 1) << 63));
    [d0, d1, -d1]
}

/// The two random bits of one operation's rounding directions: bit 0 set when sample 0 rounds
/// toward -inf, bit 1 when sample 1 does (sample 2 rounds opposite to sample 1).
#[inline(always)]
pub(crate) fn direction_bits() -> u64 {
    BITS.with(|b| {
        let mut x = b.get();
        if x < 4 {
            x = refill();
        }
        b.set(x >> 2);
        x & 3
    })
}

/// 62 fresh random bits under the marker bit. (Every thread's first operation comes here before
/// it rounds: the place to read `FPTUNE_DETECT`, once per process, which a program may set in its
/// own environment before its first operation. The kernels are chosen before `main`, in
/// `startup.rs`.)
#[cold]
#[inline(never)]
fn refill() -> u64 {
    crate::stochastic::detect_from_env();
    (next_u64() >> 2) | (1 << 62)
}

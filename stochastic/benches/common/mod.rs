//! What the benches share: the fixed-seed input source and the clock.

use std::time::{Duration, Instant};

/// SplitMix64: a fixed-seed source of inputs, independent of the rounding generator.
#[derive(Debug)]
pub struct Inputs(pub u64);

impl Inputs {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// CPU time of the calling thread (robust to a loaded machine descheduling the bench), or `None`
/// where unavailable. `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, exact to the nanosecond; not
/// `/proc/thread-self/schedstat`, whose figure for a running thread only advances at scheduler
/// ticks (4 ms here), too coarse for runs of a few tens of milliseconds.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn thread_cpu_time() -> Option<Duration> {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid `struct timespec` on 64-bit Linux, written by the call.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.sec as u64, ts.nsec as u32))
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn thread_cpu_time() -> Option<Duration> {
    None
}

/// The time a run took: thread CPU time where available, else wall-clock time.
#[derive(Debug)]
pub struct Clock(Instant, Option<Duration>);

impl Clock {
    pub fn start() -> Clock {
        Clock(Instant::now(), thread_cpu_time())
    }
    pub fn elapsed(&self) -> Duration {
        match (self.1, thread_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.0.elapsed(),
        }
    }
}

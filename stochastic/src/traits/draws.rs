//! What every rand version's impls share (`rand_0_8.rs`, `rand.rs`): how a single-build knob
//! draws a number of its unit's format, which does not depend on rand's API.

use crate::knob::{DynFloat, FloatFormat, Knob, Tag};

/// A number the native program of format `f` draws as an `f32` (every format but `f64`): exact
/// in `f32`, rounded to nearest into a narrower one.
pub(super) fn narrow<V: DynFloat>(f: FloatFormat, x: f32) -> V {
    match f {
        FloatFormat::F32 => V::exact(x),
        _ => V::from_f64(f64::from(x), f),
    }
}

/// A knob's bounds, as `f64` and as `f32` (rounded to nearest, as the native program's are).
pub(super) fn knob_bounds<F: Tag, const K: u32, V: DynFloat>(low: &Knob<F, K, V>, high: &Knob<F, K, V>) -> ((f64, f64), (f32, f32)) {
    let (l, h) = (low.get(), high.get());
    ((l.store_native::<f64>(), h.store_native::<f64>()), (l.store_native::<f32>(), h.store_native::<f32>()))
}

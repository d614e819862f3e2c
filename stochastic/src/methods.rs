//! The `f64` method set, listed once: [`f64_methods!`] calls a macro with it, and every macro that
//! gives a float kind the method set, or forwards it, is called through it.
//!
//! It serves the single build's values of run-time format (`knob`: the `DynMath` trait and the
//! inherent methods of `DynStochastic`, `DynNative` and `Knob`), the two-operand dispatch (`rt/math2.rs`: the
//! `Math2` trait and its implementations for every float kind) and num-traits' `Float` for
//! `Stochastic<F>` (`traits/num.rs`, its one-operand methods). Lists that differ keep their own:
//! `Stochastic<F>`'s inherent methods (`math.rs`: each its own rounding and instability);
//! `HalfMath` (`rt/half_math.rs`: the one-operand methods computed in `f32`, without `signum`,
//! `min`, `max`, which are `half`'s own); the probe build's (`rt/probe.rs`);
//! simba's `ComplexField` (`traits/simba.rs`: that trait has no `to_degrees`, `to_radians`).

/// Calls `$m!` with the `f64` method set: the one-operand methods, the two-operand ones (computed
/// in the operands' common format) and the queries every float has:
/// `$m!(unary: [sqrt, ...], binary: [powf, ...], queries: [is_nan -> bool, ...])`, or, with
/// `f64_methods!($m; args)`, `$m!(args; unary: ...)`. (`powi`, `mul_add`, `sin_cos` and
/// `total_cmp`, whose signatures differ, each macro writes itself.)
macro_rules! f64_methods {
    ($m:ident $(; $($args:tt)*)?) => {
        $m!(
            $($($args)*;)?
            unary: [sqrt, cbrt, abs, exp, exp2, exp_m1, ln, ln_1p, log10, log2, sin, cos, tan, asin,
                acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, floor, ceil, trunc, round, fract,
                signum, recip, to_degrees, to_radians],
            binary: [powf, atan2, hypot, min, max, copysign, rem_euclid, div_euclid],
            queries: [is_nan -> bool, is_finite -> bool, is_infinite -> bool,
                is_sign_negative -> bool, is_sign_positive -> bool]
        );
    };
}
pub(crate) use f64_methods;

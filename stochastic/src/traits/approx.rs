//! approx's comparisons for stochastic values and the single build's knobs (feature `approx`,
//! which `simba` implies): what a stopping test (`relative_eq!(x_new, x, epsilon = 1e-6)`) asks
//! of a scalar.
//!
//! - `AbsDiffEq`, `RelativeEq` and `UlpsEq`: approx's tests computed with stochastic operations
//!   and decided by the stochastic comparisons, so two values whose difference is numerical noise
//!   are equal, as CADNA's `==` says.

use ::approx::{AbsDiffEq, RelativeEq, UlpsEq};
use num_traits::Float;

use crate::traits::consts;

use crate::format::Format;
use crate::value::Stochastic;

/// `|x|` sample by sample, without the unstable-intrinsic count of `Stochastic::abs`: for a
/// tolerance, whose sign does not matter.
fn magnitude<F: Format>(x: Stochastic<F>) -> Stochastic<F> {
    Stochastic::max(x, -x)
}

/// Whether `a` and `b` hold the same samples, none NaN: equal whatever the arithmetic (two equal
/// infinities too, whose difference is NaN and whose stochastic `==` is false).
fn identical<F: Format>(a: &Stochastic<F>, b: &Stochastic<F>) -> bool {
    let (x, y) = (a.samples_f64(), b.samples_f64());
    x.iter().zip(&y).all(|(p, q)| p == q && !p.is_nan())
}

/// `-tol <= d <= tol`, stochastically.
fn within<F: Format>(d: Stochastic<F>, tol: Stochastic<F>) -> bool {
    -tol <= d && d <= tol
}

impl<F: Format> AbsDiffEq for Stochastic<F> {
    type Epsilon = Self;

    /// The format's machine epsilon.
    fn default_epsilon() -> Self {
        <Self as Float>::epsilon()
    }

    /// The same samples, or `self == other` (their difference is a computed zero), or
    /// `|self - other| <= epsilon`, with the stochastic difference and comparisons.
    fn abs_diff_eq(&self, other: &Self, epsilon: Self) -> bool {
        identical(self, other) || *self == *other || within(*self - *other, epsilon)
    }
}

impl<F: Format> RelativeEq for Stochastic<F> {
    /// The format's machine epsilon.
    fn default_max_relative() -> Self {
        <Self as Float>::epsilon()
    }

    /// approx's test for floats, stochastically: equal (the same samples, or a computed-zero
    /// difference); not when either is infinite; else `|self - other|` within `epsilon`, or
    /// within `max_relative` times the larger magnitude.
    fn relative_eq(&self, other: &Self, epsilon: Self, max_relative: Self) -> bool {
        if identical(self, other) || *self == *other {
            return true;
        }
        if Stochastic::is_infinite(self) || Stochastic::is_infinite(other) {
            return false;
        }
        let d = *self - *other;
        if within(d, epsilon) {
            return true;
        }
        let largest = Stochastic::max(magnitude(*self), magnitude(*other));
        within(d, largest * max_relative)
    }
}

impl<F: Format> UlpsEq for Stochastic<F> {
    /// 4, as approx's default for floats.
    fn default_max_ulps() -> u32 {
        4
    }

    /// Within `epsilon`, or within `max_ulps` units in the last place of the larger magnitude,
    /// counted as `max_ulps * EPSILON` relatively (at most twice the exact unit: the samples of
    /// a stochastic value have no single bit pattern to count units between).
    fn ulps_eq(&self, other: &Self, epsilon: Self, max_ulps: u32) -> bool {
        let relative = Stochastic::from_f64(f64::from(max_ulps) * consts::epsilon_f64::<F>());
        self.relative_eq(other, epsilon, relative)
    }
}

/// The single build's knobs and the probe build's type: the same tests with the type's own
/// operations and comparisons (a knob's value's, in its unit's format), so a stopping test
/// decides as in the configuration's build. Two equal infinities are equal, as approx says of
/// floats.
mod others {
    use ::approx::{AbsDiffEq, RelativeEq, UlpsEq};
    use num_traits::{Float, NumCast};

    use crate::format::Format;
    use crate::knob::{DynFloat, Knob, Tag};
    use crate::rt::{Ids, Probe};

    fn equal<T: Float>(a: T, b: T) -> bool {
        a == b || (a.is_infinite() && a.is_sign_positive() == b.is_sign_positive() && b.is_infinite())
    }

    fn within<T: Float>(d: T, tol: T) -> bool {
        -tol <= d && d <= tol
    }

    macro_rules! float_approx {
        ($([$($g:tt)*] $t:ty),*) => {$(
            impl<$($g)*> AbsDiffEq for $t {
                type Epsilon = Self;

                /// The format's machine epsilon.
                fn default_epsilon() -> Self {
                    <Self as Float>::epsilon()
                }

                fn abs_diff_eq(&self, other: &Self, epsilon: Self) -> bool {
                    equal(*self, *other) || within(*self - *other, epsilon)
                }
            }

            impl<$($g)*> RelativeEq for $t {
                /// The format's machine epsilon.
                fn default_max_relative() -> Self {
                    <Self as Float>::epsilon()
                }

                fn relative_eq(&self, other: &Self, epsilon: Self, max_relative: Self) -> bool {
                    if equal(*self, *other) {
                        return true;
                    }
                    if self.is_infinite() || other.is_infinite() {
                        return false;
                    }
                    let d = *self - *other;
                    if within(d, epsilon) {
                        return true;
                    }
                    let largest = Float::max(Float::max(*self, -*self), Float::max(*other, -*other));
                    within(d, largest * max_relative)
                }
            }

            impl<$($g)*> UlpsEq for $t {
                /// 4, as approx's default for floats.
                fn default_max_ulps() -> u32 {
                    4
                }

                /// As a stochastic value's: `max_ulps * EPSILON` relatively.
                fn ulps_eq(&self, other: &Self, epsilon: Self, max_ulps: u32) -> bool {
                    let ulps = <Self as NumCast>::from(max_ulps).unwrap_or_else(<Self as Float>::nan);
                    self.relative_eq(other, epsilon, ulps * <Self as Float>::epsilon())
                }
            }
        )*};
    }

    float_approx!([F: Tag, const K: u32, V: DynFloat] Knob<F, K, V>, [F: Format + Float, K: Ids] Probe<F, K>);
}

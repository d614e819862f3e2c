//! [`DynStochastic`]: the DSA single build's value of run-time format, three samples widened to `f64` and a
//! tag; each operation dispatches to `Stochastic<F>`'s.

use super::*;

/// A stochastic value whose format is known at run time: what arithmetic on knobs of the single
/// build gives. The samples are kept widened to `f64` (exactly) whatever the format, so that
/// every format has the same layout and the optimiser keeps values in registers.
#[derive(Clone, Copy, Debug)]
pub struct DynStochastic {
    pub(super) s: [f64; 3],
    pub(super) f: FloatFormat,
}

/// The samples `a, b, c` of format `from` converted to format `to` ([`Stochastic::cast`]). Out
/// of line, as the operations that call it are inlined everywhere, and taking the samples as
/// scalars (in registers), so that values stay in registers on the operations' common path.
#[inline(never)]
fn convert(a: f64, b: f64, c: f64, from: FloatFormat, to: FloatFormat) -> [f64; 3] {
    let x = DynStochastic { s: [a, b, c], f: from };
    at_format!(to, G => x.cast::<G>().samples_f64())
}

/// `$e` with `$v` bound to the value as a `Stochastic` of its format.
macro_rules! read {
    ($x:expr, $v:ident => $e:expr) => {{
        let x: DynStochastic = $x;
        at_format!(x.f, Own => { let $v = x.get::<Own>(); $e })
    }};
}

/// `$e` (a `Stochastic` of the value's format) with `$v` bound to the value as one, tagged again.
macro_rules! map {
    ($x:expr, $v:ident => $e:expr) => {
        read!($x, $v => DynStochastic::of($e))
    };
}

/// `$e` with `$x`, `$y` bound to two values brought to their common format, as `Stochastic`s of
/// it.
macro_rules! both_read {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
        let (a, b) = DynFloat::meet($a, $b);
        at_format!(a.f, Common => { let ($x, $y) = (a.get::<Common>(), b.get::<Common>()); $e })
    }};
}

/// As [`both_read!`], `$e` a `Stochastic` of the common format, tagged again.
macro_rules! both {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {
        both_read!($a, $b, |$x, $y| DynStochastic::of($e))
    };
}

impl DynStochastic {
    /// A stochastic value, tagged with its format.
    #[inline]
    pub fn of<G: Tag>(x: Stochastic<G>) -> DynStochastic {
        DynStochastic { s: x.samples_f64(), f: G::FLOAT_FORMAT }
    }

    /// The value as a stochastic value of format `G`, which must be its own.
    #[inline]
    pub(crate) fn get<G: Format>(self) -> Stochastic<G> {
        Stochastic::from_repr(self.s.map(G::exact))
    }

    /// The value converted to format `G` ([`Stochastic::cast`]: random rounding when narrowing).
    #[inline]
    pub fn cast<G: Format>(self) -> Stochastic<G> {
        read!(self, x => x.cast::<G>())
    }

    /// The samples, widened exactly to `f64`.
    pub fn samples_f64(&self) -> [f64; 3] {
        self.s
    }
}

impl DynFloat for DynStochastic {
    /// The samples, without the format.
    type Word = [f64; 3];

    #[inline]
    fn format(self) -> FloatFormat {
        self.f
    }

    #[inline]
    fn word(self) -> [f64; 3] {
        self.s
    }

    #[inline]
    fn from_word(s: [f64; 3], f: FloatFormat) -> DynStochastic {
        DynStochastic { s, f }
    }

    /// The samples, which are kept widened already.
    #[inline]
    fn wide_word(self) -> [f64; 3] {
        self.s
    }

    #[inline]
    fn from_wide_word(s: [f64; 3], f: FloatFormat) -> DynStochastic {
        at_format!(f, G => DynStochastic::of(Stochastic::<G>::from_repr(s.map(G::nearest))))
    }

    #[inline]
    fn to(self, f: FloatFormat) -> DynStochastic {
        if f.holds(self.f) {
            // Widening is exact and draws nothing (`Stochastic::cast`): the samples, already
            // widened to `f64`, are those of the wider format.
            return DynStochastic { s: self.s, f };
        }
        let [a, b, c] = self.s;
        DynStochastic { s: convert(a, b, c, self.f, f), f }
    }

    /// [`Lit::stochastic`]: in a 16-bit format, an overflow or underflow is counted.
    #[inline]
    fn lit(l: Lit, f: FloatFormat) -> DynStochastic {
        at_format!(f, G => DynStochastic::of(l.stochastic::<G>()))
    }

    #[inline]
    fn exact<A: Tag>(x: A) -> DynStochastic {
        DynStochastic::of(Stochastic::new(x))
    }

    /// [`Stochastic::from_f64`].
    #[inline]
    fn from_f64(x: f64, f: FloatFormat) -> DynStochastic {
        at_format!(f, G => DynStochastic::of(Stochastic::<G>::from_f64(x)))
    }

    #[inline]
    fn zero(f: FloatFormat) -> DynStochastic {
        DynStochastic { s: [0.0; 3], f }
    }

    #[inline]
    fn store_native<B: Tag>(self) -> B {
        B::from_repr(B::nearest(self.mean()))
    }
}

impl Default for DynStochastic {
    fn default() -> Self {
        DynStochastic::zero(FloatFormat::F64)
    }
}

macro_rules! dyn_stochastic_ops {
    ($($Op:ident, $op:ident);*) => {$(
        impl $Op for DynStochastic {
            type Output = DynStochastic;
            #[inline]
            fn $op(self, rhs: DynStochastic) -> DynStochastic {
                both!(self, rhs, |x, y| $Op::$op(x, y))
            }
        }
    )*};
}
dyn_stochastic_ops!(Add, add; Sub, sub; Mul, mul; Div, div; Rem, rem);

impl Neg for DynStochastic {
    type Output = DynStochastic;
    #[inline]
    fn neg(self) -> DynStochastic {
        map!(self, x => -x)
    }
}

impl PartialEq for DynStochastic {
    #[inline]
    fn eq(&self, other: &DynStochastic) -> bool {
        both_read!(*self, *other, |x, y| x == y)
    }
}

impl PartialOrd for DynStochastic {
    #[inline]
    fn partial_cmp(&self, other: &DynStochastic) -> Option<Ordering> {
        both_read!(*self, *other, |x, y| x.partial_cmp(&y))
    }
}

impl std::fmt::Display for DynStochastic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        read!(*self, x => std::fmt::Display::fmt(&x, f))
    }
}

impl std::fmt::LowerExp for DynStochastic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        read!(*self, x => std::fmt::LowerExp::fmt(&x, f))
    }
}

impl std::fmt::UpperExp for DynStochastic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        read!(*self, x => std::fmt::UpperExp::fmt(&x, f))
    }
}

impl Checkable for DynStochastic {
    fn visit(&self, f: &mut dyn FnMut(crate::check::Record)) {
        read!(*self, x => x.visit(f))
    }
}

macro_rules! dyn_stochastic_methods {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        impl DynStochastic {
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($u), "`, in the value's format.")]
                #[inline]
                pub fn $u(self) -> DynStochastic {
                    map!(self, x => x.$u())
                }
            )*
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($b), "`, in the common format.")]
                #[inline]
                pub fn $b(self, o: DynStochastic) -> DynStochastic {
                    both!(self, o, |x, y| x.$b(y))
                }
            )*
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($q), "`.")]
                #[inline]
                pub fn $q(&self) -> $r {
                    read!(*self, x => x.$q())
                }
            )*
            /// `self^n`.
            #[inline]
            pub fn powi(self, n: i32) -> DynStochastic {
                map!(self, x => x.powi(n))
            }
            /// IEEE 754's total order on the values' means.
            #[inline]
            pub fn total_cmp(&self, o: &DynStochastic) -> Ordering {
                both_read!(*self, *o, |x, y| x.total_cmp(&y))
            }
            /// `self * a + b`, in the format of the three.
            #[inline]
            pub fn mul_add(self, a: DynStochastic, b: DynStochastic) -> DynStochastic {
                let f = self.f.promote(a.f).promote(b.f);
                let (x, a, b) = (self.to(f), a.to(f), b.to(f));
                at_format!(f, G => DynStochastic::of(x.get::<G>().mul_add(a.get::<G>(), b.get::<G>())))
            }
        }
        dyn_math_inherent!(DynStochastic; unary: [$($u),*], binary: [$($b),*], queries: [$($q -> $r),*]);
    };
}
crate::methods::f64_methods!(dyn_stochastic_methods);

/// What only a stochastic value can answer: the estimate of its accuracy.
macro_rules! stochastic_queries {
    ($($q:ident -> $r:ty),*) => {
        impl DynStochastic {
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($q), "`.")]
                #[inline]
                pub fn $q(&self) -> $r {
                    read!(*self, x => x.$q())
                }
            )*
        }
        impl<F: Tag, const K: u32> Knob<F, K, DynStochastic> {
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($q), "`.")]
                #[inline]
                pub fn $q(&self) -> $r {
                    self.get().$q()
                }
            )*
        }
    };
}
stochastic_queries!(mean -> f64, digits -> f64, is_noise -> bool);

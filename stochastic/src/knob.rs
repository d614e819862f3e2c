//! The single build: knobs whose format is chosen when the program starts.
//!
//! The tuner can build a crate once with every knob of unit `U` written as `Knob<F, U>` (`F` the
//! declared format) and then run that one program for every candidate configuration, naming each
//! unit's format in [`FORMATS_ENV`] (`FPTUNE_FORMATS=f32,f16,f64`, by unit number). A search then
//! costs runs, not builds (DESIGN.md, "single-build mode").
//!
//! The arithmetic is that of the stochastic build of the same configuration, operation for
//! operation: a knob holds a [`Sdyn`], a stochastic value tagged with its format; two operands
//! meet in the wider format exactly as `Stochastic<A>` and `Stochastic<B>` do (the same casts,
//! in the same order, so the same random draws), a literal takes the other operand's format, and a
//! store rounds to the place's format. So a run of the single build gives, bit for bit, the
//! records of the configuration's own stochastic build with the same seed (the tuner checks this
//! on the reference and on a lowered configuration before it relies on it).
//!
//! The *native* single build writes its knobs `Knob<F, U, Ndyn>` and is built without the
//! `stochastic` feature: a knob then holds one value computed in its format's own
//! round-to-nearest arithmetic ([`Ndyn`]), so a run gives the records of the configuration's own
//! native build, and a candidate's native check is a run, not a build.
//!
//! A value computed from knobs has a [`Dyn`] type ([`Sdyn`] or [`Ndyn`]): its format is known
//! only at run time. A place of that type (an unannotated `let`, a `Vec` collected from such
//! values) keeps the format its first value had, as the static type would: stores into it go
//! through [`Store::store_into`], which rounds to the place's current format.
//!
//! Every method here is `#[inline]`, never `#[inline(always)]`: each knob operation dispatches on
//! its run-time format (a `match` over five arms, each a stochastic operation), so forcing it into
//! every caller multiplies a large program's code by the operations it has. FPBench's n_body
//! single build took 75 s to compile that way, and about 1 s with the compiler left to choose;
//! the hot kernels of `benches/spmv` lose a factor of 1.4 to 1.7 on knobs (BENCHMARKS.md).

use std::cmp::Ordering;
use std::fmt::{Debug, Display, LowerExp};
use std::marker::PhantomData;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

use half::{bf16, f16};

use crate::check::Checkable;
use crate::format::Format;
use crate::rt::{Arith, ArithRem, CastAs, CastOperand, Join, Lit, Scalar, Store};
use crate::startup::Plain;
use crate::value::Stochastic;

/// The environment variable that gives each unit's format: short names (`f64`, `f32`, `f16`,
/// `bf16`) separated by commas, unit 0 first. A unit not named keeps its declared format.
pub const FORMATS_ENV: &str = "FPTUNE_FORMATS";

/// How many units the single build can give a format to; knobs of units beyond keep their
/// declared format (the tuner builds such crates per candidate instead).
pub const MAX_UNITS: usize = 4096;

/// The flag of a *constant unit* in a knob's unit number: `Knob<F, { U | CONSTANT }>` is a knob
/// of unit `U` that a `const` or `static` item can hold. Such a knob keeps its value widened to
/// `f64` ([`Dyn::wide_word`]), so that a literal written at compile time, before any format is
/// known, is one ([`Knob::constant`]); reading it rounds to nearest into the unit's format, as the
/// compiler rounds the literal of a `const` of that format. The tuner gives every knob of a
/// unit that holds a `const` or `static` this flag, so that the unit's knobs keep one type.
pub const CONSTANT: u32 = 1 << 31;

/// A format known at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Fmt {
    /// bfloat16.
    Bf16 = 1,
    /// binary16.
    F16 = 2,
    /// binary32.
    F32 = 3,
    /// binary64.
    F64 = 4,
}

impl Fmt {
    /// The format of a short name.
    pub fn parse(name: &str) -> Option<Fmt> {
        match name.trim() {
            "f64" => Some(Fmt::F64),
            "f32" => Some(Fmt::F32),
            "f16" => Some(Fmt::F16),
            "bf16" => Some(Fmt::Bf16),
            _ => None,
        }
    }

    #[inline]
    fn from_u8(v: u8) -> Option<Fmt> {
        match v {
            1 => Some(Fmt::Bf16),
            2 => Some(Fmt::F16),
            3 => Some(Fmt::F32),
            4 => Some(Fmt::F64),
            _ => None,
        }
    }

    /// Whether every value of format `other` is one of `self` ([`crate::format::holds`]): the
    /// same format, or binary32 or binary64 wider than it.
    #[inline]
    pub fn holds(self, other: Fmt) -> bool {
        self == other || ((self as u8) >= 3 && (self as u8) > (other as u8))
    }

    /// The format two formats compute in ([`crate::Promote`]): the wider, and binary32 for
    /// binary16 with bfloat16.
    #[inline]
    pub fn promote(self, other: Fmt) -> Fmt {
        if self == other {
            self
        } else if (self as u8) >= 3 || (other as u8) >= 3 {
            if (self as u8) > (other as u8) {
                self
            } else {
                other
            }
        } else {
            Fmt::F32
        }
    }
}

/// Each unit's format as a [`Fmt`] (zero: the unit's declared format), read before `main`
/// ([`crate::startup`]): every store into a knob reads its unit's entry, and plain loads of a
/// value written once leave the loops that make them.
static TABLE: Plain<[u8; MAX_UNITS]> = Plain::new([0; MAX_UNITS]);

/// Reads [`FORMATS_ENV`] into the table; a list that is not one ends the process with a
/// message.
///
/// # Safety
/// No other thread may run (it is called before `main`).
pub(crate) unsafe fn read_formats() {
    if let Some(list) = std::env::var_os(FORMATS_ENV) {
        let list = list.to_string_lossy();
        // SAFETY: the caller's promise.
        if let Err(e) = unsafe { set_formats(&list) } {
            eprintln!("fptune: {FORMATS_ENV}={list:?}: {e}");
            std::process::exit(2);
        }
    }
}

/// Sets the units' formats from a list like [`FORMATS_ENV`]'s, which the program reads before
/// `main` (tests call this instead). A knob made before keeps its value's word and is read in
/// its unit's new format: make knobs after.
///
/// # Safety
/// No other thread may use a knob meanwhile (the table is read with plain loads).
pub unsafe fn set_formats(list: &str) -> Result<(), String> {
    let names: Vec<&str> = if list.trim().is_empty() { Vec::new() } else { list.split(',').collect() };
    if names.len() > MAX_UNITS {
        return Err(format!("{} units, at most {MAX_UNITS} can be given a format", names.len()));
    }
    let mut table = [0u8; MAX_UNITS];
    for (u, name) in names.iter().enumerate() {
        let f = Fmt::parse(name).ok_or_else(|| format!("unit {u}: `{name}` is not a format (f64, f32, f16, bf16)"))?;
        table[u] = f as u8;
    }
    // SAFETY: the caller's promise.
    unsafe { TABLE.set(table) };
    Ok(())
}

/// The format of unit `k` in this run: the table's entry, or the declared format where the run
/// names none. Once inlined, a load LLVM can hoist and a select.
#[inline]
fn unit_format(k: u32, declared: Fmt) -> Fmt {
    TABLE.at((k & !CONSTANT) as usize).and_then(Fmt::from_u8).unwrap_or(declared)
}

/// The formats as the single build names them.
pub trait Tag: Format {
    /// The run-time name of the format.
    const FMT: Fmt;
}

impl Tag for f64 {
    const FMT: Fmt = Fmt::F64;
}
impl Tag for f32 {
    const FMT: Fmt = Fmt::F32;
}
impl Tag for f16 {
    const FMT: Fmt = Fmt::F16;
}
impl Tag for bf16 {
    const FMT: Fmt = Fmt::Bf16;
}

/// `$e` with the type `$G` standing for the format `$f` names: one arm per format. (`$G` is an
/// item, which `macro_rules!` hygiene does not rename: the macros below name theirs so that a
/// caller's `G` stays its own.)
macro_rules! at_format {
    ($f:expr, $G:ident => $e:expr) => {
        match $f {
            Fmt::F64 => { type $G = f64; $e }
            Fmt::F32 => { type $G = f32; $e }
            Fmt::F16 => { type $G = f16; $e }
            Fmt::Bf16 => { type $G = bf16; $e }
        }
    };
}

/// The `f64` method set of the run-time-format values, from one list: `$m!` is called with the
/// one-operand methods, the two-operand ones (in the operands' common format) and the queries
/// every float has. (`powi` and `mul_add`, whose signatures differ, each macro writes itself.)
macro_rules! with_methods {
    ($m:ident) => {
        $m!(
            unary: [sqrt, cbrt, abs, exp, exp2, exp_m1, ln, ln_1p, log10, log2, sin, cos, tan, asin,
                acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, floor, ceil, trunc, round, fract,
                signum, recip, to_degrees, to_radians],
            binary: [powf, atan2, hypot, min, max, copysign, rem_euclid, div_euclid],
            queries: [is_nan -> bool, is_finite -> bool, is_infinite -> bool,
                is_sign_negative -> bool, is_sign_positive -> bool]
        );
    };
}

/// The trait of the method set, so that a knob of either kind of value has it.
macro_rules! dyn_math_trait {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        /// The `f64` method set of a value of run-time format (each its inherent method).
        pub trait DynMath: Sized {
            $(
                #[doc = concat!("`", stringify!($u), "`, in the value's format.")]
                fn $u(self) -> Self;
            )*
            $(
                #[doc = concat!("`", stringify!($b), "`, in the common format.")]
                fn $b(self, o: Self) -> Self;
            )*
            $(
                #[doc = concat!("`", stringify!($q), "`.")]
                fn $q(&self) -> $r;
            )*
            /// `self^n`.
            fn powi(self, n: i32) -> Self;
            /// `self * a + b`, in the format of the three.
            fn mul_add(self, a: Self, b: Self) -> Self;
            /// `(sin(self), cos(self))`.
            fn sin_cos(self) -> (Self, Self);
            /// IEEE 754's total order.
            fn total_cmp(&self, o: &Self) -> Ordering;
        }
    };
}
with_methods!(dyn_math_trait);

/// [`DynMath`] for a type with the method set as inherent methods.
macro_rules! dyn_math_inherent {
    ($t:ty; unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        impl DynMath for $t {
            $(
                #[inline]
                fn $u(self) -> Self { <$t>::$u(self) }
            )*
            $(
                #[inline]
                fn $b(self, o: Self) -> Self { <$t>::$b(self, o) }
            )*
            $(
                #[inline]
                fn $q(&self) -> $r { <$t>::$q(self) }
            )*
            #[inline]
            fn powi(self, n: i32) -> Self { <$t>::powi(self, n) }
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self { <$t>::mul_add(self, a, b) }
            #[inline]
            fn sin_cos(self) -> (Self, Self) { (<$t>::sin(self), <$t>::cos(self)) }
            #[inline]
            fn total_cmp(&self, o: &Self) -> Ordering { <$t>::total_cmp(self, o) }
        }
    };
}

/// A value whose format is known only at run time: what arithmetic on the single build's knobs
/// gives. [`Sdyn`] carries DSA samples (the DSA single build); [`Ndyn`] one value computed in its
/// format's own round-to-nearest arithmetic (the native single build).
pub trait Dyn:
    Copy
    + Debug
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + PartialEq
    + PartialOrd
    + Display
    + LowerExp
    + Checkable
    + DynMath
{
    /// What a knob keeps of the value: the value without what the knob's unit gives (its
    /// format).
    type Word: Copy + Debug;

    /// The value's format.
    fn format(self) -> Fmt;

    /// What a knob of the value's format keeps of it.
    fn word(self) -> Self::Word;

    /// The value a knob of format `f` keeps as `w`.
    fn from_word(w: Self::Word, f: Fmt) -> Self;

    /// What a knob of a constant unit ([`CONSTANT`]) keeps of the value: its word with the value
    /// widened exactly to `f64`, whatever its format.
    fn wide_word(self) -> Self::Word;

    /// The value a knob of a constant unit of format `f` keeps as `w`: rounded to nearest into
    /// `f` (exact for a value of that format; a literal's rounding, as the compiler's, for a
    /// constant's literal), counting nothing, as a primitive constant of format `f` would be.
    fn from_wide_word(w: Self::Word, f: Fmt) -> Self;

    /// The value converted to format `f`: exactly when `f` holds the value's format (a retag),
    /// else rounded (at random under DSA, [`Stochastic::cast`]; to nearest natively).
    fn to(self, f: Fmt) -> Self;

    /// Two values in their common format (the first converted first, as [`Join`] does).
    #[inline]
    fn meet(a: Self, b: Self) -> (Self, Self) {
        let f = a.format().promote(b.format());
        let a = a.to(f);
        (a, b.to(f))
    }

    /// A literal in format `f` ([`Lit`]: rounded to nearest).
    fn lit(l: Lit, f: Fmt) -> Self;

    /// A native value, exactly, in its own format.
    fn exact<A: Tag>(x: A) -> Self;

    /// An `f64` rounded to nearest into format `f`.
    fn from_f64(x: f64, f: Fmt) -> Self;

    /// Zero in format `f`.
    fn zero(f: Fmt) -> Self;

    /// The value stored into a native place of format `B`: rounded to nearest (under DSA, the
    /// mean: the samples are lost, as out of a stochastic value).
    fn store_native<B: Tag>(self) -> B;
}

/// A stochastic value whose format is known at run time: what arithmetic on knobs of the single
/// build gives. The samples are kept widened to `f64` (exactly) whatever the format, so that
/// every format has the same layout and the optimiser keeps values in registers.
#[derive(Clone, Copy, Debug)]
pub struct Sdyn {
    s: [f64; 3],
    f: Fmt,
}

/// The samples `a, b, c` of format `from` converted to format `to` ([`Stochastic::cast`]). Out
/// of line, as the operations that call it are inlined everywhere, and taking the samples as
/// scalars (in registers), so that values stay in registers on the operations' common path.
#[inline(never)]
fn convert(a: f64, b: f64, c: f64, from: Fmt, to: Fmt) -> [f64; 3] {
    let x = Sdyn { s: [a, b, c], f: from };
    at_format!(to, G => x.cast::<G>().samples_f64())
}

/// `$e` with `$v` bound to the value as a `Stochastic` of its format.
macro_rules! read {
    ($x:expr, $v:ident => $e:expr) => {{
        let x: Sdyn = $x;
        at_format!(x.f, Own => { let $v = x.get::<Own>(); $e })
    }};
}

/// `$e` (a `Stochastic` of the value's format) with `$v` bound to the value as one, tagged again.
macro_rules! map {
    ($x:expr, $v:ident => $e:expr) => {
        read!($x, $v => Sdyn::of($e))
    };
}

/// `$e` with `$x`, `$y` bound to two values brought to their common format, as `Stochastic`s of
/// it.
macro_rules! both_read {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
        let (a, b) = Dyn::meet($a, $b);
        at_format!(a.f, Common => { let ($x, $y) = (a.get::<Common>(), b.get::<Common>()); $e })
    }};
}

/// As [`both_read!`], `$e` a `Stochastic` of the common format, tagged again.
macro_rules! both {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {
        both_read!($a, $b, |$x, $y| Sdyn::of($e))
    };
}

impl Sdyn {
    /// A stochastic value, tagged with its format.
    #[inline]
    pub fn of<G: Tag>(x: Stochastic<G>) -> Sdyn {
        Sdyn { s: x.samples_f64(), f: G::FMT }
    }

    /// The value as a stochastic value of format `G`, which must be its own.
    #[inline]
    fn get<G: Format>(self) -> Stochastic<G> {
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

impl Dyn for Sdyn {
    /// The samples, without the format.
    type Word = [f64; 3];

    #[inline]
    fn format(self) -> Fmt {
        self.f
    }

    #[inline]
    fn word(self) -> [f64; 3] {
        self.s
    }

    #[inline]
    fn from_word(s: [f64; 3], f: Fmt) -> Sdyn {
        Sdyn { s, f }
    }

    /// The samples, which are kept widened already.
    #[inline]
    fn wide_word(self) -> [f64; 3] {
        self.s
    }

    #[inline]
    fn from_wide_word(s: [f64; 3], f: Fmt) -> Sdyn {
        at_format!(f, G => Sdyn::of(Stochastic::<G>::from_repr(s.map(G::nearest))))
    }

    #[inline]
    fn to(self, f: Fmt) -> Sdyn {
        if f.holds(self.f) {
            // Widening is exact and draws nothing (`Stochastic::cast`): the samples, already
            // widened to `f64`, are those of the wider format.
            return Sdyn { s: self.s, f };
        }
        let [a, b, c] = self.s;
        Sdyn { s: convert(a, b, c, self.f, f), f }
    }

    /// [`Lit::stochastic`]: in a 16-bit format, an overflow or underflow is counted.
    #[inline]
    fn lit(l: Lit, f: Fmt) -> Sdyn {
        at_format!(f, G => Sdyn::of(l.stochastic::<G>()))
    }

    #[inline]
    fn exact<A: Tag>(x: A) -> Sdyn {
        Sdyn::of(Stochastic::new(x))
    }

    /// [`Stochastic::from_f64`].
    #[inline]
    fn from_f64(x: f64, f: Fmt) -> Sdyn {
        at_format!(f, G => Sdyn::of(Stochastic::<G>::from_f64(x)))
    }

    #[inline]
    fn zero(f: Fmt) -> Sdyn {
        Sdyn { s: [0.0; 3], f }
    }

    #[inline]
    fn store_native<B: Tag>(self) -> B {
        B::from_repr(B::nearest(self.mean()))
    }
}

impl Default for Sdyn {
    fn default() -> Self {
        Sdyn::zero(Fmt::F64)
    }
}

macro_rules! sdyn_ops {
    ($($Op:ident, $op:ident);*) => {$(
        impl $Op for Sdyn {
            type Output = Sdyn;
            #[inline]
            fn $op(self, rhs: Sdyn) -> Sdyn {
                both!(self, rhs, |x, y| $Op::$op(x, y))
            }
        }
    )*};
}
sdyn_ops!(Add, add; Sub, sub; Mul, mul; Div, div; Rem, rem);

impl Neg for Sdyn {
    type Output = Sdyn;
    #[inline]
    fn neg(self) -> Sdyn {
        map!(self, x => -x)
    }
}

impl PartialEq for Sdyn {
    #[inline]
    fn eq(&self, other: &Sdyn) -> bool {
        both_read!(*self, *other, |x, y| x == y)
    }
}

impl PartialOrd for Sdyn {
    #[inline]
    fn partial_cmp(&self, other: &Sdyn) -> Option<Ordering> {
        both_read!(*self, *other, |x, y| x.partial_cmp(&y))
    }
}

impl std::fmt::Display for Sdyn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        read!(*self, x => std::fmt::Display::fmt(&x, f))
    }
}

impl std::fmt::LowerExp for Sdyn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        read!(*self, x => std::fmt::LowerExp::fmt(&x, f))
    }
}

impl std::fmt::UpperExp for Sdyn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        read!(*self, x => std::fmt::UpperExp::fmt(&x, f))
    }
}

impl Checkable for Sdyn {
    fn visit(&self, f: &mut dyn FnMut(crate::check::Record)) {
        read!(*self, x => x.visit(f))
    }
}

macro_rules! sdyn_methods {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        impl Sdyn {
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($u), "`, in the value's format.")]
                #[inline]
                pub fn $u(self) -> Sdyn {
                    map!(self, x => x.$u())
                }
            )*
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($b), "`, in the common format.")]
                #[inline]
                pub fn $b(self, o: Sdyn) -> Sdyn {
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
            pub fn powi(self, n: i32) -> Sdyn {
                map!(self, x => x.powi(n))
            }
            /// IEEE 754's total order on the values' means.
            #[inline]
            pub fn total_cmp(&self, o: &Sdyn) -> Ordering {
                both_read!(*self, *o, |x, y| x.total_cmp(&y))
            }
            /// `self * a + b`, in the format of the three.
            #[inline]
            pub fn mul_add(self, a: Sdyn, b: Sdyn) -> Sdyn {
                let f = self.f.promote(a.f).promote(b.f);
                let (x, a, b) = (self.to(f), a.to(f), b.to(f));
                at_format!(f, G => Sdyn::of(x.get::<G>().mul_add(a.get::<G>(), b.get::<G>())))
            }
        }
        dyn_math_inherent!(Sdyn; unary: [$($u),*], binary: [$($b),*], queries: [$($q -> $r),*]);
    };
}
with_methods!(sdyn_methods);

/// What only a stochastic value can answer: the estimate of its accuracy.
macro_rules! stochastic_queries {
    ($($q:ident -> $r:ty),*) => {
        impl Sdyn {
            $(
                #[doc = concat!("[`Stochastic`]'s `", stringify!($q), "`.")]
                #[inline]
                pub fn $q(&self) -> $r {
                    read!(*self, x => x.$q())
                }
            )*
        }
        impl<F: Tag, const K: u32> Knob<F, K, Sdyn> {
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

#[macro_use]
mod native;
pub use native::Ndyn;

/// What every value of run-time format has from [`Dyn`]: the arithmetic and two-operand methods
/// of `rt`'s dispatch, sums and products (of the items' format, as those of their static type,
/// which start from its zero or one).
macro_rules! dyn_common {
    ($($V:ty),*) => {$(
        impl Arith for $V {
            #[inline]
            fn fp_add(a: Self, b: Self) -> Self {
                a + b
            }
            #[inline]
            fn fp_sub(a: Self, b: Self) -> Self {
                a - b
            }
            #[inline]
            fn fp_mul(a: Self, b: Self) -> Self {
                a * b
            }
            #[inline]
            fn fp_div(a: Self, b: Self) -> Self {
                a / b
            }
        }

        impl ArithRem for $V {
            #[inline]
            fn fp_rem(a: Self, b: Self) -> Self {
                a % b
            }
        }

        impl std::iter::Sum for $V {
            fn sum<I: Iterator<Item = $V>>(mut iter: I) -> $V {
                let Some(first) = iter.next() else { return <$V>::default() };
                iter.fold(<$V>::zero(first.format()) + first, |acc, x| acc + x)
            }
        }

        impl std::iter::Product for $V {
            fn product<I: Iterator<Item = $V>>(mut iter: I) -> $V {
                let Some(first) = iter.next() else { return <$V>::from_f64(1.0, Fmt::F64) };
                iter.fold(<$V>::from_f64(1.0, first.format()) * first, |acc, x| acc * x)
            }
        }
    )*};
}
dyn_common!(Sdyn, Ndyn);

// ----------------------------------------------------------------------------------------------
// Knobs
// ----------------------------------------------------------------------------------------------

/// The single build's knob type: a knob of unit `K`, declared of format `F`, holding a value of
/// the format the run gives unit `K` ([`FORMATS_ENV`]; `F` when none): stochastic ([`Sdyn`]) in
/// the DSA single build, native ([`Ndyn`]) in the native one.
///
/// A knob keeps its value's [`Dyn::Word`], without the format: that is the unit's, read from
/// the table when the value is. (A knob of the native single build is then 8 bytes, not 16
/// with a tag and padding, and one of the DSA single build its three samples, 24 bytes, not 32:
/// an array of knobs takes the memory of an array of `f64` or of `Sf64`.)
#[repr(transparent)]
pub struct Knob<F, const K: u32, V: Dyn = Sdyn>(V::Word, PhantomData<F>);

impl<F, const K: u32, V: Dyn> Clone for Knob<F, K, V> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<F, const K: u32, V: Dyn> Copy for Knob<F, K, V> {}

impl<F: Tag, const K: u32, V: Dyn> Debug for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Knob").field(&self.get()).finish()
    }
}

impl<F: Tag, const K: u32, V: Dyn> Knob<F, K, V> {
    /// The format of unit `K` in this run.
    #[inline]
    pub fn unit_format() -> Fmt {
        unit_format(K, F::FMT)
    }

    /// A value stored into the knob: rounded to its format.
    #[inline]
    pub fn from_dyn(x: V) -> Self {
        Knob::holding(x.to(Self::unit_format()))
    }

    /// The knob holding `x`, a value of the unit's format.
    #[inline]
    fn holding(x: V) -> Self {
        Knob(if K & CONSTANT == 0 { x.word() } else { x.wide_word() }, PhantomData)
    }

    /// The value.
    #[inline]
    pub fn get(self) -> V {
        if K & CONSTANT == 0 {
            V::from_word(self.0, Self::unit_format())
        } else {
            V::from_wide_word(self.0, Self::unit_format())
        }
    }
}

/// `constant` for each kind of value.
macro_rules! knob_constant {
    ($($V:ty => |$x:ident| $word:expr),*) => {$(
        impl<F, const K: u32> Knob<F, K, $V> {
            /// A knob of a constant unit ([`CONSTANT`]) holding `x`, a `const` or `static`
            /// item's literal: rounded to the unit's format when it is read.
            pub const fn constant($x: f64) -> Self {
                const { assert!(K & CONSTANT != 0, "a literal knob's unit must be a constant unit") };
                Knob($word, PhantomData)
            }
        }
    )*};
}
knob_constant!(Sdyn => |x| [x; 3], Ndyn => |x| x);

impl<F: Tag, const K: u32, V: Dyn> Default for Knob<F, K, V> {
    #[inline]
    fn default() -> Self {
        Knob::holding(V::zero(Self::unit_format()))
    }
}

macro_rules! knob_ops {
    ($($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident);*) => {$(
        impl<F: Tag, const K: u32, V: Dyn> $Op for Knob<F, K, V> {
            type Output = Self;
            #[inline]
            fn $op(self, rhs: Self) -> Self {
                Knob::holding($Op::$op(self.get(), rhs.get()))
            }
        }
        impl<F: Tag, const K: u32, V: Dyn> std::ops::$OpAssign for Knob<F, K, V> {
            #[inline]
            fn $op_assign(&mut self, rhs: Self) {
                *self = Knob::holding($Op::$op(self.get(), rhs.get()));
            }
        }
    )*};
}
knob_ops!(Add, add, AddAssign, add_assign; Sub, sub, SubAssign, sub_assign;
    Mul, mul, MulAssign, mul_assign; Div, div, DivAssign, div_assign; Rem, rem, RemAssign, rem_assign);

impl<F: Tag, const K: u32, V: Dyn> Neg for Knob<F, K, V> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Knob::holding(-self.get())
    }
}

impl<F: Tag, const K: u32, V: Dyn> PartialEq for Knob<F, K, V> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<F: Tag, const K: u32, V: Dyn> PartialOrd for Knob<F, K, V> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.get().partial_cmp(&other.get())
    }
}

impl<F: Tag, const K: u32, V: Dyn> std::fmt::Display for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.get(), f)
    }
}

impl<F: Tag, const K: u32, V: Dyn> std::fmt::LowerExp for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::LowerExp::fmt(&self.get(), f)
    }
}

impl<F: Tag, const K: u32, V: Dyn + std::fmt::UpperExp> std::fmt::UpperExp for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::UpperExp::fmt(&self.get(), f)
    }
}

impl<F: Tag, const K: u32, V: Dyn> Checkable for Knob<F, K, V> {
    fn visit(&self, f: &mut dyn FnMut(crate::check::Record)) {
        self.get().visit(f);
    }
}

impl<F: Tag, const K: u32, V: Dyn> std::iter::Sum for Knob<F, K, V> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |acc, x| acc + x)
    }
}

impl<'a, F: Tag, const K: u32, V: Dyn> std::iter::Sum<&'a Knob<F, K, V>> for Knob<F, K, V> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |acc, x| acc + *x)
    }
}

impl<F: Tag, const K: u32, V: Dyn> std::iter::Product for Knob<F, K, V> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Knob::holding(V::from_f64(1.0, Self::unit_format())), |acc, x| acc * x)
    }
}

impl<'a, F: Tag, const K: u32, V: Dyn> std::iter::Product<&'a Knob<F, K, V>> for Knob<F, K, V> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Knob::holding(V::from_f64(1.0, Self::unit_format())), |acc, x| acc * *x)
    }
}

/// The method set of a knob: its value's, in the knob's format.
macro_rules! knob_methods {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        impl<F: Tag, const K: u32, V: Dyn> Knob<F, K, V> {
            $(
                #[doc = concat!("`", stringify!($u), "`, in the knob's format.")]
                #[inline]
                pub fn $u(self) -> Self {
                    Knob::holding(DynMath::$u(self.get()))
                }
            )*
            $(
                #[doc = concat!("`", stringify!($b), "`, in the knob's format.")]
                #[inline]
                pub fn $b(self, o: Self) -> Self {
                    Knob::holding(DynMath::$b(self.get(), o.get()))
                }
            )*
            $(
                #[doc = concat!("`", stringify!($q), "`.")]
                #[inline]
                pub fn $q(&self) -> $r {
                    DynMath::$q(&self.get())
                }
            )*
            /// `self^n`.
            #[inline]
            pub fn powi(self, n: i32) -> Self {
                Knob::holding(DynMath::powi(self.get(), n))
            }
            /// `self * a + b`.
            #[inline]
            pub fn mul_add(self, a: Self, b: Self) -> Self {
                Knob::holding(DynMath::mul_add(self.get(), a.get(), b.get()))
            }
            /// `(sin(self), cos(self))`.
            #[inline]
            pub fn sin_cos(self) -> (Self, Self) {
                let (s, c) = DynMath::sin_cos(self.get());
                (Knob::holding(s), Knob::holding(c))
            }
            /// IEEE 754's total order.
            #[inline]
            pub fn total_cmp(&self, o: &Self) -> Ordering {
                DynMath::total_cmp(&self.get(), &o.get())
            }
        }
    };
}
with_methods!(knob_methods);

// ----------------------------------------------------------------------------------------------
// The dispatch of `crate::rt` for knobs and run-time-format values
// ----------------------------------------------------------------------------------------------

/// Knobs and values of run-time format as operands: their value.
pub trait Dynamic: Copy {
    /// The value's type.
    type V: Dyn;
    /// The value.
    fn value_dyn(self) -> Self::V;
}

impl<F: Tag, const K: u32, V: Dyn> Dynamic for Knob<F, K, V> {
    type V = V;
    #[inline]
    fn value_dyn(self) -> V {
        self.get()
    }
}

impl<F: Tag, const K: u32, V: Dyn> Scalar for Knob<F, K, V> {}

crate::rt::operand!([F: Tag, const K: u32, V: Dyn] Knob<F, K, V>);
crate::rt::operand_mut!([F: Tag, const K: u32, V: Dyn] Knob<F, K, V>);
crate::rt::item!([F: Tag, const K: u32, V: Dyn] Knob<F, K, V>);

/// `Join` of a run-time-format value or a knob (`$t`) with literals and native floats, both
/// ways, and `CastOperand`.
macro_rules! join_dynamic {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> Join<Lit> for $t {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: Self, b: Lit) -> (Self::Out, Self::Out) {
                let a = a.value_dyn();
                (a, Dyn::lit(b, a.format()))
            }
        }
        impl<$($g)*> Join<$t> for Lit {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: Lit, b: $t) -> (Self::Out, Self::Out) {
                let b = b.value_dyn();
                (Dyn::lit(a, b.format()), b)
            }
        }
        impl<B: Tag, $($g)*> Join<B> for $t {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: Self, b: B) -> (Self::Out, Self::Out) {
                Dyn::meet(a.value_dyn(), Dyn::exact(b))
            }
        }
        impl<A: Tag, $($g)*> Join<$t> for A {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: A, b: $t) -> (Self::Out, Self::Out) {
                Dyn::meet(Dyn::exact(a), b.value_dyn())
            }
        }
        impl<T, $($g)*> CastOperand<T> for $t
        where
            $t: CastAs<T>,
        {
            type Out = T;
            #[inline]
            fn cast_operand(self) -> T {
                self.cast_as()
            }
        }
    )*};
}
join_dynamic!([F: Tag, const K: u32, V: Dyn] Knob<F, K, V>);

/// Everything between a kind of run-time-format value `$V` and the knobs holding it: `Join`s,
/// stores and casts into knobs and into places of type `$V`, stores and casts out.
macro_rules! dyn_value {
    ($($V:ident),*) => {$(
        impl Dynamic for $V {
            type V = $V;
            #[inline]
            fn value_dyn(self) -> $V {
                self
            }
        }
        impl Scalar for $V {}
        crate::rt::operand!([] $V);
        crate::rt::operand_mut!([] $V);
        crate::rt::item!([] $V);
        join_dynamic!([] $V);

        impl Join<$V> for $V {
            type Out = $V;
            #[inline]
            fn join(a: $V, b: $V) -> ($V, $V) {
                Dyn::meet(a, b)
            }
        }
        impl<F: Tag, const K: u32> Join<$V> for Knob<F, K, $V> {
            type Out = $V;
            #[inline]
            fn join(a: Self, b: $V) -> ($V, $V) {
                Dyn::meet(a.get(), b)
            }
        }
        impl<F: Tag, const K: u32> Join<Knob<F, K, $V>> for $V {
            type Out = $V;
            #[inline]
            fn join(a: $V, b: Knob<F, K, $V>) -> ($V, $V) {
                Dyn::meet(a, b.get())
            }
        }
        impl<A: Tag, B: Tag, const K: u32, const L: u32> Join<Knob<B, L, $V>> for Knob<A, K, $V> {
            type Out = $V;
            #[inline]
            fn join(a: Self, b: Knob<B, L, $V>) -> ($V, $V) {
                Dyn::meet(a.get(), b.get())
            }
        }

        // Stores into a knob: rounded to its unit's format.
        impl<A: Tag, B: Tag, const K: u32> Store<Knob<B, K, $V>> for A {
            #[inline]
            fn store(self) -> Knob<B, K, $V> {
                Knob::from_dyn(<$V>::exact(self))
            }
        }
        impl<B: Tag, const K: u32> Store<Knob<B, K, $V>> for Lit {
            #[inline]
            fn store(self) -> Knob<B, K, $V> {
                Knob::holding(<$V>::lit(self, Knob::<B, K, $V>::unit_format()))
            }
        }
        impl<B: Tag, const K: u32> crate::rt::LitLike for Knob<B, K, $V> {
            type Value = Self;
        }
        // An elaborated literal at a knob's place (`Square(lit(1.1, 1.1))`).
        impl<B: Tag, const K: u32> crate::rt::FromLit for Knob<B, K, $V> {
            #[inline]
            fn from_lit(l: Lit) -> Self {
                Store::store(l)
            }
        }
        impl<A: Tag, B: Tag, const K: u32, const L: u32> Store<Knob<B, L, $V>> for Knob<A, K, $V> {
            #[inline]
            fn store(self) -> Knob<B, L, $V> {
                Knob::from_dyn(self.get())
            }
        }
        impl<B: Tag, const K: u32> Store<Knob<B, K, $V>> for $V {
            #[inline]
            fn store(self) -> Knob<B, K, $V> {
                Knob::from_dyn(self)
            }
        }

        // Stores into a place of type `$V`: rounded to the format the place holds (its static
        // type's in the configuration's own build); a new value of the value's own format.
        store_dyn_place!($V; [] $V => |x, f| x.to(f), x);
        store_dyn_place!($V; [F: Tag, const K: u32] Knob<F, K, $V> => |x, f| x.get().to(f), x.get());
        store_dyn_place!($V; [] Lit => |x, f| <$V>::lit(x, f), <$V>::lit(x, Fmt::F64));

        // Out of one into a native place: rounded to nearest, and `as` to a float the same.
        impl<B: Tag> Store<B> for $V {
            #[inline]
            fn store(self) -> B {
                self.store_native()
            }
        }
        impl<B: Tag, F: Tag, const K: u32> Store<B> for Knob<F, K, $V> {
            #[inline]
            fn store(self) -> B {
                self.get().store_native()
            }
        }
        impl<B: Tag> CastAs<B> for $V {
            #[inline]
            fn cast_as(self) -> B {
                self.store_native()
            }
        }
        impl<B: Tag, F: Tag, const K: u32> CastAs<B> for Knob<F, K, $V> {
            #[inline]
            fn cast_as(self) -> B {
                self.get().store_native()
            }
        }

        // Casts into a knob: as stores.
        impl<A: Tag, B: Tag, const K: u32> CastAs<Knob<B, K, $V>> for A {
            #[inline]
            fn cast_as(self) -> Knob<B, K, $V> {
                Knob::from_dyn(<$V>::exact(self))
            }
        }
        impl<B: Tag, const K: u32> CastAs<Knob<B, K, $V>> for $V {
            #[inline]
            fn cast_as(self) -> Knob<B, K, $V> {
                Knob::from_dyn(self)
            }
        }
        impl<A: Tag, B: Tag, const K: u32, const L: u32> CastAs<Knob<B, L, $V>> for Knob<A, K, $V> {
            #[inline]
            fn cast_as(self) -> Knob<B, L, $V> {
                Knob::from_dyn(self.get())
            }
        }
        cast_ints_into_knob!($V; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    )*};
}

/// `Store<$V>` for `$t`: `$new` a new value, `$into` a store into a place of format `$f`.
macro_rules! store_dyn_place {
    ($V:ident; [$($g:tt)*] $t:ty => |$x:ident, $f:ident| $into:expr, $new:expr) => {
        impl<$($g)*> Store<$V> for $t {
            #[inline]
            fn store(self) -> $V {
                let $x = self;
                $new
            }
            #[inline]
            fn store_into(self, place: &mut $V) {
                let ($x, $f) = (self, place.format());
                *place = $into;
            }
        }
    };
}

/// An integer `as` a knob: rounded to nearest into the knob's format (through `f64`).
macro_rules! cast_ints_into_knob {
    ($V:ident; $($i:ty),*) => {$(
        impl<B: Tag, const K: u32> CastAs<Knob<B, K, $V>> for $i {
            #[inline]
            fn cast_as(self) -> Knob<B, K, $V> {
                Knob::holding(<$V>::from_f64(self as f64, Knob::<B, K, $V>::unit_format()))
            }
        }
    )*};
}

/// A value of run-time format (or a knob of it) `as` an integer: as its format's own value
/// (`$read!` binds it).
macro_rules! cast_dyn_to_ints {
    ($read:ident; $([$($g:tt)*] $t:ty),*) => {$(
        cast_dyn_to_ints!(@each $read; [$($g)*] $t; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    )*};
    (@each $read:ident; $g:tt $t:ty; $($i:ty),*) => {$(
        cast_dyn_to_ints!(@one $read; $g $t; $i);
    )*};
    (@one $read:ident; [$($g:tt)*] $t:ty; $i:ty) => {
        impl<$($g)*> CastAs<$i> for $t {
            #[inline]
            fn cast_as(self) -> $i {
                $read!(self.value_dyn(), x => CastAs::<$i>::cast_as(x))
            }
        }
    };
}

dyn_value!(Sdyn, Ndyn);

cast_dyn_to_ints!(read; [] Sdyn, [F: Tag, const K: u32] Knob<F, K, Sdyn>);
cast_dyn_to_ints!(read_native; [] Ndyn, [F: Tag, const K: u32] Knob<F, K, Ndyn>);

// Where kinds of values meet in the DSA single build. Stochastic values of static format
// (`Stochastic<B>`, in code outside the tuned items) meet the run-time ones; and a constant
// unit's knob holds a native value (`Knob<F, { U | CONSTANT }, Ndyn>`), as a `const` of the
// configuration's own stochastic build is a primitive constant: its arithmetic with literals,
// primitives and other constants is native, and where it meets a stochastic value it becomes one
// exactly, as a primitive does.

impl Ndyn {
    /// The value as a stochastic one: exactly, three equal samples of its format (as
    /// `Stochastic::new` makes of a primitive).
    #[inline]
    pub fn stochastic(self) -> Sdyn {
        at_format!(self.f, G => Sdyn::of(Stochastic::new(self.native::<G>())))
    }
}

/// A value of either kind, or a stochastic value of static format, as an [`Sdyn`].
pub trait AsSdyn: Copy {
    /// The value as an `Sdyn` (exactly).
    fn as_sdyn(self) -> Sdyn;
}

impl AsSdyn for Sdyn {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self
    }
}
impl<F: Tag, const K: u32> AsSdyn for Knob<F, K, Sdyn> {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self.get()
    }
}
impl<B: Tag> AsSdyn for Stochastic<B> {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        Sdyn::of(self)
    }
}
impl AsSdyn for Ndyn {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self.stochastic()
    }
}
impl<F: Tag, const K: u32> AsSdyn for Knob<F, K, Ndyn> {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self.get().stochastic()
    }
}

/// `Join`s both ways between `$a` and each `$b`: in their common format ([`Dyn::meet`]), each
/// made an [`Sdyn`] exactly first ([`AsSdyn`]).
macro_rules! sdyn_joins {
    ($a:tt; $($b:tt),*) => {
        $(sdyn_joins!(@pair $a $b);)*
    };
    (@pair [[$($ga:tt)*] $a:ty] [[$($gb:tt)*] $b:ty]) => {
        impl<$($ga)* $($gb)*> Join<$b> for $a {
            type Out = Sdyn;
            #[inline]
            fn join(a: Self, b: $b) -> (Sdyn, Sdyn) {
                Dyn::meet(a.as_sdyn(), b.as_sdyn())
            }
        }
        impl<$($ga)* $($gb)*> Join<$a> for $b {
            type Out = Sdyn;
            #[inline]
            fn join(a: Self, b: $a) -> (Sdyn, Sdyn) {
                Dyn::meet(a.as_sdyn(), b.as_sdyn())
            }
        }
    };
}
sdyn_joins!([[] Ndyn]; [[] Sdyn], [[G: Tag, const L: u32,] Knob<G, L, Sdyn>], [[G: Tag,] Stochastic<G>]);
sdyn_joins!([[F: Tag, const K: u32,] Knob<F, K, Ndyn>]; [[] Sdyn], [[G: Tag, const L: u32,] Knob<G, L, Sdyn>], [[G: Tag,] Stochastic<G>]);
sdyn_joins!([[A: Tag,] Stochastic<A>]; [[] Sdyn], [[G: Tag, const L: u32,] Knob<G, L, Sdyn>]);

/// Stores and casts of each `$t` into a knob of the DSA single build and into a place of type
/// `Sdyn`: made an [`Sdyn`] exactly, then rounded at random to the place's format (as a primitive
/// or a `Stochastic` stored into a stochastic place).
macro_rules! into_sdyn_places {
    ($([[$($g:tt)*] $t:ty]),*) => {$(
        impl<B: Tag, const L: u32, $($g)*> Store<Knob<B, L, Sdyn>> for $t {
            #[inline]
            fn store(self) -> Knob<B, L, Sdyn> {
                Knob::from_dyn(self.as_sdyn())
            }
        }
        impl<B: Tag, const L: u32, $($g)*> CastAs<Knob<B, L, Sdyn>> for $t {
            #[inline]
            fn cast_as(self) -> Knob<B, L, Sdyn> {
                Knob::from_dyn(self.as_sdyn())
            }
        }
        store_dyn_place!(Sdyn; [$($g)*] $t => |x, f| x.as_sdyn().to(f), x.as_sdyn());
    )*};
}
into_sdyn_places!([[] Ndyn], [[F: Tag, const K: u32,] Knob<F, K, Ndyn>], [[A: Tag,] Stochastic<A>]);

/// Out of each `$t` into a stochastic place of static format, and `as` one: the value as an
/// [`Sdyn`], then [`Stochastic::cast`].
macro_rules! into_stochastic {
    ($([[$($g:tt)*] $t:ty]),*) => {$(
        impl<B: Tag, $($g)*> Store<Stochastic<B>> for $t {
            #[inline]
            fn store(self) -> Stochastic<B> {
                self.as_sdyn().cast()
            }
        }
        impl<B: Tag, $($g)*> CastAs<Stochastic<B>> for $t {
            #[inline]
            fn cast_as(self) -> Stochastic<B> {
                self.as_sdyn().cast()
            }
        }
        /// What `impl Into<Stochastic<B>>` arguments take (`m.max(v)`, `x.powf(k)` with `m`
        /// stochastic and `v` a knob): where the configuration's own build compiles, a widening,
        /// which draws nothing, as its `From<Stochastic<A>>`.
        impl<B: Tag, $($g)*> From<$t> for Stochastic<B> {
            #[inline]
            fn from(x: $t) -> Stochastic<B> {
                x.as_sdyn().cast()
            }
        }
    )*};
}
into_stochastic!([[] Sdyn], [[F: Tag, const K: u32,] Knob<F, K, Sdyn>], [[] Ndyn], [[F: Tag, const K: u32,] Knob<F, K, Ndyn>]);

/// A stochastic value (`$s`) stored into a native knob (a `static mut` of a constant unit): its
/// mean rounded to nearest into the unit's format, as into a primitive of the configuration's own
/// stochastic build (the samples are lost).
macro_rules! stochastic_into_native_knob {
    ($([[$($g:tt)*] $s:ty]),*) => {$(
        impl<B: Tag, const L: u32, $($g)*> Store<Knob<B, L, Ndyn>> for $s {
            #[inline]
            fn store(self) -> Knob<B, L, Ndyn> {
                Knob::holding(Ndyn::from_wide_word(self.as_sdyn().mean(), Knob::<B, L, Ndyn>::unit_format()))
            }
        }
    )*};
}
stochastic_into_native_knob!([[] Sdyn], [[G: Tag, const K: u32,] Knob<G, K, Sdyn>], [[G: Tag,] Stochastic<G>]);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stochastic::set_seed;
    use crate::value::{Sf16, Sf32, Sf64};

    #[test]
    fn formats_promote_as_the_static_types_do() {
        use Fmt::*;
        let all = [Bf16, F16, F32, F64];
        for a in all {
            for b in all {
                let p = a.promote(b);
                assert_eq!(p, b.promote(a));
                let expect = match (a, b) {
                    (x, y) if x == y => x,
                    (F64, _) | (_, F64) => F64,
                    _ => F32,
                };
                assert_eq!(p, expect, "{a:?} with {b:?}");
            }
        }
    }

    #[test]
    fn a_native_16_bit_value_prints_its_exponent_form_with_the_callers_flags() {
        let x = <Ndyn as Dyn>::from_f64(5.9604645e-8, Fmt::F16);
        assert_eq!(format!("{:>20.13e}|{:.2E}", x, x), "  5.9604644775391e-8|5.96E-8");
        let y = <Ndyn as Dyn>::from_f64(0.1, Fmt::F64);
        assert_eq!(format!("{:>10.3e}|{:E}", y, y), "  1.000e-1|1E-1");
    }

    #[test]
    fn narrowing_casts_count_their_overflows_and_underflows() {
        use crate::stochastic::{thread_counts, Instability::{Overflow, Underflow}};
        let counted = |f: &dyn Fn()| {
            let before = thread_counts();
            f();
            let after = thread_counts();
            (after[Overflow as usize] - before[Overflow as usize], after[Underflow as usize] - before[Underflow as usize])
        };
        set_seed(3);
        // Beyond binary16's range: every sample infinite or the largest finite value, by its draw.
        assert_eq!(counted(&|| assert!(Sf32::from_f64(1e6).cast::<f16>().samples_f64().iter().any(|s| s.is_infinite()))), (1, 0));
        // Below half its smallest subnormal: zero or that subnormal, by the draw.
        assert_eq!(counted(&|| assert!(Sf64::from_f64(1e-9).cast::<f16>().samples_f64().contains(&0.0))), (0, 1));
        // In range, exact zeros and infinities converted: nothing.
        assert_eq!(counted(&|| { let _ = Sf64::from_f64(3.5e4).cast::<f16>(); }), (0, 0));
        assert_eq!(counted(&|| { let _ = Sf64::from_f64(0.0).cast::<f16>(); }), (0, 0));
        assert_eq!(counted(&|| { let _ = Sf64::from_f64(f64::INFINITY).cast::<f16>(); }), (0, 0));
    }

    #[test]
    fn a_format_holds_what_the_static_types_widen_to_exactly() {
        use Fmt::*;
        fn holds_static(a: Fmt, b: Fmt) -> bool {
            at_format!(a, A => at_format!(b, B => crate::format::holds::<B, A>()))
        }
        for a in [Bf16, F16, F32, F64] {
            for b in [Bf16, F16, F32, F64] {
                assert_eq!(a.holds(b), holds_static(a, b), "{a:?} holds {b:?}");
                // What two formats meet in holds both, so meeting only widens (`Sdyn::to` retags).
                assert!(a.promote(b).holds(a) && a.promote(b).holds(b));
            }
        }
    }

    #[test]
    fn arithmetic_and_casts_draw_as_the_static_types_do() {
        // The same operations on Sdyn and on the static types, from the same seed, give the same
        // bits: the single build follows the configuration's own build.
        set_seed(7);
        let a = Sf32::from_f64(0.1);
        let b = Sf64::from_f64(1.0 / 3.0);
        let h = Sf16::from_f64(0.7);
        let st = {
            let x = a.cast::<f64>() * b;
            let y: Sf16 = x.cast();
            let z = (y + h).cast::<f32>() / a;
            (x, y, z.sqrt())
        };
        set_seed(7);
        let (da, db, dh) = (Sdyn::of(Sf32::from_f64(0.1)), Sdyn::of(Sf64::from_f64(1.0 / 3.0)), Sdyn::of(Sf16::from_f64(0.7)));
        let x = da * db;
        let y = x.to(Fmt::F16);
        let z = ((y + dh).to(Fmt::F32) / da).sqrt();
        assert_eq!(x.samples_f64(), st.0.samples_f64());
        assert_eq!(y.samples_f64(), st.1.samples_f64());
        assert_eq!(z.samples_f64(), st.2.samples_f64());
        assert_eq!(z.format(), Fmt::F32);
    }

    #[test]
    fn knobs_take_their_units_formats_and_inferred_places_keep_theirs() {
        // The only test that sets the table: units 0 and 1 lowered, the rest declared.
        // SAFETY: no other test of this binary uses a knob.
        unsafe { set_formats("f32,f16") }.expect("a valid list");
        type K0 = Knob<f64, 0>;
        type K1 = Knob<f64, 1>;
        type K5 = Knob<f32, 5>;
        let a: K0 = Lit::new(0.1, 0.1).store();
        let b: K1 = Lit::new(0.1, 0.1).store();
        let c: K5 = 3.0f64.store();
        assert_eq!((a.get().format(), b.get().format(), c.get().format()), (Fmt::F32, Fmt::F16, Fmt::F32));
        assert_eq!(a.get().samples_f64(), Sf32::from_f64(0.1).samples_f64());
        assert_eq!(b.get().samples_f64(), Sf16::from_f64(0.1).samples_f64());
        // binary16 with binary32 meets in binary32; a literal takes the knob's format.
        let (x, y) = <K1 as Join<K0>>::join(b, a);
        assert_eq!((x.format(), y.format()), (Fmt::F32, Fmt::F32));
        let (x, l) = <K1 as Join<Lit>>::join(b, Lit::new(2.0, 2.0));
        assert_eq!((x.format(), l.format()), (Fmt::F16, Fmt::F16));
        // A place of run-time format keeps its format: an f16 place given an f64 value.
        let mut place = b.get();
        Sdyn::of(Sf64::from_f64(1.0 / 3.0)).store_into(&mut place);
        assert_eq!(place.format(), Fmt::F16);
        for x in place.samples_f64() {
            assert_eq!(f64::from(half::f16::from_f64(x)), x, "{x} is a binary16 value");
            assert!((x - 1.0 / 3.0).abs() < 1e-3, "{x}");
        }
        // Stored into a knob, a value takes the knob's format whatever it had.
        let back: K0 = place.store();
        assert_eq!(back.get().format(), Fmt::F32);

        // Constant units: a literal written before the format is known is read rounded to
        // nearest into the unit's, as the compiler rounds a constant of that format; unit 1
        // (binary16) as a constant unit of either kind of value, unit 7 keeping its declared
        // binary64.
        type C1 = Knob<f64, { 1 | CONSTANT }, Ndyn>;
        type S1 = Knob<f64, { 1 | CONSTANT }, Sdyn>;
        type C7 = Knob<f64, { 7 | CONSTANT }, Ndyn>;
        const TENTH: C1 = C1::constant(0.1);
        const THIRD: C7 = C7::constant(1.0 / 3.0);
        static TENTHS: [S1; 2] = [S1::constant(0.1), S1::constant(-0.1)];
        assert_eq!(C1::unit_format(), Fmt::F16);
        let t = TENTH.get();
        assert_eq!((t.format(), t.value_f64()), (Fmt::F16, f64::from(half::f16::from_f64(0.1))));
        assert_eq!(THIRD.get().value_f64(), 1.0 / 3.0);
        assert_eq!(TENTHS[0].get().samples_f64(), Sf16::from_f64(0.1).samples_f64());
        assert_eq!(TENTHS[1].get().samples_f64(), Sf16::from_f64(-0.1).samples_f64());
        // With a literal or another constant, a native constant computes natively, as the
        // primitive constants of a configuration's own stochastic build do.
        let (x, l) = <C1 as Join<Lit>>::join(TENTH, Lit::new(10.0, 10.0));
        let product = x * l;
        let primitive = 10.0f32 * f32::from(half::f16::from_f64(0.1));
        assert_eq!(product.value_f64(), f64::from(half::f16::from_f32(primitive)));
        // With a stochastic value it becomes one exactly, as a primitive does: the same draws as
        // `f16 * Sf64`.
        set_seed(11);
        let stochastic_b = Sf64::from_f64(1.0 / 3.0);
        let want = <half::f16 as Join<Sf64>>::join(half::f16::from_f64(0.1), stochastic_b);
        let want = want.0 * want.1;
        set_seed(11);
        let (p, q) = <C1 as Join<Sdyn>>::join(TENTH, Sdyn::of(Sf64::from_f64(1.0 / 3.0)));
        let got = p * q;
        assert_eq!((got.format(), got.samples_f64()), (Fmt::F64, want.samples_f64()));
        // Held by a constant unit's knob, a computed value reads back as it was.
        let held = C1::from_dyn(product);
        assert_eq!(held.get().value_f64(), product.value_f64());
        let stored: Knob<f32, 0> = TENTH.store();
        assert_eq!(stored.get().samples_f64(), [f64::from(half::f16::from_f64(0.1)); 3]);
        // A stochastic value stored into a constant unit's knob (a `static mut`): its mean,
        // rounded to nearest into the unit's format, as into a primitive `f16`.
        let third = Sdyn::of(Sf64::from_samples([0.33325, 0.33337, 0.3333]));
        let into: C1 = third.store();
        let want: half::f16 = third.cast::<f64>().store();
        assert_eq!((into.get().format(), into.get().value_f64()), (Fmt::F16, f64::from(want)));
    }

    #[test]
    fn bad_format_lists_are_refused_with_the_unit() {
        // SAFETY: a list refused writes nothing.
        assert!(unsafe { set_formats("f64,f33") }.expect_err("f33 is no format").contains("unit 1"));
    }
}

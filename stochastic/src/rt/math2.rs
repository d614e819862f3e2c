//! Two-operand math methods (`Math2`: `powf`, `atan2`, `min`, ...) between floats of any kinds, in
//! their common format.

use super::*;

/// Writes [`Math2`] and its implementations from the two-operand methods of the `f64` method set
/// ([`crate::methods::f64_methods!`]): for the float kinds `$types`, each method is the kind's own
/// of that name; for the 16-bit formats `$halves`, `HalfMath`'s (see `half_math2!`).
macro_rules! math2 {
    ($types:tt $halves:tt; unary: $u:tt, binary: [$($b:ident),*], queries: $q:tt) => {
        /// The two-operand methods of `f64`'s set, on the types two float operands meet in:
        /// `x.powf(y)` with `x` and `y` of different formats is computed in the common one, like
        /// `x + y`, and a literal (or `1.0 / (n as f64)`) argument adapts to the receiver, so
        /// lowering a receiver does not pin it to its argument's format.
        pub trait Math2: Sized {
            $(
                #[doc(hidden)]
                fn $b(a: Self, b: Self) -> Self;
            )*
        }
        math2_impls!([$($b),*] $types $halves);
    };
}

macro_rules! math2_impls {
    ($bs:tt [$([$($g:tt)*] $t:ty),* $(,)?] [$($h:ident),*]) => {
        $(math2_impl!($bs [$($g)*] $t);)*
        $(math2_half!($bs $h);)*
    };
}

macro_rules! math2_impl {
    ([$($b:ident),*] [$($g:tt)*] $t:ty) => {
        impl<$($g)*> Math2 for $t {
            $(
                #[inline(always)]
                fn $b(a: Self, b: Self) -> Self { a.$b(b) }
            )*
        }
    };
}

macro_rules! math2_half {
    ([$($b:ident),*] $h:ident) => {
        impl Math2 for $h {
            $(
                #[inline(always)]
                fn $b(a: Self, b: Self) -> Self { half_math2!($h, $b, a, b) }
            )*
        }
    };
}

/// A two-operand method of a 16-bit format: `HalfMath`'s (computed in `f32`, even where `half`
/// has a method of that name: its `copysign` works on the bits), but `half`'s own `min` and
/// `max`, which `HalfMath` leaves to it.
macro_rules! half_math2 {
    ($h:ident, min, $a:ident, $b:ident) => { <$h>::min($a, $b) };
    ($h:ident, max, $a:ident, $b:ident) => { <$h>::max($a, $b) };
    ($h:ident, $m:ident, $a:ident, $b:ident) => { HalfMath::$m($a, $b) };
}

crate::methods::f64_methods!(math2; [
    [] f64,
    [] f32,
    [F: Format] Stochastic<F>,
    [F: Format, K: crate::rt::Ids] Probe<F, K>,
    [const E: u32, const M: u32, const FLAGS: u32] crate::Fx<E, M, FLAGS>,
    // The single build's values of run-time format.
    [] crate::knob::DynStochastic,
    [] crate::knob::DynNative,
    [F: crate::knob::Tag, const K: u32, V: crate::knob::DynFloat] crate::knob::Knob<F, K, V>,
] [f16, bf16]);

// The dispatch traits the expansion calls, by the names `fptune-macros` gives the two-operand
// methods (`TWO_OPERAND_METHODS` in its `expand/rewrite/operators.rs`): the same eight as `f64_methods!`'s.
float_pair!(FloatPowf, __fp_powf, Math2, powf);
float_pair!(FloatAtan2, __fp_atan2, Math2, atan2);
float_pair!(FloatHypot, __fp_hypot, Math2, hypot);
float_pair!(FloatMin, __fp_min, Math2, min);
float_pair!(FloatMax, __fp_max, Math2, max);
float_pair!(FloatCopysign, __fp_copysign, Math2, copysign);
float_pair!(FloatRemEuclid, __fp_rem_euclid, Math2, rem_euclid);
float_pair!(FloatDivEuclid, __fp_div_euclid, Math2, div_euclid);

macro_rules! ord_method {
    ($Std:ident, $m:ident, $ord:ident) => {
        /// `min`/`max` of any other operands (integers, say): [`Ord`]'s.
        pub trait $Std {
            /// Result type.
            type Out;
            /// The method.
            fn $m(&self) -> Self::Out;
        }
        impl<A: Ord> $Std for Pair<A, A> {
            type Out = A;
            #[inline(always)]
            fn $m(&self) -> A {
                let (a, b) = self.take();
                Ord::$ord(a, b)
            }
        }
    };
}

ord_method!(StdMin, __fp_min, min);
ord_method!(StdMax, __fp_max, max);

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16-bit formats' two-operand methods are `HalfMath`'s (through `f32`), but `min` and
    /// `max` `half`'s own, whatever methods of those names `half` has (its `copysign` keeps a
    /// NaN's payload, `f32`'s conversion quiets it).
    #[test]
    fn sixteen_bit_methods_are_half_maths() {
        let snan = f16::from_bits(0x7d01);
        let one = f16::from_bits(0x3c00);
        assert_eq!(<f16 as Math2>::copysign(snan, one).to_bits(), HalfMath::copysign(snan, one).to_bits());
        assert_ne!(f16::copysign(snan, one).to_bits(), HalfMath::copysign(snan, one).to_bits());
        let (a, b) = (f16::from_f32(1.5), f16::from_f32(-2.25));
        assert_eq!(<f16 as Math2>::powf(a, one).to_bits(), HalfMath::powf(a, one).to_bits());
        assert_eq!(<f16 as Math2>::min(a, b), f16::min(a, b));
        assert_eq!(<bf16 as Math2>::max(bf16::from_f32(1.5), bf16::from_f32(2.0)), bf16::from_f32(2.0));
        assert_eq!(<f64 as Math2>::hypot(3.0, 4.0), 5.0);
    }
}

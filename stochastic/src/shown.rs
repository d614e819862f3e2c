//! What a formatting macro in tuned code formats: each value argument of `print!`, `println!`,
//! `eprint!`, `eprintln!`, `format!`, `write!` and `writeln!` in an item marked
//! `#[fptune::tune]` is passed as `Shown(&value)`, which formats as the value does, flags and all.
//!
//! It exists for the 16-bit formats: `half`'s `f16` and `bf16` write `{:e}` and `{:E}` without the
//! caller's width, fill, sign or precision (half 2.7, `write!(f, "{:e}", self.to_f32())`), so a
//! knob lowered to binary16 and printed with `{:>20.13e}` would change the program's layout, not
//! only its digits. `Shown` formats such a value as its `f32` (which holds it exactly) with the
//! caller's flags, as every other trait of both types does already. The value's type is read at
//! run time (its type id), so a generic function's `T` instantiated at `f16` is formatted alike.

use core::fmt;

/// A formatted argument (see the module's documentation).
pub struct Shown<'a, T: ?Sized>(pub &'a T);

/// The value as an `f32` when it is a 16-bit float (or a reference to one), whose own `{:e}`
/// drops the caller's flags.
fn as_half<T: ?Sized>(v: &T) -> Option<f32> {
    let id = typeid::of::<T>();
    macro_rules! half {
        ($($t:ty => |$x:ident| $e:expr),* $(,)?) => {$(
            if id == typeid::of::<$t>() {
                // SAFETY: `T` is `$t` (the same type id), a sized type.
                let $x = unsafe { &*(v as *const T).cast::<$t>() };
                return Some($e);
            }
        )*};
    }
    half!(
        crate::f16 => |x| x.to_f32(),
        crate::bf16 => |x| x.to_f32(),
        &crate::f16 => |x| x.to_f32(),
        &crate::bf16 => |x| x.to_f32(),
        &mut crate::f16 => |x| x.to_f32(),
        &mut crate::bf16 => |x| x.to_f32(),
    );
    None
}

macro_rules! forward {
    ($($tr:ident),*) => {$(
        impl<T: fmt::$tr + ?Sized> fmt::$tr for Shown<'_, T> {
            #[inline]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::$tr::fmt(self.0, f)
            }
        }
    )*};
}

forward!(Display, Debug, LowerHex, UpperHex, Octal, Binary, Pointer);

macro_rules! exponent {
    ($($tr:ident),*) => {$(
        impl<T: fmt::$tr + ?Sized> fmt::$tr for Shown<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match as_half(self.0) {
                    Some(x) => fmt::$tr::fmt(&x, f),
                    None => fmt::$tr::fmt(self.0, f),
                }
            }
        }
    )*};
}

exponent!(LowerExp, UpperExp);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bf16, f16};

    #[test]
    fn sixteen_bit_values_take_the_callers_width_and_precision() {
        let x = f16::from_f64(5.9604645e-8);
        // What `half` itself writes: no padding, no precision.
        assert_eq!(format!("{:>20.13e}|", x), "5.9604645e-8|");
        assert_eq!(format!("{:>20.13e}|", Shown(&x)), "  5.9604644775391e-8|");
        assert_eq!(format!("{:+.2E}", Shown(&x)), "+5.96E-8");
        assert_eq!(format!("{:10.1e}", Shown(&&x)), "    6.0e-8");
        let y = bf16::from_f32(3.0);
        assert_eq!(format!("{:<8.3e}|", Shown(&y)), "3.000e0 |");
    }

    #[test]
    fn every_other_value_formats_as_it_would() {
        let v = 1.0f64 / 3.0;
        for (shown, plain) in [
            (format!("{:>20.13e}", Shown(&v)), format!("{:>20.13e}", v)),
            (format!("{:?}", Shown(&v)), format!("{:?}", v)),
            (format!("{:8.3}", Shown(&v)), format!("{:8.3}", v)),
            (format!("{:#x}", Shown(&255u32)), format!("{:#x}", 255u32)),
            (format!("{:>6}", Shown("ab")), format!("{:>6}", "ab")),
            (format!("{}", Shown(&f16::from_f32(0.1))), format!("{}", f16::from_f32(0.1))),
        ] {
            assert_eq!(shown, plain);
        }
    }

    #[test]
    fn a_generic_functions_half_is_seen_at_run_time() {
        fn show<T: fmt::LowerExp>(t: T) -> String {
            format!("{:9.2e}", Shown(&t))
        }
        assert_eq!(show(f16::from_f32(1.5)), "   1.50e0");
        assert_eq!(show(1.5f32), "   1.50e0");
    }
}

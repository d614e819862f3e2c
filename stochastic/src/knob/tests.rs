//! Unit tests of the single build: formats, knobs, values of run-time format and where they meet.

use super::*;
use crate::stochastic::set_seed;
use crate::value::{Sf16, Sf32, Sf64};

#[test]
fn formats_promote_as_the_static_types_do() {
    use FloatFormat::*;
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
    let x = <DynNative as DynFloat>::from_f64(5.9604645e-8, FloatFormat::F16);
    assert_eq!(format!("{:>20.13e}|{:.2E}", x, x), "  5.9604644775391e-8|5.96E-8");
    let y = <DynNative as DynFloat>::from_f64(0.1, FloatFormat::F64);
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
    use FloatFormat::*;
    fn holds_static(a: FloatFormat, b: FloatFormat) -> bool {
        at_format!(a, A => at_format!(b, B => crate::format::holds::<B, A>()))
    }
    for a in [Bf16, F16, F32, F64] {
        for b in [Bf16, F16, F32, F64] {
            assert_eq!(a.holds(b), holds_static(a, b), "{a:?} holds {b:?}");
            // What two formats meet in holds both, so meeting only widens (`DynStochastic::to` retags).
            assert!(a.promote(b).holds(a) && a.promote(b).holds(b));
        }
    }
}

#[test]
fn arithmetic_and_casts_draw_as_the_static_types_do() {
    // The same operations on DynStochastic and on the static types, from the same seed, give the same
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
    let (da, db, dh) = (DynStochastic::of(Sf32::from_f64(0.1)), DynStochastic::of(Sf64::from_f64(1.0 / 3.0)), DynStochastic::of(Sf16::from_f64(0.7)));
    let x = da * db;
    let y = x.to(FloatFormat::F16);
    let z = ((y + dh).to(FloatFormat::F32) / da).sqrt();
    assert_eq!(x.samples_f64(), st.0.samples_f64());
    assert_eq!(y.samples_f64(), st.1.samples_f64());
    assert_eq!(z.samples_f64(), st.2.samples_f64());
    assert_eq!(z.format(), FloatFormat::F32);
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
    assert_eq!((a.get().format(), b.get().format(), c.get().format()), (FloatFormat::F32, FloatFormat::F16, FloatFormat::F32));
    assert_eq!(a.get().samples_f64(), Sf32::from_f64(0.1).samples_f64());
    assert_eq!(b.get().samples_f64(), Sf16::from_f64(0.1).samples_f64());
    // binary16 with binary32 meets in binary32; a literal takes the knob's format.
    let (x, y) = <K1 as Join<K0>>::join(b, a);
    assert_eq!((x.format(), y.format()), (FloatFormat::F32, FloatFormat::F32));
    let (x, l) = <K1 as Join<Lit>>::join(b, Lit::new(2.0, 2.0));
    assert_eq!((x.get().format(), l.get().format()), (FloatFormat::F16, FloatFormat::F16));
    // A place of run-time format keeps its format: an f16 place given an f64 value.
    let mut place = b.get();
    DynStochastic::of(Sf64::from_f64(1.0 / 3.0)).store_into(&mut place);
    assert_eq!(place.format(), FloatFormat::F16);
    for x in place.samples_f64() {
        assert_eq!(f64::from(half::f16::from_f64(x)), x, "{x} is a binary16 value");
        assert!((x - 1.0 / 3.0).abs() < 1e-3, "{x}");
    }
    // Stored into a knob, a value takes the knob's format whatever it had.
    let back: K0 = place.store();
    assert_eq!(back.get().format(), FloatFormat::F32);

    // Constant units: a literal written before the format is known is read rounded to
    // nearest into the unit's, as the compiler rounds a constant of that format; unit 1
    // (binary16) as a constant unit of either kind of value, unit 7 keeping its declared
    // binary64.
    type C1 = Knob<f64, { 1 | CONSTANT }, DynNative>;
    type S1 = Knob<f64, { 1 | CONSTANT }, DynStochastic>;
    type C7 = Knob<f64, { 7 | CONSTANT }, DynNative>;
    const TENTH: C1 = C1::constant(0.1);
    const THIRD: C7 = C7::constant(1.0 / 3.0);
    static TENTHS: [S1; 2] = [S1::constant(0.1), S1::constant(-0.1)];
    assert_eq!(C1::unit_format(), FloatFormat::F16);
    let t = TENTH.get();
    assert_eq!((t.format(), t.value_f64()), (FloatFormat::F16, f64::from(half::f16::from_f64(0.1))));
    assert_eq!(THIRD.get().value_f64(), 1.0 / 3.0);
    assert_eq!(TENTHS[0].get().samples_f64(), Sf16::from_f64(0.1).samples_f64());
    assert_eq!(TENTHS[1].get().samples_f64(), Sf16::from_f64(-0.1).samples_f64());
    // With a literal or another constant, a native constant computes natively, as the
    // primitive constants of a configuration's own stochastic build do.
    let (x, l) = <C1 as Join<Lit>>::join(TENTH, Lit::new(10.0, 10.0));
    // (Meeting a literal, a knob keeps its type: the product is the unit's.)
    let product = (x * l).get();
    let primitive = 10.0f32 * f32::from(half::f16::from_f64(0.1));
    assert_eq!(product.value_f64(), f64::from(half::f16::from_f32(primitive)));
    // With a stochastic value it becomes one exactly, as a primitive does: the same draws as
    // `f16 * Sf64`.
    set_seed(11);
    let stochastic_b = Sf64::from_f64(1.0 / 3.0);
    let want = <half::f16 as Join<Sf64>>::join(half::f16::from_f64(0.1), stochastic_b);
    let want = want.0 * want.1;
    set_seed(11);
    let (p, q) = <C1 as Join<DynStochastic>>::join(TENTH, DynStochastic::of(Sf64::from_f64(1.0 / 3.0)));
    let got = p * q;
    assert_eq!((got.format(), got.samples_f64()), (FloatFormat::F64, want.samples_f64()));
    // Held by a constant unit's knob, a computed value reads back as it was.
    let held = C1::from_dyn(product);
    assert_eq!(held.get().value_f64(), product.value_f64());
    let stored: Knob<f32, 0> = TENTH.store();
    assert_eq!(stored.get().samples_f64(), [f64::from(half::f16::from_f64(0.1)); 3]);
    // A stochastic value stored into a constant unit's knob (a `static mut`): its mean,
    // rounded to nearest into the unit's format, as into a primitive `f16`.
    let third = DynStochastic::of(Sf64::from_samples([0.33325, 0.33337, 0.3333]));
    let into: C1 = third.store();
    let want: half::f16 = third.cast::<f64>().store();
    assert_eq!((into.get().format(), into.get().value_f64()), (FloatFormat::F16, f64::from(want)));

    // `fptune::dot` on knobs (binary16 operands, a binary32 accumulator) draws what it draws on
    // the configuration's static types: the accumulator's loop, with the same random roundings.
    let xs: Vec<f64> = (0..40).map(|i| ((i * 7919) % 97) as f64 / 97.0 - 0.4).collect();
    set_seed(11);
    let ka: Vec<K1> = xs.iter().map(|&x| x.store()).collect();
    let kb: Vec<K1> = xs.iter().rev().map(|&x| x.store()).collect();
    let kc: K0 = 0.25f64.store();
    let on_knobs = crate::dot(&ka, &kb, kc).get().samples_f64();
    set_seed(11);
    let sa: Vec<Sf16> = xs.iter().map(|&x| Sf64::from_f64(x).cast()).collect();
    let sb: Vec<Sf16> = xs.iter().rev().map(|&x| Sf64::from_f64(x).cast()).collect();
    let sc: Sf32 = Sf64::from_f64(0.25).cast();
    assert_eq!(on_knobs, crate::dot(&sa, &sb, sc).samples_f64());
}

#[test]
fn bad_format_lists_are_refused_with_the_unit() {
    // SAFETY: a list refused writes nothing.
    assert!(unsafe { set_formats("f64,f33") }.expect_err("f33 is no format").contains("unit 1"));
}

#[test]
fn a_knob_parses_a_number_into_its_units_format() {
    // A unit not set in this run has its declared format: `f64` and `f32` parse natively.
    type K64 = Knob<f64, 41, DynNative>;
    type K32 = Knob<f32, 42, DynNative>;
    let a: K64 = "0.1".parse().expect("a number");
    assert_eq!(a.get().store_native::<f64>(), 0.1f64);
    let b: K32 = "0.1".parse().expect("a number");
    assert_eq!(b.get().store_native::<f32>(), 0.1f32);
    assert!("x".parse::<K64>().is_err());
}

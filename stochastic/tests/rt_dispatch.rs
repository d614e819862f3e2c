//! The dispatch `#[fptune::tune]` expands to, written by hand: floats of different formats meet in
//! the wider one, literals adapt, stores round, and everything else keeps its own operators.
// `(&&pair(..)).__fp_add()` is the autoref specialisation's probe, written as the macro writes it:
// without the borrows a call may find another trait's method, so they are not needless here.
#![allow(clippy::needless_borrow)]

use fptune::__rt as rt;
use rt::{prelude::*, Lit};
use fptune::{bf16, f16, Sf32, Sf64};

macro_rules! add {
    ($a:expr, $b:expr) => {
        (&&rt::pair($a, $b)).__fp_add()
    };
}
macro_rules! mul {
    ($a:expr, $b:expr) => {
        (&&rt::pair($a, $b)).__fp_mul()
    };
}
macro_rules! store {
    ($e:expr) => {
        (&&rt::src($e)).__fp_store()
    };
}

fn type_name<T>(_: &T) -> &'static str {
    std::any::type_name::<T>()
}

#[test]
fn two_formats_compute_in_the_wider_one() {
    let a: f32 = 0.1;
    let b: f64 = 0.2;
    let c = add!(a, b);
    assert_eq!(type_name(&c), "f64");
    assert_eq!(c, f64::from(a) + b);
    let h = f16::from_f64(0.1);
    let d = mul!(h, a);
    assert_eq!(type_name(&d), "f32");
    assert_eq!(d, h.to_f32() * a);
    let e = add!(h, bf16::from_f64(0.3));
    assert_eq!(type_name(&e), "f32", "binary16 with bfloat16 meets in binary32");
}

#[test]
fn a_literal_takes_the_other_operands_format() {
    let h = f16::from_f64(1.0);
    let r = add!(h, Lit::new(0.1, 0.1));
    assert_eq!(type_name(&r), "half::binary16::f16");
    assert_eq!(r, h + f16::from_f64(0.1));
    let s: f32 = 1.0;
    // 0.1f32 directly, not 0.1f64 rounded again.
    assert_eq!(mul!(s, Lit::new(0.1, 0.1)), 0.1f32);
}

#[test]
fn an_unannotated_float_falls_back_to_f64() {
    let mut s = 0.0;
    for x in [1.5f64, 2.25] {
        s = add!(s, x);
    }
    assert_eq!(type_name(&s), "f64");
    assert_eq!(s, 3.75);
}

#[test]
fn integers_user_types_and_strings_keep_their_operators() {
    let n = add!(2usize, 3);
    assert_eq!(n, 5usize);
    let s = add!(String::from("a"), "b");
    assert_eq!(s, "ab");
    #[derive(Debug, PartialEq)]
    struct V(Vec<f64>);
    impl std::ops::Mul<f64> for V {
        type Output = V;
        fn mul(self, k: f64) -> V {
            V(self.0.into_iter().map(|x| x * k).collect())
        }
    }
    assert_eq!(mul!(V(vec![1.0, 2.0]), 2.0), V(vec![2.0, 4.0]));
    fn generic<T: std::ops::Add<Output = T>>(a: T, b: T) -> T {
        add!(a, b)
    }
    assert_eq!(generic(1u8, 2u8), 3);
}

#[test]
fn stochastic_and_native_operands_meet_as_stochastic_in_the_wider_format() {
    fptune::stochastic::set_seed(3);
    let x = Sf32::from(1.0f64);
    let y: f64 = 0.1;
    let z = add!(x, y);
    assert_eq!(type_name(&z), "fptune::value::Stochastic<f64>");
    assert!(z.digits() > 15.0);
    let w = mul!(Lit::new(2.0, 2.0), x);
    assert_eq!(type_name(&w), "fptune::value::Stochastic<f32>");
}

#[test]
fn stores_round_to_the_places_format() {
    let x: f64 = 0.1;
    let y: f32 = store!(x);
    assert_eq!(y, 0.1f32);
    let v: Vec<f32> = store!(vec![0.1f64, 0.2]);
    assert_eq!(v, vec![0.1f32, 0.2]);
    let a: [f16; 2] = store!([1.0f64, 3.0]);
    assert_eq!(a, [f16::from_f64(1.0), f16::from_f64(3.0)]);
    let same: Vec<usize> = store!(vec![1usize, 2]);
    assert_eq!(same, vec![1, 2]);
    let s: Sf32 = store!(Sf64::from(1.0f64) / Sf64::from(3.0f64));
    assert!(s.digits() > 6.5);
}

#[test]
fn compound_assignment_computes_wide_and_stores_narrow() {
    let mut acc: f32 = 1.0;
    let place = &mut acc;
    (&&rt::types(&*place, &1e-8f64)).__fp_compound().add_assign(place, 1e-8f64);
    assert_eq!(acc, 1.0f32, "1 + 1e-8 rounds back to 1 in binary32");
    let mut n = 1usize;
    let place = &mut n;
    (&&rt::types(&*place, &2usize)).__fp_compound().add_assign(place, 2usize);
    assert_eq!(n, 3);
}

#[test]
fn casts_from_integers_adapt_and_casts_between_floats_are_what_was_written() {
    let i = 3usize;
    let h = f16::from_f64(0.5);
    let r = mul!(h, rt::cast_operand::<f64, _>(i));
    assert_eq!(type_name(&r), "half::binary16::f16");
    let x: f32 = 0.1;
    let wide = rt::cast_operand::<f64, _>(x);
    assert_eq!(type_name(&wide), "f64");
    let n: usize = rt::cast::<usize, _>(2.7f64);
    assert_eq!(n, 2);
    let t: f64 = rt::cast::<f64, _>(h);
    assert_eq!(t, 0.5);
}

#[test]
fn a_sum_of_binary16_values_rounds_every_step_in_binary16() {
    let v = [f16::from_f64(1.0), f16::from_f64(0.0004), f16::from_f64(0.0004)];
    let s = (&&rt::fold(v.iter())).__fp_sum();
    // 1 + 0.0004 is 1 in binary16 (ulp 2^-10), twice.
    assert_eq!(s, f16::from_f64(1.0));
    let n: usize = (&&rt::fold([1usize, 2, 3].iter())).__fp_sum();
    assert_eq!(n, 6);
}

#[test]
fn buffers_of_different_formats_copy_and_swap() {
    let mut dst = vec![0.0f32; 2];
    let src = [0.1f64, 0.2];
    (&&rt::pair(&mut dst[..], &src[..])).__fp_copy_from_slice();
    assert_eq!(dst, vec![0.1f32, 0.2]);
    let mut a = vec![1.0f64, 2.0];
    let mut b = vec![0.5f32];
    rt::swap(&mut a, &mut b);
    assert_eq!(a, vec![0.5]);
    assert_eq!(b, vec![1.0f32, 2.0]);
    let mut p = vec![1usize];
    let mut q = vec![2usize];
    rt::swap(&mut p, &mut q);
    assert_eq!((p[0], q[0]), (2, 1));
}

#[test]
fn comparisons_meet_in_the_common_format() {
    let a: f32 = 0.1;
    let b: f64 = 0.1;
    assert!((&&rt::pair(&a, &b)).__fp_gt(), "0.1f32 > 0.1f64");
    assert!((&&rt::pair(&1usize, &2usize)).__fp_lt());
    assert!((&&rt::pair("a", "a")).__fp_eq());
}

//! `#[fptune::tune]` in an ordinary build: mixed precision type-checks and follows DESIGN.md's
//! semantics.
// The stochastic build maps every float type to its stochastic type: these are native semantics.
#![cfg(not(feature = "stochastic"))]

use fptune::f16;

#[fptune::tune]
mod kernel {
    use fptune::f16;

    pub fn mixed(x: f64) -> f64 {
        #[tune] let a: f32 = x;
        #[tune] let b: f16 = 0.1;
        let c = a * b + 1.0;
        let mut s = 0.0;
        for i in 0..3 {
            s += c * (i as f64);
        }
        s
    }

    pub fn det(n: usize) -> f64 {
        #[tune] let mut h: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| 1.0 / ((i + j + 1) as f64)).collect())
            .collect();
        #[tune] let mut d: f32 = 1.0;
        for k in 0..n {
            let p = h[k][k];
            d *= p;
            for i in k + 1..n {
                let f = h[i][k] / p;
                for j in k + 1..n {
                    h[i][j] -= f * h[k][j];
                }
            }
        }
        fptune::check!(d);
        d
    }

    pub fn dot(#[tune] x: &[f32], y: &[f64]) -> f64 {
        x.iter().zip(y).map(|(a, b)| *a * *b).sum()
    }

    pub struct Point {
        #[tune] pub x: f32,
        pub y: f64,
    }

    impl Point {
        pub fn norm(&self) -> f64 {
            (self.x * self.x + self.y * self.y).sqrt()
        }
    }

    pub fn point(v: f64) -> Point {
        Point { x: v, y: v }
    }
}

#[test]
fn mixed_precision_computes_in_the_wider_format() {
    let a = 0.3f64 as f32;
    let b = f16::from_f64(0.1);
    // a * b + 1.0 is binary32 (f16 widens, the literal adapts); `c * (i as f64)` too (an integer
    // cast adapts); the unannotated accumulator is f64.
    let c = a * b.to_f32() + 1.0f32;
    let want = 0.0 + f64::from(c * 0.0) + f64::from(c * 1.0) + f64::from(c * 2.0);
    assert_eq!(kernel::mixed(0.3), want);
}

#[test]
fn a_lowered_determinant_is_computed_and_checked() {
    let d = kernel::det(3);
    assert!((d - 1.0 / 2160.0).abs() < 1e-9, "{d}");
}

#[test]
fn slices_structs_and_methods_work() {
    assert_eq!(kernel::dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
    let p = kernel::point(3.0);
    assert_eq!(p.x, 3.0f32);
    assert!((p.norm() - 18f64.sqrt()).abs() < 1e-12);
}

#[fptune::tune]
mod constructors {
    pub fn filled(n: usize) -> Vec<f32> {
        #[tune]
        let mut w: Vec<f64> = Vec::new();
        #[tune]
        let mut v: Vec<f64> = Vec::with_capacity(n);
        for i in 0..n {
            w.push(i as f64);
            v.push(0.5);
        }
        #[tune]
        let lits: [fptune::f16; 2] = [0.1, 0.2];
        let _ = lits;
        w.iter().zip(&v).map(|(a, b)| (a * b) as f32).collect()
    }
}

#[test]
fn constructors_take_the_annotated_type() {
    assert_eq!(constructors::filled(3), vec![0.0, 0.5, 1.0]);
}

#[fptune::tune]
mod layout {
    use std::fmt::Write as _;

    /// A table row as npb-lu prints its verification: a knob lowered to binary16 in an exponent
    /// column with width and precision, a captured one, and a generic one.
    pub fn row(#[tune] dif: fptune::f16, #[tune] x: f64) -> String {
        let mut s = String::new();
        write!(s, "{:>12.3e}{:>12.3e}", x, dif).unwrap();
        let e = dif;
        s += &format!("|{e:<10.2E}|{:+.1e}", generic(dif));
        s
    }

    fn generic<T: Copy>(t: T) -> T {
        t
    }
}

#[test]
fn sixteen_bit_knobs_print_with_the_callers_width_and_precision() {
    // `half`'s own `{:e}` would print `5.9604645e-8` unpadded: the applied code's columns would
    // run together.
    let row = layout::row(f16::from_f64(5.9604645e-8), 0.25);
    assert_eq!(row, "    2.500e-1    5.960e-8|5.96E-8   |+6.0e-8");
}

#[fptune::tune]
mod method_set {
    /// `f64`'s `sin_cos`, `total_cmp`, `copysign`, `rem_euclid` and `div_euclid`, on knobs of
    /// every format (`half`'s types have only `total_cmp`).
    pub fn run(#[tune] x: fptune::f16, #[tune] y: f32) -> (f64, f64, f64, f64, f64, bool) {
        let (s, c) = x.sin_cos();
        let m = x.copysign(-x);
        let r = y.rem_euclid(0.75f32);
        let q = y.div_euclid(0.75f32);
        let mut v: Vec<fptune::f16> = vec![x, m, s];
        v.sort_by(|a, b| a.total_cmp(b));
        (f64::from(s), f64::from(c), f64::from(m), r as f64 + q as f64, f64::from(v[0]), v[2] == x)
    }

    /// A literal argument adapts to a 16-bit receiver, as an operand of `+` does (`half`'s
    /// `copysign` takes an `f16`; it has no `rem_euclid`).
    pub fn literal_arguments(#[tune] x: fptune::f16) -> (f64, f64, f64) {
        let m = x.copysign(-1.0);
        let r = x.rem_euclid(0.75);
        let q = x.div_euclid(0.75);
        (f64::from(m), f64::from(r), f64::from(q))
    }

    /// The methods `half`'s types lack and `f64` has: computed in `f32`, rounded to the knob's
    /// format (as the single build's 16-bit values compute them).
    pub fn small_argument_methods(#[tune] x: fptune::f16, #[tune] b: fptune::bf16) -> ([f64; 5], f64) {
        let f = (b * 3.0).fract();
        ([x.exp_m1(), x.ln_1p(), x.asinh(), (x + 1.5).acosh(), x.atanh()].map(f64::from), f64::from(f))
    }
}

#[test]
fn the_f64_method_set_reaches_16_bit_knobs() {
    let (s, c, m, rq, least, last) = method_set::run(f16::from_f32(1.0), 2.0);
    assert!((s - 0.841).abs() < 2e-3 && (c - 0.540).abs() < 2e-3, "{s} {c}");
    assert_eq!(m, -1.0);
    assert_eq!(rq, 0.5 + 2.0);
    assert_eq!(least, -1.0);
    assert!(last);
}

#[test]
fn literal_arguments_of_two_operand_methods_adapt_to_16_bit_knobs() {
    assert_eq!(method_set::literal_arguments(f16::from_f32(2.0)), (-2.0, 0.5, 2.0));
}

#[test]
fn sixteen_bit_knobs_have_exp_m1_ln_1p_the_inverse_hyperbolics_and_fract() {
    use fptune::bf16;
    let x = 0.25f32;
    let want = [x.exp_m1(), x.ln_1p(), x.asinh(), (x + 1.5).acosh(), x.atanh()].map(|v| f64::from(f16::from_f32(v)));
    let (got, fract) = method_set::small_argument_methods(f16::from_f32(x), bf16::from_f32(1.25));
    assert_eq!(got, want);
    assert_eq!(fract, 0.75);
}

#[test]
fn stochastic_values_have_the_method_set_too() {
    use fptune::Sf64;
    let x = Sf64::from_f64(-7.5);
    assert_eq!(x.rem_euclid(2.0).mean(), 0.5);
    assert_eq!(x.div_euclid(2.0).mean(), -4.0);
    assert_eq!(x.copysign(1.0).mean(), 7.5);
    let (s, c) = Sf64::from_f64(0.5).sin_cos();
    assert!((s.mean() - 0.5f64.sin()).abs() < 1e-15 && (c.mean() - 0.5f64.cos()).abs() < 1e-15);
    assert_eq!(x.total_cmp(&Sf64::from_f64(1.0)), std::cmp::Ordering::Less);
}

//! nalgebra over stochastic values (feature `simba`): vector and matrix arithmetic, norms, dot
//! products, inverses and Cholesky factors of `Sf64` agree with the `f64` computation and carry
//! their digits; a cancellation-prone computation through nalgebra is reported with few digits.

#![cfg(feature = "simba")]

use std::sync::{Mutex, MutexGuard, PoisonError};

use approx::{AbsDiffEq, RelativeEq, UlpsEq};
use fptune::stochastic::{self, Instability};
use fptune::{Sf32, Sf64};
use nalgebra_0_33 as nalgebra;
use nalgebra::{Matrix3, Vector3};
use simba_0_9::scalar::{ComplexField, RealField};

/// Tests that read the instability counts (which all threads add to) run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

fn s(x: f64) -> Sf64 {
    Sf64::from(x)
}

/// Each entry's mean is the `f64` result within `tol` relatively (or both are zero), and keeps
/// more than `digits` digits.
fn agrees<const R: usize, const C: usize>(
    x: &nalgebra::SMatrix<Sf64, R, C>,
    reference: &nalgebra::SMatrix<f64, R, C>,
    tol: f64,
    digits: f64,
) {
    for (a, r) in x.iter().zip(reference.iter()) {
        // The mean as a conversion gives it (three equal samples: that sample, exactly).
        let m = num_traits::ToPrimitive::to_f64(a).expect("a float");
        assert!(m == *r || ((m - r) / r).abs() < tol, "{a:?} vs {r:e}\n{x}\n{reference}");
        assert!(*r == 0.0 || a.digits() > digits, "{a:?}: {} digits", a.digits());
    }
}

fn scalar_agrees(x: Sf64, r: f64, tol: f64, digits: f64) {
    agrees(&nalgebra::SMatrix::<Sf64, 1, 1>::new(x), &nalgebra::SMatrix::<f64, 1, 1>::new(r), tol, digits);
}

/// nalgebra accepts the stochastic types as scalars and real fields.
#[test]
fn stochastic_values_are_nalgebra_scalars() {
    fn scalar<T: nalgebra::Scalar>() {}
    fn real<T: nalgebra::RealField>() {}
    fn complex<T: nalgebra::ComplexField>() {}
    scalar::<Sf64>();
    real::<Sf64>();
    real::<Sf32>();
    real::<fptune::Sf16>();
    real::<fptune::Sbf16>();
    complex::<Sf64>();
    // Conversions nalgebra uses: f64 in, the mean out, and between formats.
    let half: Sf64 = nalgebra::convert(0.5);
    assert_eq!(half.samples(), [0.5; 3]);
    let back: f64 = nalgebra::convert_unchecked(Sf64::from(0.1));
    assert_eq!(back, 0.1);
    let m = Matrix3::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0);
    let ms: Matrix3<Sf64> = m.cast();
    let m32: Matrix3<Sf32> = ms.cast();
    assert_eq!(m32[(2, 2)].samples(), [10.0f32; 3]);
    assert_eq!(<Sf64 as RealField>::pi().samples(), [std::f64::consts::PI; 3]);
    assert_eq!(<Sf64 as RealField>::max_value().map(|x| x.samples()), Some([f64::MAX; 3]));
}

#[test]
fn vector_arithmetic_norm_and_dot_agree_with_f64() {
    stochastic::set_seed(11);
    let (a, b) = (Vector3::new(0.1, -2.5, 3.7), Vector3::new(1.0 / 3.0, 0.2, -0.7));
    let (sa, sb): (Vector3<Sf64>, Vector3<Sf64>) = (a.map(s), b.map(s));
    agrees(&(sa + sb), &(a + b), 1e-15, 15.0);
    agrees(&(sa - sb * s(2.0)), &(a - b * 2.0), 1e-15, 14.0);
    agrees(&sa.cross(&sb), &a.cross(&b), 1e-15, 14.0);
    agrees(&sa.component_mul(&sb), &a.component_mul(&b), 1e-15, 15.0);
    scalar_agrees(sa.dot(&sb), a.dot(&b), 1e-14, 13.0);
    scalar_agrees(sa.norm(), a.norm(), 1e-15, 14.0);
    scalar_agrees(sa.norm_squared(), a.norm_squared(), 1e-15, 14.0);
    agrees(&sa.normalize(), &a.normalize(), 1e-15, 14.0);
    scalar_agrees(sa.amax(), a.amax(), 0.0, 15.0);

    // binary32 through the same code.
    let a32: Vector3<Sf32> = a.map(|x| Sf32::from(x as f32));
    let n = a32.norm();
    assert!(((n.mean() - f64::from(a.map(|x| x as f32).norm())) / a.norm()).abs() < 1e-6, "{n:?}");
    assert!(n.digits() > 6.0, "{}", n.digits());
}

#[test]
fn matrix_product_inverse_and_cholesky_agree_with_f64() {
    stochastic::set_seed(12);
    let m = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, -0.25, 0.5, -0.25, 2.0);
    let v = Vector3::new(1.0, -1.0, 0.1);
    let sm: Matrix3<Sf64> = m.map(s);
    let sv: Vector3<Sf64> = v.map(s);
    agrees(&(sm * sv), &(m * v), 1e-15, 14.0);
    agrees(&(sm * sm.transpose()), &(m * m.transpose()), 1e-15, 14.0);
    scalar_agrees(sm.determinant(), m.determinant(), 1e-14, 13.0);

    let inv = m.try_inverse().expect("invertible");
    let sinv = sm.try_inverse().expect("invertible");
    agrees(&sinv, &inv, 1e-14, 13.0);
    // The product with the inverse is the identity, by approx's tests on stochastic values.
    assert!(approx::relative_eq!(sm * sinv, Matrix3::identity(), epsilon = s(1e-14)));
    assert!(!approx::relative_eq!(sm * sinv, Matrix3::identity() * s(1.0 + 1e-9), epsilon = s(1e-14)));

    let l = m.cholesky().expect("positive definite").l();
    let chol = sm.cholesky().expect("positive definite");
    agrees(&chol.l(), &l, 1e-15, 14.0);
    let x = chol.solve(&sv);
    agrees(&x, &m.cholesky().expect("positive definite").solve(&v), 1e-14, 13.0);
    agrees(&sm.lu().solve(&sv).expect("invertible"), &x.map(|a| a.mean()), 1e-14, 13.0);

    // A negative pivot: no Cholesky factor, as for f64.
    let indefinite = Matrix3::new(1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0);
    assert!(indefinite.cholesky().is_none());
    assert!(indefinite.map(s).cholesky().is_none());
    // A singular matrix has no inverse.
    let singular = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 1.0).map(s);
    assert!(singular.try_inverse().is_none());
}

/// The exact determinant of a matrix of `f64` values of magnitude in `[2^-4, 1)`, computed with
/// integers (each entry times `2^60` is one) and rounded once to `f64`.
fn exact_determinant(m: &Matrix3<f64>) -> f64 {
    use num_bigint::BigInt;
    use num_traits::ToPrimitive;
    let n = |i: usize, j: usize| {
        let scaled = m[(i, j)] * 2f64.powi(60);
        assert_eq!(scaled.fract(), 0.0, "{}", m[(i, j)]);
        BigInt::from(scaled as i128)
    };
    let det = &n(0, 0) * (&n(1, 1) * &n(2, 2) - &n(1, 2) * &n(2, 1))
        - &n(0, 1) * (&n(1, 0) * &n(2, 2) - &n(1, 2) * &n(2, 0))
        + &n(0, 2) * (&n(1, 0) * &n(2, 1) - &n(1, 1) * &n(2, 0));
    det.to_f64().expect("finite") * 2f64.powi(-180)
}

/// The determinant of a nearly singular matrix is a difference of products of order 0.1 that
/// cancels to order 1e-14: `f64` gives a number with no warning, the stochastic run says it has
/// few exact digits (and those are right) and counts the cancellation; the inverse inherits it.
/// A dot product that cancels completely is numerical noise.
#[test]
fn cancellation_through_nalgebra_is_reported() {
    let _serial = serial();
    stochastic::set_seed(13);
    stochastic::reset();
    let m = Matrix3::new(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9 + 1e-12);
    let exact = exact_determinant(&m);
    assert!(exact.abs() > 1e-15 && exact.abs() < 1e-13, "{exact:e}");
    let sm: Matrix3<Sf64> = m.map(s);
    let det = sm.determinant();
    assert!(det.digits() < 6.0, "{det:?}: {} digits", det.digits());
    if !det.is_noise() {
        assert!(((det.mean() - exact) / exact).abs() < 10f64.powf(1.0 - det.digits()), "{det:?} vs {exact:e}");
    }
    assert!(stochastic::report().count(Instability::Cancellation) > 0, "{}", stochastic::report());

    // The f64 determinant has lost digits in the same way.
    let f = m.determinant();
    assert!(((f - exact) / exact).abs() > 1e-9, "{f:e} vs {exact:e}");

    if let Some(inv) = sm.try_inverse() {
        let worst = inv.iter().map(|x| x.digits()).fold(f64::INFINITY, f64::min);
        assert!(worst < 6.0, "{inv:?}");
    }

    let a = Vector3::new(1e17, 1.0 / 3.0, -1e17).map(s);
    let ones = Vector3::repeat(s(1.0));
    assert!(a.dot(&ones).is_noise());
}

/// approx's comparisons on stochastic values, and the real-field functions nalgebra uses.
#[test]
fn approx_and_real_field_functions() {
    let _serial = serial();
    stochastic::set_seed(14);
    let x = s(0.1) + s(0.2);
    assert!(x.relative_eq(&s(0.3), Sf64::default_epsilon(), Sf64::default_max_relative()));
    assert!(x.ulps_eq(&s(0.3), Sf64::default_epsilon(), 4));
    assert!(!x.ulps_eq(&s(0.3 + 1e-14), Sf64::default_epsilon(), 4));
    assert!(x.abs_diff_eq(&s(0.31), s(0.02)));
    assert!(!x.abs_diff_eq(&s(0.31), s(0.005)));
    assert!(!s(f64::INFINITY).relative_eq(&s(1.0), s(1.0), s(1.0)));
    assert!(s(f64::INFINITY).relative_eq(&s(f64::INFINITY), s(1.0), s(1.0)));
    assert!(!s(f64::NAN).abs_diff_eq(&s(f64::NAN), s(1.0)));
    // Noise equals anything close, as CADNA's `==` says, without an unstable branching.
    stochastic::reset();
    let big = s(1e17);
    let noise = (big + s(1.0 / 3.0)) - big - s(1.0 / 3.0);
    assert!(noise.abs_diff_eq(&s(0.0), s(1e-30)));
    assert_eq!(stochastic::report().count(Instability::UnstableBranching), 0);

    assert_eq!(ComplexField::try_sqrt(s(-4.0)), None);
    assert_eq!(ComplexField::try_sqrt(s(4.0)).map(|x| x.samples()), Some([2.0; 3]));
    assert_eq!(ComplexField::argument(s(-1.0)).samples(), [std::f64::consts::PI; 3]);
    assert_eq!(ComplexField::modulus(s(-1.5)).samples(), [1.5; 3]);
    assert_eq!(RealField::copysign(s(1.5), s(-0.0)).samples(), [-1.5; 3]);
    assert_eq!(ComplexField::imaginary(s(2.0)).samples(), [0.0; 3]);
    let (m, u) = ComplexField::to_exp(s(-3.0));
    assert_eq!((m.samples(), u.samples()), ([3.0; 3], [-1.0; 3]));
    let y = ComplexField::sqrt(s(2.0));
    assert!((y.mean() - 2f64.sqrt()).abs() < 1e-15 && y.digits() > 15.0);
}

/// The single build's knobs are nalgebra scalars too: a native knob of a unit the run gives no
/// format computes, through nalgebra's generic code, exactly what its declared format does.
#[test]
fn nalgebra_over_native_knobs_is_the_declared_formats_computation() {
    use fptune::__rt::{DynFloat, DynNative, FloatFormat, Knob};
    // Units 4090 and 4091 are given no format in this run: their declared ones.
    type K64 = Knob<f64, 4090, DynNative>;
    type K32 = Knob<f32, 4091, DynNative>;
    let entries = [4.0, 1.0, 0.5, 1.0, 3.0, 0.25, 0.5, 0.25, 2.0];
    let k64 = |x: f64| K64::from_dyn(DynNative::from_f64(x, FloatFormat::F64));
    let k32 = |x: f64| K32::from_dyn(DynNative::from_f64(x, FloatFormat::F32));
    let a = Matrix3::from_row_slice(&entries);
    let a64 = Matrix3::from_row_slice(&entries.map(k64));
    let a32 = Matrix3::from_row_slice(&entries.map(k32));
    let a_f32 = a.map(|x| x as f32);
    let b = Vector3::new(1.0, -2.0, 0.5);
    let x = a.cholesky().expect("spd").solve(&b);
    let x64 = a64.cholesky().expect("spd").solve(&b.map(k64));
    let x32 = a32.cholesky().expect("spd").solve(&b.map(k32));
    let x_f32 = a_f32.cholesky().expect("spd").solve(&b.map(|x| x as f32));
    for i in 0..3 {
        assert_eq!(x64[i].get().value_f64(), x[i]);
        assert_eq!(x32[i].get().value_f64(), f64::from(x_f32[i]));
    }
    assert_eq!(a64.norm().get().value_f64(), a.norm());
    assert!(x64.relative_eq(&x.map(k64), K64::default_epsilon(), K64::default_max_relative()));
}

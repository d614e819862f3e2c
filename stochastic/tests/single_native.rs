//! The single build's native runs (`FPTUNE_NATIVE=1`): a program whose knobs are
//! `Knob<F, U>`, run with the units' formats, gives bit for bit what the same code with the
//! knobs' types written out gives natively, and counts no instability. (A process of its own:
//! the formats and the native switch are global.)

use fptune::__rt::{set_formats, set_native};
use fptune::__rt::{Checkable, Record};

/// The knobs' types written out: a binary16 matrix, a binary32 vector, a binary16 sum, and a
/// binary64 norm.
#[fptune::tune]
mod written {
    use fptune::f16;

    pub fn kernel(n: usize) -> (Vec<f32>, f16, f64) {
        #[tune] let mut a: Vec<f16> = vec![0.0; n * n];
        #[tune] let mut x: Vec<f32> = vec![1.0; n];
        #[tune] let mut s: f16 = 0.0;
        #[tune] let mut norm: f64 = 0.0;
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = 1.0 / ((i + j + 1) as f64);
            }
        }
        for k in 0..6 {
            s = 0.0;
            for i in 0..n {
                let mut row = 0.0;
                for j in 0..n {
                    row = row + a[i * n + j] * x[j];
                }
                s = s + row;
                x[i] = row * 0.75 - 0.125 * x[i];
            }
            #[tune] let m: f64 = norm * norm + s.sqrt() * (k as f64);
            norm = m.sqrt() + s.sin().abs();
            if s > 100.0 {
                s = s / 64.0;
            }
        }
        (x, s, norm)
    }
}

/// The same code as the single build writes it: every knob `Knob<f64, unit>`.
#[fptune::__convert]
mod single {
    use fptune::__rt::Knob;

    pub fn kernel(n: usize) -> (Vec<Knob<f64, 1>>, Knob<f64, 2>, Knob<f64, 3>) {
        let mut a: Vec<Knob<f64, 0>> = vec![0.0; n * n];
        let mut x: Vec<Knob<f64, 1>> = vec![1.0; n];
        let mut s: Knob<f64, 2> = 0.0;
        let mut norm: Knob<f64, 3> = 0.0;
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = 1.0 / ((i + j + 1) as f64);
            }
        }
        for k in 0..6 {
            s = 0.0;
            for i in 0..n {
                let mut row = 0.0;
                for j in 0..n {
                    row = row + a[i * n + j] * x[j];
                }
                s = s + row;
                x[i] = row * 0.75 - 0.125 * x[i];
            }
            let m: Knob<f64, 3> = norm * norm + s.sqrt() * (k as f64);
            norm = m.sqrt() + s.sin().abs();
            if s > 100.0 {
                s = s / 64.0;
            }
        }
        (x, s, norm)
    }
}

fn records(x: &dyn Checkable) -> Vec<Record> {
    let mut out = Vec::new();
    x.visit(&mut |r| out.push(r));
    out
}

fn same(a: &[Record], b: &[Record]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.format == b.format
                && a.stochastic == b.stochastic
                && a.digits == b.digits
                && a.samples.iter().zip(&b.samples).all(|(x, y)| x.to_bits() == y.to_bits())
        })
}

#[test]
fn a_native_run_of_the_single_build_is_the_native_build_bit_for_bit() {
    set_formats("f16,f32,f16,f64").expect("formats");
    set_native(true);
    fptune::stochastic::reset();
    for n in [3, 17, 40] {
        let (wx, ws, wn) = written::kernel(n);
        let (sx, ss, sn) = single::kernel(n);
        let (wx, ws, wn) = (records(&wx), records(&ws), records(&wn));
        let (sx, ss, sn) = (records(&sx), records(&ss), records(&sn));
        assert!(same(&wx, &sx), "n = {n}: x {wx:?} against {sx:?}");
        assert!(same(&ws, &ss), "n = {n}: s {ws:?} against {ss:?}");
        assert!(same(&wn, &sn), "n = {n}: norm {wn:?} against {sn:?}");
        assert_eq!((ss[0].format, ss[0].stochastic), ("binary16", false));
        assert_eq!((sx[0].format, sn[0].format), ("binary32", "binary64"));
    }
    // binary16 sums of this size overflow natively (to infinity, then divided): nothing counted.
    let (_, s, _) = single::kernel(400);
    assert!(records(&s)[0].samples[0].is_infinite() || records(&s)[0].samples[0] > 60.0);
    assert_eq!(fptune::stochastic::report().total(), 0, "{}", fptune::stochastic::report());
}

//! The native single build: a program whose knobs are `Knob<F, U, DynNative>`, run with the units'
//! formats, gives bit for bit what the same code with the knobs' types written out gives
//! natively, and counts no instability. (A process of its own: the formats are global.)

use fptune::__rt::{set_formats, Knob, DynNative};
use fptune::__rt::{Checkable, Record};

/// The kernel with its four knobs' types written out as `$a`, `$x`, `$s`, `$n`, in module `$m`.
macro_rules! written {
    ($m:ident: $a:ty, $x:ty, $s:ty, $n:ty) => {
        #[fptune::tune]
        mod $m {
            #[allow(unused_imports)]
            use fptune::__rt::{Knob, DynNative};
            #[allow(unused_imports)]
            use fptune::{bf16, f16};

            pub fn kernel(n: usize) -> (Vec<$x>, $s, $n) {
                #[tune] let mut a: Vec<$a> = vec![0.0; n * n];
                #[tune] let mut x: Vec<$x> = vec![1.0; n];
                #[tune] let mut s: $s = 0.0;
                #[tune] let mut norm: $n = 0.0;
                for i in 0..n {
                    for j in 0..n {
                        a[i * n + j] = 1.0 / ((i + j + 1) as f64);
                    }
                }
                for k in 0..6 {
                    s = 0.0;
                    for i in 0..n {
                        // Typed as the tuner's elaboration types it: unannotated, the written
                        // builds' `row` would take the type of the knobs it meets, as rustc's
                        // own `+` types it, and the single build's cannot meet a `Knob` so.
                        let mut row: f64 = 0.0;
                        for j in 0..n {
                            row = row + a[i * n + j] * x[j];
                        }
                        s = s + row;
                        x[i] = row * 0.75 - 0.125 * x[i] / (k as f64 + 1.5);
                    }
                    #[tune] let m: $n = norm * norm + s.sqrt() * (k as f64);
                    norm = m.sqrt() + s.sin().abs() + s.powi(2).min(m);
                    if s > 100.0 {
                        s = s / 64.0;
                    }
                    let cut = (norm * 8.0) as usize % n;
                    x[cut] = x[cut].max(s);
                }
                (x, s, norm)
            }
        }
    };
}

written!(w0: f16, f32, f16, f64);
written!(w1: bf16, f16, f32, f32);
written!(w2: f32, f64, bf16, f16);

// The same code as the native single build writes it (under `#[fptune::tune]`, the markers
// kept): every knob `Knob<f64, unit, DynNative>`.
written!(single: Knob<f64, 0, DynNative>, Knob<f64, 1, DynNative>, Knob<f64, 2, DynNative>, Knob<f64, 3, DynNative>);

fn records(x: &dyn Checkable) -> Vec<Record> {
    let mut out = Vec::new();
    x.visit(&mut |r| out.push(r));
    out
}

/// Bit for bit, a NaN being any NaN (the records' JSON writes every NaN the same).
fn same(a: &[Record], b: &[Record]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.format == b.format
                && a.stochastic == b.stochastic
                && a.digits == b.digits
                && a.samples.iter().zip(&b.samples).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
        })
}

type Results = (Vec<Record>, Vec<Record>, Vec<Record>);

fn of<X: Checkable, S: Checkable, N: Checkable>((x, s, n): (X, S, N)) -> Results {
    (records(&x), records(&s), records(&n))
}

#[test]
fn a_run_of_the_native_single_build_is_the_configurations_native_build_bit_for_bit() {
    fptune::stochastic::reset();
    type Kernel = fn(usize) -> Results;
    let configurations: [(&str, Kernel, [&str; 3]); 3] = [
        ("f16,f32,f16,f64", |n| of(w0::kernel(n)), ["binary32", "binary16", "binary64"]),
        ("bf16,f16,f32,f32", |n| of(w1::kernel(n)), ["binary16", "binary32", "binary32"]),
        ("f32,f64,bf16,f16", |n| of(w2::kernel(n)), ["binary64", "bfloat16", "binary16"]),
    ];
    for (formats, written, names) in configurations {
        // SAFETY: this binary's only test.
        unsafe { set_formats(formats) }.expect("formats");
        for n in [3, 17, 40, 400] {
            let (wx, ws, wn) = written(n);
            let (sx, ss, sn) = of(single::kernel(n));
            assert!(same(&wx, &sx), "{formats}, n = {n}: x {wx:?} against {sx:?}");
            assert!(same(&ws, &ss), "{formats}, n = {n}: s {ws:?} against {ss:?}");
            assert!(same(&wn, &sn), "{formats}, n = {n}: norm {wn:?} against {sn:?}");
            assert_eq!([sx[0].format, ss[0].format, sn[0].format], names, "{formats}");
            assert!(!ss[0].stochastic, "{formats}");
        }
    }
    // The knob's own type, whatever the run gives its unit.
    // SAFETY: as above.
    unsafe { set_formats("f64,f64,f64,f16") }.expect("formats");
    assert_eq!(Knob::<f64, 3, DynNative>::unit_format(), fptune::__rt::FloatFormat::F16);
    // Natively, nothing is counted (binary16 sums of n = 400 overflow).
    assert_eq!(fptune::stochastic::report().total(), 0, "{}", fptune::stochastic::report());
}

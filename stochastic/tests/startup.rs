//! The environment is read once, before `main` (`startup.rs`): the single build's unit formats,
//! whether to stop at the first overflow of a 16-bit format. A child process of this test binary
//! runs with the variables set, as the tuner's candidates do.

use std::process::{Command, Output};

use fptune::__rt::{DynFloat, FloatFormat, Knob, DynNative, FORMATS_ENV};
use fptune::stochastic::{OVERFLOW_EXIT_CODE, SIMD_ENV, STOP_ON_OVERFLOW_ENV};
use fptune::Sf16;

/// Set in a child's environment: what the child does.
const CHILD: &str = "FPTUNE_TEST_STARTUP_CHILD";

/// Only in a child (it passes at once otherwise): prints the formats its knobs have, or
/// overflows natively or under DSA.
#[test]
fn child() {
    match std::env::var(CHILD).as_deref() {
        Ok("formats") => println!(
            "formats {:?} {:?} {:?}",
            Knob::<f64, 0, DynNative>::unit_format(),
            Knob::<f64, 1, DynNative>::unit_format(),
            Knob::<f32, 2, DynNative>::unit_format()
        ),
        Ok("native overflow") => {
            let x = Knob::<f64, 0, DynNative>::from_dyn(DynNative::from_f64(60000.0, FloatFormat::F64));
            println!("product {}", x * x);
        }
        Ok("dsa overflow") => println!("product {}", Sf16::from(60000.0) * Sf16::from(2.0)),
        Ok("kernels") => println!("kernels: {}", fptune::stochastic::kernels()),
        _ => {}
    }
}

fn run_child(what: &str, env: &[(&str, &str)]) -> Output {
    let exe = std::env::current_exe().expect("the test binary");
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"]).env(CHILD, what);
    cmd.env_remove(FORMATS_ENV).env_remove(STOP_ON_OVERFLOW_ENV).env_remove(SIMD_ENV);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the child runs")
}

#[test]
fn the_environment_was_read_before_main() {
    assert!(fptune::__rt::started(), "the constructor did not run");
}

#[test]
fn knobs_have_the_formats_the_environment_gives_their_units() {
    let out = run_child("formats", &[(FORMATS_ENV, "f32,f16")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    // Unit 2 is not named: it keeps its declared format.
    assert!(stdout.contains("formats F32 F16 F32"), "{stdout}");

    let out = run_child("formats", &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("formats F64 F64 F32"), "{out:?}");
}

#[test]
fn a_list_that_is_not_one_ends_the_run_with_what_is_wrong() {
    let out = run_child("formats", &[(FORMATS_ENV, "f64,f33")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr.contains(FORMATS_ENV) && stderr.contains("unit 1") && stderr.contains("f33"), "{stderr}");
}

#[test]
fn runs_stop_at_the_first_overflow_only_when_asked() {
    for what in ["native overflow", "dsa overflow"] {
        let stopped = run_child(what, &[(FORMATS_ENV, "f16"), (STOP_ON_OVERFLOW_ENV, "1")]);
        assert_eq!(stopped.status.code(), Some(OVERFLOW_EXIT_CODE), "{what}: {stopped:?}");
        assert!(!String::from_utf8_lossy(&stopped.stdout).contains("product"), "{what}: {stopped:?}");
        let went_on = run_child(what, &[(FORMATS_ENV, "f16")]);
        assert!(went_on.status.success(), "{what}: {went_on:?}");
        assert!(String::from_utf8_lossy(&went_on.stdout).contains("product"), "{what}: {went_on:?}");
    }
}

/// [`SIMD_ENV`] caps the kernels a build for the default x86_64 target chooses when it starts
/// (`sse2`, `fma`), so that each can be tested and timed on a CPU that has more; a build with
/// its kernels compiled in has nothing to choose.
#[cfg(target_arch = "x86_64")]
#[test]
fn fptune_simd_caps_the_kernels_chosen_at_run_time() {
    let kernels = |cap: &[(&str, &str)]| {
        let out = run_child("kernels", cap);
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout.lines().find_map(|l| l.split_once("kernels: ")).expect("the child says its kernels").1.to_string()
    };
    let chosen = kernels(&[]);
    if chosen.ends_with("(compiled in)") {
        assert_eq!(kernels(&[(SIMD_ENV, "sse2")]), chosen);
        return;
    }
    let fma = is_x86_feature_detected!("fma") && is_x86_feature_detected!("avx");
    let avx512 = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") && is_x86_feature_detected!("f16c");
    let (sse2, with_fma) = ("SSE2 (Dekker's product)", "SSE2, FMA products (chosen at run time)");
    let best_with_fma = if fma { with_fma } else { sse2 };
    assert_eq!(chosen, if avx512 { "AVX-512 (chosen at run time)" } else { best_with_fma });
    assert_eq!(kernels(&[(SIMD_ENV, "fma")]), best_with_fma);
    assert_eq!(kernels(&[(SIMD_ENV, "sse2")]), sse2);
}

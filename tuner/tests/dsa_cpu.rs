//! A DSA build for the target's default CPU (the runtime's kernels chosen at run time) and one
//! for this machine's (`-C target-cpu=native`, as the tuner builds them by default: the kernels
//! compiled in). fptune's stochastic arithmetic rounds each sample exactly in its drawn
//! direction, so both must give the same samples bit for bit and count the same instabilities, as
//! must the default build made to use its SSE2 kernels.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_fptune::cargo::{self, BuildOptions, Profile, Target};
use cargo_fptune::scratch::{Scratch, ScratchOptions};

/// Builds the `dsa_cpu` fixture as the tuner builds a DSA candidate (`cpu`: for that CPU, with
/// the host's triple).
fn build(cpu: Option<&str>) -> PathBuf {
    // The scratch copy makes the fixture's path dependency on fptune absolute.
    let options = ScratchOptions { target_dir: Some(common::target_dir("dsa_cpu")), ..Default::default() };
    let scratch = Scratch::create(&common::fixtures_dir().join("dsa_cpu"), &options).expect("scratch");
    let logs = tempfile::tempdir().expect("a log directory");
    let mut opts = BuildOptions {
        target: Target::Bin("dsa_cpu".into()),
        profile: Profile::Release,
        stochastic: true,
        target_dir: Some(scratch.target_dir().to_path_buf()),
        ..BuildOptions::new(scratch.manifest_path())
    };
    if let Some(cpu) = cpu {
        opts.triple = cargo::host_triple().map(str::to_string);
        opts.add_target_cpu(cpu);
    }
    let log = logs.path().join("build.log");
    let built = cargo::build(&opts, &log).expect("cargo runs");
    built.executable.unwrap_or_else(|| panic!("{}", std::fs::read_to_string(&log).unwrap_or_default()))
}

/// What a run of `exe` printed, with `env` set.
fn run(exe: &Path, env: &[(&str, &str)]) -> String {
    let run = Command::new(exe).envs(env.iter().copied()).output().expect("the fixture runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8(run.stdout).expect("UTF-8")
}

fn assert_same(what: &str, expected: &str, got: &str) {
    if let Some((k, (a, b))) = expected.lines().zip(got.lines()).enumerate().find(|(_, (a, b))| a != b) {
        panic!("line {}: the default CPU's build printed\n  {a}\nand {what}\n  {b}", k + 1);
    }
    assert_eq!(expected.lines().count(), got.lines().count(), "{what}");
}

#[test]
fn dsa_builds_for_this_machines_cpu_give_the_default_builds_samples_bit_for_bit() {
    let baseline = build(None);
    let native = build(Some("native"));
    let expected = run(&baseline, &[]);
    assert!(expected.lines().count() > 25_000, "every format's operations were printed");
    let tail = &expected[expected.len().saturating_sub(1500)..];
    assert!(tail.contains("CANCELLATION") && tail.contains("UNDERFLOW"), "the run counted instabilities: {tail}");
    assert_same("this machine's", &expected, &run(&native, &[]));
    // The default build's SSE2 kernels, which a CPU without AVX-512 or FMA runs.
    assert_same("the SSE2 kernels", &expected, &run(&baseline, &[(fptune::contract::SIMD_ENV, fptune::contract::SIMD_SSE2)]));
}

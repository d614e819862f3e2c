//! The typing build on code written by others: rustc answers for the float literals and untyped
//! bindings of the corpus's crates (`../shared/corpus`), and of a fixture written for it.

use std::path::{Path, PathBuf};

use cargo_fptune::cargo::BuildOptions;
use cargo_fptune::cli::PackageArgs;
use cargo_fptune::scratch::{Scratch, ScratchOptions};
use cargo_fptune::typing::{typing_build, TypingBuild};
use cargo_fptune::workspace::Workspace;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: {} is absent (it is present in CI and beside the project's own checkout)", dir.display());
        None
    }
}

fn typed(root: &Path) -> (TypingBuild, Vec<(String, String)>) {
    let args = PackageArgs { manifest_path: Some(root.join("Cargo.toml")), ..Default::default() };
    let ws = Workspace::locate(&args).expect("cargo metadata");
    let files = ws.sources().expect("sources");
    let sources: Vec<(String, String)> =
        files.iter().map(|rel| (rel.clone(), std::fs::read_to_string(root.join(rel)).expect("read"))).collect();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("typing-target");
    let scratch = Scratch::create(root, &ScratchOptions { target_dir: Some(target.clone()), ..Default::default() }).expect("scratch");
    let mut opts = BuildOptions::for_scratch(&scratch);
    opts.target_dir = Some(target);
    let log = scratch.dir().join("typing.log");
    let built = typing_build(&scratch, &sources, &ws.roots, opts, &log).expect("cargo runs");
    (built, sources)
}

#[test]
fn rustc_types_every_float_literal_of_the_corpus_crates() {
    let Some(corpus) = corpus() else { return };
    let mut names: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    names.sort();
    for dir in names {
        let (built, sources) = typed(&dir);
        let t = &built.typing;
        let floats = t.literals.values().filter(|o| o.single().is_some()).count();
        let bindings = t.bindings.len();
        let float_bindings = t.bindings.values().filter(|(_, o)| o.single().is_some_and(|ty| ty.contains("f64") || ty.contains("f32"))).count();
        eprintln!(
            "{:<24} asked {:>5} unanswered {:>4} literals {:>5} bindings {:>5} (float {:>4}) error {:?} {:.1}s",
            dir.file_name().unwrap_or_default().to_string_lossy(),
            t.asked,
            t.unanswered,
            floats,
            bindings,
            float_bindings,
            built.error.as_ref().map(ToString::to_string),
            built.seconds
        );
        assert!(built.error.is_none(), "{}: {:?}", dir.display(), built.error);
        let _ = sources;
    }
}

/// Exploration: the current whole-crate conversion of the corpus, error codes counted.
#[test]
#[ignore]
fn explore_dsa_conversion_of_the_corpus() {
    let Some(corpus) = corpus() else { return };
    let only = std::env::var("ONLY").ok();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .filter(|p| only.as_deref().is_none_or(|o| p.ends_with(o)))
        .collect();
    names.sort();
    let fptune = Path::new(env!("CARGO_MANIFEST_DIR")).join("../stochastic").canonicalize().expect("fptune");
    for dir in names {
        let args = PackageArgs { manifest_path: Some(dir.join("Cargo.toml")), ..Default::default() };
        let ws = Workspace::locate(&args).expect("cargo metadata");
        let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explore-target");
        let scratch = Scratch::create(&dir, &ScratchOptions { target_dir: Some(target.clone()), ..Default::default() }).expect("scratch");
        let manifest = std::fs::read_to_string(scratch.manifest_path()).expect("manifest");
        let manifest = manifest.replacen("[dependencies]", &format!("[dependencies]\nfptune = {{ path = {:?} }}", fptune.display().to_string()), 1);
        let manifest = if manifest.contains("fptune = ") { manifest } else { format!("{manifest}\n[dependencies]\nfptune = {{ path = {:?} }}\n", fptune.display().to_string()) };
        std::fs::write(scratch.manifest_path(), manifest).expect("write");
        let mut files = Vec::new();
        for rel in ws.sources().expect("sources") {
            let text = std::fs::read_to_string(dir.join(&rel)).expect("read");
            if rel.starts_with("src/") {
                files.push((rel.clone(), cargo_fptune::convert::mark_for_conversion(&text).expect("marks")));
            }
        }
        scratch.apply_sources(&files).expect("apply");
        let mut opts = BuildOptions::for_scratch(&scratch);
        opts.target_dir = Some(target);
        opts.check = true;
        opts.stochastic = true;
        let log = PathBuf::from(format!("/tmp/explore-{}.log", dir.file_name().unwrap_or_default().to_string_lossy()));
        let built = cargo_fptune::cargo::build(&opts, &log).expect("cargo");
        let mut codes: std::collections::BTreeMap<String, usize> = Default::default();
        for e in &built.errors {
            *codes.entry(e.code.clone().unwrap_or_else(|| e.message.chars().take(40).collect())).or_default() += 1;
        }
        eprintln!("{:<24} errors {:>4} {:?}", dir.file_name().unwrap_or_default().to_string_lossy(), built.errors.len(), codes);
    }
}

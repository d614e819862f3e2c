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
    opts.target_dir = Some(target.clone());
    let log = scratch.dir().join("typing.log");
    let built = typing_build(&scratch, &sources, &ws.roots, opts, &target.join("capped"), &log).expect("cargo runs");
    (built, sources)
}

/// A crate whose own cargo configuration forbids a lint the typing build asks to warn: the build
/// with the check builds' flags stops (E0453), and the capped one answers.
#[test]
fn rustflags_that_forbid_the_answers_lints_get_a_second_capped_typing_build() {
    // Not `tempfile::tempdir()`: its `.tmp` name is hidden, and hidden directories hold no sources.
    let dir = tempfile::Builder::new().prefix("fptune-forbids-").tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::create_dir_all(root.join(".cargo")).expect("mkdir");
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"forbids\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n").expect("write");
    std::fs::write(root.join(".cargo/config.toml"), "[build]\nrustflags = [\"-F\", \"unused-results\"]\n").expect("write");
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    let x = 0.5;\n    let y = x * 3.0;\n    println!(\"{y}\");\n}\n").expect("write");
    let (built, _) = typed(root);
    assert!(built.capped, "the first typing build should have stopped on the forbidden lint");
    assert!(built.error.is_none(), "{:?}", built.error);
    assert_eq!(built.typing.literals.values().filter(|o| o.single() == Some("f64")).count(), 2, "{:?}", built.typing.literals);
    assert_eq!(built.typing.bindings.values().filter(|(_, o)| o.single() == Some("f64")).count(), 2, "{:?}", built.typing.bindings);
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
        assert!(!built.capped, "{}: the typing build with the check builds' flags should have answered", dir.display());
        let _ = sources;
    }
}

/// Exploration: the whole-crate conversion of the corpus, elaborated and healed.
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
    for dir in names {
        let args = PackageArgs { manifest_path: Some(dir.join("Cargo.toml")), ..Default::default() };
        let ws = Workspace::locate(&args).expect("cargo metadata");
        let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explore-target");
        let dep = cargo_fptune::scratch::FptuneDependency {
            path: cargo_fptune::workspace::runtime_dir().expect("runtime"),
            features: ws.float_trait_crates.clone(),
        };
        let options = ScratchOptions { target_dir: Some(target.clone()), fptune: Some(dep), ..Default::default() };
        let scratch = Scratch::create(&dir, &options).expect("scratch");
        let sources: Vec<(String, String)> =
            ws.sources().expect("sources").iter().map(|rel| (rel.clone(), std::fs::read_to_string(dir.join(rel)).expect("read"))).collect();
        let mut opts = BuildOptions::for_scratch(&scratch);
        opts.target_dir = Some(target.join("typing"));
        let name = dir.file_name().unwrap_or_default().to_string_lossy().to_string();
        let typed = typing_build(&scratch, &sources, &ws.roots, opts.clone(), &target.join("typing-capped"), &PathBuf::from(format!("/tmp/typing-{name}.log"))).expect("typing");
        let extern_roots = if ws.edition == "2015" { ws.roots.clone() } else { Vec::new() };
        let elaborated = cargo_fptune::elaborate::elaborate(&sources, &typed.typing, &extern_roots, &ws.sources().expect("sources"));
        let base = cargo_fptune::elaborate::texts(&sources, &elaborated);
        for (rel, text) in &base {
            let path = PathBuf::from(format!("/tmp/base-{name}/{rel}"));
            std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
            std::fs::write(&path, text).expect("write");
        }
        let users: std::collections::BTreeMap<String, &str> = sources.iter().map(|(r, t)| (r.clone(), t.as_str())).collect();
        let splices: std::collections::BTreeMap<String, cargo_fptune::splice::Spliced> =
            elaborated.iter().map(|e| (e.file.clone(), e.spliced.clone())).collect();
        let mut opts = BuildOptions::for_scratch(&scratch);
        opts.target_dir = Some(target.clone());
        opts.check = true;
        opts.stochastic = true;
        let log = PathBuf::from(format!("/tmp/explore-{name}.log"));
        let _ = std::fs::remove_file(&log);
        let healed = cargo_fptune::conversion::heal(&scratch, &opts, &base, &Default::default(), &[], &users, &splices, &log).expect("heal");
        let lossy = healed.heals.iter().filter(|h| h.lossy()).count();
        eprintln!("{name:<24} heals {:>3} (lossy {lossy:>2}) rounds {:>2} stuck {:>3}", healed.heals.len(), healed.rounds, healed.stuck.len());
        for s in healed.stuck.iter().take(6) {
            eprintln!("    {}", s.to_string().lines().next().unwrap_or_default());
        }
        for h in healed.heals.iter().filter(|h| h.lossy()).take(4) {
            eprintln!("    lossy {}:{} {}", h.file, h.start, h.why);
        }
    }
}

//! The probe against real rustc: the fixture `tests/fixtures/probe_couplings` (several independent
//! cases in one crate) is copied to a scratch dir, its knobs are given probe types, and it is built
//! with `cargo build --message-format=json` until the probe settles. The tests read what was
//! learned. All tests share one probe (two builds).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use cargo_fptune::model::{Coupling, FloatFormat, Knob, LeafSpan, Unit};
use cargo_fptune::probe::{units_without_16bit, DiagnosticLike, Probing, Round};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/probe_couplings")
}

fn fptune_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../stochastic").canonicalize().expect("the fptune crate")
}

/// The knob table of the fixture's files, as the tuner numbers it (files sorted by path).
fn discover(files: &[(String, String)]) -> Vec<Knob> {
    let mut knobs = Vec::new();
    for (path, text) in files {
        let file: syn::File = syn::parse_str(text).expect("fixture parses");
        let d = fptune_syntax::discover_file(&file);
        assert!(d.errors.is_empty(), "fixture markers: {:?}", d.errors);
        for k in d.knobs {
            knobs.push(Knob {
                id: knobs.len(),
                file: path.clone(),
                line: k.line,
                column: k.column,
                name: k.name,
                kind: k.kind,
                ty: k.ty,
                declared: k.format.unwrap_or(FloatFormat::F64),
                group: k.group,
                scope: k.scope,
                leaves: k.leaves.iter().map(|l| LeafSpan { start: l.start, end: l.end }).collect(),
            });
        }
    }
    knobs
}

/// The errors of one build of the scratch crate.
fn build(dir: &Path) -> Vec<DiagnosticLike> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--message-format=json", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("probe"))
        .stdin(Stdio::null())
        .output()
        .expect("cargo runs");
    let errors: Vec<DiagnosticLike> =
        cargo_fptune::cargo::errors_in(&String::from_utf8_lossy(&out.stdout)).iter().map(DiagnosticLike::from_error).collect();
    assert!(
        out.status.success() || !errors.is_empty(),
        "the probe build failed without compiler errors:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    errors
}

struct Probed {
    knobs: Vec<Knob>,
    probing: Probing,
    units: Vec<Unit>,
    /// Each build's errors.
    errors: Vec<Vec<DiagnosticLike>>,
    /// The fixture's main.rs, for the lines of `// case:` comments.
    text: String,
}

fn probed() -> &'static Probed {
    static PROBED: OnceLock<Probed> = OnceLock::new();
    PROBED.get_or_init(|| {
        let scratch = tempfile::tempdir().expect("scratch dir");
        let manifest = std::fs::read_to_string(fixture_dir().join("Cargo.toml")).expect("manifest");
        let manifest = manifest.replace("\"../../../../stochastic\"", &format!("{:?}", fptune_dir().display().to_string()));
        std::fs::write(scratch.path().join("Cargo.toml"), manifest).expect("write manifest");
        std::fs::copy(fixture_dir().join("Cargo.lock"), scratch.path().join("Cargo.lock")).expect("copy lock");
        std::fs::create_dir_all(scratch.path().join("src")).expect("src");
        let text = std::fs::read_to_string(fixture_dir().join("src/main.rs")).expect("main.rs");
        let files = vec![("src/main.rs".to_string(), text.clone())];
        let knobs = discover(&files);
        let mut probing = Probing::new(knobs.clone());
        let mut errors = Vec::new();
        loop {
            for (path, source) in probing.sources(&files).expect("probe sources") {
                std::fs::write(scratch.path().join(path), source).expect("write source");
            }
            errors.push(build(scratch.path()));
            if probing.learn(&errors[errors.len() - 1]) == Round::Settled {
                break;
            }
        }
        let units = probing.units();
        Probed { knobs, probing, units, errors, text }
    })
}

impl Probed {
    fn id(&self, name: &str) -> usize {
        self.knobs.iter().find(|k| k.name == name).unwrap_or_else(|| panic!("no knob `{name}`")).id
    }

    fn unit(&self, name: &str) -> &Unit {
        let id = self.id(name);
        self.units.iter().find(|u| u.knobs.contains(&id)).expect("every knob has a unit")
    }

    fn members(&self, name: &str) -> Vec<&str> {
        self.unit(name).knobs.iter().map(|&i| self.knobs[i].name.as_str()).collect()
    }

    /// `src/main.rs:N` of the line carrying `// case: what`.
    fn case(&self, what: &str) -> String {
        let marker = format!("// case: {what}");
        let line = self.text.lines().position(|l| l.trim_end().ends_with(&marker)).expect("case marker") + 1;
        format!("src/main.rs:{line}")
    }
}

#[test]
fn the_first_build_reports_every_case_at_once() {
    let p = probed();
    let places: Vec<String> = p.errors[0].iter().map(DiagnosticLike::place).collect();
    for case in ["shared", "pinned", "literal", "chain a b", "chain b c", "group", "mixed sum"] {
        assert!(places.contains(&p.case(case)), "no error at `{case}` in {places:?}");
    }
    let gain = p.knobs.iter().find(|k| k.name == "GAIN").expect("GAIN");
    assert!(places.contains(&gain.place()), "the static's literal: {places:?}");
    assert!(p.errors[1].iter().all(|e| !e.place().ends_with(&p.case("shared"))), "merged units compile");
}

#[test]
fn two_knobs_sharing_a_slice_are_one_unit() {
    let p = probed();
    assert_eq!(p.members("y"), ["x", "y"]);
    assert_eq!(p.unit("y").coupling, Coupling::Rustc { place: p.case("shared") });
    assert_eq!(p.unit("y").pinned, None);
}

#[test]
fn a_knob_passed_as_a_plain_slice_is_pinned_where_rustc_says() {
    let p = probed();
    assert_eq!(p.members("z"), ["z"]);
    let pinned = p.unit("z").pinned.clone().expect("pinned");
    assert!(pinned.starts_with(&format!("at {} it meets `", p.case("pinned"))), "{pinned}");
}

#[test]
fn a_knob_given_a_literal_array_cannot_be_16_bit_but_is_not_pinned() {
    let p = probed();
    let w = p.unit("w");
    assert_eq!(p.members("w"), ["w"]);
    assert_eq!(w.pinned, None);
    let capped = units_without_16bit(&p.units, p.probing.couplings());
    assert_eq!(capped.get(&w.id).map(|pin| pin.place.clone()), Some(p.case("literal")));
    assert_eq!(capped.len(), 1, "only `w` receives a literal: {capped:?}");
}

#[test]
fn a_static_knobs_own_literal_does_not_bar_16_bits() {
    let p = probed();
    let gain = p.unit("GAIN");
    assert_eq!(p.members("GAIN"), ["GAIN"]);
    assert_eq!(gain.pinned, None);
    assert!(!units_without_16bit(&p.units, p.probing.couplings()).contains_key(&gain.id));
}

#[test]
fn arithmetic_between_knobs_does_not_couple_them() {
    let p = probed();
    for name in ["p", "q"] {
        assert_eq!(p.members(name), [name]);
        assert_eq!(p.unit(name).pinned, None);
    }
}

#[test]
fn a_sum_of_two_knobs_products_stored_in_a_third_couples_all_three() {
    let p = probed();
    let mut members = p.members("dr");
    members.sort_unstable();
    assert_eq!(members, ["da", "dr", "dz"]);
    assert_eq!(p.unit("dr").pinned, None);
}

#[test]
fn transitive_couplings_form_one_unit() {
    let p = probed();
    assert_eq!(p.members("b"), ["a", "b", "c"]);
    assert_eq!(p.unit("b").coupling, Coupling::Rustc { place: p.case("chain a b") });
}

#[test]
fn user_groups_merge_with_what_rustc_couples() {
    let p = probed();
    assert_eq!(p.members("h"), ["g1", "g2", "h"]);
    assert_eq!(p.unit("h").coupling, Coupling::Group { name: "g".into() });
}

#[test]
fn the_probe_settles_once_a_round_learns_nothing_with_every_error_explained() {
    let p = probed();
    // One build to learn (a value computed from several knobs names them all, `dr` and `dz`
    // included), one to confirm the merged units.
    assert_eq!(p.errors.len(), 2, "{:?}", p.errors.iter().map(Vec::len).collect::<Vec<_>>());
    assert!(p.probing.couplings().unexplained.is_empty(), "{:?}", p.probing.couplings().unexplained);
    // Units are numbered by their smallest knob, in order.
    let firsts: Vec<usize> = p.units.iter().map(|u| u.knobs[0]).collect();
    assert!(firsts.windows(2).all(|w| w[0] < w[1]));
    assert!(p.units.iter().enumerate().all(|(i, u)| u.id == i));
}

/// `#[fptune::tune]` treats `Probe<F, K>` as a float wherever it treats `f64` as one: a knob
/// initialised from other knobs' arithmetic, or with a literal, is stored into; a by-value knob
/// parameter takes any float.
#[test]
fn knobs_stored_from_other_knobs_are_neither_coupled_nor_pinned() {
    let p = probed();
    for name in ["m", "n", "r", "s"] {
        assert_eq!(p.members(name), [name], "`{name}`");
        assert_eq!(p.unit(name).pinned, None, "`{name}`");
    }
}

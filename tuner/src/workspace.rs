//! The only module that talks to `cargo metadata`: which package, which binary, which sources.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cargo_metadata::{Metadata as CargoMetadata, MetadataCommand, Package};

use crate::cli::PackageArgs;
use crate::config::Metadata;

/// The package being tuned.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Package name.
    pub name: String,
    /// Directory of its Cargo.toml.
    pub root: PathBuf,
    /// Its Cargo.toml.
    pub manifest: PathBuf,
    /// Binary targets.
    pub bins: Vec<String>,
    /// Example targets.
    pub examples: Vec<String>,
    /// `[package.metadata.fptune]`.
    pub metadata: Metadata,
    /// Whether the package depends on `fptune`.
    pub depends_on_fptune: bool,
    /// The directory of the `fptune` dependency when it is a path dependency (a checkout of
    /// fptune, as the samples use): its sources change what a run gives.
    pub fptune_path: Option<PathBuf>,
    /// cargo's target directory for this workspace (fptune keeps its warm builds under
    /// `fptune/` inside it).
    pub target_dir: PathBuf,
    /// The crate root file of each library, binary and example target (relative to the package
    /// root, `/`-separated): a crate's attributes go there.
    pub roots: Vec<String>,
    /// The package's edition (`2015` crates name other crates through `extern crate`).
    pub edition: String,
    /// Crates the package's build uses, directly or not, whose traits the runtime implements
    /// behind a feature ([`TRAIT_CRATES`]), read from its `Cargo.lock`.
    pub float_trait_crates: Vec<String>,
    /// Crates it uses at a version whose traits the runtime does not implement: said to the user.
    pub trait_crate_warnings: Vec<String>,
}

/// The crates whose traits the runtime implements behind a feature, and the major versions it
/// implements them for (its own dependencies on each): the feature is the crate's name where one
/// version is implemented, `name-version` where several are (`stochastic/Cargo.toml`).
const TRAIT_CRATES: [(&str, &[&str]); 8] = [
    ("num-traits", &["0.2"]),
    ("simba", &["0.9", "0.10"]),
    ("approx", &["0.5"]),
    ("nalgebra", &["0.33", "0.34", "0.35"]),
    ("ndarray", &["0.15", "0.16", "0.17"]),
    ("num-complex", &["0.4"]),
    ("rand", &["0.8", "0.9", "0.10"]),
    ("serde", &["1"]),
];

/// The runtime's features that implement the traits of crates a package uses, given the packages
/// (name, version) in its lock file (every version it holds of a crate: its own and its
/// dependencies'); and, for a crate it uses only at versions whose types the runtime's impls do
/// not reach, a warning that says so.
pub fn runtime_features(locked: &[(String, String)]) -> (Vec<String>, Vec<String>) {
    let (mut features, mut warnings) = (Vec::new(), Vec::new());
    for (name, supported) in TRAIT_CRATES {
        let versions: Vec<&str> = locked.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str()).collect();
        let of_line = |line: &str| versions.iter().any(|v| *v == line || v.starts_with(&format!("{line}.")));
        let lines: Vec<&str> = supported.iter().copied().filter(|l| of_line(l)).collect();
        for line in &lines {
            features.push(if supported.len() == 1 { name.to_string() } else { format!("{name}-{line}") });
        }
        if let (true, Some(v)) = (lines.is_empty(), versions.first()) {
            let known = supported.join(", ");
            warnings.push(format!(
                "the crate uses {name} {v}, and fptune's runtime implements the traits of {name} {known}, not \
                 {v}'s: fptune's floats cannot meet {name} {v}'s types and traits, so what meets them stays f64 \
                 (with {name} {}, it is tuned too)",
                supported[supported.len() - 1]
            ));
        }
    }
    (features, warnings)
}

/// Where the fptune runtime's sources are, for scratch copies of crates that do not depend on
/// it: `FPTUNE_RUNTIME` when set, else the checkout this tuner was built from.
pub fn runtime_dir() -> Result<PathBuf> {
    let dir = match std::env::var_os("FPTUNE_RUNTIME").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../stochastic"),
    };
    dir.join("Cargo.toml").is_file().then(|| dir.canonicalize().unwrap_or(dir.clone())).with_context(|| {
        format!(
            "the fptune runtime is not at {}: a crate without the fptune dependency is tuned with the runtime of \
             the checkout cargo-fptune was built from; set FPTUNE_RUNTIME to its `stochastic` directory",
            dir.display()
        )
    })
}

/// The packages a `Cargo.lock` holds: name and version (each `[[package]]` names its `name`, then
/// its `version`).
fn locked_packages(lock: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(lock) else { return Vec::new() };
    let field = |l: &str, key: &str| l.strip_prefix(key).and_then(|r| r.strip_prefix(" = \"")).and_then(|r| r.strip_suffix('"')).map(str::to_string);
    let mut out = Vec::new();
    let mut name = None;
    for l in text.lines() {
        if let Some(n) = field(l, "name") {
            name = Some(n);
        } else if let (Some(v), Some(n)) = (field(l, "version"), name.take()) {
            out.push((n, v));
        }
    }
    out
}

/// What to run: a binary or an example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunTarget {
    /// `--bin NAME`.
    Bin(String),
    /// `--example NAME`.
    Example(String),
}

impl RunTarget {
    /// The target's name.
    pub fn name(&self) -> &str {
        match self {
            RunTarget::Bin(n) | RunTarget::Example(n) => n,
        }
    }
}

impl Workspace {
    /// Finds the package from `--manifest-path` / `-p` / the current directory.
    pub fn locate(args: &PackageArgs) -> Result<Workspace> {
        let mut cmd = MetadataCommand::new();
        cmd.no_deps();
        if let Some(m) = &args.manifest_path {
            cmd.manifest_path(m);
        }
        let meta = cmd.exec().context(
            "cannot read the crate with `cargo metadata`: run cargo fptune in a crate's directory, \
             or give --manifest-path path/to/Cargo.toml",
        )?;
        let package = select_package(&meta, args)?;
        let manifest = package.manifest_path.clone().into_std_path_buf();
        let root = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
        let kinds = |k: &str| -> Vec<String> {
            package
                .targets
                .iter()
                .filter(|t| t.kind.iter().any(|tk| tk.to_string() == k))
                .map(|t| t.name.clone())
                .collect()
        };
        let metadata = Metadata::from_package_metadata(&package.metadata)?;
        let roots = package
            .targets
            .iter()
            .filter(|t| t.kind.iter().any(|k| matches!(k.to_string().as_str(), "lib" | "rlib" | "bin" | "example")))
            .filter_map(|t| t.src_path.strip_prefix(&root).ok().map(|p| p.as_str().replace('\\', "/")))
            .collect();
        let mut locked = locked_packages(&root.join("Cargo.lock"));
        locked.extend(locked_packages(&meta.workspace_root.clone().into_std_path_buf().join("Cargo.lock")));
        // A crate never built has no lock file: its own dependencies, at the version they ask.
        locked.extend(package.dependencies.iter().map(|d| (d.name.clone(), d.req.to_string().trim_start_matches(['^', '=', '~', ' ']).to_string())));
        let (float_trait_crates, trait_crate_warnings) = runtime_features(&locked);
        Ok(Workspace {
            name: package.name.to_string(),
            root,
            manifest,
            bins: kinds("bin"),
            examples: kinds("example"),
            metadata,
            depends_on_fptune: package.dependencies.iter().any(|d| d.name == "fptune"),
            fptune_path: package
                .dependencies
                .iter()
                .find(|d| d.name == "fptune")
                .and_then(|d| d.path.clone())
                .map(|p| p.into_std_path_buf()),
            target_dir: meta.target_directory.clone().into_std_path_buf(),
            roots,
            edition: package.edition.to_string(),
            float_trait_crates,
            trait_crate_warnings,
        })
    }

    /// The program to run: `--bin`/`--example`, or the only binary.
    pub fn run_target(&self, bin: Option<&str>, example: Option<&str>) -> Result<RunTarget> {
        match (bin, example) {
            (Some(b), _) => {
                if !self.bins.iter().any(|x| x == b) {
                    bail!("package `{}` has no binary `{b}`; its binaries: {}", self.name, list(&self.bins));
                }
                Ok(RunTarget::Bin(b.to_string()))
            }
            (None, Some(e)) => {
                if !self.examples.iter().any(|x| x == e) {
                    bail!("package `{}` has no example `{e}`; its examples: {}", self.name, list(&self.examples));
                }
                Ok(RunTarget::Example(e.to_string()))
            }
            (None, None) => match self.bins.as_slice() {
                [one] => Ok(RunTarget::Bin(one.clone())),
                [] => bail!(
                    "package `{}` has no binary to run: fptune runs a program whose fptune::check! calls name \
                     the results; add src/main.rs or give --example NAME",
                    self.name
                ),
                many => bail!(
                    "package `{}` has several binaries ({}): choose one with --bin NAME \
                     (or `bin = \"NAME\"` in [package.metadata.fptune])",
                    self.name,
                    list(many)
                ),
            },
        }
    }

    /// Every `.rs` file of the package (relative, `/`-separated, sorted), outside `target/` and
    /// fptune's output directories (the default one, and any other that carries fptune's stamp:
    /// an earlier run's, renamed `fptune.out.bak`, holds copies of the sources under `logs/`).
    pub fn sources(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for entry in walkdir::WalkDir::new(&self.root).into_iter().filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            let output = e.path().join(crate::outdir::STAMP).is_file();
            // (The package's own directory may be a hidden one: `/tmp/.tmpXYZ`.)
            e.depth() == 0 || !(e.file_type().is_dir() && (name == "target" || name == crate::outdir::RUN_DEFAULT || name.starts_with('.') || output))
        }) {
            let entry = entry.with_context(|| format!("reading {}", self.root.display()))?;
            if entry.file_type().is_file() && entry.path().extension().is_some_and(|x| x == "rs") {
                let rel = entry.path().strip_prefix(&self.root).unwrap_or(entry.path());
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
        out.sort();
        Ok(out)
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn select_package<'m>(meta: &'m CargoMetadata, args: &PackageArgs) -> Result<&'m Package> {
    let members: Vec<&Package> = meta.workspace_packages();
    if let Some(spec) = &args.package {
        return members.iter().copied().find(|p| p.name.as_str() == spec).with_context(|| {
            let names: Vec<String> = members.iter().map(|p| p.name.to_string()).collect();
            format!("no package `{spec}` in this workspace; its packages: {}", names.join(", "))
        });
    }
    // The package whose manifest is the one given, or the one containing the current dir.
    let manifest = match &args.manifest_path {
        Some(m) => Some(std::fs::canonicalize(m).with_context(|| format!("--manifest-path {}", m.display()))?),
        None => None,
    };
    let cwd = std::env::current_dir().context("current directory")?;
    let found = members.iter().copied().find(|p| {
        let pm = p.manifest_path.as_std_path();
        match &manifest {
            Some(m) => std::fs::canonicalize(pm).is_ok_and(|c| &c == m),
            None => pm.parent().is_some_and(|d| cwd.starts_with(d)),
        }
    });
    match (found, members.as_slice()) {
        (Some(p), _) => Ok(p),
        (None, [one]) => Ok(one),
        (None, _) => {
            let names: Vec<String> = members.iter().map(|p| p.name.to_string()).collect();
            bail!("this is a workspace: choose the package with -p NAME ({})", names.join(", "))
        }
    }
}

/// The package directories a path dependency at `dir` is built from: `dir` and, transitively,
/// the path dependencies its `Cargo.toml` names (fptune's macros and syntax crates), in a fixed
/// order.
pub fn path_dependency_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let d = d.canonicalize().unwrap_or(d);
        if seen.contains(&d) {
            continue;
        }
        if let Some(manifest) = std::fs::read_to_string(d.join("Cargo.toml")).ok().and_then(|t| t.parse::<toml_edit::DocumentMut>().ok()) {
            if let Some(deps) = manifest.get("dependencies").and_then(|x| x.as_table_like()) {
                for (_, dep) in deps.iter() {
                    if let Some(path) = dep.as_table_like().and_then(|t| t.get("path")).and_then(|p| p.as_str()) {
                        todo.push(d.join(path));
                    }
                }
            }
        }
        seen.push(d);
    }
    seen.sort();
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_features_follow_the_versions_the_runtime_implements_and_say_the_others() {
        let p = |n: &str, v: &str| (n.to_string(), v.to_string());
        let (features, warnings) = runtime_features(&[
            p("nalgebra", "0.35.0"),
            p("simba", "0.10.2"),
            p("num-traits", "0.2.19"),
            p("ndarray", "0.14.0"),
            p("rand", "0.8.5"),
            p("rand", "0.10.4"),
            p("serde", "1.0.219"),
        ]);
        assert_eq!(features, ["num-traits", "simba-0.10", "nalgebra-0.35", "rand-0.8", "rand-0.10", "serde"]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("ndarray 0.14.0") && warnings[0].contains("ndarray 0.15, 0.16, 0.17"), "{warnings:?}");
        // A manifest's requirement, `0.33` from `^0.33`, is a version of the line; 0.3 is not 0.33.
        assert_eq!(runtime_features(&[p("nalgebra", "0.33")]).0, ["nalgebra-0.33"]);
        assert!(runtime_features(&[p("rand", "0.3.1")]).0.is_empty());
    }

    /// An earlier run's output directory, renamed, is no source of the package (it holds
    /// copies of the sources under `logs/sources/`).
    #[test]
    fn an_earlier_runs_output_is_no_source_whatever_its_name() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n").expect("manifest");
        for (file, text) in [("src/main.rs", "fn main() {}\n"), ("fptune.out.bak/.fptune-output", ""), ("fptune.out.bak/logs/sources/src/main.rs", "fn main() {}\n")] {
            std::fs::create_dir_all(root.join(file).parent().expect("parent")).expect("dirs");
            std::fs::write(root.join(file), text).expect("file");
        }
        let args = crate::cli::PackageArgs { manifest_path: Some(root.join("Cargo.toml")), ..Default::default() };
        let ws = Workspace::locate(&args).expect("the package");
        assert_eq!(ws.sources().expect("sources"), ["src/main.rs"]);
    }

    /// Every feature the tuner turns on is one the runtime declares.
    #[test]
    fn the_runtime_declares_every_feature_the_tuner_turns_on() {
        let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../stochastic/Cargo.toml")).expect("runtime manifest");
        let table: toml_edit::DocumentMut = manifest.parse().expect("TOML");
        let declared = table["features"].as_table().expect("[features]");
        for (name, lines) in TRAIT_CRATES {
            for line in lines {
                let locked = [(name.to_string(), format!("{line}.0"))];
                for feature in runtime_features(&locked).0 {
                    assert!(declared.contains_key(&feature), "{feature} is not a feature of the runtime");
                }
            }
        }
    }

    #[test]
    fn a_lock_file_gives_each_package_its_version() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lock = dir.path().join("Cargo.lock");
        std::fs::write(&lock, "version = 4\n\n[[package]]\nname = \"approx\"\nversion = \"0.5.1\"\nsource = \"x\"\n\n[[package]]\nname = \"nalgebra\"\nversion = \"0.30.1\"\n").expect("write");
        assert_eq!(locked_packages(&lock), [("approx".to_string(), "0.5.1".to_string()), ("nalgebra".to_string(), "0.30.1".to_string())]);
    }

    #[test]
    fn a_path_dependency_on_fptune_brings_its_macro_syntax_and_spec_crates() {
        let stochastic = Path::new(env!("CARGO_MANIFEST_DIR")).join("../stochastic");
        let names: Vec<String> = path_dependency_dirs(&stochastic)
            .iter()
            .map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
            .collect();
        assert_eq!(names, ["macros", "spec", "stochastic", "syntax"]);
    }
}

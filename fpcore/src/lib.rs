//! fpcore2rust: translates FPBench's FPCore benchmarks into standalone Rust programs that read
//! like hand-written numerical code, as inputs for fptune.
//!
//! Each FPCore definition becomes a Cargo package with no dependencies: a function computing
//! the benchmark (FPCore's `let`s as typed `let`s, its loops as `while` loops, its operations
//! as `f64`/`f32` methods, in the precision FPCore asks for), and a `main` that evaluates it
//! on a fixed number of inputs drawn by a seeded generator inside the precondition and prints
//! one result per line. Definitions that use what Rust's std lacks (`erf`, tensors...) are
//! skipped with the reason.
//!
//! The pipeline: [`sexp`] reads the text, [`parse`] makes [`ast`] benchmarks, [`codegen`]
//! writes expressions in the types [`precision`] chooses, [`sampling`] reads the
//! precondition, and [`program`] assembles the package, named by [`names`].

pub mod ast;
pub mod codegen;
pub mod names;
pub mod number;
pub mod parse;
pub mod precision;
pub mod program;
pub mod sampling;
pub mod sexp;

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::Path;

pub use names::Slugs;
pub use program::{Options, Package};

/// Why a benchmark cannot be translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

/// What became of one FPCore definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The file it comes from, as given.
    pub origin: String,
    /// Its position in the file, from 1.
    pub index: usize,
    /// Its `:name`, or `<file> #<index>` when it has none.
    pub name: String,
    /// The package name it has (or would have had).
    pub slug: String,
    /// The package, or why there is none.
    pub result: Result<Package, String>,
}

/// Translates every definition of FPCore text `text`, read from `origin` (named in the docs of
/// the generated programs), giving each a slug unique among those `slugs` has seen.
pub fn translate_source(
    origin: &str,
    text: &str,
    slugs: &mut Slugs,
    options: &Options,
) -> Result<Vec<Outcome>, sexp::ReadError> {
    let file_name = Path::new(origin)
        .file_name()
        .map_or(origin.to_string(), |n| n.to_string_lossy().into_owned());
    let stem = Path::new(&file_name)
        .file_stem()
        .map_or(file_name.clone(), |s| s.to_string_lossy().into_owned());
    let parsed = parse::parse_file(text)?;
    let mut outcomes = Vec::new();
    for (i, definition) in parsed.into_iter().enumerate() {
        let index = i + 1;
        let name = match &definition {
            Ok(b) => b.name().map(str::to_string),
            Err(_) => None,
        };
        let name = name.unwrap_or_else(|| format!("{file_name} #{index}"));
        let slug = slugs.claim(&name.replace(&file_name, &stem));
        let result = match definition {
            Ok(b) => program::package(&b, &slug, &file_name, options).map_err(|e| e.0),
            Err(e) => Err(format!("not well-formed FPCore: {e}")),
        };
        outcomes.push(Outcome {
            origin: origin.to_string(),
            index,
            name,
            slug,
            result,
        });
    }
    Ok(outcomes)
}

/// Writes `package` as `<out>/<slug>/Cargo.toml` and `<out>/<slug>/src/main.rs`.
pub fn write_package(out: &Path, package: &Package) -> io::Result<()> {
    let dir = out.join(&package.slug);
    fs::create_dir_all(dir.join("src"))?;
    fs::write(dir.join("Cargo.toml"), &package.cargo_toml)?;
    fs::write(dir.join("src").join("main.rs"), &package.main_rs)
}

/// A table of the outcomes (one row per definition) followed by the totals and, for the
/// skipped ones, how many were skipped for each reason.
pub fn summary(outcomes: &[Outcome]) -> String {
    let mut rows = vec![[
        "file".to_string(),
        "benchmark".to_string(),
        "package".to_string(),
        "result".to_string(),
    ]];
    for o in outcomes {
        let file = Path::new(&o.origin)
            .file_name()
            .map_or(o.origin.clone(), |n| n.to_string_lossy().into_owned());
        let result = match &o.result {
            Ok(_) => "translated".to_string(),
            Err(reason) => format!("skipped: {reason}"),
        };
        rows.push([file, o.name.clone(), o.slug.clone(), result]);
    }
    let widths: Vec<usize> = (0..3)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for (i, row) in rows.iter().enumerate() {
        for (c, width) in widths.iter().enumerate() {
            text.push_str(&format!("{:<width$}  ", row[c]));
        }
        text.push_str(&row[3]);
        text.push('\n');
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * widths.len() + 6;
            text.push_str(&"-".repeat(total));
            text.push('\n');
        }
    }
    let translated = outcomes.iter().filter(|o| o.result.is_ok()).count();
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for o in outcomes {
        if let Err(reason) = &o.result {
            *reasons.entry(reason.as_str()).or_default() += 1;
        }
    }
    text.push_str(&format!(
        "\ntranslated {translated} of {} definitions; skipped {}\n",
        outcomes.len(),
        outcomes.len() - translated
    ));
    let mut reasons: Vec<(&str, usize)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (reason, count) in reasons {
        text.push_str(&format!("  {count:>3} × {reason}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = r#"
        (FPCore (x) :name "square" :pre (<= 0 x 1) (* x x))
        (FPCore (x) :name "error function" (erf x))
        (FPCore (x) (+ x 1))
    "#;

    #[test]
    fn every_definition_of_a_file_has_an_outcome_with_a_unique_slug() {
        let mut slugs = Slugs::default();
        let outcomes = translate_source("dir/demo.fpcore", TWO, &mut slugs, &Options::default())
            .expect("readable");
        assert_eq!(outcomes.len(), 3);
        assert_eq!(outcomes[0].slug, "square");
        assert!(outcomes[0].result.is_ok());
        assert!(outcomes[1]
            .result
            .as_ref()
            .expect_err("skipped")
            .contains("erf"));
        assert_eq!(outcomes[2].name, "demo.fpcore #3");
        assert_eq!(outcomes[2].slug, "demo_3");
        let again = translate_source("demo.fpcore", TWO, &mut slugs, &Options::default())
            .expect("readable");
        assert_eq!(again[0].slug, "square_2");
    }

    #[test]
    fn the_summary_counts_translations_and_skip_reasons() {
        let mut slugs = Slugs::default();
        let outcomes = translate_source("demo.fpcore", TWO, &mut slugs, &Options::default())
            .expect("readable");
        let text = summary(&outcomes);
        assert!(
            text.contains("translated 2 of 3 definitions; skipped 1"),
            "{text}"
        );
        assert!(text.contains("1 × `erf`, which Rust's std lacks"), "{text}");
        assert!(
            text.lines().any(|l| l.starts_with("demo.fpcore")
                && l.contains("square")
                && l.ends_with("translated")),
            "{text}"
        );
    }

    #[test]
    fn packages_are_written_where_cargo_expects_them() {
        let dir = std::env::temp_dir().join(format!("fpcore-lib-test-{}", std::process::id()));
        let package = Package {
            slug: "p".into(),
            cargo_toml: "toml".into(),
            main_rs: "rs".into(),
        };
        write_package(&dir, &package).expect("written");
        assert_eq!(
            fs::read_to_string(dir.join("p/Cargo.toml")).expect("readable"),
            "toml"
        );
        assert_eq!(
            fs::read_to_string(dir.join("p/src/main.rs")).expect("readable"),
            "rs"
        );
        fs::remove_dir_all(&dir).expect("removed");
    }
}

//! The results of a tuning run: the table on the terminal, and `fptune.out/` with `report.json`
//! (versioned schema), `report.md`, `tuned.patch`, the tuned sources for `cargo fptune apply`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::apply::{sha256, FileChange, Input};
use crate::config::Settings;
use crate::lab::{Counts, Recheck, Tuned};
use crate::model::{Coupling, FloatFormat, Knob, Record, Unit};
use crate::search::{Evidence, PassSummary};
use crate::workspace::Workspace;

/// Version of `report.json`'s layout.
pub const SCHEMA: u32 = 2;

/// One knob in the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KnobRow {
    /// The knob.
    #[serde(flatten)]
    pub knob: Knob,
    /// Its unit.
    pub unit: usize,
    /// The format found.
    pub found: FloatFormat,
    /// When kept above the bottom of the ladder: why (lowering it one more step fails so).
    pub evidence: Option<String>,
}

/// `report.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// Layout version ([`SCHEMA`]).
    pub schema: u32,
    /// fptune's version.
    pub tool: String,
    /// Package name.
    pub package: String,
    /// Required digits (default).
    pub digits: f64,
    /// Per-name requirements.
    pub digits_for: std::collections::BTreeMap<String, f64>,
    /// Ladder formats.
    pub ladder: Vec<FloatFormat>,
    /// The machine whose matrix units `fptune::dot` modelled (the target's `machine`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// Program arguments.
    pub args: Vec<String>,
    /// Seed.
    pub seed: u64,
    /// Every knob with its result.
    pub knobs: Vec<KnobRow>,
    /// The units searched.
    pub units: Vec<Unit>,
    /// Units kept from 16-bit formats (a float literal, a bound rustc refuses), with why.
    pub capped: Vec<(usize, String)>,
    /// The configuration found (format per unit).
    pub configuration: Vec<FloatFormat>,
    /// `#half-#single-#double` over knobs.
    pub census: (usize, usize, usize),
    /// Passes.
    pub passes: Vec<PassSummary>,
    /// Counts and times.
    pub counts: Counts,
    /// The re-checks of the result (DSA with another seed, native), as `"final_check"`.
    #[serde(rename = "final_check")]
    pub recheck: Recheck,
    /// The reference's checked values.
    pub reference: Vec<Record>,
    /// Positions in `reference` of the values not judged: printed values the reference itself
    /// does not know to the requirement, or that change from run to run.
    #[serde(default)]
    pub unchecked: Vec<usize>,
    /// Changed files.
    pub files: Vec<FileChange>,
    /// What the result depends on (every source file and the manifest), for `apply`.
    pub inputs: Vec<Input>,
    /// Warnings.
    pub warnings: Vec<String>,
}

/// The user's line a pin names ("at src/main.rs:35 it meets `f64`").
fn pinned_line<'a>(pin: &str, user: &'a [(String, String)]) -> Option<&'a str> {
    let place = pin.split(" it meets `").next()?.rsplit("at ").next()?;
    let (file, line) = place.trim().rsplit_once(':')?;
    let line: usize = line.parse().ok()?;
    let text = user.iter().find(|(f, _)| f == file).map(|(_, t)| t.as_str())?;
    text.lines().nth(line.checked_sub(1)?)
}

fn evidence_text(e: &Evidence) -> String {
    e.reason.to_string()
}

/// Builds the report and writes `fptune.out/`.
pub fn write(settings: &Settings, ws: &Workspace, tuned: &Tuned) -> Result<Report> {
    let inv = &tuned.inventory;
    let out = &settings.out;
    let config = &tuned.search.configuration;
    let mut unit_of = vec![0usize; inv.knobs.len()];
    for u in &tuned.units {
        for &k in &u.knobs {
            unit_of[k] = u.id;
        }
    }
    let knobs: Vec<KnobRow> = inv
        .knobs
        .iter()
        .map(|k| {
            let unit = unit_of[k.id];
            // A unit a float literal reaches (or one rustc refused at 16 bits) stops at 32 bits:
            // said with the place before what the search saw of its 16-bit candidates (never built).
            let capped = tuned.capped.iter().find(|(u, _)| *u == unit).filter(|_| config.0[unit] == FloatFormat::F32).map(|(_, why)| why.clone());
            let evidence = capped
                .or_else(|| tuned.search.evidence.iter().find(|e| e.unit == unit).map(evidence_text))
                .or_else(|| {
                    tuned.units[unit].pinned.as_ref().map(|p| {
                        if p.contains(" it meets `the operator ") {
                            // An operator between it and a type of another crate the runtime's
                            // features do not reach (at that crate's version).
                            format!(
                                "rustc requires its type to stay: {p}, whose other operand is of a type fptune's floats cannot enter (another crate's, at a version fptune's runtime does not implement, or a trait of yours implemented for `f64` only)"
                            )
                        } else if p.contains(" it meets `") && tuned.auto {
                            // Every declaration is a knob already: the type is written elsewhere
                            // (what on that line fixes it, when it is one of std's constants, a
                            // cast or a suffixed literal).
                            let there = pinned_line(p, &tuned.sources.user).map(crate::probe::fixed_floats_on).unwrap_or_default();
                            if there.is_empty() {
                                format!(
                                    "rustc requires its type to stay: {p}, which no knob holds (a suffixed literal such as `1f64`, a cast, a path such as `f64::abs`, the float of a callable's type such as `&dyn Fn(f64) -> f64`, a trait impl's or another crate's signature: write it as the knob's type, or the value as a closure (`|x| x.abs()`), to lower both)"
                                )
                            } else {
                                format!(
                                    "rustc requires its type to stay: {p}, which no declaration of the crate holds; on that line {} fix it: written as the knob's type, or as a knob of their own (`let pi: f64 = PI;`), they follow it",
                                    there.join(", ")
                                )
                            }
                        } else if p.contains(" it meets `") {
                            format!(
                                "rustc requires its type to stay: {p}, which no knob holds (where it is a declaration of yours, mark it `#[tune]`, or tune with `--auto`, to lower both)"
                            )
                        } else {
                            format!("rustc requires its type to stay: {p}")
                        }
                    })
                })
                .or_else(|| {
                    tuned.units[unit].unchecked.then(|| {
                        "unchecked: lowered alone to the ladder's bottom, it changes what the program prints but no checked result (natively), so it keeps its declared type; `--lower-unchecked` tunes it too".to_string()
                    })
                });
            KnobRow { knob: k.clone(), unit, found: config.0[unit], evidence }
        })
        .collect();
    let census = crate::model::census(&knobs.iter().map(|row| row.found).collect::<Vec<_>>());

    // The tuned sources, the patch, and what apply needs.
    let layout = crate::outdir::RunLayout(out);
    let tuned_dir = layout.tuned();
    let _ = std::fs::remove_dir_all(&tuned_dir);
    let formats = config.knob_formats(&tuned.units, inv.knobs.len());
    let changed = tuned.sources.tuned_user_texts(&inv.knobs, &formats, tuned.auto)?;
    let mut files = Vec::new();
    let mut patch = String::new();
    // Each changed file: its tuned text under `tuned/`, its entry for apply, its diff.
    let mut change = |rel: &str, original: &str, text: &str| -> Result<()> {
        let dest = tuned_dir.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&dest, text).with_context(|| format!("writing {}", dest.display()))?;
        files.push(FileChange { path: rel.to_string(), original_sha256: sha256(original), tuned: crate::outdir::RunLayout::tuned_file(rel), tuned_sha256: sha256(text) });
        let diff = similar::TextDiff::from_lines(original, text);
        let _ = write!(patch, "{}", diff.unified_diff().context_radius(3).header(&format!("a/{rel}"), &format!("b/{rel}")));
        Ok(())
    };
    for (rel, text) in &changed {
        let Some((_, original)) = tuned.sources.user.iter().find(|(r, _)| r == rel) else { continue };
        if text != original {
            change(rel, original, text)?;
        }
    }
    if tuned.auto && !ws.depends_on_fptune {
        // Zero-touch tuning keeps its markers in the tuned code (they write the formats the
        // configuration mixes): the crate then depends on fptune, as its scratch copies did.
        if let Some(dep) = crate::setup::fptune_dependency(ws)? {
            let rel = ws.manifest.strip_prefix(&ws.root).unwrap_or(Path::new("Cargo.toml")).to_string_lossy().to_string();
            let original = std::fs::read_to_string(&ws.manifest).with_context(|| format!("reading {}", ws.manifest.display()))?;
            change(&rel, &original, &crate::scratch::with_fptune(&original, &dep)?)?;
        }
    }
    std::fs::write(layout.patch(), &patch).context("writing tuned.patch")?;
    let mut inputs: Vec<Input> = tuned.sources.user.iter().map(|(rel, text)| Input { path: rel.clone(), sha256: sha256(text) }).collect();
    let manifest_rel = ws.manifest.strip_prefix(&ws.root).unwrap_or(Path::new("Cargo.toml")).to_string_lossy().to_string();
    if !inputs.iter().any(|i| i.path == manifest_rel) {
        let text = std::fs::read_to_string(&ws.manifest).with_context(|| format!("reading {}", ws.manifest.display()))?;
        inputs.push(Input { path: manifest_rel, sha256: sha256(&text) });
    }

    let report = Report {
        schema: SCHEMA,
        tool: env!("CARGO_PKG_VERSION").to_string(),
        package: ws.name.clone(),
        digits: settings.digits.default,
        digits_for: settings.digits.per_name.clone(),
        ladder: settings.ladder.formats.clone(),
        machine: settings.ladder.machine.clone(),
        args: settings.args.clone(),
        seed: settings.seed,
        knobs,
        units: tuned.units.clone(),
        capped: tuned.capped.clone(),
        configuration: config.0.clone(),
        census,
        passes: tuned.search.passes.clone(),
        counts: tuned.counts.clone(),
        recheck: tuned.recheck.clone(),
        reference: tuned.reference.clone(),
        unchecked: tuned.unchecked.clone(),
        files,
        inputs,
        warnings: tuned.warnings.iter().cloned().chain(overridden_rules(settings, &tuned.reference)).collect(),
    };
    let json = serde_json::to_string_pretty(&report).context("serialising the report")?;
    std::fs::write(layout.report_json(), json).context("writing report.json")?;
    std::fs::write(layout.report_md(), markdown(&report)).context("writing report.md")?;
    Ok(report)
}

/// The knob table (terminal and Markdown share it).
pub fn table(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| knob | place | declared | found | why not lower |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for row in &report.knobs {
        let k = &row.knob;
        let name = if k.scope.is_empty() { k.name.clone() } else { format!("{}::{}", k.scope, k.name) };
        let group = match &report.units[row.unit].coupling {
            Coupling::Alone => String::new(),
            Coupling::Group { name } => format!(" (group {name})"),
            Coupling::Rustc { place } => format!(" (shares a type, {place})"),
        };
        let _ = writeln!(
            s,
            "| `{name}`{group} | {} | `{}` | **{}** | {} |",
            k.place(),
            k.ty,
            row.found,
            row.evidence.as_deref().unwrap_or("")
        );
    }
    s
}

/// A short summary: what was found and what it cost.
pub fn summary(report: &Report) -> String {
    let c = &report.counts;
    let f = &report.recheck;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} digits, ladder {}{}: #half-#single-#double = {}-{}-{}",
        report.digits,
        report.ladder.iter().map(|f| f.short()).collect::<Vec<_>>().join(" -> "),
        report.machine.as_ref().map(|m| format!(" (dot products on {m}'s matrix units)")).unwrap_or_default(),
        report.census.0,
        report.census.1,
        report.census.2
    );
    let _ = writeln!(
        s,
        "compilations: {} (failed: {}), {:.1} s; executions: {} (failed: {}), {:.1} s; from cache: {}; total {:.1} s",
        c.compilations, c.compilations_failed, c.compile_seconds, c.executions, c.executions_failed, c.run_seconds, c.cached, c.total_seconds
    );
    if c.other_builds > 0 {
        // The counts above are the search's, as PROMISE gives them; say what else was built.
        let _ = writeln!(
            s,
            "other builds: {} (the original, probe rounds, the DSA reference, single builds, the final re-checks)",
            c.other_builds
        );
    }
    if c.single_build {
        let _ = writeln!(s, "DSA candidates were runs of one single build, each unit's format chosen at run time; the configuration found was rebuilt");
    }
    if c.single_native {
        let _ = writeln!(s, "candidates' native runs were runs of one native single build too (each unit in its format's round-to-nearest arithmetic)");
    }
    if c.speculated > 0 {
        let _ = writeln!(
            s,
            "{} candidates ran ahead of their round on a free worker, betting that the one the round waited for was valid: the search needed {} of them",
            c.speculated, c.speculated_used
        );
    }
    if c.quick_builds {
        let _ = writeln!(s, "DSA candidates were built unoptimised (their runs cost little against their builds)");
    }
    if c.native_first {
        let _ = writeln!(
            s,
            "candidates ran natively first: {} failed there and were not run under DSA",
            c.native_rejected
        );
        if c.native_unscreened > 0 {
            let _ = writeln!(
                s,
                "{} candidates ran under DSA directly: in their pass, native runs refused too few to pay for themselves",
                c.native_unscreened
            );
        }
    }
    if c.native_after {
        let _ = writeln!(
            s,
            "a configuration valid under DSA failed natively, so candidates valid under DSA also ran natively: {} failed there",
            c.native_rejected
        );
    }
    if c.rejected > 0 {
        let _ = writeln!(
            s,
            "{} configuration(s) found earlier failed their re-check (another seed, or natively): the search ran again without them",
            c.rejected
        );
    }
    if c.two_seeds {
        let _ = writeln!(
            s,
            "a configuration valid under DSA failed with another seed, so candidates not judged before ran under DSA with seeds {} and {}",
            report.seed,
            report.seed.wrapping_add(1)
        );
    }
    let recheck_seed = f.dsa_recheck_seed.unwrap_or(report.seed.wrapping_add(1));
    let unchecked: std::collections::BTreeSet<usize> = report.unchecked.iter().copied().collect();
    let blind = crate::validate::blind(&report.reference, &unchecked);
    let judged = report.reference.len() - unchecked.len();
    match &f.dsa_recheck_reason {
        None if judged > 0 && blind.len() == judged => {
            let _ = writeln!(
                s,
                "independent DSA re-check (seed {recheck_seed}): NOT a validation: none of the {judged} checked value(s) carries \
                 stochastic information (three identical samples: computed exactly or outside DSA); only the native re-check below judges them"
            );
        }
        None => {
            let _ = writeln!(s, "independent DSA re-check (seed {recheck_seed}): valid");
        }
        Some(r) => {
            let _ = writeln!(s, "independent DSA re-check (seed {recheck_seed}): NOT valid: {r}");
        }
    }
    let verdict = if f.meets_requirement { "meet the requirement" } else { "DO NOT meet the requirement" };
    let _ = write!(s, "native re-check: the checked results {verdict}");
    if let Some((value, digits, required)) = &f.tightest {
        let _ = write!(s, " (tightest: {value}, {:.1} digits in common, {required} required)", digits.min(99.0));
    }
    if let Some(r) = &f.reason {
        let _ = write!(s, ": {r}");
    }
    match f.tuned_seconds {
        Some(tuned) => {
            let ratio = f.original_seconds / tuned.max(1e-9);
            let _ = writeln!(
                s,
                "\nnative run time: original {:.3} s, tuned {tuned:.3} s ({})",
                f.original_seconds,
                if ratio >= 1.0 { format!("{ratio:.2}x faster") } else { format!("{:.2}x slower", 1.0 / ratio) }
            );
        }
        None => {
            let _ = writeln!(s, "\nnative run time: original {:.3} s, tuned not run", f.original_seconds);
        }
    }
    for c in &f.checks {
        let _ = writeln!(s, "{}", check_line(c));
    }
    s
}

/// One check with a rule of its own, as the summary shows it: the measured values (natively and
/// under the DSA re-check) beside the bound, and the DSA digits.
fn check_line(c: &crate::validate::CheckMeasure) -> String {
    let side = |label: &str, x: Option<f64>| match (x, c.rule.metric.bound()) {
        (None, _) => format!("{label} not measured"),
        (Some(x), _) if x.is_nan() => format!("{label} not measurable"),
        (Some(x), Some(bound)) => format!("{label} {x:.2e} {} {}", if x <= bound { "<=" } else { ">" }, crate::validate::short(bound)),
        (Some(x), None) => format!("{label} {x:.2e}"),
    };
    let digits = match (c.rule.dsa_digits, c.dsa_digits) {
        (false, _) => "DSA digits not required".to_string(),
        (true, Some(d)) => format!("fewest exact digits (DSA) {:.1}, {} required", d.min(99.0), c.required),
        (true, None) => format!("exact digits (DSA) not measured, {} required", c.required),
    };
    let measured = if c.rule.metric.bound().is_some() {
        format!("{}, {}; ", side("natively", c.native), side("under DSA", c.dsa))
    } else {
        String::new()
    };
    format!("check `{}` ({}, from {}): {measured}{digits}", c.check, c.rule, c.from)
}

/// Checks given a rule both by `check!` and by Cargo.toml: Cargo.toml's wins, said as a warning.
fn overridden_rules(settings: &Settings, reference: &[Record]) -> Vec<String> {
    settings
        .digits
        .checks
        .iter()
        .filter_map(|(name, rule)| {
            let given = reference.iter().find(|r| &r.name == name).and_then(|r| r.rule)?;
            (given != *rule).then(|| {
                format!("check `{name}`: [package.metadata.fptune.checks.{name}] in Cargo.toml ({rule}) wins over its check!'s metric ({given})")
            })
        })
        .collect()
}

fn markdown(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# fptune report: `{}`\n", report.package);
    let _ = writeln!(s, "{}", summary(report));
    let _ = writeln!(s, "{}", table(report));
    if !report.warnings.is_empty() {
        let _ = writeln!(s, "## Warnings\n");
        for w in &report.warnings {
            let _ = writeln!(s, "- {w}");
        }
    }
    let _ = writeln!(s, "\nApply with `cargo fptune apply` (or `git apply fptune.out/tuned.patch`).");
    s
}


#[cfg(test)]
mod snapshots {
    //! Snapshots of what a tuning run shows, from a hand-written `report.json` of samples/hilbert at
    //! 3 digits: `report.md`, and the table and summary the terminal prints, so a change of either
    //! shows in review (`src/snapshots/cargo_fptune__report__snapshots__*.snap`).
    //!
    //! After an intended change of the output, `INSTA_UPDATE=always cargo test -p cargo-fptune --lib
    //! report::` rewrites the snapshots; review their diff (`git diff tuner/src/snapshots`) before
    //! committing it. Under CI (`CI=true`) a missing or differing snapshot fails and nothing is written.

    use super::*;

    /// `report.json` of samples/hilbert (`cargo fptune --digits 3`): five knobs in four units, `h`
    /// and `factor` sharing a type, each found format but the bottom's with why not lower; fixed
    /// times, no dates.
    const HILBERT: &str = r#"{
  "schema": 2,
  "tool": "0.1.0",
  "package": "hilbert",
  "digits": 3.0,
  "digits_for": {},
  "ladder": ["f64", "f32", "f16"],
  "args": [],
  "seed": 1,
  "knobs": [
    { "id": 0, "file": "src/main.rs", "line": 10, "column": 16, "name": "h", "kind": "let", "ty": "Vec<Vec<f64>>", "declared": "f64", "group": null, "scope": "elimination::determinant", "leaves": [{ "start": [10, 27], "end": [10, 30] }],
      "unit": 0, "found": "f32", "evidence": "pivots[2] = 5.4e-3 agrees with the reference 5.555555555555556e-3 to 1.55 digits, 3 required" },
    { "id": 1, "file": "src/main.rs", "line": 14, "column": 16, "name": "pivots", "kind": "let", "ty": "Vec<f64>", "declared": "f64", "group": null, "scope": "elimination::determinant", "leaves": [{ "start": [14, 28], "end": [14, 31] }],
      "unit": 1, "found": "f32", "evidence": "pivots[1] has 2.98 exact digits (DSA), 3 required" },
    { "id": 2, "file": "src/main.rs", "line": 16, "column": 16, "name": "det", "kind": "let", "ty": "f64", "declared": "f64", "group": null, "scope": "elimination::determinant", "leaves": [{ "start": [16, 21], "end": [16, 24] }],
      "unit": 2, "found": "f64", "evidence": "det[0] has 2.41 exact digits (DSA), 3 required" },
    { "id": 3, "file": "src/main.rs", "line": 19, "column": 16, "name": "pivot", "kind": "let", "ty": "f64", "declared": "f64", "group": null, "scope": "elimination::determinant", "leaves": [{ "start": [19, 23], "end": [19, 26] }],
      "unit": 3, "found": "f16", "evidence": null },
    { "id": 4, "file": "src/main.rs", "line": 24, "column": 20, "name": "factor", "kind": "let", "ty": "f64", "declared": "f64", "group": null, "scope": "elimination::determinant", "leaves": [{ "start": [24, 28], "end": [24, 31] }],
      "unit": 0, "found": "f32", "evidence": "pivots[2] = 5.4e-3 agrees with the reference 5.555555555555556e-3 to 1.55 digits, 3 required" }
  ],
  "units": [
    { "id": 0, "knobs": [0, 4], "coupling": { "kind": "rustc", "place": "src/main.rs:26" }, "pinned": null },
    { "id": 1, "knobs": [1], "coupling": { "kind": "alone" }, "pinned": null },
    { "id": 2, "knobs": [2], "coupling": { "kind": "alone" }, "pinned": null },
    { "id": 3, "knobs": [3], "coupling": { "kind": "alone" }, "pinned": null }
  ],
  "capped": [],
  "configuration": ["f32", "f32", "f64", "f16"],
  "census": [1, 3, 1],
  "passes": [
    { "pass": 1, "from": "f64", "to": "f32", "units": 4, "lowered": 3, "tested": 6, "cached": 0 },
    { "pass": 2, "from": "f32", "to": "f16", "units": 3, "lowered": 1, "tested": 7, "cached": 0 }
  ],
  "counts": {
    "compilations": 0, "compilations_failed": 0, "compile_seconds": 0.0, "executions": 13, "executions_failed": 0, "run_seconds": 1.34,
    "cached": 0, "other_builds": 10, "total_seconds": 36.6, "single_build": true
  },
  "final_check": {
    "dsa_recheck_valid": true, "dsa_recheck_reason": null, "dsa_recheck_seed": 2, "meets_requirement": true, "reason": null,
    "tightest": ["det[0]", 4.1, 3.0], "original_seconds": 0.0042, "tuned_seconds": 0.004
  },
  "reference": [
    { "name": "pivots", "index": 0, "format": "binary64", "stochastic": true, "samples": [1.0, 1.0, 1.0], "digits": 15.7 },
    { "name": "pivots", "index": 1, "format": "binary64", "stochastic": true, "samples": [8.333333333333331e-2, 8.333333333333334e-2, 8.333333333333333e-2], "digits": 14.9 },
    { "name": "pivots", "index": 2, "format": "binary64", "stochastic": true, "samples": [5.555555555555569e-3, 5.555555555555547e-3, 5.555555555555558e-3], "digits": 14.1 },
    { "name": "det", "index": 0, "format": "binary64", "stochastic": true, "samples": [4.629629629629637e-4, 4.629629629629622e-4, 4.629629629629631e-4], "digits": 14.0 }
  ],
  "unchecked": [],
  "files": [
    { "path": "src/main.rs", "original_sha256": "5d1c7e0d8f0b8a6c2e4f1a3b9c7d5e3f1a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d", "tuned": "tuned/src/main.rs", "tuned_sha256": "0a2b4c6d8e1f3a5b7c9d0e2f4a6b8c1d3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2b" }
  ],
  "inputs": [
    { "path": "src/main.rs", "sha256": "5d1c7e0d8f0b8a6c2e4f1a3b9c7d5e3f1a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d" },
    { "path": "Cargo.toml", "sha256": "9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0" }
  ],
  "warnings": []
}"#;

    fn hilbert() -> serde_json::Value {
        serde_json::from_str(HILBERT).expect("the fixture is JSON")
    }

    /// The report a `report.json` reads as (the fixture, changed in place by `edit`).
    fn report(edit: impl FnOnce(&mut serde_json::Value)) -> Report {
        let mut json = hilbert();
        edit(&mut json);
        serde_json::from_value(json).expect("the fixture is a report.json")
    }

    #[test]
    fn report_md_of_a_tuned_crate() {
        insta::assert_snapshot!("report_md", markdown(&report(|_| {})));
    }

    /// What the terminal prints (`main.rs`'s `tune`: the table, then the summary) after a costly
    /// search: candidates built (quick builds, screened natively first, some run ahead of their
    /// round), a configuration rejected by its re-check, a group and a pinned unit.
    #[test]
    fn terminal_table_and_summary_after_a_costly_search() {
        let r = report(|j| {
            j["units"][1]["coupling"] = serde_json::json!({ "kind": "group", "name": "pivots" });
            j["units"][2]["pinned"] = "at src/main.rs:21 it meets `f64`".into();
            j["knobs"][2]["evidence"] = "rustc requires its type to stay: at src/main.rs:21 it meets `f64`, which no knob holds (where it is a declaration of yours, mark it `#[tune]`, or tune with `--auto`, to lower both)".into();
            j["counts"] = serde_json::json!({
                "compilations": 24, "compilations_failed": 2, "compile_seconds": 88.46, "executions": 31, "executions_failed": 1,
                "run_seconds": 4.25, "cached": 5, "other_builds": 7, "total_seconds": 121.5, "rejected": 1, "native_rejected": 6,
                "quick_builds": true, "native_first": true, "native_unscreened": 3, "two_seeds": true, "speculated": 9, "speculated_used": 4
            });
            j["final_check"]["tuned_seconds"] = 0.0051.into();
        });
        insta::assert_snapshot!("terminal_costly_search", format!("{}\n{}", table(&r), summary(&r)));
    }

    /// `report.md` when two checks have rules of their own: `pivots` a `max_rel` with a floor by
    /// its `check!`, `det` an `rms` without DSA digits by Cargo.toml (over its `check!`'s
    /// `max_eps_diff`: a warning says so), each measured beside its bound; `det` is over it natively.
    #[test]
    fn report_md_with_checks_judged_by_their_own_metrics() {
        let r = report(|j| {
            for i in 0..3 {
                j["reference"][i]["rule"] = serde_json::json!({ "metric": "max_rel", "bound": 1e-3, "floor": 1e-12 });
            }
            j["reference"][3]["rule"] = serde_json::json!({ "metric": "max_eps_diff", "bound": 4.0 });
            j["final_check"]["tightest"] = serde_json::Value::Null;
            j["final_check"]["meets_requirement"] = false.into();
            j["final_check"]["reason"] = "the native build: check `det`: rms = 1.200e-2 exceeds its bound 0.01".into();
            j["final_check"]["checks"] = serde_json::json!([
                { "check": "det", "rule": { "metric": "rms", "bound": 1e-2, "dsa_digits": false }, "from": "Cargo.toml",
                  "dsa": 3.1e-3, "native": 1.2e-2, "dsa_digits": 2.2, "required": 3.0 },
                { "check": "pivots", "rule": { "metric": "max_rel", "bound": 1e-3, "floor": 1e-12 }, "from": "check!",
                  "dsa": 2.7e-4, "native": 4.4e-4, "dsa_digits": 3.6, "required": 3.0 }
            ]);
            j["warnings"] = serde_json::json!([
                "check `det`: [package.metadata.fptune.checks.det] in Cargo.toml (rms <= 0.01, no DSA digits) wins over its check!'s metric (max_eps_diff <= 4)"
            ]);
        });
        insta::assert_snapshot!("report_md_metrics", markdown(&r));
    }

    /// `report.md` when the configuration found fails both re-checks, its native build did not run,
    /// and the run has warnings (no single build: each candidate built).
    #[test]
    fn report_md_when_the_rechecks_fail() {
        let r = report(|j| {
            j["counts"]["single_build"] = false.into();
            j["counts"]["compilations"] = 13.into();
            j["counts"]["compile_seconds"] = 47.9.into();
            j["counts"]["total_seconds"] = 61.2.into();
            j["counts"]["native_after"] = true.into();
            j["counts"]["native_rejected"] = 2.into();
            j["final_check"] = serde_json::json!({
                "dsa_recheck_valid": false, "dsa_recheck_reason": "det[0] has 1.92 exact digits (DSA), 3 required", "dsa_recheck_seed": 2,
                "meets_requirement": false, "reason": "det[0] = 4.5e-4 agrees with the reference 4.6296296296296296e-4 to 1.41 digits, 3 required",
                "tightest": null, "original_seconds": 0.0042, "tuned_seconds": null
            });
            j["warnings"] = serde_json::json!([
                "no single build (the single build's records differ from the configurations' own builds): every DSA candidate is built",
                "the reference built unoptimised (other checked values) did not give the optimised build's results: candidates are built optimised"
            ]);
        });
        insta::assert_snapshot!("report_md_failed_rechecks", markdown(&r));
    }
}

#[cfg(test)]
mod pins {
    #[test]
    fn a_pins_line_is_read_from_the_users_text() {
        let user = vec![("src/main.rs".to_string(), "fn main() {\n    let p = 2.0 * PI * t;\n}\n".to_string())];
        let line = super::pinned_line("at src/main.rs:2 it meets `f64`", &user);
        assert_eq!(line, Some("    let p = 2.0 * PI * t;"));
        assert_eq!(crate::probe::fixed_floats_on(line.unwrap_or_default()).len(), 1);
        assert_eq!(super::pinned_line("at src/lib.rs:2 it meets `f64`", &user), None);
    }
}

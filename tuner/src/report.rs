//! The results of a tuning run: the table on the terminal, and `fptune.out/` with `report.json`
//! (versioned schema), `report.md`, `tuned.patch`, the tuned sources for `cargo fptune apply`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::apply::{sha256, FileChange, Input};
use crate::config::Settings;
use crate::lab::{Counts, FinalCheck, Tuned};
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
    /// Native re-check of the result.
    pub final_check: FinalCheck,
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
                        if p.contains(" it meets `") && tuned.auto {
                            // Every declaration is a knob already: the type is written elsewhere.
                            format!(
                                "rustc requires its type to stay: {p}, which no declaration of the crate holds (a suffixed literal such as `1f64`, a cast, a trait impl's or another crate's signature: write it as the knob's type to lower both)"
                            )
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
        args: settings.args.clone(),
        seed: settings.seed,
        knobs,
        units: tuned.units.clone(),
        capped: tuned.capped.clone(),
        configuration: config.0.clone(),
        census,
        passes: tuned.search.passes.clone(),
        counts: tuned.counts.clone(),
        final_check: tuned.final_check.clone(),
        reference: tuned.reference.clone(),
        unchecked: tuned.unchecked.clone(),
        files,
        inputs,
        warnings: tuned.warnings.clone(),
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
    let f = &report.final_check;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} digits, ladder {}: #half-#single-#double = {}-{}-{}",
        report.digits,
        report.ladder.iter().map(|f| f.short()).collect::<Vec<_>>().join(" -> "),
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
    match &f.dsa_recheck_reason {
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
    s
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


//! Tuning a prepared crate for one requirement ([`tune_for`]): the search, the re-checks of the
//! configuration found (searching again without it when it fails them), and what the run found
//! ([`Tuned`]).

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use anyhow::anyhow;

use crate::config::Settings;
use crate::console::Console;
use crate::knobs::Inventory;
use crate::model::{Configuration, Reason, Record, Unit};
use crate::process;
use crate::search::{self, Problem, SearchOptions, SearchResult};
use crate::sources::Sources;
use crate::validate::{self, Requirement};
use crate::workspace::Workspace;

use super::counts::{count_run, count_tested, Counts};
use super::judge::LabOracle;
use super::prepare::{prepare, Prepared};
use super::recheck::{recheck, Recheck};
use super::{Lab, TuneError};

/// Everything a tuning run found.
#[derive(Debug)]
pub struct Tuned {
    /// The units searched.
    pub units: Vec<Unit>,
    /// Units that cannot be 16-bit (they receive a float literal, or rustc refuses them there), with why.
    pub capped: Vec<(usize, String)>,
    /// Where the search started (each unit's declared format).
    pub start: Configuration,
    /// The search's result.
    pub search: SearchResult,
    /// The reference's checked values.
    pub reference: Vec<Record>,
    /// Positions in `reference` of the values not judged ([`Reference::unchecked`](crate::validate::Reference::unchecked)).
    pub unchecked: Vec<usize>,
    /// Counts and times.
    pub counts: Counts,
    /// The re-checks of the configuration found (DSA with another seed, native).
    pub recheck: Recheck,
    /// Probe rounds and what rustc said that the probe could not read.
    pub probe_rounds: usize,
    /// Messages for the user (cache warnings, unexplained probe errors).
    pub warnings: Vec<String>,
    /// The knobs searched (found in the sources the builds start from).
    pub inventory: Inventory,
    /// The sources the builds start from, and the way back to the user's.
    pub sources: Sources,
    /// Zero-touch: the knobs' markers were fptune's.
    pub auto: bool,
}

/// Runs the whole tuning for the requirement of `settings`.
pub fn tune(settings: &Settings, ws: &Workspace, inv: &Inventory, console: &Console) -> Result<Tuned, TuneError> {
    let started = Instant::now();
    let mut lab = Lab::new(settings, ws, inv, console)?;
    let prepared = prepare(&mut lab)?;
    let mut tuned = tune_for(&lab, &prepared, &Requirement::from(&settings.digits))?;
    tuned.counts.other_builds += prepared.counts.other_builds;
    tuned.counts.total_seconds = started.elapsed().as_secs_f64();
    Ok(tuned)
}

/// Tunes a prepared crate for one requirement: Delta Debugging over the units, once per ladder
/// step, then the re-checks. Runs known from the cache (an earlier requirement, an earlier
/// run) are not repeated.
pub fn tune_for(lab: &Lab<'_>, prepared: &Prepared, req: &Requirement) -> Result<Tuned, TuneError> {
    let started = Instant::now();
    let mut counts = Counts::default();
    let printed = |r: &Record| r.name.starts_with(fptune::contract::PRINTED_PREFIX);
    let reference = validate::reference_with(prepared.reference.clone(), req, &prepared.unsteady, printed)
        .map_err(|e| TuneError::Requirement(anyhow!("{e}")))?;
    let mut requirement_warnings = Vec::new();
    let unknown: Vec<usize> = reference.unchecked.iter().copied().filter(|i| !prepared.unsteady.contains(i)).collect();
    if !unknown.is_empty() {
        let mut sites: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for &i in &unknown {
            *sites.entry(reference.records[i].name.trim_start_matches(fptune::contract::PRINTED_PREFIX)).or_default() += 1;
        }
        requirement_warnings.push(format!(
            "{} printed value(s) have fewer exact digits than required in the reference itself (every knob at the top \
             format) and are not checked: {}",
            unknown.len(),
            sites.iter().map(|(s, n)| if *n > 1 { format!("{s} (x{n})") } else { s.to_string() }).collect::<Vec<_>>().join(", ")
        ));
    }

    let blind = reference.blind();
    if !blind.is_empty() {
        let sites: Vec<String> = blind.iter().map(|&i| reference.records[i].label()).collect();
        let all = blind.len() + reference.unchecked.len() == reference.len();
        requirement_warnings.push(format!(
            "{} checked value(s) have three identical samples in the DSA reference: computed exactly, or by code \
             fptune did not convert (another crate's, called at f64; an array filled natively), so DSA estimates \
             none of their digits; they are judged only by agreement with the reference's value{}: {}",
            blind.len(),
            if all { ", and no checked value validates the configuration under DSA" } else { "" },
            sites.join(", ")
        ));
    }
    let problem = Problem { units: &prepared.units, start: &prepared.start, ladder: &lab.settings.ladder };
    let options = SearchOptions { jobs: lab.settings.jobs, ..SearchOptions::default() };
    let console = lab.console;
    let recipe = &prepared.recipe;
    // The configuration found must also pass its re-checks (a DSA run with another seed, and
    // the native build): three-sample estimates are right at 95 %, so among hundreds of checked
    // values one can pass by chance. A configuration that fails them is rejected and the search
    // runs again (from the cache: only new configurations cost anything), a bounded number of
    // times.
    let mut rejected: HashMap<Configuration, Reason> = HashMap::new();
    // What screening learnt belongs to a requirement: a pass's native refusals depend on it.
    if let Some(screening) = &recipe.screening {
        screening.reset();
    }
    // What the searches of this requirement looked at (for [`Lab::start_two_seeds`]).
    let mut consulted: HashSet<Configuration> = HashSet::new();
    let (result, rechecked) = loop {
        let mut oracle = LabOracle { lab, recipe, reference: &reference, req, rejected: &rejected };
        let result =
            search::search(&problem, &options, &mut oracle, &mut |e| console.event(e)).map_err(TuneError::internal)?;
        consulted.extend(result.tested.iter().map(|o| o.configuration.clone()));
        count_tested(&result.tested, &mut counts, &mut process::lock(&lab.speculated));
        // The search's runs are kept before the re-check, which may be interrupted.
        lab.save_cache().map_err(TuneError::internal)?;
        console.stage("re-checking the configuration (DSA with another seed, then natively)");
        let check = recheck(lab, prepared, &result.configuration, &reference, req, &mut counts)
            .map_err(TuneError::internal)?;
        let failed = check.dsa_recheck_reason.clone().or_else(|| check.reason.clone());
        if check.dsa_recheck_reason.is_some() && !lab.two_seeds() {
            // Three-sample estimates of hundreds of checked values: one seed can pass a few
            // by chance. Candidates must now pass two.
            console.stage("a configuration valid under DSA failed with another seed: candidates not judged yet now run under DSA with two seeds");
            lab.start_two_seeds(&consulted);
        }
        if check.reason.is_some() && !lab.native_after() {
            // Random rounding does not show everything round-to-nearest does (a sum that
            // stagnates in binary16): the native build joins the validity of candidates.
            console.stage("a configuration valid under DSA failed natively: candidates valid under DSA now run natively too");
            lab.native_after.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        match failed {
            Some(detail) if result.configuration != prepared.start && rejected.len() < MAX_REJECTED => {
                console.stage(&format!("{} failed its re-check ({detail}): searching again without it", result.configuration.brief()));
                rejected.insert(result.configuration.clone(), Reason::RecheckFailed { detail });
            }
            _ => break (result, check),
        }
    };
    // Successors run ahead that no search looked at still ran.
    for (_, (build, run)) in process::lock(&lab.speculated).drain() {
        counts.speculated += 1;
        count_run(&mut counts, build, run, false, false, run > 0.0);
    }
    counts.rejected = rejected.len();
    counts.quick_builds = recipe.quick;
    counts.single_build = recipe.single.is_some();
    counts.single_native = recipe.single_native.is_some();
    counts.native_first = recipe.native_first;
    counts.native_unscreened = recipe.screening.as_ref().map_or(0, |s| s.totals().1 as usize);
    counts.native_after = lab.native_after.load(std::sync::atomic::Ordering::Relaxed);
    counts.two_seeds = lab.two_seeds();
    counts.total_seconds = started.elapsed().as_secs_f64();
    Ok(Tuned {
        units: prepared.units.clone(),
        capped: prepared.capped.clone(),
        start: prepared.start.clone(),
        search: result,
        reference: reference.records.clone(),
        unchecked: reference.unchecked.iter().copied().collect(),
        counts,
        recheck: rechecked,
        probe_rounds: prepared.probe_rounds,
        warnings: prepared.warnings.iter().cloned().chain(requirement_warnings).collect(),
        inventory: recipe.inv.clone(),
        sources: recipe.sources.clone(),
        auto: recipe.auto,
    })
}

/// How many configurations found by a search may fail their re-check before the last one is
/// reported as it is.
pub(super) const MAX_REJECTED: usize = 8;

//! The single build: one program for every DSA candidate (and its native twin for their native
//! runs), every unit's format read when it starts; how it is built, and whether it serves (its
//! runs give, bit for bit, those of the configurations' own builds).

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::conversion;
use crate::convert;
use crate::heal::Heal;
use crate::model::{Arithmetic, CandidateRun, Configuration, FloatFormat, Record, RunResult};

use super::run::Build;
use super::{Lab, Recipe, Worker};

impl Lab<'_> {
    /// Why the single build cannot serve this crate, when that is known without building it.
    pub(super) fn single_build_obstacle(&self, r: &Recipe) -> Option<String> {
        if r.units.len() > fptune::__rt::MAX_UNITS {
            return Some(format!("{} units, more than its {}", r.units.len(), fptune::__rt::MAX_UNITS));
        }
        if self.settings.ladder.formats.len() < 2 {
            return Some("a one-step ladder".into());
        }
        if let Some(machine) = &self.settings.ladder.machine {
            return Some(format!("the target's machine ({machine}): its matrix units compute `fptune::dot` in each candidate's own build, not in the single build"));
        }
        let custom: Vec<String> = self.settings.ladder.formats.iter().filter(|f| matches!(f, FloatFormat::Custom(_))).map(|f| f.to_string()).collect();
        if !custom.is_empty() {
            return Some(format!("the ladder's {} go beyond the four formats its knobs can take at run time", custom.join(", ")));
        }
        None
    }

    /// Builds the single build ([`convert::single_build_sources`]) on `worker` and runs it on
    /// `start` and on [`Lab::lowered_every_other`]: [`single_verdict`] then compares those runs
    /// with the configurations' own (the reference, already run, and the mixed configuration's),
    /// which another worker may be making meanwhile. Why not when it does not compile.
    /// [`Lab::single_build_obstacle`] must have found nothing.
    pub(super) fn make_single_build(&self, r: &Recipe, worker: &Worker, start: &Configuration) -> Result<Result<SingleMade, String>> {
        self.console.stage("building the single build (every unit's format chosen at run time)");
        let kept = match self.build_single(r, worker, true)? {
            Ok(kept) => kept,
            Err(why) => return Ok(Err(why)),
        };
        let dsa = self.dsa();
        // Its runs are made as the reference's, whose run decides how ([`Lab::dsa_reference`]).
        self.noise_by_mean.wait();
        let on_start = self.build_and_run(r, worker, start, dsa, 1, Build::Single(&kept))?;
        let on_mixed = self.build_and_run(r, worker, &self.lowered_every_other(r, start), dsa, 1, Build::Single(&kept))?;
        Ok(Ok(SingleMade { program: kept, on_start, on_mixed }))
    }

    /// Builds the single build's sources ([`convert::single_build_sources`]) on `worker`: under
    /// DSA (`stochastic`: knobs as `Knob<F, U>`, every item marked for conversion, the
    /// `stochastic` feature on), or natively (knobs as `Knob<F, U, DynNative>`, the rest of the code
    /// as it is, as a candidate's native build). The program is kept beside the worker's builds
    /// (the worker goes on building other configurations); why not when it does not compile.
    pub(super) fn build_single(&self, r: &Recipe, worker: &Worker, stochastic: bool) -> Result<Result<PathBuf, String>> {
        let (log_name, kept_name) =
            if stochastic { ("single-build", "fptune-single") } else { ("single-build-native", "fptune-single-build-native") };
        let edits = convert::single_build_edits(&r.sources.base, &r.inv.knobs, &r.units, !stochastic)?;
        // Where a knob's value of run-time format meets a value of a fixed one, or an
        // elaborated literal gets no type from its place, the single build needs conversions of
        // its own (the native one starts from none: the stochastic build's are stochastic).
        let heals = {
            let mut opts = self.build_options(&worker.scratch, stochastic, r.quick);
            opts.check = true;
            let users = r.sources.users();
            let log = self.log_path(&format!("{log_name}-conversion"));
            let prior: &[Heal] = if stochastic { &r.heals } else { &[] };
            let healed = conversion::heal(&worker.scratch, &opts, &r.sources.base, &edits, prior, &users, &r.sources.splices, &log)?;
            if let Some(stuck) = healed.stuck.first() {
                return Ok(Err(format!("it does not compile: {stuck} (full log: {})", log.display())));
            }
            healed.heals
        };
        let files = self.files(r, &edits, stochastic, &heals)?;
        let log = self.log_path(log_name);
        let built = self.build(r, worker, &files, stochastic, &log)?;
        let Some(exe) = built.executable.clone().filter(|_| built.success) else {
            return Ok(Err(format!("it does not compile: {} (full log: {})", built.first_error(), log.display())));
        };
        let kept = worker.scratch.target_dir().join(kept_name);
        std::fs::copy(&exe, &kept).with_context(|| format!("cannot copy the single build to {}", kept.display()))?;
        Ok(Ok(kept))
    }

    /// `start` with every other unit that may move lowered one step: the configuration the
    /// single builds' runs are verified on besides `start`.
    pub(super) fn lowered_every_other(&self, r: &Recipe, start: &Configuration) -> Configuration {
        let (top, lower) = (self.settings.ladder.top(), self.settings.ladder.formats[1]);
        Configuration(
            start.0.iter().zip(&r.units).map(|(&f, u)| if u.id % 2 == 0 && u.pinned.is_none() && f == top { lower } else { f }).collect(),
        )
    }

    /// Builds the native single build ([`Lab::build_single`]) on `worker` and checks that its
    /// runs give, bit for bit, the records of the configurations' own native builds: the
    /// original's (`original`, `start` being every knob at its declared format) and that of
    /// [`Lab::lowered_every_other`] (one native build). The program and its run time on `start`
    /// when they do; otherwise why not (candidates' native runs then build each candidate).
    pub(super) fn try_single_native(&self, r: &Recipe, worker: &Worker, start: &Configuration, original: &[Record]) -> Result<Result<(PathBuf, f64), String>> {
        self.console.stage("building the single build natively (for candidates' native runs)");
        let exe = match self.build_single(r, worker, false)? {
            Ok(exe) => exe,
            Err(why) => return Ok(Err(why)),
        };
        let why_not = |run: &CandidateRun| run.failure().map_or_else(|| "other checked values".to_string(), |r| r.to_string());
        let on_start = self.build_and_run(r, worker, start, Arithmetic::Native, 1, Build::Single(&exe))?;
        let original_result = RunResult::Finished { records: original.to_vec(), overflows: 0 };
        if !matches!(&on_start.result, RunResult::Finished { overflows: 0, .. }) || !same_results(&on_start.result, &original_result, &r.unsteady) {
            return Ok(Err(format!("run of {start} differs from the original's native run ({})", why_not(&on_start))));
        }
        let mixed = self.lowered_every_other(r, start);
        let own = self.run_config_times(r, worker, &mixed, Arithmetic::Native, 1, Build::Each)?.0;
        let single = self.build_and_run(r, worker, &mixed, Arithmetic::Native, 1, Build::Single(&exe))?;
        if !same_results(&single.result, &own.result, &r.unsteady) {
            return Ok(Err(format!("run of {mixed} differs from that configuration's native build ({})", why_not(&single))));
        }
        Ok(Ok((exe, on_start.run_seconds)))
    }
}

/// The single build and its runs ([`Lab::make_single_build`]), not yet compared with the
/// configurations' own runs.
pub(super) struct SingleMade {
    program: PathBuf,
    on_start: CandidateRun,
    on_mixed: CandidateRun,
}

/// Whether two runs gave the same results, bit for bit, but for the records at `unsteady`
/// positions (printed values that change from run to run: a clock).
/// Whether the `i`-th records of two runs agree: bit for bit, or only in name and index where
/// the value changes from run to run (`unsteady`).
pub(super) fn same_record(i: usize, x: &Record, y: &Record, unsteady: &BTreeSet<usize>) -> bool {
    if unsteady.contains(&i) {
        x.name == y.name && x.index == y.index
    } else {
        x == y
    }
}

pub(super) fn same_results(a: &RunResult, b: &RunResult, unsteady: &BTreeSet<usize>) -> bool {
    match (a, b) {
        (RunResult::Finished { records: ra, overflows: oa }, RunResult::Finished { records: rb, overflows: ob }) => {
            oa == ob && ra.len() == rb.len() && ra.iter().zip(rb).enumerate().all(|(i, (x, y))| same_record(i, x, y, unsteady))
        }
        // Both killed: neither gave records, and either is an invalid candidate.
        (RunResult::TimedOut { .. }, RunResult::TimedOut { .. }) => true,
        (
            RunResult::Crashed { code: ca, signal: sa, stderr_tail: ta },
            RunResult::Crashed { code: cb, signal: sb, stderr_tail: tb },
        ) => ca == cb && sa == sb && without_thread_ids(ta) == without_thread_ids(tb),
        _ => a == b,
    }
}

/// A program's standard error without the thread ids of its panic messages (`thread 'main'
/// (13701) panicked at ..`, as recent Rust writes them): the same panic of two processes reads the same.
pub(super) fn without_thread_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("thread '") {
        let name_end = rest[at + 8..].find('\'').map(|e| at + 8 + e + 1);
        let Some(end) = name_end else { break };
        out.push_str(&rest[..end]);
        rest = &rest[end..];
        let digits = rest.strip_prefix(" (").map(|r| r.len() - r.trim_start_matches(|c: char| c.is_ascii_digit()).len());
        if let Some(n) = digits.filter(|&n| n > 0 && rest[2 + n..].starts_with(')')) {
            rest = &rest[2 + n + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Why a run of the single build does not serve, when its records differ from those of the
/// configuration's own build.
pub(super) fn single_differs(own: &CandidateRun, single: &CandidateRun, unsteady: &BTreeSet<usize>) -> Option<String> {
    (!same_results(&single.result, &own.result, unsteady)).then(|| {
        format!(
            "its run of {} differs from that configuration's own build ({})",
            single.configuration,
            single.failure().map_or_else(|| first_difference(&own.result, &single.result, unsteady), |r| r.to_string())
        )
    })
}

/// Where two finished runs that are not [`same_results`] part: the first value that differs,
/// with both runs' samples, or the counts that do.
pub(super) fn first_difference(own: &RunResult, single: &RunResult, unsteady: &BTreeSet<usize>) -> String {
    let (RunResult::Finished { records: ro, overflows: oo }, RunResult::Finished { records: rs, overflows: os }) = (own, single) else {
        return format!("{own:?} against {single:?}");
    };
    if ro.len() != rs.len() {
        return format!("{} checked values against the own build's {}", rs.len(), ro.len());
    }
    match ro.iter().zip(rs).enumerate().find(|&(i, (x, y))| !same_record(i, x, y, unsteady)) {
        Some((i, (x, y))) => format!(
            "checked value {} ({}[{}]): {:?} there, {:?} in the single build{}",
            i + 1,
            x.name,
            x.index,
            x.samples,
            y.samples,
            if x.name == y.name && x.same_samples(y) { " (their other fields differ)" } else { "" }
        ),
        None => format!("{os} overflows against the own build's {oo}"),
    }
}

/// Whether the single build serves: its program and its run time on the reference when both
/// its runs give, bit for bit, the records of the configurations' own builds (`reference`,
/// `own_mixed`); otherwise why not (the search then builds every candidate).
pub(super) fn single_verdict(made: SingleMade, reference: &CandidateRun, own_mixed: &CandidateRun, unsteady: &BTreeSet<usize>) -> Result<(PathBuf, f64), String> {
    match single_differs(reference, &made.on_start, unsteady).or_else(|| single_differs(own_mixed, &made.on_mixed, unsteady)) {
        Some(why) => Err(why),
        None => Ok((made.program, made.on_start.run_seconds)),
    }
}

#[cfg(test)]
mod tests {
    use super::without_thread_ids;

    #[test]
    fn the_same_panic_of_two_processes_reads_the_same_without_their_thread_ids() {
        let a = "thread 'main' (13701) panicked at src/bessel.rs:613:9:\nx too large";
        let b = "thread 'main' (13711) panicked at src/bessel.rs:613:9:\nx too large";
        assert_eq!(without_thread_ids(a), "thread 'main' panicked at src/bessel.rs:613:9:\nx too large");
        assert_eq!(without_thread_ids(a), without_thread_ids(b));
        // Older panics, other text and a thread named with parentheses stay as they are.
        for t in ["thread 'main' panicked at x", "thread 'w (1)' (7) said", "no thread here", "thread 'cut"] {
            assert_eq!(without_thread_ids(t), t.replace("' (7)", "'"));
        }
        assert_ne!(without_thread_ids(a), without_thread_ids(&a.replace("613", "614")));
    }
}

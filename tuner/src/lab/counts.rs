//! Counts of builds, runs and times, kept as PROMISE prints them ([`Counts`]), and how a search's
//! outcomes add to them.

use std::collections::HashMap;

use crate::model::{Configuration, Outcome, Reason};

/// Counts kept as PROMISE prints them.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Builds of search candidates.
    pub compilations: usize,
    /// Of which failed.
    pub compilations_failed: usize,
    /// Seconds spent building candidates.
    pub compile_seconds: f64,
    /// Runs of search candidates.
    pub executions: usize,
    /// Of which crashed or timed out.
    pub executions_failed: usize,
    /// Seconds spent running candidates.
    pub run_seconds: f64,
    /// Candidates answered from the cache.
    pub cached: usize,
    /// Builds before the search (original, probe rounds, reference) and after (the re-checks).
    pub other_builds: usize,
    /// Wall time of the whole run.
    pub total_seconds: f64,
    /// Configurations the search found that failed their re-check, so it searched again.
    #[serde(default)]
    pub rejected: usize,
    /// Candidates whose native run failed the requirement (run first with `native_first`, or
    /// after a valid DSA run with `native_after`).
    #[serde(default)]
    pub native_rejected: usize,
    /// Whether DSA candidates were built with the crate's own code unoptimised.
    #[serde(default)]
    pub quick_builds: bool,
    /// Whether DSA candidates were runs of the single build (no build each).
    #[serde(default)]
    pub single_build: bool,
    /// Whether candidates' native runs in the search were runs of the native single build
    /// (no build each).
    #[serde(default)]
    pub single_native: bool,
    /// Whether candidates were built and run natively before their DSA run.
    #[serde(default)]
    pub native_first: bool,
    /// With `native_first` on `auto`, candidates sent to DSA directly, their stratum's native
    /// runs refusing too few to pay ([`crate::screen`]).
    #[serde(default)]
    pub native_unscreened: usize,
    /// Whether candidates valid under DSA were run natively too (after a configuration found
    /// failed its native re-check).
    #[serde(default)]
    pub native_after: bool,
    /// Whether candidates ran under DSA with two seeds (after a configuration found failed its
    /// re-check with another seed).
    #[serde(default)]
    pub two_seeds: bool,
    /// Candidates run ahead of their round by a free worker, on the bet that the candidate the
    /// round waited for is valid (counted in the compilations and executions).
    #[serde(default)]
    pub speculated: usize,
    /// Of which the search then looked at.
    #[serde(default)]
    pub speculated_used: usize,
}

/// Adds a search's outcomes to the counts. An outcome recalled from a successor run ahead of its
/// round (`speculated`, removed from there) counts as the execution it was.
pub(super) fn count_tested(tested: &[Outcome], counts: &mut Counts, speculated: &mut HashMap<Configuration, (f64, f64)>) {
    for o in tested {
        let ahead = if o.cached { speculated.remove(&o.configuration) } else { None };
        if o.cached && ahead.is_none() {
            counts.cached += 1;
            continue;
        }
        counts.native_rejected += usize::from(matches!(o.invalid, Some(Reason::NativeFailed { .. })));
        let (build, run) = match ahead {
            Some(spent) => {
                counts.speculated += 1;
                counts.speculated_used += 1;
                spent
            }
            None => (o.build_seconds, o.run_seconds),
        };
        let build_failed = matches!(o.invalid, Some(Reason::BuildFailed { .. }));
        let timed_out = matches!(o.invalid, Some(Reason::TimedOut { .. }));
        let run_failed = timed_out || matches!(o.invalid, Some(Reason::Crashed { .. }));
        count_run(counts, build, run, build_failed, run_failed, run > 0.0 || timed_out);
    }
}

/// Counts a build (if it took any time) and a run (if there was one) of one candidate.
pub(super) fn count_run(counts: &mut Counts, build: f64, run: f64, build_failed: bool, run_failed: bool, ran: bool) {
    if build > 0.0 {
        counts.compilations += 1;
        counts.compile_seconds += build;
        counts.compilations_failed += usize::from(build_failed);
    }
    if ran {
        counts.executions += 1;
        counts.run_seconds += run;
        counts.executions_failed += usize::from(run_failed);
    }
}

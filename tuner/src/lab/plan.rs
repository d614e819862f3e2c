//! How candidates are built and run, as one pure function of what preparation measured
//! ([`Plan::from_measurements`]): the single builds, quick builds, native runs first, and the
//! runs' time limit.
//!
//! Preparation measures in stages (the reference, then the single builds, then the reference
//! built unoptimised), each stage's trials chosen by the plan of what was measured before it: a
//! decision depends only on measurements made before it is needed, so the plan of the
//! measurements so far gives it, and the plan of them all gives every one.

use std::time::Duration;

use crate::cli::When;
use crate::config::Settings;

/// The settings a plan follows: `auto` decides from the measurements, `always` and `never` do not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Choices {
    /// `--single-build`.
    pub(super) single_build: When,
    /// `--quick-builds`.
    pub(super) quick_builds: When,
    /// `--native-first`.
    pub(super) native_first: When,
    /// `--timeout`: when given, the runs' time limit is not derived.
    pub(super) timeout: Option<Duration>,
}

impl Choices {
    /// The choices of `settings`.
    pub(super) fn of(settings: &Settings) -> Choices {
        Choices {
            single_build: settings.single_build,
            quick_builds: settings.quick_builds,
            native_first: settings.native_first,
            timeout: settings.timeout,
        }
    }
}

/// What preparation measured, in seconds; a trial not made (yet) is `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Measurements {
    /// The original's native run.
    pub(super) original_run: f64,
    /// The DSA reference's build.
    pub(super) reference_build: f64,
    /// The DSA reference's run.
    pub(super) reference_run: f64,
    /// The DSA single build: its run on the reference when its runs gave the configurations' own
    /// builds' records bit for bit, or why it cannot serve.
    pub(super) single: Option<Result<f64, String>>,
    /// The native single build: its run on the start configuration when its runs gave the
    /// configurations' own native builds' records bit for bit, or why not.
    pub(super) single_native: Option<Result<f64, String>>,
    /// The reference built unoptimised: its run when it gave the optimised build's records, or
    /// why not.
    pub(super) quick: Option<Result<f64, String>>,
}

impl Measurements {
    /// A build and a run of the reference: what a DSA candidate costs without the single build.
    pub(super) fn reference_build_and_run(&self) -> f64 {
        self.reference_build + self.reference_run
    }
}

/// How candidates are built and run.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Plan {
    /// Native runs may pay (`--native-first always`; with `auto`, a DSA run of the reference over
    /// 0.25 s and over twice the original's native run): the native single build is tried, and
    /// candidates may run natively first.
    pub(super) natives_may_pay: bool,
    /// Whether DSA candidates are runs of the single build, with a run's seconds on the reference,
    /// or why not (`None`: not tried). With `auto`, it serves when a run of it costs less than a
    /// build and a run.
    pub(super) single: Option<Result<f64, String>>,
    /// Whether candidates' native runs are to be runs of the native single build: beside a DSA
    /// single build that serves, when native runs may pay (before it is tried: whether to try it).
    pub(super) single_native: bool,
    /// DSA candidates are built with the crate's own code unoptimised (only without the single
    /// build; with `auto`, when a run of the reference is negligible against its build), unless
    /// the reference built so did not give the same results (before that trial: whether to make it).
    pub(super) quick: bool,
    /// A DSA candidate's run, seconds: of the single build, of a quick build, or the reference's.
    pub(super) dsa_run_seconds: f64,
    /// A candidate's native run, seconds: of the native single build, else a build and a run (the
    /// DSA build's time standing for the native build's).
    pub(super) native_seconds: f64,
    /// Candidates are built and run natively before their DSA run.
    pub(super) native_first: bool,
    /// With `native_first` on `auto`: which candidates do is left to [`crate::screen::Screening`],
    /// from these costs.
    pub(super) screening: bool,
    /// How long a run may take, when not fixed by `--timeout`: ten DSA candidates' runs, at least
    /// 20 s.
    pub(super) timeout: Option<Duration>,
}

impl Plan {
    /// The plan for `measurements` under `choices`.
    pub(super) fn from_measurements(choices: &Choices, measurements: &Measurements) -> Plan {
        let m = measurements;
        // Native runs may pay when they may come first (a DSA run costs a good deal, and more
        // than twice the original's native run; not for programs whose DSA runs take
        // milliseconds), or always with `--native-first always`.
        let natives_may_pay = match choices.native_first {
            When::Never => false,
            When::Always => true,
            When::Auto => m.reference_run > 0.25 && m.reference_run > 2.0 * m.original_run,
        };
        // Its runs are a little slower than a configuration's own build's (formats are
        // dispatched at run time): it serves when a run of it costs less than a build and a run.
        let single = m.single.clone().map(|tried| {
            tried.and_then(|seconds| {
                let own = m.reference_build_and_run();
                if choices.single_build == When::Auto && seconds > own {
                    Err(format!("a run of it takes {seconds:.1} s, a build and a run {own:.1} s"))
                } else {
                    Ok(seconds)
                }
            })
        });
        let single_serves = matches!(single, Some(Ok(_)));
        let single_native = single_serves && natives_may_pay;
        let native_single_seconds = match &m.single_native {
            Some(Ok(seconds)) if single_native => Some(*seconds),
            _ => None,
        };
        let quick_wanted = !single_serves
            && match choices.quick_builds {
                When::Never => false,
                When::Always => true,
                // Runs negligible against builds: an unoptimised build, three times faster to
                // compile and up to twenty times slower to run, costs less.
                When::Auto => 40.0 * m.reference_run < m.reference_build,
            };
        // The same program, so the same roundings: the records must be identical (checked once,
        // on the reference).
        let quick = quick_wanted && !matches!(m.quick, Some(Err(_)));
        let dsa_run_seconds = match (&single, &m.quick) {
            (Some(Ok(seconds)), _) => *seconds,
            (_, Some(Ok(seconds))) if quick => *seconds,
            _ => m.reference_run,
        };
        let native_seconds = native_single_seconds.unwrap_or(m.reference_build + m.original_run);
        let native_first = match choices.native_first {
            When::Never => false,
            When::Always => true,
            // With the native single build, candidate by candidate as screening pays in the pass
            // ([`Screening`](crate::screen::Screening)). Without it, when a DSA run costs more
            // than twice a native one (a build and a run, the DSA build's time standing for the
            // native build's): rejecting natively first then saves whenever half the candidates
            // fail.
            When::Auto => natives_may_pay && (native_single_seconds.is_some() || dsa_run_seconds > 2.0 * native_seconds),
        };
        Plan {
            natives_may_pay,
            single,
            single_native,
            quick,
            dsa_run_seconds,
            native_seconds,
            native_first,
            screening: native_first && choices.native_first == When::Auto,
            timeout: run_timeout(choices, dsa_run_seconds),
        }
    }
}

/// The runs' time limit derived from a DSA run of `seconds`, unless `--timeout` fixed it: a
/// candidate may be slower than the reference (more iterations), not ten times.
pub(super) fn run_timeout(choices: &Choices, seconds: f64) -> Option<Duration> {
    choices.timeout.is_none().then(|| Duration::from_secs_f64((10.0 * seconds).max(20.0)))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{Choices, Measurements, Plan};
    use crate::cli::When;

    const AUTO: Choices = Choices { single_build: When::Auto, quick_builds: When::Auto, native_first: When::Auto, timeout: None };

    fn measured(original_run: f64, reference_build: f64, reference_run: f64) -> Measurements {
        Measurements { original_run, reference_build, reference_run, ..Measurements::default() }
    }

    #[test]
    fn native_runs_may_pay_when_a_dsa_run_is_long_and_over_twice_the_original() {
        let plan = |m: &Measurements, native_first| Plan::from_measurements(&Choices { native_first, ..AUTO }, m).natives_may_pay;
        assert!(plan(&measured(0.1, 10.0, 0.3), When::Auto));
        // Milliseconds, or not twice the original's run.
        assert!(!plan(&measured(0.01, 10.0, 0.25), When::Auto));
        assert!(!plan(&measured(0.2, 10.0, 0.4), When::Auto));
        assert!(plan(&measured(0.2, 10.0, 0.01), When::Always));
        assert!(!plan(&measured(0.1, 10.0, 30.0), When::Never));
    }

    #[test]
    fn the_single_build_serves_when_a_run_of_it_costs_less_than_a_build_and_a_run() {
        let with = |single: Result<f64, String>, single_build| {
            let m = Measurements { single: Some(single), ..measured(0.1, 10.0, 1.0) };
            Plan::from_measurements(&Choices { single_build, ..AUTO }, &m)
        };
        let plan = with(Ok(2.0), When::Auto);
        assert_eq!(plan.single, Some(Ok(2.0)));
        assert_eq!(plan.dsa_run_seconds, 2.0);
        assert!(!plan.quick, "no quick builds beside the single build");
        assert_eq!(with(Ok(11.5), When::Auto).single, Some(Err("a run of it takes 11.5 s, a build and a run 11.0 s".to_string())));
        assert_eq!(with(Ok(11.5), When::Always).single, Some(Ok(11.5)));
        assert_eq!(with(Err("it does not compile".into()), When::Auto).single, Some(Err("it does not compile".into())));
        assert_eq!(Plan::from_measurements(&AUTO, &measured(0.1, 10.0, 1.0)).single, None);
    }

    #[test]
    fn quick_builds_when_runs_are_negligible_against_builds_and_they_give_the_same_results() {
        let plan = |m: &Measurements, quick_builds| Plan::from_measurements(&Choices { quick_builds, ..AUTO }, m);
        // 40 runs cost less than a build.
        assert!(plan(&measured(0.01, 10.0, 0.2), When::Auto).quick);
        assert!(!plan(&measured(0.01, 10.0, 0.25), When::Auto).quick);
        assert!(plan(&measured(0.01, 10.0, 5.0), When::Always).quick);
        assert!(!plan(&measured(0.01, 10.0, 0.01), When::Never).quick);
        // Verified on the reference: its run time is the candidates', unless its results differ.
        let verified = Measurements { quick: Some(Ok(0.15)), ..measured(0.01, 10.0, 0.2) };
        let plan_verified = plan(&verified, When::Auto);
        assert!(plan_verified.quick);
        assert_eq!(plan_verified.dsa_run_seconds, 0.15);
        let differs = Measurements { quick: Some(Err("other checked values".into())), ..measured(0.01, 10.0, 0.2) };
        let plan_differs = plan(&differs, When::Auto);
        assert!(!plan_differs.quick);
        assert_eq!(plan_differs.dsa_run_seconds, 0.2);
        // Not with the single build.
        let single = Measurements { single: Some(Ok(0.3)), ..measured(0.01, 10.0, 0.2) };
        assert!(!plan(&single, When::Always).quick);
    }

    #[test]
    fn native_runs_come_first_when_a_dsa_run_costs_over_twice_a_native_one() {
        // Without the native single build: a native candidate costs a build and a run.
        let plan = Plan::from_measurements(&AUTO, &measured(0.5, 10.0, 30.0));
        assert_eq!(plan.native_seconds, 10.5);
        assert!(plan.native_first && plan.screening);
        let plan = Plan::from_measurements(&AUTO, &measured(0.5, 10.0, 20.0));
        assert!(!plan.native_first && !plan.screening);
        // With it, screening decides candidate by candidate.
        let m = Measurements { single: Some(Ok(2.0)), single_native: Some(Ok(0.6)), ..measured(0.5, 10.0, 1.5) };
        let plan = Plan::from_measurements(&AUTO, &m);
        assert!(plan.single_native);
        assert_eq!((plan.native_seconds, plan.dsa_run_seconds), (0.6, 2.0));
        assert!(plan.native_first && plan.screening);
        // The native single build serves only beside the DSA one.
        let m = Measurements { single: Some(Err("no".into())), single_native: Some(Ok(0.6)), ..measured(0.5, 10.0, 1.5) };
        let plan = Plan::from_measurements(&AUTO, &m);
        assert!(!plan.single_native && !plan.native_first);
        assert_eq!(plan.native_seconds, 10.5);
        // `always` runs every candidate natively first, not screened; `never` none.
        let always = Plan::from_measurements(&Choices { native_first: When::Always, ..AUTO }, &measured(0.5, 10.0, 0.1));
        assert!(always.native_first && !always.screening);
        let never = Plan::from_measurements(&Choices { native_first: When::Never, ..AUTO }, &measured(0.5, 10.0, 300.0));
        assert!(!never.native_first && !never.natives_may_pay);
    }

    #[test]
    fn runs_may_take_ten_times_a_dsa_candidates_and_at_least_twenty_seconds_unless_timed_by_hand() {
        assert_eq!(Plan::from_measurements(&AUTO, &measured(0.1, 10.0, 3.0)).timeout, Some(Duration::from_secs(30)));
        assert_eq!(Plan::from_measurements(&AUTO, &measured(0.1, 10.0, 0.5)).timeout, Some(Duration::from_secs(20)));
        let single = Measurements { single: Some(Ok(4.0)), ..measured(0.1, 10.0, 3.0) };
        assert_eq!(Plan::from_measurements(&AUTO, &single).timeout, Some(Duration::from_secs(40)));
        let fixed = Choices { timeout: Some(Duration::from_secs(5)), ..AUTO };
        assert_eq!(Plan::from_measurements(&fixed, &measured(0.1, 10.0, 3.0)).timeout, None);
    }
}

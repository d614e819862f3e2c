//! Native screening (`--native-first auto`): whether a candidate runs natively before its DSA
//! run, decided candidate by candidate from what screening has paid so far.
//!
//! A native run first costs a native run and saves the DSA run of every candidate it refuses. It
//! pays for a candidate when `p * t_dsa > t_native`, `p` being the chance that the native run
//! refuses it. That chance differs between the passes of the precision ladder: on cg W at 4
//! digits, lowering binary64 to binary32 gave results good to 4 digits natively almost always
//! (about 4 refusals in 26 native runs), while lowering to binary16 was refused natively in 48 of
//! 71. So the estimate is kept per *stratum*, the ladder step of the configuration's narrowest
//! format, which is the pass it belongs to:
//! - `p` is the stratum's share of refusals, with one refusal and one pass counted beforehand
//!   (Laplace's rule: a half before anything is known);
//! - `t_native` and `t_dsa` are the mean seconds of the stratum's native and DSA runs, the
//!   preparation's measurements counted as one run each;
//! - the first [`EXPLORE`] candidates of a stratum are screened whatever the rule says, and
//!   then one in [`EVERY`] of those the rule would run under DSA directly, so that the estimate
//!   follows the search into configurations unlike its first ones.

use std::collections::HashMap;
use std::sync::Mutex;

/// Candidates of a stratum screened before the rule decides.
pub const EXPLORE: u32 = 3;

/// Of the candidates the rule sends to DSA directly, one in `EVERY` is screened all the same.
pub const EVERY: u32 = 4;

/// What screening did in one stratum.
#[derive(Clone, Debug, Default, PartialEq)]
struct Stratum {
    /// Candidates run natively first.
    screened: u32,
    /// Of those, refused by their native run.
    refused: u32,
    /// Candidates the rule would have sent to DSA directly.
    declined: u32,
    /// Of those, sent to DSA directly (the others screened to keep the estimate current).
    unscreened: u32,
    native_seconds: f64,
    native_runs: u32,
    dsa_seconds: f64,
    dsa_runs: u32,
}

/// The screening decisions and the measurements they are made from, shared by the workers.
#[derive(Debug)]
pub struct Screening {
    /// The seconds of a native run and of a DSA run measured by the preparation.
    prior: (f64, f64),
    strata: Mutex<HashMap<usize, Stratum>>,
}

impl Screening {
    /// Screening with the preparation's measurements: a native run (of the native single build,
    /// or a build and a run) and a DSA run, in seconds.
    pub fn new(native_seconds: f64, dsa_seconds: f64) -> Screening {
        Screening { prior: (native_seconds, dsa_seconds), strata: Mutex::new(HashMap::new()) }
    }

    /// Whether the next candidate of `stratum` runs natively first. Each call is a decision:
    /// a candidate sent to DSA directly is counted.
    pub fn screens(&self, stratum: usize) -> bool {
        let Ok(mut strata) = self.strata.lock() else { return true };
        let s = strata.entry(stratum).or_default();
        if s.screened < EXPLORE || self.pays(s) {
            return true;
        }
        s.declined += 1;
        if s.declined % EVERY == 0 {
            return true;
        }
        s.unscreened += 1;
        false
    }

    /// The rule: the expected DSA seconds a native run saves exceed its own.
    fn pays(&self, s: &Stratum) -> bool {
        let p = f64::from(s.refused + 1) / f64::from(s.screened + 2);
        let native = (self.prior.0 + s.native_seconds) / f64::from(1 + s.native_runs);
        let dsa = (self.prior.1 + s.dsa_seconds) / f64::from(1 + s.dsa_runs);
        p * dsa > native
    }

    /// A candidate of `stratum` ran natively first (not from the cache) for `seconds`, and was
    /// refused or not.
    pub fn screened(&self, stratum: usize, seconds: f64, refused: bool) {
        if let Ok(mut strata) = self.strata.lock() {
            let s = strata.entry(stratum).or_default();
            s.screened += 1;
            s.refused += u32::from(refused);
            s.native_seconds += seconds;
            s.native_runs += 1;
        }
    }

    /// A candidate of `stratum` ran under DSA (not from the cache) for `seconds`.
    pub fn dsa_ran(&self, stratum: usize, seconds: f64) {
        if let Ok(mut strata) = self.strata.lock() {
            let s = strata.entry(stratum).or_default();
            s.dsa_seconds += seconds;
            s.dsa_runs += 1;
        }
    }

    /// Forgets what was learnt (for the next requirement).
    pub fn reset(&self) {
        if let Ok(mut strata) = self.strata.lock() {
            strata.clear();
        }
    }

    /// Candidates run natively first, and those sent to DSA directly, over every stratum.
    pub fn totals(&self) -> (u32, u32) {
        self.strata.lock().map_or((0, 0), |strata| {
            strata.values().fold((0, 0), |(a, b), s| (a + s.screened, b + s.unscreened))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decides the next `n` candidates of `stratum`, each screened one refused with `refuse`,
    /// native runs taking `native` seconds and DSA runs `dsa`; returns how many were screened.
    fn drive(s: &Screening, stratum: usize, n: u32, native: f64, dsa: f64, refuse: impl Fn(u32) -> bool) -> u32 {
        let mut screened = 0;
        for i in 0..n {
            if s.screens(stratum) {
                screened += 1;
                let refused = refuse(i);
                s.screened(stratum, native, refused);
                if !refused {
                    s.dsa_ran(stratum, dsa);
                }
            } else {
                s.dsa_ran(stratum, dsa);
            }
        }
        screened
    }

    #[test]
    fn a_pass_whose_native_runs_refuse_nothing_stops_screening_but_keeps_sampling() {
        let s = Screening::new(1.5, 4.0);
        let screened = drive(&s, 1, 40, 1.5, 4.0, |_| false);
        // The first three, then one in four of the 37 the rule would send to DSA: 3 + 9.
        assert_eq!(screened, EXPLORE + 37 / EVERY, "{screened}");
        assert_eq!(s.totals(), (screened, 40 - screened));
    }

    #[test]
    fn a_pass_whose_native_runs_refuse_half_screens_every_candidate() {
        let s = Screening::new(1.5, 4.0);
        assert_eq!(drive(&s, 2, 40, 1.5, 4.0, |i| i % 2 == 0), 40);
    }

    #[test]
    fn strata_are_apart_and_cheap_native_runs_screen_even_at_low_refusal_rates() {
        let s = Screening::new(1.5, 4.0);
        drive(&s, 1, 20, 1.5, 4.0, |_| false);
        // A pass where one candidate in five is refused natively, but native runs cost a tenth
        // of a DSA run: 0.2 * 4 > 0.4, so every candidate is screened.
        assert_eq!(drive(&s, 2, 30, 0.3, 4.0, |i| i % 5 == 0), 30);
        // Back in the first stratum, its own record holds: mostly unscreened.
        assert!(drive(&s, 1, 8, 1.5, 4.0, |_| false) <= 2);
    }

    #[test]
    fn before_anything_is_known_the_rule_is_the_preparations() {
        // p = 1/2: screening pays when a DSA run costs more than twice a native one.
        let s = Screening::new(1.0, 2.5);
        assert!(s.pays(&Stratum::default()));
        let s = Screening::new(1.0, 1.5);
        assert!(!s.pays(&Stratum::default()));
    }
}

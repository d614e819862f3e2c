//! The rounds of the probe: what the builds so far taught, and whether to build again.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{FloatFormat, Knob, Unit};

use super::couplings::{couplings, Couplings};
use super::diagnostic::DiagnosticLike;
use super::messages::meets_in_user_words;
use super::sources::{plain_type, probe_type, rewrite, without_literal_inits};
use crate::leaves::SourceError;
use super::units::{units, units_without_16bit};


/// What to do after a probe build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Units were merged or pinned: build [`Probing::sources`] again, rustc may have more to say.
    Again,
    /// Nothing more to learn: take [`Probing::units`].
    Settled,
}

/// The state of the iterative probe: what the builds so far taught. See the module documentation
/// for the loop.
#[derive(Clone, Debug)]
pub struct Probing {
    knobs: Vec<Knob>,
    learned: Couplings,
    rounds: usize,
}

impl Probing {
    /// Rounds after which the probe settles with what it knows (each round that continues merges at
    /// least two units or pins one). rustc names one element of an array literal per build (`static
    /// ZEROS: [&[f64]; 50] = [&ZERO_1, .., &ZERO_50]`: the first element whose type differs), so a
    /// table of 50 tables takes 50 rounds; a round is a `cargo check` of the crate (about a second).
    pub const MAX_ROUNDS: usize = 64;

    /// A probe of `knobs` that has learned nothing yet.
    pub fn new(knobs: Vec<Knob>) -> Probing {
        Probing { knobs, learned: Couplings::default(), rounds: 0 }
    }

    /// The sources of the next probe build: each knob at `Probe<F, ID>`, the knobs of a unit known
    /// so far (groups, rustc's pairs) sharing one `ID`. See [`probe_sources`].
    /// A unit rustc holds at its declared format is written as that format's plain type: every
    /// candidate writes it so, and the errors it caused no longer hide others (a library target
    /// that does not compile leaves its binaries unchecked).
    pub fn sources(&self, files: &[(String, String)]) -> Result<Vec<(String, String)>, SourceError> {
        Ok(without_literal_inits(rewrite(files, &self.knobs, self.written(None))?, &self.learned.literal_inits))
    }

    /// What each knob is written as: a trial's format, a pinned unit's declared format, or the
    /// probe type of its unit (the smallest knob id of the unit).
    fn written<'a>(&'a self, trial: Option<&'a Trial>) -> impl Fn(&Knob) -> String + 'a {
        let mut rep = BTreeMap::new();
        let mut pinned = BTreeSet::new();
        for u in self.units() {
            if let Some(&first) = u.knobs.iter().min() {
                for &k in &u.knobs {
                    rep.insert(k, first);
                    if u.pinned.is_some() {
                        pinned.insert(k);
                    }
                }
            }
        }
        move |k: &Knob| match trial {
            Some(t) if t.units.iter().any(|(knobs, _)| knobs.contains(&k.id)) => plain_type(t.format).to_string(),
            _ if pinned.contains(&k.id) => plain_type(k.declared).to_string(),
            _ => probe_type(k.declared, rep.get(&k.id).copied().unwrap_or(k.id)),
        }
    }

    /// Learns from the errors of the build of [`Probing::sources`] (an empty slice when it
    /// compiled) and says whether to build again.
    pub fn learn(&mut self, errors: &[DiagnosticLike]) -> Round {
        self.rounds += 1;
        let before = (self.partition(), self.learned.pinned.len(), self.learned.literal_inits.len());
        self.learned.absorb(couplings(errors, &self.knobs));
        let changed = (self.partition(), self.learned.pinned.len(), self.learned.literal_inits.len()) != before;
        if self.rounds >= Self::MAX_ROUNDS {
            return Round::Settled;
        }
        if changed {
            Round::Again
        } else {
            Round::Settled
        }
    }

    /// The units, from everything learned so far.
    pub fn units(&self) -> Vec<Unit> {
        units(&self.knobs, &self.learned)
    }

    /// Everything learned so far (unexplained errors: the last build's).
    pub fn couplings(&self) -> &Couplings {
        &self.learned
    }

    /// Builds learned from so far.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    fn partition(&self) -> Vec<Vec<usize>> {
        self.units().into_iter().map(|u| u.knobs).collect()
    }

    /// A trial at `format` after the rounds, or `None` when there is nothing to try: the units
    /// that an unexplained error names alone (a bound the probe type does not meet, such as
    /// `T: SubsetOf<Probe<f64, 5>>` where a generic function asks `T: SubsetOf<f64>` and a
    /// `const` knob is read through it), declared wider than `format` and not already held there.
    /// Whether the bound holds at `format` is rustc's to say: build [`Probing::trial_sources`]
    /// and give its errors to [`Probing::learn_trial`].
    pub fn trial(&self, format: FloatFormat) -> Option<Trial> {
        let units = self.units();
        let capped = units_without_16bit(&units, &self.learned);
        let mut tried: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for e in &self.learned.unexplained {
            let named: BTreeSet<usize> =
                e.probes.iter().filter_map(|p| units.iter().find(|u| u.knobs.contains(p)).map(|u| u.id)).collect();
            let [unit] = named.into_iter().collect::<Vec<_>>()[..] else { continue };
            let u = &units[unit];
            let declared = self.knobs.iter().filter(|k| u.knobs.contains(&k.id)).map(|k| k.declared).max();
            let held = u.pinned.is_some() || (format < FloatFormat::F32 && capped.contains_key(&u.id));
            if held || declared.is_none_or(|d| d <= format) {
                continue;
            }
            tried.entry(u.id).or_default().push(e.place.clone());
        }
        (!tried.is_empty()).then(|| Trial { format, units: tried.into_iter().map(|(u, places)| (units[u].knobs.clone(), places)).collect() })
    }

    /// The sources of a trial's build: its units' knobs written at the trial's format (as a
    /// native build writes it), every other knob as in [`Probing::sources`].
    pub fn trial_sources(&self, files: &[(String, String)], trial: &Trial) -> Result<Vec<(String, String)>, SourceError> {
        Ok(without_literal_inits(rewrite(files, &self.knobs, self.written(Some(trial)))?, &self.learned.literal_inits))
    }

    /// Learns from a trial's build: a unit whose error is still there at the trial's format is
    /// held above it (pinned at its declared format when the trial was 32 bits, else kept from
    /// the 16-bit formats), at the place and with the bound rustc names; its errors are explained
    /// either way (at a format where it compiles, the probe type was what lacked the bound).
    ///
    /// The units a 32-bit trial built together become one unit: the probe type's errors hid
    /// whatever rustc would say of their couplings, and lowered together they are known to
    /// compile. A unit kept from 16 bits already needs no 16-bit trial.
    pub fn learn_trial(&mut self, trial: &Trial, errors: &[DiagnosticLike]) {
        let mut built: Vec<(usize, &str)> = Vec::new();
        for (knobs, places) in &trial.units {
            let Some(&first) = knobs.iter().min() else { continue };
            match errors.iter().find(|e| places.contains(&e.place())) {
                Some(e) => {
                    let meets = meets_in_user_words(&e.message, &e.rendered);
                    let list = if trial.format >= FloatFormat::F32 { &mut self.learned.pinned } else { &mut self.learned.no_16bit };
                    Couplings::pin(list, first, &e.place(), &meets);
                    self.learned.unexplained.retain(|u| !places.contains(&u.place));
                }
                None if trial.format < FloatFormat::F32 => self.learned.unexplained.retain(|u| !places.contains(&u.place)),
                None => built.push((first, places.first().map_or("", String::as_str))),
            }
        }
        for w in built.windows(2) {
            self.learned.pair(w[0].0, w[1].0, w[1].1);
        }
        let units = self.units();
        let capped: BTreeSet<usize> = units_without_16bit(&units, &self.learned).into_keys().collect();
        let capped_knob = |k: &usize| units.iter().any(|u| capped.contains(&u.id) && u.knobs.contains(k));
        self.learned.unexplained.retain(|u| u.probes.is_empty() || !u.probes.iter().all(capped_knob));
    }
}

/// Units built at a lower format than their probes to learn whether an error the probe could not
/// read holds there too ([`Probing::trial`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trial {
    /// The format the units are written at.
    pub format: FloatFormat,
    /// Each unit's knob ids, with the places of the errors that named it.
    pub units: Vec<(Vec<usize>, Vec<String>)>,
}

//! What a probe build's errors say about the knobs: pairs that share a type, pins, no-16-bit literals.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{Knob, KnobKind};

use super::diagnostic::DiagnosticLike;
use super::messages::{expected_found, operator_headline, quoted, slots, strip_ansi, Slot};


/// Two knobs rustc requires to share a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pair {
    /// The knob ids, smaller first.
    pub knobs: (usize, usize),
    /// `file:line` of an error that says so.
    pub place: String,
}

/// A knob held at a format by a type rustc will not convert.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pin {
    /// The knob id.
    pub knob: usize,
    /// `file:line` of an error that says so.
    pub place: String,
    /// The type it meets: a plain float (`f64`) for a pin, `{float}` for a literal.
    pub meets: String,
}

impl Pin {
    /// Why a unit held by this pin stops at 32 bits, for the report.
    pub fn no_16bit_reason(&self) -> String {
        if self.meets == "{float}" {
            format!("receives a float literal, which cannot be 16-bit (at {})", self.place)
        } else {
            format!("rustc refuses its 16-bit types: at {} it meets `{}`", self.place, self.meets)
        }
    }
}

/// An error of the probe build that names no coupling.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Unexplained {
    /// `file:line`.
    pub place: String,
    /// rustc's headline.
    pub message: String,
    /// The knob ids of the probes the error names (its headline's, else its whole text's).
    #[serde(default)]
    pub probes: Vec<usize>,
}

impl fmt::Display for Unexplained {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

/// What the probe build's errors say about the knobs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Couplings {
    /// Knobs that must share a type, in the order rustc reported them (no pair twice).
    pub pairs: Vec<Pair>,
    /// Knobs that meet a plain float type that cannot change: held at their declared format.
    pub pinned: Vec<Pin>,
    /// Knobs that receive a float literal where only `f32`/`f64` work: never 16-bit.
    pub no_16bit: Vec<Pin>,
    /// Errors that say nothing about knobs: a probe limitation (a trait the probe type lacks) or an
    /// error of the crate itself. The search may then meet a configuration that does not build.
    pub unexplained: Vec<Unexplained>,
    /// A value computed from several knobs meeting a plain float, read from the build being
    /// read: its widest knob must keep that format, so one of them pinned there is enough; the
    /// others are pinned only when none is ([`couplings`]).
    #[serde(skip)]
    pub(super) mixed_pins: Vec<(Vec<usize>, String, String)>,
    /// Where a value made of literals only (`array![[1.0, 2.0]]`, `DVector::from_vec(vec![..])`:
    /// rustc found a container of `{float}`) initialises a knob's declaration: (file, line).
    /// Natively its literals take the knob's type; in the probe build they cannot, and the
    /// declaration's error leaves what its type does not say (`_`) unresolved, which hides the
    /// knob's later meetings: the next rounds write it as the container of the knob's type
    /// ([`super::Probing::sources`]).
    #[serde(skip)]
    pub literal_inits: BTreeSet<(String, usize)>,
}

impl Couplings {
    /// Whether nothing was learned and nothing is left unexplained.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty() && self.pinned.is_empty() && self.no_16bit.is_empty() && self.unexplained.is_empty()
    }

    pub(super) fn pair(&mut self, a: usize, b: usize, place: &str) {
        let knobs = (a.min(b), a.max(b));
        if a != b && !self.pairs.iter().any(|p| p.knobs == knobs) {
            self.pairs.push(Pair { knobs, place: place.into() });
        }
    }

    pub(super) fn pin(list: &mut Vec<Pin>, knob: usize, place: &str, meets: &str) {
        if !list.iter().any(|p| p.knob == knob) {
            list.push(Pin { knob, place: place.into(), meets: meets.into() });
        }
    }

    /// Adds what `other` learned (pairs, pins, literals; no duplicates) and takes its unexplained
    /// errors as the current ones.
    pub fn absorb(&mut self, other: Couplings) {
        for p in other.pairs {
            self.pair(p.knobs.0, p.knobs.1, &p.place);
        }
        for p in other.pinned {
            Self::pin(&mut self.pinned, p.knob, &p.place, &p.meets);
        }
        for p in other.no_16bit {
            Self::pin(&mut self.no_16bit, p.knob, &p.place, &p.meets);
        }
        self.unexplained = other.unexplained;
        self.literal_inits.extend(other.literal_inits);
    }
}

/// Reads the probe build's errors: which knobs must share a type, which are pinned to their
/// declared format, which cannot be 16-bit. Probe ids that are not knob ids are ignored.
pub fn couplings(diagnostics: &[DiagnosticLike], knobs: &[Knob]) -> Couplings {
    let kinds: BTreeMap<usize, KnobKind> = knobs.iter().map(|k| (k.id, k.kind)).collect();
    let mut out = Couplings::default();
    let fixed = literal_fixed(diagnostics);
    for d in diagnostics {
        if d.message.starts_with("aborting due to") {
            continue;
        }
        if !read_diagnostic(d, &kinds, fixed.get(&d.place()).map(Vec::as_slice), &mut out) {
            out.unexplained.push(Unexplained { place: d.place(), message: d.message.clone(), probes: named_probes(d) });
        }
    }
    // `smooth(s) * bump(s, w)` returned where `f64` is required, `smooth`'s and `bump`'s first
    // parameters pinned by `s`: the product is `f64` whatever `w` is.
    // Where none is, a cast among them is held (`(i as f64 + 0.5) * h` given to a `Fn(f64)`:
    // the cast keeps the value wide, `h` may be lowered); else all of them are.
    for (ids, place, meets) in std::mem::take(&mut out.mixed_pins) {
        if ids.iter().any(|k| out.pinned.iter().any(|p| p.knob == *k)) {
            continue;
        }
        let casts: Vec<usize> = ids.iter().copied().filter(|k| kinds.get(k) == Some(&KnobKind::Cast)).collect();
        for k in if casts.is_empty() { ids } else { casts } {
            Couplings::pin(&mut out.pinned, k, &place, &meets);
        }
    }
    out
}

/// The probes an error names: its headline's, or where the headline names none, its whole text's.
pub(super) fn named_probes(d: &DiagnosticLike) -> Vec<usize> {
    let ids = |slots: Vec<Slot>| -> BTreeSet<usize> {
        slots.into_iter().filter_map(|s| if let Slot::Probe(p) = s { Some(p) } else { None }).flatten().collect()
    };
    let mut found = ids(quoted(&d.message).into_iter().flat_map(slots).collect());
    if found.is_empty() {
        found = ids(slots(&strip_ansi(&d.rendered)));
    }
    found.into_iter().collect()
}

/// The conversion trait a probe lacks, from "the trait bound `Probe<f64, 17>: From<i32>` is not
/// satisfied" (`From`, `Into`, `TryFrom`, `TryInto` with the probe as `Self`).
pub(super) fn conversion_bound(message: &str) -> Option<String> {
    let bound = message.strip_prefix("the trait bound `")?.strip_suffix("` is not satisfied")?;
    let (this, tr) = bound.split_once(": ")?;
    let probe = this.contains("Probe<");
    let conversion = ["From<", "Into<", "TryFrom<", "TryInto<"].iter().any(|c| tr.starts_with(c));
    (probe && conversion && !tr.contains("Probe<")).then(|| tr.to_string())
}

/// The places where a literal fixed a generic parameter before a probe could: an argument
/// "expected floating-point number, found `Probe<f64, Id<5>>`" (`Complex::from_polar(1.0,
/// phase)`: `T` is the literal's). There, a `{float}` another error names (`Complex<{float}>`,
/// the call's result) stands for that probe, as it does in a native build where the literal
/// takes the knob's type. Only a place with one such probe.
fn literal_fixed(diagnostics: &[DiagnosticLike]) -> BTreeMap<String, Vec<usize>> {
    let mut found: BTreeMap<String, BTreeSet<Vec<usize>>> = BTreeMap::new();
    for d in diagnostics {
        for (expected, got) in expected_found(&strip_ansi(&d.rendered)) {
            if let ([Slot::Literal], [Slot::Probe(p)]) = (slots(&expected).as_slice(), slots(&got).as_slice()) {
                found.entry(d.place()).or_default().insert(p.clone());
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(place, probes)| match probes.into_iter().collect::<Vec<_>>()[..] {
            [ref p] => Some((place, p.clone())),
            _ => None,
        })
        .collect()
}

/// Adds what one error says; `false` when it says nothing about knobs. `fixed`: the probe a
/// `{float}` at this place stands for ([`literal_fixed`]).
///
/// A probe computed from several knobs (`Probe<f64, (Id<3>, Id<5>)>`) has, natively, the widest
/// one's format, which is any of theirs in some configuration: where it must equal a type, every
/// knob it names must.
pub(super) fn read_diagnostic(d: &DiagnosticLike, kinds: &BTreeMap<usize, KnobKind>, fixed: Option<&[usize]>, out: &mut Couplings) -> bool {
    let place = d.place();
    let known = |id: &usize| kinds.contains_key(id);
    let explained = std::cell::Cell::new(false);
    let meet = |probe: &[usize], other: &Slot, out: &mut Couplings| {
        let probe: Vec<usize> = probe.iter().copied().filter(|p| known(p)).collect();
        let Some(&first) = probe.first() else { return };
        let tie = |out: &mut Couplings, ids: &[usize]| {
            for &q in ids.iter().filter(|q| known(q)) {
                out.pair(first, q, &place);
            }
        };
        match other {
            Slot::Probe(q) if q.iter().any(known) => {
                tie(out, &probe);
                tie(out, q);
                explained.set(true);
            }
            Slot::Plain(t) if probe.len() > 1 => {
                out.mixed_pins.push((probe.clone(), place.clone(), t.clone()));
                explained.set(true);
            }
            Slot::Plain(t) => {
                Couplings::pin(&mut out.pinned, first, &place, t);
                explained.set(true);
            }
            Slot::Literal => {
                tie(out, &probe);
                // A `static`/`const` literal becomes 16-bit through half's const conversion.
                for &p in &probe {
                    if !matches!(kinds.get(&p), Some(KnobKind::Static | KnobKind::Const)) {
                        Couplings::pin(&mut out.no_16bit, p, &place, "{float}");
                    }
                }
                explained.set(true);
            }
            _ => {}
        }
    };
    let pairs = expected_found(&strip_ansi(&d.rendered));
    for (expected, found) in &pairs {
        let (e, f) = (slots(expected), slots(found));
        // A container of literals where a knob's container is expected.
        let literals_only = !f.is_empty() && f.iter().all(|x| matches!(x, Slot::Literal)) && found.contains('<');
        if literals_only && e.iter().any(|x| matches!(x, Slot::Probe(_))) {
            // Where rustc shows it (a foreign macro's expansion, `array![..]`, is shown at its
            // call in the crate, which its primary span is not).
            let shown = super::diagnostic::rendered_place(&strip_ansi(&d.rendered)).and_then(|p| {
                let (file, line) = p.rsplit_once(':')?;
                Some((file.to_string(), line.parse().ok()?))
            });
            if let Some(place) = shown.or_else(|| Some((d.file.clone()?, d.line?))) {
                out.literal_inits.insert(place);
            }
        }
        if e.len() == f.len() {
            for (a, b) in e.iter().zip(&f) {
                match (a, b) {
                    (Slot::Probe(p), other) | (other, Slot::Probe(p)) => meet(p, other, out),
                    _ => {}
                }
            }
        } else {
            // Shapes rustc printed differently: every probe of one side meets every float of the other.
            for a in &e {
                for b in &f {
                    match (a, b) {
                        (Slot::Probe(p), other) | (other, Slot::Probe(p)) => meet(p, other, out),
                        _ => {}
                    }
                }
            }
        }
    }
    if !explained.get() {
        // Trait errors ("a value of type `Vec<Probe<f64, Id<11>>>` cannot be built from an
        // iterator over elements of type `Probe<f64, (Id<10>, Id<12>)>`", "cannot add `f64` to
        // `Probe<f64, Id<3>>`"): the headline's probes must agree; a plain float or literal counts
        // only beside an operator. (Also where rustc's expected/found pairs name only parts of
        // the probes: "expected `Id<21>`, found `(Id<19>, Id<18>)`".)
        let s: Vec<Slot> = quoted(&d.message)
            .into_iter()
            .flat_map(slots)
            .map(|x| match (x, fixed) {
                (Slot::Literal, Some(p)) => Slot::Probe(p.to_vec()),
                (x, _) => x,
            })
            .collect();
        let probes: Vec<&[usize]> = s.iter().filter_map(|x| if let Slot::Probe(p) = x { Some(p.as_slice()) } else { None }).collect();
        let distinct: BTreeSet<usize> = probes.iter().flat_map(|p| p.iter().copied()).filter(|p| known(p)).collect();
        let all: Vec<usize> = distinct.iter().copied().collect();
        // One probe named twice (ndarray 0.17's `ArrayBase<OwnedRepr<P>, D, P>` names its element
        // twice) beside a plain float, at an operator: it meets that float, as named once.
        let one_type = probes.iter().collect::<BTreeSet<_>>().len() == 1;
        let beside_plain = s.iter().any(|x| matches!(x, Slot::Plain(_) | Slot::Literal)) && operator_headline(&d.message);
        if probes.len() >= 2 && !distinct.is_empty() && !(one_type && beside_plain) {
            // (Two probes of one unit that rustc still tells apart, a value computed from the
            // unit's knobs of two declared formats: nothing to learn, nothing left to explain.)
            meet(&all, &Slot::Probe(all.clone()), out);
        } else if let (false, true) = (all.is_empty(), operator_headline(&d.message)) {
            for other in s.iter().filter(|x| matches!(x, Slot::Plain(_) | Slot::Literal)) {
                meet(&all, other, out);
            }
        } else if let (false, Some(conversion)) = (all.is_empty(), conversion_bound(&d.message)) {
            // "the trait bound `Probe<f64, Id<17>>: From<i32>` is not satisfied": which formats
            // have the conversion is std's choice (`f64: From<i32>`, not `f32`), so the knob
            // keeps the format it was written with.
            meet(&all, &Slot::Plain(conversion), out);
        }
    }
    explained.get()
}

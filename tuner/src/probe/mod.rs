//! The probe build: learns from rustc which knobs must share a type, before the search spends a
//! build on a configuration that cannot compile.
//!
//! Every knob is given its own type, `::fptune::__rt::Probe<F, Id<ID>>` (`F` its declared format,
//! `ID` its id), by rewriting its leaves ([`probe_sources`]). A value computed from two knobs of
//! different types has both in its tag (`Probe<f64, (Id<3>, Id<7>)>`). The runtime lets arithmetic, stores and
//! casts mix probes and floats freely, so the only type errors left are where rustc requires two
//! types to be *equal*. Each error's `expected`/`found` types are aligned leaf by leaf
//! ([`couplings`]):
//!
//! | rustc says | meaning | fact |
//! |---|---|---|
//! | expected `&[Probe<f64, Id<1>>]`, found `&Vec<Probe<f64, Id<2>>>` | knobs 1 and 2 share a buffer | [`Pair`] |
//! | expected `&[f64]`, found `&Vec<Probe<f64, Id<2>>>` | knob 2 meets a type that cannot change | pinned ([`Pin`]) |
//! | expected `Probe<f64, Id<3>>`, found floating-point number | knob 3 receives a literal, which only `f32`/`f64` can be | no 16-bit ([`Pin`]) |
//! | `Vec<Probe<f64, Id<5>>>` from items `Probe<f64, (Id<2>, Id<3>)>` | the items have the wider of 2 and 3's formats | 5 shares a type with 2 and with 3 |
//!
//! [`units`] merges knobs by user groups and rustc's pairs (union-find) into the units of the
//! search, pinned units included; [`units_without_16bit`] says which units stop at 32 bits.
//!
//! # The rounds
//!
//! One build does not always say everything: rustc may report a second requirement only once the
//! first is met. [`Probing`] drives the rounds (the orchestration runs the builds):
//!
//! ```text
//! let mut probing = Probing::new(knobs);
//! loop {
//!     write probing.sources(&files)? into the scratch copy     // merged knobs share one ID
//!     build it (`cargo build --message-format=json`), keep the error diagnostics
//!     match probing.learn(&errors) { Round::Again => continue, Round::Settled => break }
//! }
//! let units = probing.units();                                 // pinned units never lowered
//! let capped = units_without_16bit(&units, probing.couplings()); // these stop at f32
//! // probing.couplings().unexplained: errors the probe could not read (show them as warnings)
//! ```
//!
//! A round is needed again only when it merged units (the merged knobs now share an `ID`, so
//! errors rustc could not report before may appear); pins and literals do not change the source.
//! Arithmetic between two knobs of different probe types has both in its tag: natively it has the
//! wider one's format, either's in some configuration, so where it must equal a type every knob
//! it came from must (`*r = a.iter().map(|a| a * z[i]).sum()` couples `r` with `a` and `z`,
//! `(b[i] - s) / a[i][i]` collected into `x` couples `x` with all three).
//! After [`Probing::MAX_ROUNDS`] rounds it settles with what it knows.
//!
//! # What the probe relies on
//!
//! The probe build is an ordinary build (no `stochastic` feature) of the rewritten copy. It reports
//! only real requirements because `fptune-syntax` reads `Probe<F, K>` as a float of format `F`, so
//! `#[fptune::tune]` stores into probe-typed places (annotated `let`s, by-value knob parameters,
//! returns) as it does into `f64` ones. Were that lost, a knob initialised from an expression would
//! read as pinned ("expected `Probe<f64, 8>`, found `f64`"), one initialised with a literal as
//! "no 16-bit", and a by-value knob parameter as coupled to its arguments: the integration test
//! `tuner/tests/probe.rs` watches for it.
//!
//! A `static`/`const` knob given a literal is not capped at 32 bits: the macro writes such a
//! literal with half's `const` conversion for a 16-bit type, which a probe type cannot mimic.

mod couplings;
mod diagnostic;
mod messages;
mod rounds;
mod sources;
mod units;

#[cfg(test)]
mod tests;

#[allow(unused_imports)]
use self::{couplings::*, diagnostic::*, messages::*, rounds::*, sources::*, units::*};
pub use self::couplings::{couplings, Couplings, Pair, Pin, Unexplained};
pub use self::diagnostic::DiagnosticLike;
pub(crate) use self::messages::{expected_found, fixed_floats_on, strip_ansi};
pub use self::rounds::{Probing, Round, Trial};
pub use self::sources::{probe_sources, probe_type};
pub use crate::leaves::SourceError;
pub use self::units::{units, units_without_16bit};

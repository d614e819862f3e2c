//! Heals: the conversions written where rustc says the converted crate's values meet another
//! kind of float, read from its errors (the runtime's side is `fptune::__rt::{to_stochastic,
//! to_native}`).
//!
//! The stochastic build converts every float the crate declares or computes. Where a value meets
//! code that is not converted (another crate's function taking `f64`, a `const` kept primitive,
//! an `if` whose other branch is a constant), the build does not compile, and rustc says where and
//! between which types. A heal answers one such error at the place it names:
//!
//! | rustc says (at an expression) | heal |
//! |---|---|
//! | expected `Stochastic<f64>`, found `f64` (or `Vec<f64>`, `{float}`, ...) | `to_stochastic(e)`; in a constant, `Stochastic::<f64>::constant(e)` |
//! | expected `f64`, found `Stochastic<f64>`, the other branch of an `if`/`match` being `f64` | `to_stochastic(other)` |
//! | expected `f64`, found `Stochastic<f64>` (a foreign place) | `to_native(e)`: the samples end there |
//! | non-primitive cast `Stochastic<f64> as i64` | `cast::<i64, _>(e)` |
//! | `Stochastic<f64>: Trait` not satisfied, no method `m` on `Stochastic<f64>` | `to_native(e)` (the receiver) |
//! | `T: From<Stochastic<f64>>` (`TryFrom`) not satisfied at `T::from(k)` | `T::from(to_native(k))` |
//! | `Vec<Stochastic<f64>>` cannot be built from (summed from) an iterator over `f64` | `.map(\|x\| to_stochastic(x)).collect()` |
//!
//! Anything else is [`Stuck`]: said to the user at their line, with what to write instead.
//! [`read_errors`] is pure (errors and texts in, heals out); the loop that builds, reads and
//! builds again is the lab's.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::cargo::Diagnostic;
use crate::probe::{expected_found, strip_ansi};
use crate::splice::{self, Edit, Spliced};

pub(crate) mod find;
mod rules;
mod types;

#[cfg(test)]
mod tests;

use self::rules::heals_for;
use self::types::float_shaped;

/// What a heal writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Fix {
    /// `::fptune::__rt::to_stochastic(e)`.
    ToStochastic,
    /// `::fptune::__rt::to_native(e)`.
    ToNative,
    /// `::fptune::__rt::scalar_left(s)`: a stochastic scalar (or knob) on the left of an operator
    /// on an ndarray array or a nalgebra matrix, which define that operator for primitive
    /// scalars only; each element is computed as `s op x`, as natively.
    ScalarLeft,
    /// `::fptune::__rt::relit(e)`: a container of literals (`array![[1.0, 2.0]]`, built by a
    /// macro fptune does not rewrite) made a container of the type rustc expects, each element
    /// as the literal it was, in every configuration (as natively its literals take the place's
    /// type).
    Relit,
    /// An unsuffixed float literal written `::fptune::__rt::lit(d, s)`: a value of the type the
    /// place expects, whatever the configuration makes it (as the literal adapts natively).
    Literal {
        /// The literal's binary64 and binary32 tokens.
        digits: String,
    },
    /// `<_ as ::fptune::__rt::Store<T>>::store(e)`: a value of run-time format (the single
    /// build's `DynStochastic`, a knob) converted into `T`, the type rustc expects there.
    Store(String),
    /// A borrowed buffer `e` of another kind of float lent where a slice is needed (its
    /// expression is not `&place`: a reference held in a variable, a table's element): a
    /// converted copy lent, `&::fptune::__rt::to_stochastic(&(e)[..])`, or with `Some(T)`,
    /// `&<_ as ::fptune::__rt::Store<T>>::store(&(e)[..])` (`T` a `Vec`).
    LendCopy(Option<String>),
    /// `::fptune::Stochastic::<F>::constant(e)` (in a `const` or `static`).
    Constant(String),
    /// A float type named in a path (`f64::from_bits`) written `::fptune::__rt::primitive::f64`
    /// (a path every edition resolves), which the stochastic build does not map (the stochastic
    /// type has no such function).
    KeepPrimitive(String),
    /// A `const fn` made an ordinary `fn` (its floats are stochastic values now): the range is
    /// its `const` keyword.
    Unconst,
    /// An elaborated literal whose place gives rustc no type (`println!("{}", 0.5)`, an argument
    /// of a generic function): `__rt::lit::<T>` written `__rt::typed_lit::<T>`, which keeps its
    /// type in the stochastic build (the range is the `lit` identifier).
    TypedLiteral,
    /// An elaborated literal given to a method of a receiver written as a path (`s.powf(0.5)`)
    /// where rustc cannot tell its type: `lit::<T>(` written `lit_like(&(s), `, the receiver's
    /// own type whatever the build makes it (the range runs from `lit` to its `(`).
    LiteralLike(String),
    /// An iterator whose items are of another kind of float than the collection, sum or product
    /// it ends in (`.collect()` into `Vec<Stochastic<f64>>` from `f64` items): each item
    /// converted first, `.map(|x| to_stochastic(x)).collect()` (`to_native` when `!stochastic`;
    /// `*x` when the items are references). The range is the method's name.
    MapItems {
        /// Into the stochastic type (else into the primitive one: the samples end there).
        stochastic: bool,
        /// The items are references to floats.
        deref: bool,
    },
    /// The single build's [`Fix::MapItems`]: items of run-time format (`DynStochastic`, another
    /// unit's knob) stored into `T`, the element type rustc names, before the collection, sum or
    /// product: `.map(|x| <_ as ::fptune::__rt::Store<T>>::store(x))`.
    StoreItems {
        /// The element type, as a path every module resolves.
        ty: String,
        /// The items are references.
        deref: bool,
    },
    /// `e as T` becomes `::fptune::__rt::cast::<T, _>(e)`: the offset where ` as T` starts.
    Cast {
        /// Where `as` starts (the cast's operand ends before it).
        operand_end: usize,
        /// The target type, as written.
        ty: String,
    },
}

/// A conversion written at an expression of the elaborated sources.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Heal {
    /// The file (relative to the package root).
    pub file: String,
    /// First byte of the expression, in the elaborated text.
    pub start: usize,
    /// Byte past its end.
    pub end: usize,
    /// What is written.
    pub fix: Fix,
    /// rustc's words, for the report.
    pub why: String,
}

impl Heal {
    /// The edits that write it (insertions around the expression, so heals nest).
    pub fn edits(&self) -> Vec<Edit> {
        match &self.fix {
            Fix::ToStochastic => wrap(self.start, self.end, "::fptune::__rt::to_stochastic("),
            Fix::Relit => wrap(self.start, self.end, "::fptune::__rt::relit("),
            Fix::ScalarLeft => wrap(self.start, self.end, "::fptune::__rt::scalar_left("),
            Fix::ToNative => wrap(self.start, self.end, "::fptune::__rt::to_native("),
            Fix::Literal { digits } => {
                vec![Edit::replace(self.start, self.end, format!("::fptune::__rt::lit({})", fptune_syntax::literal_args(digits)))]
            }
            Fix::Store(ty) => wrap(self.start, self.end, &format!("<_ as ::fptune::__rt::Store<{ty}>>::store(")),
            Fix::LendCopy(store) => {
                let convert = match store {
                    None => "::fptune::__rt::to_stochastic".to_string(),
                    Some(ty) => format!("<_ as ::fptune::__rt::Store<{ty}>>::store"),
                };
                vec![Edit::insert(self.start, format!("&{convert}(&(")), Edit::insert(self.end, ")[..])")]
            }
            Fix::Constant(f) => wrap(self.start, self.end, &format!("::fptune::Stochastic::<{f}>::constant(")),
            Fix::KeepPrimitive(ty) => vec![Edit::replace(self.start, self.end, format!("::fptune::__rt::primitive::{ty}"))],
            Fix::Unconst => vec![Edit::replace(self.start, self.end, "")],
            Fix::TypedLiteral => vec![Edit::replace(self.start, self.end, "typed_lit")],
            Fix::LiteralLike(receiver) => vec![Edit::replace(self.start, self.end, format!("lit_like(&({receiver}), "))],
            Fix::MapItems { stochastic, deref } => {
                let f = if *stochastic { "to_stochastic" } else { "to_native" };
                let x = if *deref { "*x" } else { "x" };
                vec![Edit::insert(self.start, format!("map(|x| ::fptune::__rt::{f}({x})).")) ]
            }
            Fix::StoreItems { ty, deref } => {
                let x = if *deref { "*x" } else { "x" };
                vec![Edit::insert(self.start, format!("map(|x| <_ as ::fptune::__rt::Store<{ty}>>::store({x}))."))]
            }
            Fix::Cast { operand_end, ty } => vec![
                Edit::insert(self.start, format!("::fptune::__rt::cast::<{ty}, _>(")),
                Edit::replace(*operand_end, self.end, ")"),
            ],
        }
    }

    /// Whether the heal loses samples.
    pub fn lossy(&self) -> bool {
        matches!(self.fix, Fix::ToNative | Fix::MapItems { stochastic: false, .. })
    }
}

pub(super) fn wrap(start: usize, end: usize, open: &str) -> Vec<Edit> {
    vec![Edit::insert(start, open), Edit::insert(end, ")")]
}

/// An error no heal answers: where (in the user's file) and what to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stuck {
    /// `file:line:column` in the user's source (or the build's, when the error is in code fptune
    /// wrote).
    pub place: String,
    /// rustc's error.
    pub message: String,
    /// What the user can write instead.
    pub advice: String,
}

impl fmt::Display for Stuck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}\n  {}", self.place, self.message, self.advice)
    }
}

/// One file as built: the elaborated text it comes from, the edits that made the build's text
/// from it, and the user's original text with the elaboration that made the elaborated one.
#[derive(Clone, Debug)]
pub struct Built<'a> {
    /// The elaborated text.
    pub base: &'a str,
    /// From the elaborated text to the built one.
    pub built: &'a Spliced,
    /// From the user's text to the elaborated one (`None`: they are the same).
    pub elaborated: Option<&'a Spliced>,
}

impl Built<'_> {
    /// The elaborated range of a built range, when both ends are outside fptune's own edits.
    fn base_range(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        let a = self.built.original(start)?;
        let b = self.built.original(end)?;
        (a <= b).then_some((a, b))
    }

    /// `file:line:column` of an elaborated offset, in the user's text when it maps there.
    fn place(&self, file: &str, offset: usize, user: Option<&str>) -> String {
        match (self.elaborated.and_then(|e| e.original(offset)), user) {
            (Some(o), Some(text)) => {
                let (l, c) = splice::line_column(text, o);
                format!("{file}:{l}:{c}")
            }
            _ => {
                let (l, c) = splice::line_column(self.base, offset);
                format!("{file}:{l}:{c}")
            }
        }
    }
}

/// What a stochastic build's errors call for: heals, and the errors no heal answers.
#[derive(Clone, Debug, Default)]
pub struct Reading {
    /// New heals (not among those already written).
    pub heals: Vec<Heal>,
    /// Errors without a heal.
    pub stuck: Vec<Stuck>,
}

/// Reads a stochastic build's errors. `files` are the built files by path, `users` the user's
/// texts by path (for places), `written` the heals already in the build.
pub fn read_errors(
    errors: &[Diagnostic],
    files: &BTreeMap<String, Built<'_>>,
    users: &BTreeMap<String, &str>,
    written: &[Heal],
) -> Reading {
    let mut reading = Reading::default();
    for e in errors {
        // An error in another crate's code that a macro the crate calls expanded to
        // (`array![[1.0, 2.0]]`): read at the call.
        let site = e.primary().and_then(|s| s.call_site.as_deref()).filter(|_| e.primary().is_some_and(|s| !files.contains_key(&s.file)));
        let Some(span) = site.or(e.primary()) else {
            if e.level == "error" && e.code.is_some() {
                reading.stuck.push(Stuck { place: "(no place)".into(), message: e.to_string(), advice: ADVICE.into() });
            }
            continue;
        };
        let Some(file) = files.get(&span.file) else {
            reading.stuck.push(stuck_at(e, &span.place(), "the error is outside the crate's sources"));
            continue;
        };
        let user = users.get(&span.file).copied();
        let heals = match (span.byte_start, span.byte_end) {
            (Some(a), Some(b)) => heals_for(e, &span.file, file, (a, b)),
            _ => Vec::new(),
        };
        let fresh: Vec<Heal> = heals.iter().filter(|h| !written.contains(h) && !reading.heals.contains(h)).cloned().collect();
        if fresh.is_empty() {
            let advice = if heals.is_empty() { advice_for(e) } else { "(fptune's conversion here did not compile)".to_string() };
            reading.stuck.push(stuck_at(e, &place_of(file, &span.file, span.byte_start, user), &advice));
        }
        reading.heals.extend(fresh);
    }
    reading
}

pub(super) fn place_of(file: &Built<'_>, name: &str, at: Option<usize>, user: Option<&str>) -> String {
    match at.and_then(|a| file.built.original(a)) {
        Some(o) => file.place(name, o, user),
        None => {
            let (l, c) = splice::line_column(&file.built.text, at.unwrap_or(0));
            format!("{name}:{l}:{c} (in code fptune wrote)")
        }
    }
}

pub(super) const ADVICE: &str = "fptune's stochastic build of the crate does not compile here, and no conversion of fptune's fixes it";

pub(super) fn stuck_at(e: &Diagnostic, place: &str, advice: &str) -> Stuck {
    Stuck { place: place.to_string(), message: e.to_string(), advice: advice.to_string() }
}

pub(super) fn advice_for(e: &Diagnostic) -> String {
    let text = rendered(e);
    let pairs = expected_found(&text);
    if let Some((x, y)) = pairs.first() {
        if x.starts_with('&') && y.starts_with('&') && float_shaped(x, y) {
            return format!(
                "a buffer of `{}` is lent where `{}` is needed: its float type is decided where it is created; \
                 write the float type there (`let v: Vec<f64> = ..`, `[0.0f64; N]`) or mark it as a knob",
                y, x
            );
        }
    }
    if let Some(bound) = knob_trait_bound(&e.message) {
        return format!(
            "the single build (one program whose knobs choose their format when it runs) cannot give its knobs \
             the bound `{bound}` (a trait the crate implements for `f64` or `f32`): each candidate is built \
             instead, with the same results, more slowly"
        );
    }
    match e.code.as_deref() {
        Some("E0282" | "E0283") => "rustc cannot infer a type here in fptune's stochastic build: write the type (`let x: f64 = ..`, `.sum::<f64>()`)".into(),
        Some("E0015") if e.message.contains("in constants") || e.message.contains("in statics") => {
            "a `const` or `static` computed by a function that computes with floats: in fptune's stochastic build its floats are values that round at random when the program runs, so no such function is `const`; write the constant's value (a literal, or a struct or array of literals), or compute it at run time (`std::sync::LazyLock`, or a `let` in `main`)".into()
        }
        _ => ADVICE.into(),
    }
}

/// The trait of "the trait bound `Knob<f64, 0>: Real` is not satisfied" (rustc's message where
/// the single build's knob meets a bound of the crate's own trait): `Real`.
pub(super) fn knob_trait_bound(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("the trait bound `")?.strip_suffix("` is not satisfied")?;
    let (ty, bound) = rest.rsplit_once(": ")?;
    ty.trim_start_matches("fptune::__rt::").starts_with("Knob<").then_some(bound)
}

pub(super) fn rendered(e: &Diagnostic) -> String {
    let mut text = e.rendered.clone().unwrap_or_default();
    for s in &e.spans {
        if let Some(l) = &s.label {
            text.push('\n');
            text.push_str(l);
        }
    }
    strip_ansi(&text).into_owned()
}

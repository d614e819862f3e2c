//! The probe build: learns from rustc which knobs must share a type, before the search spends a
//! build on a configuration that cannot compile.
//!
//! Every knob is given its own type, `::fptune::__rt::Probe<F, ID>` (`F` its declared format, `ID`
//! its id), by rewriting its leaves ([`probe_sources`]). The runtime lets arithmetic, stores and
//! casts mix probes and floats freely, so the only type errors left are where rustc requires two
//! types to be *equal*. Each error's `expected`/`found` types are aligned leaf by leaf
//! ([`couplings`]):
//!
//! | rustc says | meaning | fact |
//! |---|---|---|
//! | expected `&[Probe<f64, 1>]`, found `&Vec<Probe<f64, 2>>` | knobs 1 and 2 share a buffer | [`Pair`] |
//! | expected `&[f64]`, found `&Vec<Probe<f64, 2>>` | knob 2 meets a type that cannot change | pinned ([`Pin`]) |
//! | expected `Probe<f64, 3>`, found floating-point number | knob 3 receives a literal, which only `f32`/`f64` can be | no 16-bit ([`Pin`]) |
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
//!     build it (`cargo build --message-format=json`, with the runtime's `probe-right`
//!         feature when probing.right()), keep the error diagnostics
//!     match probing.learn(&errors) { Round::Again => continue, Round::Settled => break }
//! }
//! let units = probing.units();                                 // pinned units never lowered
//! let capped = units_without_16bit(&units, probing.couplings()); // these stop at f32
//! // probing.couplings().unexplained: errors the probe could not read (show them as warnings)
//! ```
//!
//! A round is needed again only when it merged units (the merged knobs now share an `ID`, so
//! errors rustc could not report before may appear); pins and literals do not change the source.
//! Arithmetic between two knobs has the left one's probe type, and natively the wider one's
//! format: rounds alternate between that rule and the runtime's `probe-right` feature (the right
//! one's type, [`Probing::right`]) until a round under each learns nothing, so that
//! `*r = a.iter().map(|a| a * z[i]).sum()` couples `r` with both `a` and `z`.
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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use fptune_syntax::offset_of;
use serde::{Deserialize, Serialize};

use crate::model::{Coupling, FloatFormat, Knob, KnobKind, Unit};

// ----------------------------------------------------------------------------------------------
// Sources of the probe build
// ----------------------------------------------------------------------------------------------

/// The probe type of a knob: `::fptune::__rt::Probe<F, ID>`, `F` the format spelled as a type.
pub fn probe_type(format: FloatFormat, id: usize) -> String {
    format!("::fptune::__rt::Probe<{}, {id}>", plain_type(format))
}

/// A format spelled as the type a native build writes for it.
fn plain_type(format: FloatFormat) -> &'static str {
    match format {
        FloatFormat::F64 => "f64",
        FloatFormat::F32 => "f32",
        FloatFormat::F16 => "::fptune::f16",
        FloatFormat::BF16 => "::fptune::bf16",
    }
}

/// Why the probe sources could not be written: the knob table does not match the files (it was
/// made from other versions of them).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// A knob's file is not among the files given.
    #[error("knob `{knob}` is in {file}, which is not among the crate's files: discover the knobs again")]
    MissingFile {
        /// The knob's name.
        knob: String,
        /// Its file.
        file: String,
    },
    /// A leaf's position is outside its file, or the text there is not a type.
    #[error(
        "knob `{knob}` ({file}:{line}): its type is not where the knob table says (found `{found}`): \
         the file changed since the knobs were found; discover them again"
    )]
    StaleLeaf {
        /// The knob's name.
        knob: String,
        /// Its file.
        file: String,
        /// The leaf's line.
        line: usize,
        /// The text at the leaf's place (empty when outside the file).
        found: String,
    },
    /// Two leaves overlap (a knob table with a knob twice).
    #[error("{file}: knobs `{a}` and `{b}` claim the same type tokens: discover the knobs again")]
    Overlap {
        /// The file.
        file: String,
        /// One knob.
        a: String,
        /// The other.
        b: String,
    },
}

/// The probe build's sources: every leaf of every knob rewritten to `::fptune::__rt::Probe<F, ID>`,
/// `F` the knob's declared format and `ID` its id.
///
/// `files` are `(path relative to the package root, text)`; the result has the files that hold
/// knobs, rewritten, in the order given (the others are unchanged). Only the type tokens change:
/// comments and formatting survive, so rustc's line numbers are the user's.
pub fn probe_sources(files: &[(String, String)], knobs: &[Knob]) -> Result<Vec<(String, String)>, SourceError> {
    rewrite(files, knobs, |k| probe_type(k.declared, k.id))
}

/// Writes each knob's leaves as `type_of(knob)`.
fn rewrite(
    files: &[(String, String)],
    knobs: &[Knob],
    type_of: impl Fn(&Knob) -> String,
) -> Result<Vec<(String, String)>, SourceError> {
    let mut by_file: BTreeMap<&str, Vec<&Knob>> = BTreeMap::new();
    for k in knobs {
        by_file.entry(k.file.as_str()).or_default().push(k);
    }
    if let Some(k) = knobs.iter().find(|k| !files.iter().any(|(p, _)| *p == k.file)) {
        return Err(SourceError::MissingFile { knob: k.name.clone(), file: k.file.clone() });
    }
    let mut out = Vec::new();
    for (path, text) in files {
        let Some(file_knobs) = by_file.get(path.as_str()) else { continue };
        // (start, end, replacement, knob name)
        let mut edits: Vec<(usize, usize, String, &str)> = Vec::new();
        for k in file_knobs {
            let replacement = type_of(k);
            for leaf in &k.leaves {
                let stale = |found: &str| SourceError::StaleLeaf {
                    knob: k.name.clone(),
                    file: k.file.clone(),
                    line: leaf.start.0,
                    found: found.to_string(),
                };
                let (Some(a), Some(b)) = (offset_of(text, leaf.start), offset_of(text, leaf.end)) else {
                    return Err(stale(""));
                };
                let found = text.get(a..b).unwrap_or("");
                if a >= b || !is_type_path(found) {
                    return Err(stale(found));
                }
                edits.push((a, b, replacement.clone(), &k.name));
            }
        }
        edits.sort_by_key(|e| e.0);
        for w in edits.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(SourceError::Overlap { file: path.clone(), a: w[0].3.to_string(), b: w[1].3.to_string() });
            }
        }
        let mut new = text.clone();
        for (a, b, r, _) in edits.iter().rev() {
            new.replace_range(*a..*b, r);
        }
        out.push((path.clone(), new));
    }
    Ok(out)
}

/// Whether `s` reads as a type path (`f64`, `fptune::f16`, `Real`): what a leaf covers.
fn is_type_path(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':' || c.is_whitespace())
}

// ----------------------------------------------------------------------------------------------
// rustc's diagnostics
// ----------------------------------------------------------------------------------------------

/// An error rustc reported for the probe build: what [`couplings`] reads. Convert cargo's
/// diagnostics with [`DiagnosticLike::from_cargo`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticLike {
    /// The headline, e.g. "mismatched types".
    pub message: String,
    /// The full text as rustc prints it (labels and notes carry the types).
    pub rendered: String,
    /// The primary span's file, relative to the package root.
    pub file: Option<String>,
    /// The primary span's line (1-based).
    pub line: Option<usize>,
}

impl DiagnosticLike {
    /// The error of a cargo `compiler-message`, or `None` for warnings and notes.
    ///
    /// The place is the primary span's; when that lies outside the package (a macro's definition,
    /// the standard library), the macro call site in the package is taken instead.
    pub fn from_cargo(d: &cargo_metadata::diagnostic::Diagnostic) -> Option<DiagnosticLike> {
        use cargo_metadata::diagnostic::DiagnosticLevel;
        if !matches!(d.level, DiagnosticLevel::Error | DiagnosticLevel::Ice) {
            return None;
        }
        let mut span = d.spans.iter().find(|s| s.is_primary).or_else(|| d.spans.first());
        while let Some(s) = span {
            if !outside_package(&s.file_name) {
                break;
            }
            span = s.expansion.as_deref().map(|e| &e.span);
        }
        Some(DiagnosticLike {
            message: d.message.clone(),
            rendered: d.rendered.clone().unwrap_or_else(|| d.message.clone()),
            file: span.map(|s| s.file_name.clone()),
            line: span.map(|s| s.line_start),
        })
    }

    /// `file:line` of the error, as the report shows places (`?` when rustc gave none).
    pub fn place(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => f.clone(),
            _ => rendered_place(&self.rendered).unwrap_or_else(|| "?".into()),
        }
    }
}

fn outside_package(file: &str) -> bool {
    file.starts_with('/') || file.starts_with('<') || file.contains(":\\") || file.starts_with("\\\\")
}

/// `file:line` from the first `--> file:line:column` of a rendered diagnostic.
fn rendered_place(rendered: &str) -> Option<String> {
    let rest = rendered.lines().find_map(|l| l.trim_start().strip_prefix("--> "))?;
    let mut parts = rest.trim().rsplitn(3, ':');
    let _column = parts.next()?;
    let line = parts.next()?;
    let file = parts.next()?;
    Some(format!("{file}:{line}"))
}

// ----------------------------------------------------------------------------------------------
// Reading the types in rustc's messages
// ----------------------------------------------------------------------------------------------

/// A float position in a type as rustc prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slot {
    /// `Probe<F, ID>` (any path, `F` possibly `_`).
    Probe(usize),
    /// A plain float type: `f64`, `f32`, `f16`, `bf16` (any path).
    Plain(String),
    /// `{float}`: a float literal not yet given a type.
    Literal,
    /// `_`: a part rustc elided because it is the same on both sides.
    Hole,
}

/// The float positions of a type text, in order.
fn slots(ty: &str) -> Vec<Slot> {
    if ty.trim() == "floating-point number" {
        return vec![Slot::Literal];
    }
    let chars: Vec<char> = ty.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            let end = chars[i..].iter().position(|&c| c == '}').map_or(chars.len(), |p| i + p + 1);
            let inner: String = chars[i..end].iter().collect();
            if inner == "{float}" {
                out.push(Slot::Literal);
            }
            i = end;
        } else if c.is_alphanumeric() || c == '_' {
            // A path: segments joined by `::`.
            let start = i;
            loop {
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                if i + 2 < chars.len() && chars[i] == ':' && chars[i + 1] == ':' && is_ident_start(chars[i + 2]) {
                    i += 2;
                } else {
                    break;
                }
            }
            let path: String = chars[start..i].iter().collect();
            let last = path.rsplit("::").next().unwrap_or(&path);
            if last == "Probe" && chars.get(i) == Some(&'<') {
                let (args, end) = generic_args(&chars, i);
                i = end;
                if let Some(id) = args.last().and_then(|a| const_id(a)) {
                    out.push(Slot::Probe(id));
                }
            } else if matches!(last, "f64" | "f32" | "f16" | "bf16") {
                out.push(Slot::Plain(last.to_string()));
            } else if path == "_" {
                out.push(Slot::Hole);
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// The top-level arguments of the `<..>` opening at `open`, and the index after its `>`.
fn generic_args(chars: &[char], open: usize) -> (Vec<String>, usize) {
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut current = String::new();
    let mut i = open;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '<' | '(' | '[' | '{' => {
                if depth > 0 {
                    current.push(c);
                }
                depth += 1;
            }
            '>' | ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    args.push(current.trim().to_string());
                    return (args, i + 1);
                }
                current.push(c);
            }
            ',' if depth == 1 => args.push(std::mem::take(&mut current).trim().to_string()),
            _ => current.push(c),
        }
        i += 1;
    }
    (args, chars.len())
}

/// A const generic argument as rustc prints it: `7`, `7_u32`, `{7}`.
fn const_id(arg: &str) -> Option<usize> {
    let a = arg.trim().trim_start_matches('{').trim_end_matches('}');
    let digits = a.strip_suffix("_u32").or_else(|| a.strip_suffix("u32")).unwrap_or(a);
    digits.parse().ok()
}

/// Every `expected X, found Y` of a rendered diagnostic: labels ("expected `&[f64]`, found
/// `&Vec<Probe<f64, 2>>`") and notes ("expected reference `..`" over "found reference `..`"),
/// `floating-point number` as `{float}`.
pub(crate) fn expected_found(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("expected ") {
        let at = from + p;
        from = at + "expected ".len();
        if text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some((expected, after)) = operand(&text[from..]) else { continue };
        let rest = &text[from + after..];
        let Some(skip) = found_separator(rest) else { continue };
        let Some((found, _)) = operand(&rest[skip..]) else { continue };
        out.push((expected, found));
    }
    out
}

/// A type after "expected "/"found ": optional kind words ("struct", "mutable reference"), then a
/// backquoted type, or "floating-point number". Returns the type and the length read.
fn operand(s: &str) -> Option<(String, usize)> {
    const LITERAL: &str = "floating-point number";
    if s.starts_with(LITERAL) {
        return Some(("{float}".into(), LITERAL.len()));
    }
    let tick = s.find('`')?;
    let kind = &s[..tick];
    let words_ok = kind.is_empty()
        || (kind.ends_with(' ')
            && kind.split_whitespace().count() <= 4
            && kind.chars().all(|c| c.is_ascii_lowercase() || c == ' ' || c == '-'));
    if !words_ok {
        return None;
    }
    let close = s[tick + 1..].find('`')?;
    let ty = &s[tick + 1..tick + 1 + close];
    if ty.contains('\n') {
        return None;
    }
    Some((ty.to_string(), tick + 1 + close + 1))
}

/// The bytes between an expected type and "found ": `, ` on a label, a line break and indent in a
/// note.
fn found_separator(rest: &str) -> Option<usize> {
    if let Some(r) = rest.strip_prefix(", found ") {
        return Some(rest.len() - r.len());
    }
    let trimmed = rest.trim_start_matches([' ', '\t']);
    let trimmed = trimmed.strip_prefix("\r\n").or_else(|| trimmed.strip_prefix('\n'))?;
    let trimmed = trimmed.trim_start_matches([' ', '\t']);
    let r = trimmed.strip_prefix("found ")?;
    Some(rest.len() - r.len())
}

/// `text` without ANSI colour sequences (`ESC [ ... letter`), as in a build run with colours.
pub(crate) fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Words of a headline naming an operator between two types ("cannot add `A` to `B`",
/// "can't compare `A` with `B`"): a knob meeting a plain float there cannot change type.
fn operator_headline(message: &str) -> bool {
    ["cannot add", "cannot subtract", "cannot multiply", "cannot divide", "cannot calculate the remainder", "can't compare", "no implementation for `"]
        .iter()
        .any(|w| message.contains(w))
}

/// Backquoted spans of a headline.
fn quoted(message: &str) -> Vec<&str> {
    message.split('`').skip(1).step_by(2).collect()
}

// ----------------------------------------------------------------------------------------------
// Couplings
// ----------------------------------------------------------------------------------------------

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
}

impl Couplings {
    /// Whether nothing was learned and nothing is left unexplained.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty() && self.pinned.is_empty() && self.no_16bit.is_empty() && self.unexplained.is_empty()
    }

    fn pair(&mut self, a: usize, b: usize, place: &str) {
        let knobs = (a.min(b), a.max(b));
        if a != b && !self.pairs.iter().any(|p| p.knobs == knobs) {
            self.pairs.push(Pair { knobs, place: place.into() });
        }
    }

    fn pin(list: &mut Vec<Pin>, knob: usize, place: &str, meets: &str) {
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
    }
}

/// Reads the probe build's errors: which knobs must share a type, which are pinned to their
/// declared format, which cannot be 16-bit. Probe ids that are not knob ids are ignored.
pub fn couplings(diagnostics: &[DiagnosticLike], knobs: &[Knob]) -> Couplings {
    let kinds: BTreeMap<usize, KnobKind> = knobs.iter().map(|k| (k.id, k.kind)).collect();
    let mut out = Couplings::default();
    for d in diagnostics {
        if d.message.starts_with("aborting due to") {
            continue;
        }
        if !read_diagnostic(d, &kinds, &mut out) {
            out.unexplained.push(Unexplained { place: d.place(), message: d.message.clone(), probes: named_probes(d) });
        }
    }
    out
}

/// The probes an error names: its headline's, or where the headline names none, its whole text's.
fn named_probes(d: &DiagnosticLike) -> Vec<usize> {
    let ids = |slots: Vec<Slot>| -> BTreeSet<usize> {
        slots.into_iter().filter_map(|s| if let Slot::Probe(p) = s { Some(p) } else { None }).collect()
    };
    let mut found = ids(quoted(&d.message).into_iter().flat_map(slots).collect());
    if found.is_empty() {
        found = ids(slots(&strip_ansi(&d.rendered)));
    }
    found.into_iter().collect()
}

/// The conversion trait a probe lacks, from "the trait bound `Probe<f64, 17>: From<i32>` is not
/// satisfied" (`From`, `Into`, `TryFrom`, `TryInto` with the probe as `Self`).
fn conversion_bound(message: &str) -> Option<String> {
    let bound = message.strip_prefix("the trait bound `")?.strip_suffix("` is not satisfied")?;
    let (this, tr) = bound.split_once(": ")?;
    let probe = this.contains("Probe<");
    let conversion = ["From<", "Into<", "TryFrom<", "TryInto<"].iter().any(|c| tr.starts_with(c));
    (probe && conversion && !tr.contains("Probe<")).then(|| tr.to_string())
}

/// Adds what one error says; `false` when it says nothing about knobs.
fn read_diagnostic(d: &DiagnosticLike, kinds: &BTreeMap<usize, KnobKind>, out: &mut Couplings) -> bool {
    let place = d.place();
    let known = |id: &usize| kinds.contains_key(id);
    let mut explained = false;
    let mut meet = |probe: usize, other: &Slot, out: &mut Couplings| {
        if !known(&probe) {
            return;
        }
        match other {
            Slot::Probe(q) if known(q) => {
                out.pair(probe, *q, &place);
                explained = true;
            }
            Slot::Plain(t) => {
                Couplings::pin(&mut out.pinned, probe, &place, t);
                explained = true;
            }
            Slot::Literal => {
                // A `static`/`const` literal becomes 16-bit through half's const conversion.
                if !matches!(kinds.get(&probe), Some(KnobKind::Static | KnobKind::Const)) {
                    Couplings::pin(&mut out.no_16bit, probe, &place, "{float}");
                }
                explained = true;
            }
            _ => {}
        }
    };
    let pairs = expected_found(&strip_ansi(&d.rendered));
    for (expected, found) in &pairs {
        let (e, f) = (slots(expected), slots(found));
        if e.len() == f.len() {
            for (a, b) in e.iter().zip(&f) {
                match (a, b) {
                    (Slot::Probe(p), other) | (other, Slot::Probe(p)) => meet(*p, other, out),
                    _ => {}
                }
            }
        } else {
            // Shapes rustc printed differently: every probe of one side meets every float of the other.
            for a in &e {
                for b in &f {
                    match (a, b) {
                        (Slot::Probe(p), other) | (other, Slot::Probe(p)) => meet(*p, other, out),
                        _ => {}
                    }
                }
            }
        }
    }
    if pairs.is_empty() {
        // Trait errors ("a value of type `Vec<Probe<f64, 11>>` cannot be built from an iterator over
        // elements of type `Probe<f64, 10>`", "cannot add `f64` to `Probe<f64, 3>`"): the headline's
        // probes must agree; a plain float or literal counts only beside an operator.
        let s: Vec<Slot> = quoted(&d.message).into_iter().flat_map(slots).collect();
        let probes: Vec<usize> = s.iter().filter_map(|x| if let Slot::Probe(p) = x { Some(*p) } else { None }).collect();
        let distinct: BTreeSet<usize> = probes.iter().copied().filter(|p| known(p)).collect();
        if distinct.len() >= 2 {
            let first = *distinct.iter().next().unwrap_or(&0);
            for &p in distinct.iter().skip(1) {
                meet(first, &Slot::Probe(p), out);
            }
        } else if let (Some(&p), true) = (distinct.iter().next(), operator_headline(&d.message)) {
            for other in s.iter().filter(|x| matches!(x, Slot::Plain(_) | Slot::Literal)) {
                meet(p, other, out);
            }
        } else if let (Some(&p), Some(conversion)) = (distinct.iter().next(), conversion_bound(&d.message)) {
            // "the trait bound `Probe<f64, 17>: From<i32>` is not satisfied": which formats have
            // the conversion is std's choice (`f64: From<i32>`, not `f32`), so the knob keeps
            // the format it was written with.
            Couplings::pin(&mut out.pinned, p, &place, &conversion);
            explained = true;
        }
    }
    explained
}

// ----------------------------------------------------------------------------------------------
// Units
// ----------------------------------------------------------------------------------------------

struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n).collect() }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`; `false` when they were one already.
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        // The smaller index becomes the root: roots are deterministic.
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.parent[hi] = lo;
        true
    }
}

/// The units of the search: knobs merged by their `#[tune(group = "..")]` ([`Knob::group`]) and by
/// rustc's pairs (transitively), ordered by their smallest knob id.
///
/// A unit's coupling is the first reason that joined two of its knobs (groups before rustc's pairs,
/// each in order); a unit is pinned, at the place of the first pin of any of its knobs, when
/// rustc holds one of them at its declared format.
pub fn units(knobs: &[Knob], couplings: &Couplings) -> Vec<Unit> {
    let index: BTreeMap<usize, usize> = knobs.iter().enumerate().map(|(i, k)| (k.id, i)).collect();
    let mut uf = UnionFind::new(knobs.len());
    // (knob index, why) of each union that joined two sets, in order.
    let mut reasons: Vec<(usize, Coupling)> = Vec::new();
    let mut first_of_group: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, k) in knobs.iter().enumerate() {
        let Some(g) = k.group.as_deref() else { continue };
        match first_of_group.get(g) {
            None => {
                first_of_group.insert(g, i);
            }
            Some(&f) => {
                if uf.union(f, i) {
                    reasons.push((i, Coupling::Group { name: g.to_string() }));
                }
            }
        }
    }
    for p in &couplings.pairs {
        let (Some(&a), Some(&b)) = (index.get(&p.knobs.0), index.get(&p.knobs.1)) else { continue };
        if uf.union(a, b) {
            reasons.push((a, Coupling::Rustc { place: p.place.clone() }));
        }
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, k) in knobs.iter().enumerate() {
        members.entry(uf.find(i)).or_default().push(k.id);
    }
    let mut sets: Vec<(usize, Vec<usize>)> = members.into_iter().collect();
    for (_, ids) in &mut sets {
        ids.sort_unstable();
    }
    sets.sort_by_key(|(_, ids)| ids[0]);
    sets.into_iter()
        .enumerate()
        .map(|(id, (root, ids))| {
            let coupling = reasons
                .iter()
                .find(|(i, _)| uf.find(*i) == root)
                .map_or(Coupling::Alone, |(_, c)| c.clone());
            let pinned = couplings.pinned.iter().find(|p| ids.contains(&p.knob)).map(|p| {
                if p.meets.contains(": ") {
                    // A trial's bound (`T: SubsetOf<f32>`): nothing the user marks lifts it.
                    format!("at {} the bound `{}` does not hold below its declared format", p.place, p.meets)
                } else {
                    format!("at {} it meets `{}`", p.place, p.meets)
                }
            });
            Unit { id, knobs: ids, coupling, pinned, unchecked: false }
        })
        .collect()
}

/// The units that cannot go below 32 bits (one of their knobs receives a float literal where only
/// `f32`/`f64` work, or a trial at 16 bits did not build), by unit id, with what says so.
pub fn units_without_16bit<'c>(units: &[Unit], couplings: &'c Couplings) -> BTreeMap<usize, &'c Pin> {
    units.iter().filter_map(|u| couplings.no_16bit.iter().find(|p| u.knobs.contains(&p.knob)).map(|p| (u.id, p))).collect()
}

// ----------------------------------------------------------------------------------------------
// The rounds
// ----------------------------------------------------------------------------------------------

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
    /// The next round builds under the runtime's `probe-right` rule ([`Probing::right`]).
    right: bool,
    /// Whether the last round under each rule (left, right) learned nothing that changes the
    /// sources.
    settled: [bool; 2],
}

impl Probing {
    /// Rounds after which the probe settles with what it knows (each round that continues merges at
    /// least two units or pins one). rustc names one element of an array literal per build (`static
    /// ZEROS: [&[f64]; 50] = [&ZERO_1, .., &ZERO_50]`: the first element whose type differs), so a
    /// table of 50 tables takes 50 rounds; a round is a `cargo check` of the crate (about a second).
    pub const MAX_ROUNDS: usize = 64;

    /// A probe of `knobs` that has learned nothing yet.
    pub fn new(knobs: Vec<Knob>) -> Probing {
        Probing { knobs, learned: Couplings::default(), rounds: 0, right: false, settled: [false; 2] }
    }

    /// Whether the next round builds with the runtime's `probe-right` feature: arithmetic
    /// between two knobs then has the right one's probe type, not the left one's. Natively it
    /// has the wider one's format, so each rule shows couplings the other hides.
    pub fn right(&self) -> bool {
        self.right
    }

    /// The sources of the next probe build: each knob at `Probe<F, ID>`, the knobs of a unit known
    /// so far (groups, rustc's pairs) sharing one `ID`. See [`probe_sources`].
    /// A unit rustc holds at its declared format is written as that format's plain type: every
    /// candidate writes it so, and the errors it caused no longer hide others (a library target
    /// that does not compile leaves its binaries unchecked).
    pub fn sources(&self, files: &[(String, String)]) -> Result<Vec<(String, String)>, SourceError> {
        rewrite(files, &self.knobs, self.written(None))
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
        let before = (self.partition(), self.learned.pinned.len());
        self.learned.absorb(couplings(errors, &self.knobs));
        let changed = (self.partition(), self.learned.pinned.len()) != before;
        if self.rounds >= Self::MAX_ROUNDS {
            return Round::Settled;
        }
        if changed {
            self.settled = [false; 2];
            return Round::Again;
        }
        self.settled[usize::from(self.right)] = true;
        if self.settled == [true; 2] {
            Round::Settled
        } else {
            self.right = !self.right;
            Round::Again
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
        rewrite(files, &self.knobs, self.written(Some(trial)))
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
                    let meets = quoted(&e.message).first().map_or_else(|| e.message.clone(), |q| q.to_string());
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
        // Pins and merges change the sources: rounds under both rules are due again.
        self.settled = [false; 2];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LeafSpan;

    fn knob(id: usize, name: &str, group: Option<&str>) -> Knob {
        Knob {
            id,
            file: "src/main.rs".into(),
            line: 1,
            column: 1,
            name: name.into(),
            kind: KnobKind::Let,
            ty: "f64".into(),
            declared: FloatFormat::F64,
            group: group.map(str::to_string),
            scope: String::new(),
            leaves: Vec::new(),
        }
    }

    fn knobs(n: usize) -> Vec<Knob> {
        (0..n).map(|i| knob(i, &format!("k{i}"), None)).collect()
    }

    fn diag(rendered: &str, file: &str, line: usize) -> DiagnosticLike {
        let message = rendered
            .lines()
            .next()
            .and_then(|l| l.split_once(": "))
            .map_or_else(String::new, |(_, m)| m.to_string());
        DiagnosticLike { message, rendered: rendered.into(), file: Some(file.into()), line: Some(line) }
    }

    // Rendered diagnostics captured from real `cargo build --message-format=json` runs of probe
    // sources (rustc 1.95), verbatim.

    const SHARED_SLICE: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:16:14
   |
16 |         norm(&y)
   |         ---- ^^ expected `&[Probe<f64, 0>]`, found `&Vec<Probe<f64, 1>>`
   |         |
   |         arguments to this function are incorrect
   |
   = note: expected reference `&[fptune::__rt::Probe<f64, 0>]`
              found reference `&Vec<fptune::__rt::Probe<f64, 1>>`
note: function defined here
  --> src/main.rs:4:8
   |
 4 |     fn norm(#[tune] x: &[Probe<f64, 0>]) -> f64 {
   |        ^^^^         -------------------

"##;

    const PLAIN_SLICE: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:20:19
   |
20 |         plain_sum(&z)
   |         --------- ^^ expected `&[f64]`, found `&Vec<Probe<f64, 2>>`
   |         |
   |         arguments to this function are incorrect
   |
   = note: expected reference `&[f64]`
              found reference `&Vec<fptune::__rt::Probe<f64, 2>>`
note: function defined here
  --> src/main.rs:7:8
   |
 7 |     fn plain_sum(x: &[f64]) -> f64 {
   |        ^^^^^^^^^ ---------

"##;

    const PUSH_LITERAL: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:24:16
   |
24 |         w.push(1.0);
   |           ---- ^^^ expected `Probe<f64, 3>`, found floating-point number
   |           |
   |           arguments to this method are incorrect
   |
   = note: expected struct `fptune::__rt::Probe<f64, 3>`
                found type `{float}`
note: method defined here
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:991:11
help: try wrapping the expression in `fptune::__rt::Probe`
   |
24 |         w.push(fptune::__rt::Probe(1.0));
   |                ++++++++++++++++++++   +

"##;

    const INTO_LITERAL_VEC: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:28:16
   |
28 |         v.push(s);
   |           ---- ^ expected floating-point number, found `Probe<f64, 5>`
   |           |
   |           arguments to this method are incorrect
   |
   = note: expected type `{float}`
            found struct `fptune::__rt::Probe<f64, 5>`
note: method defined here
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:991:11

"##;

    const SELF_METHOD_ELIDED: &str = r##"error[E0308]: mismatched types
    --> src/main.rs:49:48
     |
  49 |         let mx = m.iter().fold(n, |a, b| a.max(*b));
     |                                            --- ^^ expected `14`, found `13`
     |                                            |
     |                                            arguments to this method are incorrect
     |
     = note: expected struct `fptune::__rt::Probe<_, 14>`
                found struct `fptune::__rt::Probe<_, 13>`
note: method defined here
    --> /work/main/stochastic/src/rt.rs:1450:20
     |
1450 |               pub fn max(self, o: Self) -> Self {
     |                      ^^^
...
1481 | / probe_math!(sqrt, cbrt, abs, exp, exp2, ln, log10, log2, sin, cos, tan, asin, acos, atan, sinh,
1482 | |     cosh, tanh, floor, ceil, trunc, round, signum, recip, to_degrees, to_radians);
     | |_________________________________________________________________________________- in this macro invocation
     = note: this error originates in the macro `probe_math` (in Nightly builds, run with -Z macro-backtrace for more info)

"##;

    const TUPLES: &str = r##"error[E0308]: mismatched types
 --> src/main.rs:8:42
  |
8 |     let w: &Vec<(f64, Probe<f64, 23>)> = v;
  |            ---------------------------   ^ expected `&Vec<(f64, Probe<f64, 23>)>`, found `&Vec<(Probe<f64, 22>, f64)>`
  |            |
  |            expected due to this
  |
  = note: expected reference `&Vec<(f64, fptune::__rt::Probe<f64, 23>)>`
             found reference `&Vec<(fptune::__rt::Probe<f64, 22>, f64)>`

"##;

    const UNTUNED_ADD_LITERAL: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:10:19
   |
10 |     let y = s.b + 1.0;
   |             ---   ^^^ expected `Probe<f64, 21>`, found floating-point number
   |             |
   |             expected because this is `fptune::__rt::Probe<f64, 21>`
   |
   = note: expected struct `fptune::__rt::Probe<f64, 21>`
                found type `{float}`
help: try wrapping the expression in `fptune::__rt::Probe`
   |
10 |     let y = s.b + fptune::__rt::Probe(1.0);
   |                   ++++++++++++++++++++   +

"##;

    const HALF_AND_DOUBLE: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:12:19
   |
12 |     let q = s.a + s.b;
   |                   ^^^ expected `Probe<f16, 20>`, found `Probe<f64, 21>`
   |
   = note: expected struct `fptune::__rt::Probe<fptune::f16, 20>`
              found struct `fptune::__rt::Probe<f64, 21>`

"##;

    const COLLECT: &str = r##"error[E0277]: a value of type `Vec<fptune::__rt::Probe<f64, 11>>` cannot be built from an iterator over elements of type `fptune::__rt::Probe<f64, 10>`
  --> src/main.rs:42:64
   |
42 |         #[tune] let c: Vec<Probe<f64, 11>> = b.iter().copied().collect();
   |                                                                ^^^^^^^ value of type `Vec<fptune::__rt::Probe<f64, 11>>` cannot be built from `std::iter::Iterator<Item=fptune::__rt::Probe<f64, 10>>`
   |
help: the trait `FromIterator<fptune::__rt::Probe<_, 10>>` is not implemented for `Vec<fptune::__rt::Probe<f64, 11>>`
      but trait `FromIterator<fptune::__rt::Probe<_, 11>>` is implemented for it
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:3862:0
note: required by a bound in `collect`
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/iter/traits/iterator.rs:2051:4

"##;

    const TRAIT_BOUND: &str = r##"error[E0277]: the trait bound `f64: From<fptune::__rt::Probe<f64, 16>>` is not satisfied
  --> src/main.rs:55:17
   |
55 |         is_into(k) + k.sqrt().0
   |         ------- ^ the trait `From<fptune::__rt::Probe<f64, 16>>` is not implemented for `f64`
   |         |
   |         required by a bound introduced by this call
   |
   = help: the following other types implement trait `From<T>`:
             `f64` implements `From<bool>`
             `f64` implements `From<f16>`
             `f64` implements `From<f32>`
           and 5 others
   = note: required for `fptune::__rt::Probe<f64, 16>` to implement `Into<f64>`
note: required by a bound in `is_into`
  --> src/main.rs:53:23
   |
53 |     pub fn is_into<T: Into<f64>>(x: T) -> f64 { x.into() }
   |                       ^^^^^^^^^ required by this bound in `is_into`

"##;

    fn pairs(c: &Couplings) -> Vec<(usize, usize)> {
        c.pairs.iter().map(|p| p.knobs).collect()
    }

    fn ids(list: &[Pin]) -> Vec<usize> {
        list.iter().map(|p| p.knob).collect()
    }

    #[test]
    fn a_slice_passed_to_another_knob_pairs_them() {
        let c = couplings(&[diag(SHARED_SLICE, "src/main.rs", 16)], &knobs(30));
        assert_eq!(pairs(&c), [(0, 1)]);
        assert_eq!(c.pairs[0].place, "src/main.rs:16");
        assert!(c.pinned.is_empty() && c.no_16bit.is_empty() && c.unexplained.is_empty());
    }

    #[test]
    fn a_knob_passed_as_a_plain_slice_is_pinned() {
        let c = couplings(&[diag(PLAIN_SLICE, "src/main.rs", 20)], &knobs(30));
        assert!(c.pairs.is_empty());
        assert_eq!(c.pinned, [Pin { knob: 2, place: "src/main.rs:20".into(), meets: "f64".into() }]);
    }

    #[test]
    fn a_literal_given_to_a_knob_either_way_bars_16_bits() {
        let c = couplings(
            &[diag(PUSH_LITERAL, "src/main.rs", 24), diag(INTO_LITERAL_VEC, "src/main.rs", 28), diag(UNTUNED_ADD_LITERAL, "src/main.rs", 10)],
            &knobs(30),
        );
        assert_eq!(ids(&c.no_16bit), [3, 5, 21]);
        assert!(c.pairs.is_empty() && c.pinned.is_empty() && c.unexplained.is_empty());
    }

    #[test]
    fn a_literal_given_to_a_const_knob_is_its_16_bit_constant() {
        let mut ks = knobs(30);
        ks[3].kind = KnobKind::Const;
        let c = couplings(&[diag(PUSH_LITERAL, "src/main.rs", 24)], &ks);
        assert!(c.no_16bit.is_empty() && c.unexplained.is_empty());
    }

    #[test]
    fn elided_formats_in_notes_still_name_the_knobs() {
        let c = couplings(&[diag(SELF_METHOD_ELIDED, "src/main.rs", 49)], &knobs(30));
        assert_eq!(pairs(&c), [(13, 14)]);
    }

    #[test]
    fn tuples_are_aligned_position_by_position() {
        let c = couplings(&[diag(TUPLES, "src/main.rs", 8)], &knobs(30));
        assert!(c.pairs.is_empty());
        assert_eq!(ids(&c.pinned), [22, 23]);
    }

    #[test]
    fn probes_of_different_formats_pair() {
        let c = couplings(&[diag(HALF_AND_DOUBLE, "src/main.rs", 12)], &knobs(30));
        assert_eq!(pairs(&c), [(20, 21)]);
    }

    #[test]
    fn a_collect_across_knobs_pairs_them() {
        let c = couplings(&[diag(COLLECT, "src/main.rs", 42)], &knobs(30));
        assert_eq!(pairs(&c), [(10, 11)]);
        assert!(c.unexplained.is_empty());
    }

    #[test]
    fn a_trait_the_probe_lacks_is_unexplained_not_pinned() {
        let c = couplings(&[diag(TRAIT_BOUND, "src/main.rs", 55)], &knobs(30));
        assert!(c.pairs.is_empty() && c.pinned.is_empty());
        assert_eq!(c.unexplained.len(), 1);
        assert_eq!(c.unexplained[0].to_string(), "src/main.rs:55: the trait bound `f64: From<fptune::__rt::Probe<f64, 16>>` is not satisfied");
    }

    #[test]
    fn an_operator_between_a_probe_and_a_plain_float_pins_it() {
        let d = DiagnosticLike {
            message: "cannot add `f64` to `Probe<f64, 4>`".into(),
            rendered: "error[E0369]: cannot add `f64` to `Probe<f64, 4>`\n".into(),
            file: Some("src/lib.rs".into()),
            line: Some(3),
        };
        let c = couplings(&[d], &knobs(5));
        assert_eq!(ids(&c.pinned), [4]);
    }

    #[test]
    fn probe_ids_that_are_not_knobs_are_ignored() {
        let c = couplings(&[diag(SHARED_SLICE, "src/main.rs", 16)], &knobs(1));
        assert!(c.pairs.is_empty());
        assert_eq!(c.unexplained.len(), 1);
    }

    #[test]
    fn slots_read_every_spelling_rustc_uses() {
        assert_eq!(
            slots("&mut Vec<(fptune::__rt::Probe<_, 9>, Probe<half::f16, 10_u32>, half::bf16, {float}, _, i32)>"),
            [Slot::Probe(9), Slot::Probe(10), Slot::Plain("bf16".into()), Slot::Literal, Slot::Hole]
        );
        assert_eq!(slots("floating-point number"), [Slot::Literal]);
        assert_eq!(slots("[Probe<f64, 3>; 4]"), [Slot::Probe(3)]);
        assert_eq!(slots("f64x2"), []);
    }

    #[test]
    fn expected_found_reads_labels_and_notes_but_not_other_sentences() {
        let pairs = expected_found(UNTUNED_ADD_LITERAL);
        assert_eq!(
            pairs,
            [
                ("Probe<f64, 21>".to_string(), "{float}".to_string()),
                ("fptune::__rt::Probe<f64, 21>".to_string(), "{float}".to_string()),
            ]
        );
        assert!(expected_found("expected due to this\nfound `x`").is_empty());
    }

    #[test]
    fn coloured_diagnostics_read_like_plain_ones() {
        let coloured = PLAIN_SLICE
            .replace("expected `", "\u{1b}[0m\u{1b}[1m\u{1b}[38;5;9mexpected `")
            .replace("found reference", "\u{1b}[1mfound\u{1b}[0m reference");
        let c = couplings(&[diag(&coloured, "src/main.rs", 20)], &knobs(30));
        assert_eq!(ids(&c.pinned), [2]);
    }

    #[test]
    fn the_place_falls_back_to_the_rendered_arrow() {
        let d = DiagnosticLike { message: "m".into(), rendered: SHARED_SLICE.into(), file: None, line: None };
        assert_eq!(d.place(), "src/main.rs:16");
    }

    #[test]
    fn cargo_diagnostics_convert_with_the_call_site_inside_the_package() {
        let json = r#"{"message":"mismatched types","code":{"code":"E0308","explanation":null},"level":"error",
            "spans":[{"file_name":"/rustc/x/library/core/src/macros/mod.rs","byte_start":0,"byte_end":1,"line_start":9,"line_end":9,
              "column_start":1,"column_end":2,"is_primary":true,"text":[],"label":null,"suggested_replacement":null,
              "suggestion_applicability":null,"expansion":{"span":{"file_name":"src/lib.rs","byte_start":0,"byte_end":1,
              "line_start":42,"line_end":42,"column_start":1,"column_end":2,"is_primary":false,"text":[],"label":null,
              "suggested_replacement":null,"suggestion_applicability":null,"expansion":null},"macro_decl_name":"m!","def_site_span":null}}],
            "children":[],"rendered":"error[E0308]: mismatched types\n"}"#;
        let d: cargo_metadata::diagnostic::Diagnostic = serde_json::from_str(json).expect("diagnostic");
        let like = DiagnosticLike::from_cargo(&d).expect("an error");
        assert_eq!(like.place(), "src/lib.rs:42");
        let warning: cargo_metadata::diagnostic::Diagnostic =
            serde_json::from_str(&json.replace(r#""level":"error""#, r#""level":"warning""#)).expect("diagnostic");
        assert_eq!(DiagnosticLike::from_cargo(&warning), None);
    }

    #[test]
    fn transitive_pairs_make_one_unit_and_order_is_by_smallest_knob() {
        let c = Couplings {
            pairs: vec![
                Pair { knobs: (3, 4), place: "a:1".into() },
                Pair { knobs: (1, 3), place: "a:2".into() },
            ],
            ..Couplings::default()
        };
        let u = units(&knobs(5), &c);
        let sets: Vec<Vec<usize>> = u.iter().map(|u| u.knobs.clone()).collect();
        assert_eq!(sets, [vec![0], vec![1, 3, 4], vec![2]]);
        assert_eq!(u.iter().map(|u| u.id).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(u[1].coupling, Coupling::Rustc { place: "a:1".into() });
        assert_eq!(u[0].coupling, Coupling::Alone);
        assert!(u.iter().all(|u| u.pinned.is_none()));
    }

    #[test]
    fn user_groups_merge_and_are_the_first_reason() {
        let mut ks = knobs(5);
        ks[0].group = Some("g".into());
        ks[4].group = Some("g".into());
        ks[2].group = Some("lonely".into());
        let c = Couplings { pairs: vec![Pair { knobs: (1, 4), place: "b:7".into() }], ..Couplings::default() };
        let u = units(&ks, &c);
        let sets: Vec<Vec<usize>> = u.iter().map(|u| u.knobs.clone()).collect();
        assert_eq!(sets, [vec![0, 1, 4], vec![2], vec![3]]);
        assert_eq!(u[0].coupling, Coupling::Group { name: "g".into() });
        assert_eq!(u[1].coupling, Coupling::Alone);
    }

    #[test]
    fn a_pinned_knob_pins_its_unit_and_literals_cap_theirs() {
        let c = Couplings {
            pairs: vec![Pair { knobs: (0, 2), place: "p:1".into() }],
            pinned: vec![Pin { knob: 2, place: "p:9".into(), meets: "f64".into() }],
            no_16bit: vec![Pin { knob: 3, place: "p:4".into(), meets: "{float}".into() }],
            unexplained: Vec::new(),
        };
        let u = units(&knobs(4), &c);
        assert_eq!(u[0].knobs, [0, 2]);
        assert_eq!(u[0].pinned.as_deref(), Some("at p:9 it meets `f64`"));
        assert_eq!(u[1].pinned, None);
        let capped = units_without_16bit(&u, &c);
        assert_eq!(capped.into_iter().map(|(u, p)| (u, p.place.clone())).collect::<Vec<_>>(), [(2, "p:4".to_string())]);
    }

    #[test]
    fn units_accept_knob_ids_that_are_not_positions() {
        let ks = vec![knob(7, "a", None), knob(3, "b", None)];
        let c = Couplings { pairs: vec![Pair { knobs: (3, 7), place: "x:1".into() }], ..Couplings::default() };
        let u = units(&ks, &c);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].knobs, [3, 7]);
    }

    fn leaf(line: usize, start: usize, end: usize) -> LeafSpan {
        LeafSpan { start: (line, start), end: (line, end) }
    }

    #[test]
    fn probe_sources_rewrite_every_leaf_to_its_knobs_probe() {
        let text = "fn f() {\n    let a: Vec<f64> = v; // keep\n    let b: (f32, f32) = p;\n    let c: fptune::f16 = q;\n}\n";
        let mut a = knob(0, "a", None);
        a.leaves = vec![leaf(2, 15, 18)];
        let mut b = knob(1, "b", None);
        b.declared = FloatFormat::F32;
        b.leaves = vec![leaf(3, 12, 15), leaf(3, 17, 20)];
        let mut c = knob(2, "c", None);
        c.declared = FloatFormat::F16;
        c.leaves = vec![leaf(4, 11, 22)];
        let files = vec![("src/main.rs".to_string(), text.to_string()), ("src/other.rs".to_string(), "x".to_string())];
        let out = probe_sources(&files, &[a.clone(), b.clone(), c.clone()]).expect("rewrites");
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].1,
            "fn f() {\n    let a: Vec<::fptune::__rt::Probe<f64, 0>> = v; // keep\n    \
             let b: (::fptune::__rt::Probe<f32, 1>, ::fptune::__rt::Probe<f32, 1>) = p;\n    \
             let c: ::fptune::__rt::Probe<::fptune::f16, 2> = q;\n}\n"
        );
        // Knobs of one unit share its smallest id; a pinned unit is written at its declared type.
        b.group = Some("g".into());
        c.group = Some("g".into());
        let mut probing = Probing::new(vec![a, b, c]);
        let merged = probing.sources(&files).expect("rewrites");
        assert!(merged[0].1.contains("Probe<::fptune::f16, 1>"));
        probing.learn(&[diag(PLAIN_SLICE, "src/main.rs", 20)]);
        let pinned = probing.sources(&files).expect("rewrites");
        assert!(pinned[0].1.contains("let a: Vec<::fptune::__rt::Probe<f64, 0>> = v;"), "{}", pinned[0].1);
        assert!(pinned[0].1.contains("let c: ::fptune::f16 = q;"), "{}", pinned[0].1);
    }

    #[test]
    fn a_stale_knob_table_is_refused_with_what_to_do() {
        let mut a = knob(0, "a", None);
        a.leaves = vec![leaf(1, 4, 7)];
        let files = vec![("src/main.rs".to_string(), "let a = 1.0;\n".to_string())];
        let e = probe_sources(&files, &[a.clone()]).expect_err("stale");
        assert!(e.to_string().contains("discover them again"), "{e}");
        a.leaves = vec![leaf(9, 0, 3)];
        assert!(matches!(probe_sources(&files, &[a.clone()]), Err(SourceError::StaleLeaf { .. })));
        a.file = "src/gone.rs".into();
        assert!(matches!(probe_sources(&files, &[a]), Err(SourceError::MissingFile { .. })));
    }

    #[test]
    fn probing_settles_once_a_round_under_each_rule_learns_nothing() {
        let mut p = Probing::new(knobs(30));
        assert!(!p.right());
        assert_eq!(p.learn(&[diag(SHARED_SLICE, "src/main.rs", 16), diag(PLAIN_SLICE, "src/main.rs", 20)]), Round::Again);
        // The next build names knob 1 by its unit's id 0; knob 2 is still pinned: nothing new
        // under the left rule, so a round under the right one.
        assert!(!p.right());
        assert_eq!(p.learn(&[diag(PLAIN_SLICE, "src/main.rs", 20)]), Round::Again);
        assert!(p.right());
        assert_eq!(p.learn(&[diag(PLAIN_SLICE, "src/main.rs", 20)]), Round::Settled);
        assert_eq!(p.rounds(), 3);
        let u = p.units();
        assert_eq!(u[0].knobs, [0, 1]);
        assert_eq!(u[1].knobs, [2]);
        assert!(u[1].pinned.is_some());
        let mut q = Probing::new(knobs(3));
        assert_eq!(q.learn(&[]), Round::Again);
        assert_eq!(q.learn(&[]), Round::Settled);
        // A merge under the right rule asks for both again.
        let mut r = Probing::new(knobs(30));
        assert_eq!(r.learn(&[]), Round::Again);
        assert_eq!(r.learn(&[diag(SHARED_SLICE, "src/main.rs", 16)]), Round::Again);
        assert!(r.right());
        assert_eq!(r.learn(&[]), Round::Again);
        assert!(!r.right());
        assert_eq!(r.learn(&[]), Round::Settled);
    }

    #[test]
    fn probing_keeps_only_the_last_builds_unexplained_errors() {
        let mut p = Probing::new(knobs(30));
        p.learn(&[diag(TRAIT_BOUND, "src/main.rs", 55), diag(SHARED_SLICE, "src/main.rs", 16)]);
        assert_eq!(p.couplings().unexplained.len(), 1);
        p.learn(&[]);
        assert!(p.couplings().unexplained.is_empty());
        assert_eq!(pairs(p.couplings()), [(0, 1)]);
    }

    const SUBSET_BOUND: &str = r##"error[E0277]: the trait bound `T: SubsetOf<fptune::__rt::Probe<f64, 4>>` is not satisfied
   --> src/tableau.rs:399:14
    |
399 |             .to_subset()
    |              ^^^^^^^^^ the trait `SubsetOf<fptune::__rt::Probe<f64, 4>>` is not implemented for `T`
    |
    = note: required for `fptune::__rt::Probe<f64, 4>` to implement `SupersetOf<T>`
"##;

    #[test]
    fn a_bound_the_probe_cannot_read_is_tried_at_32_then_16_bits() {
        let table = knob(4, "A", None);
        let mut p = Probing::new(vec![knob(0, "x", None), table]);
        // A round under each rule (left, then right) learns nothing that changes the sources.
        assert_eq!(p.learn(&[diag(SUBSET_BOUND, "src/tableau.rs", 399)]), Round::Again);
        assert!(p.right());
        assert_eq!(p.learn(&[diag(SUBSET_BOUND, "src/tableau.rs", 399)]), Round::Settled);
        assert_eq!(p.couplings().unexplained[0].probes, [4]);
        let trial = p.trial(FloatFormat::F32).expect("knob 4 is tried");
        assert_eq!(trial.units, [(vec![4], vec!["src/tableau.rs:399".to_string()])]);

        // rustc refuses `T: SubsetOf<f32>` too: the table keeps its declared format, and no
        // 16-bit trial follows.
        let mut held = p.clone();
        let at_f32 = SUBSET_BOUND.replace("fptune::__rt::Probe<f64, 4>", "f32");
        held.learn_trial(&trial, &[diag(&at_f32, "src/tableau.rs", 399)]);
        let unit = held.units().into_iter().find(|u| u.knobs == [4]).unwrap();
        assert_eq!(unit.pinned.as_deref(), Some("at src/tableau.rs:399 the bound `T: SubsetOf<f32>` does not hold below its declared format"));
        assert!(held.couplings().unexplained.is_empty());
        assert_eq!(held.trial(FloatFormat::F16), None);

        // At 32 bits it builds (the probe type lacked the bound): tried at 16 bits, where rustc
        // refuses it: never 16-bit.
        p.learn_trial(&trial, &[]);
        assert!(p.units().iter().all(|u| u.pinned.is_none()));
        let trial = p.trial(FloatFormat::F16).expect("knob 4 is tried at 16 bits");
        let at_f16 = SUBSET_BOUND.replace("fptune::__rt::Probe<f64, 4>", "fptune::f16");
        p.learn_trial(&trial, &[diag(&at_f16, "src/tableau.rs", 399)]);
        assert_eq!(units_without_16bit(&p.units(), p.couplings()).len(), 1);
        assert!(p.couplings().unexplained.is_empty());
    }

    #[test]
    fn units_a_32_bit_trial_built_together_are_lowered_together() {
        let mut p = Probing::new(vec![knob(0, "x", None), knob(4, "A", None), knob(5, "B", None)]);
        let other = SUBSET_BOUND.replace("Probe<f64, 4>", "Probe<f64, 5>").replace("399", "405");
        p.learn(&[diag(SUBSET_BOUND, "src/tableau.rs", 399), diag(&other, "src/tableau.rs", 405)]);
        let trial = p.trial(FloatFormat::F32).expect("knobs 4 and 5 are tried");
        assert_eq!(trial.units.len(), 2);
        p.learn_trial(&trial, &[]);
        let units = p.units();
        assert!(units.iter().any(|u| u.knobs == [4, 5]), "{units:?}");
        assert_eq!(p.trial(FloatFormat::F16).map(|t| t.units.len()), Some(1));
    }
}

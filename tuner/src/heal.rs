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
//!
//! Anything else is [`Stuck`]: said to the user at their line, with what to write instead.
//! [`read_errors`] is pure (errors and texts in, heals out); the loop that builds, reads and
//! builds again is the lab's.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::cargo::Diagnostic;
use crate::probe::{expected_found, strip_ansi};
use crate::splice::{self, Edit, Spliced};

/// What a heal writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Fix {
    /// `::fptune::__rt::to_stochastic(e)`.
    ToStochastic,
    /// `::fptune::__rt::to_native(e)`.
    ToNative,
    /// An unsuffixed float literal written `::fptune::__rt::lit(d, s)`: a value of the type the
    /// place expects, whatever the configuration makes it (as the literal adapts natively).
    Literal {
        /// The literal's binary64 and binary32 tokens.
        digits: String,
    },
    /// `<_ as ::fptune::__rt::Store<T>>::store(e)`: a value of run-time format (the single
    /// build's `Sdyn`, a knob) converted into `T`, the type rustc expects there.
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
            Fix::Cast { operand_end, ty } => vec![
                Edit::insert(self.start, format!("::fptune::__rt::cast::<{ty}, _>(")),
                Edit::replace(*operand_end, self.end, ")"),
            ],
        }
    }

    /// Whether the heal loses samples.
    pub fn lossy(&self) -> bool {
        self.fix == Fix::ToNative
    }
}

/// The digits of the unsuffixed float literal spanning `range` of `text` (`0.` as `0.0`).
fn float_literal_at(text: &str, range: (usize, usize)) -> Option<String> {
    let lit: syn::LitFloat = syn::parse_str(text.get(range.0..range.1)?.trim()).ok()?;
    lit.suffix().is_empty().then(|| fptune_syntax::suffixable_digits(&lit))
}

/// The float literals among the elements of the array expression (`[a, b, c]`, also in `vec![..]`)
/// that `range` is an element of: their ranges (a negative one's after its `-`).
fn array_literals(text: &str, range: (usize, usize)) -> Option<Vec<(usize, usize)>> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut open = None;
    for i in (0..range.0).rev() {
        match bytes[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'{' if depth == 0 => return None,
            b'(' | b'{' => depth -= 1,
            b'[' if depth == 0 => {
                open = Some(i);
                break;
            }
            b'[' => depth -= 1,
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    let open = open?;
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    for (i, &b) in bytes.iter().enumerate().skip(open + 1) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b'}' if depth > 0 => depth -= 1,
            b']' if depth > 0 => depth -= 1,
            b',' | b']' | b';' if depth == 0 => {
                let piece = &text[start..i];
                let lead = piece.len() - piece.trim_start().len();
                let mut a = start + lead;
                let b_end = start + piece.trim_end().len();
                if text[a..b_end].starts_with('-') {
                    a += 1 + text[a + 1..b_end].len() - text[a + 1..b_end].trim_start().len();
                }
                if a < b_end {
                    out.push((a, b_end));
                }
                if b != b',' {
                    // `[x; n]` repeats one element.
                    return out.contains(&range).then_some(out);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

fn wrap(start: usize, end: usize, open: &str) -> Vec<Edit> {
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
        let Some(span) = e.primary() else {
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

fn place_of(file: &Built<'_>, name: &str, at: Option<usize>, user: Option<&str>) -> String {
    match at.and_then(|a| file.built.original(a)) {
        Some(o) => file.place(name, o, user),
        None => {
            let (l, c) = splice::line_column(&file.built.text, at.unwrap_or(0));
            format!("{name}:{l}:{c} (in code fptune wrote)")
        }
    }
}

const ADVICE: &str = "fptune's stochastic build of the crate does not compile here, and no conversion of fptune's fixes it";

fn stuck_at(e: &Diagnostic, place: &str, advice: &str) -> Stuck {
    Stuck { place: place.to_string(), message: e.to_string(), advice: advice.to_string() }
}

fn advice_for(e: &Diagnostic) -> String {
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
fn knob_trait_bound(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("the trait bound `")?.strip_suffix("` is not satisfied")?;
    let (ty, bound) = rest.rsplit_once(": ")?;
    ty.trim_start_matches("fptune::__rt::").starts_with("Knob<").then_some(bound)
}

fn rendered(e: &Diagnostic) -> String {
    let mut text = e.rendered.clone().unwrap_or_default();
    for s in &e.spans {
        if let Some(l) = &s.label {
            text.push('\n');
            text.push_str(l);
        }
    }
    strip_ansi(&text).into_owned()
}

/// Whether two types differ only in their kind of float (`Stochastic<f64>` against `f64` or
/// `{float}`); behind references, a slice against an array or a `Vec` of the same elements
/// (which a reference coerces).
fn float_shaped(expected: &str, found: &str) -> bool {
    if expected == found {
        return false;
    }
    let (x, y) = (normalize(expected), normalize(found));
    x == y || (x.starts_with('&') && y.starts_with('&') && sliced(&x) == sliced(&y))
}

/// `[E]` or `[E; N]`: the element, and the length where there is one.
fn bracketed(t: &str) -> Option<(&str, Option<&str>)> {
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    let mut depth = 0i32;
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            ';' if depth == 0 => return Some((inner[..i].trim(), Some(inner[i + 1..].trim()))),
            _ => {}
        }
    }
    Some((inner.trim(), None))
}

/// The element of a shared slice type `&[E]`.
fn slice_element(ty: &str) -> Option<&str> {
    match bracketed(ty.strip_prefix('&')?.trim())? {
        (elem, None) => Some(elem),
        _ => None,
    }
}

/// The type a referent of type `found` (behind `&`) is stored into where `expected` is lent: the
/// expected referent, with the found one's array length or `Vec` where a slice is expected.
fn lent_as(expected: &str, found: &str) -> Option<String> {
    let x = expected.strip_prefix('&')?.trim();
    let y = found.strip_prefix('&')?.trim();
    match bracketed(x) {
        Some((elem, None)) => match bracketed(y) {
            Some((_, Some(n))) => Some(format!("[{elem}; {n}]")),
            _ => y.starts_with("Vec<").then(|| format!("Vec<{elem}>")),
        },
        _ => Some(x.to_string()),
    }
}

/// A normalized reference type with `[T; N]` and `Vec<T>` written `[T]`.
fn sliced(ty: &str) -> String {
    let t = ty.trim_start_matches("&mut").trim_start_matches('&');
    let inner = if let Some(rest) = t.strip_prefix("Vec<").and_then(|r| r.strip_suffix('>')) {
        rest.to_string()
    } else if let Some(rest) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        rest.rsplit_once(';').map_or(rest, |(e, _)| e).to_string()
    } else {
        return ty.to_string();
    };
    format!("&[{inner}]")
}

/// A type with every float kind written as `F`.
fn normalize(ty: &str) -> String {
    let mut t = ty.replace(' ', "");
    for (from, to) in [("Stochastic<f64>", "F"), ("Stochastic<f32>", "F"), ("Stochastic<f16>", "F"), ("Stochastic<bf16>", "F"), ("{float}", "F")] {
        t = t.replace(from, to);
    }
    // The single build's values of run-time format: `Sdyn`, `Ndyn`, `Knob<F, U, ..>`.
    t = replace_generic(&t, "Knob<", "F");
    for (from, to) in [("fptune::__rt::Sdyn", "F"), ("fptune::__rt::Ndyn", "F"), ("Sdyn", "F"), ("Ndyn", "F")] {
        t = t.replace(from, to);
    }
    let mut out = String::new();
    for w in split_words(&t) {
        out.push_str(match w.as_str() {
            "f64" | "f32" | "f16" | "bf16" => "F",
            other => other,
        });
    }
    out
}

/// `t` with every `Name<..>` (brackets balanced) written `to`.
fn replace_generic(t: &str, name: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(p) = rest.find(name) {
        let before = &rest[..p];
        // Any path before the name (`fptune::__rt::`) goes with it.
        let keep = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
        out.push_str(keep);
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest[p + name.len() - 1..].char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = p + name.len() - 1 + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push_str(to);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A float type as rustc prints it (`Stochastic<f64>`, `Vec<fptune::__rt::Sdyn>`), written so
/// that it names the same type anywhere: fptune's types by their full paths. `None` for a type
/// that names anything else.
fn qualified(ty: &str) -> Option<String> {
    struct Qualify(bool);
    impl syn::visit_mut::VisitMut for Qualify {
        fn visit_path_mut(&mut self, p: &mut syn::Path) {
            let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            let full = match names.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                // A primitive written so that the stochastic build does not map it.
                ["f64"] => Some("::fptune::__rt::primitive::f64"),
                ["f32"] => Some("::fptune::__rt::primitive::f32"),
                ["Vec" | "Option" | "usize"] => None,
                ["Stochastic"] => Some("::fptune::Stochastic"),
                ["Sdyn"] | ["fptune", "__rt", "Sdyn"] => Some("::fptune::__rt::Sdyn"),
                ["Ndyn"] | ["fptune", "__rt", "Ndyn"] => Some("::fptune::__rt::Ndyn"),
                ["Knob"] | ["fptune", "__rt", "Knob"] => Some("::fptune::__rt::Knob"),
                ["f16"] | ["fptune", "f16"] | ["half", "f16"] => Some("::fptune::f16"),
                ["bf16"] | ["fptune", "bf16"] | ["half", "bf16"] => Some("::fptune::bf16"),
                ["fptune", "__rt", "CONSTANT"] | ["CONSTANT"] => Some("::fptune::__rt::CONSTANT"),
                _ => {
                    self.0 = false;
                    None
                }
            };
            if let Some(full) = full {
                let args = p.segments.last().map(|s| s.arguments.clone());
                if let Ok(mut q) = syn::parse_str::<syn::Path>(full) {
                    if let (Some(last), Some(args)) = (q.segments.last_mut(), args) {
                        last.arguments = args;
                    }
                    *p = q;
                }
            }
            syn::visit_mut::visit_path_mut(self, p);
        }
    }
    let mut parsed: syn::Type = syn::parse_str(ty).ok()?;
    let mut q = Qualify(true);
    syn::visit_mut::VisitMut::visit_type_mut(&mut q, &mut parsed);
    q.0.then(|| quote::ToTokens::to_token_stream(&parsed).to_string())
}

/// A value of run-time format (the single build's): `Sdyn`, `Ndyn`, `Knob<..>`.
fn dynamic(ty: &str) -> bool {
    ty.contains("Sdyn") || ty.contains("Ndyn") || ty.contains("Knob<")
}

fn split_words(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in t.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn stochastic(ty: &str) -> bool {
    ty.contains("Stochastic<")
}

/// The heals for one error at `(a, b)` of the built file (none when no heal answers it).
fn heals_for(e: &Diagnostic, name: &str, file: &Built<'_>, (a, b): (usize, usize)) -> Vec<Heal> {
    let Some(code) = e.code.as_deref() else { return Vec::new() };
    let Some(range) = file.base_range(a, b) else { return Vec::new() };
    let text = rendered(e);
    let make = |range: (usize, usize), fix: Fix| Heal { file: name.to_string(), start: range.0, end: range.1, fix, why: e.message.clone() };
    let base = file.base;
    match code {
        // "arguments to this function are incorrect": one note per argument, each with its place.
        "E0308" if e.children.iter().any(|c| c.message.starts_with("expected `") && c.primary().is_some()) => e
            .children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.message.starts_with("expected `"))
            .filter_map(|(i, c)| {
                let span = c.primary()?;
                let (ca, cb) = (span.byte_start?, span.byte_end?);
                // "expected `0`, found `2147483648`" names only where the types differ; the note
                // after it (no place of its own) has the whole types.
                let whole = e.children.get(i + 1).filter(|n| n.primary().is_none() && n.message.trim_start().starts_with("expected "));
                let mut rendered = c.message.clone();
                if let Some(n) = whole {
                    rendered = format!("{rendered}\n= note: {}", n.message);
                }
                let note = Diagnostic { code: e.code.clone(), message: e.message.clone(), rendered: Some(rendered), spans: vec![span.clone()], ..c.clone() };
                Some(heals_for(&note, name, file, (ca, cb)))
            })
            .flatten()
            .collect(),
        "E0308" => {
            let Some((x, y)) = expected_found(&text).into_iter().find(|(x, y)| float_shaped(x, y)) else { return Vec::new() };
            if (x.starts_with('&') || y.starts_with('&')) && in_constant(base, range) {
                // A `static` or `const` initializer calls no conversion: said to the user.
                return Vec::new();
            }
            if x.starts_with('&') || y.starts_with('&') {
                // A shared reference to a primitive value lent where a stochastic one is needed:
                // the value is made stochastic and lent (a buffer lent mutably cannot be).
                // Two values of run-time format of different types (a constant knob's table
                // lent where a variable knob's slice is needed): the referent is stored into
                // the type lent, a temporary the callee reads.
                return match lent_referent(base, range) {
                    Some(inner) if stochastic(&x) && !stochastic(&y) => vec![make(inner, Fix::ToStochastic)],
                    Some(inner) if dynamic(&x) && dynamic(&y) && !x.starts_with("&mut") => {
                        match lent_as(&x, &y).as_deref().and_then(qualified) {
                            Some(ty) => vec![make(inner, Fix::Store(ty))],
                            None => Vec::new(),
                        }
                    }
                    // A buffer held by reference (`t: &&[f64]`, `TABLES[i]`) lent to a slice
                    // of another kind of float: a converted copy is lent.
                    None if !x.starts_with("&mut") && expression_at(base, range).is_some() => {
                        let Some(elem) = slice_element(&x) else { return Vec::new() };
                        let fix = if stochastic(&x) && !stochastic(&y) && !dynamic(&y) {
                            Fix::LendCopy(None)
                        } else if dynamic(&x) || dynamic(&y) {
                            match qualified(&format!("Vec<{elem}>")) {
                                Some(ty) => Fix::LendCopy(Some(ty)),
                                None => return Vec::new(),
                            }
                        } else {
                            return Vec::new();
                        };
                        vec![make(range, fix)]
                    }
                    _ => Vec::new(),
                };
            }
            // The branch that set an `if`'s or `match`'s type, where rustc names one.
            let other_branch = || {
                let other = e.spans.iter().find(|s| !s.primary && s.label.as_deref().is_some_and(|l| l.contains("expected because of this")))?;
                let (oa, ob) = other.byte_start.zip(other.byte_end)?;
                file.base_range(oa, ob).filter(|r| expression_at(base, *r).is_some())
            };
            if x.contains("Ndyn") && (y.contains("Sdyn") || stochastic(&y)) {
                // A constant knob's native value set the type, and the other branch is
                // stochastic: the constant is made stochastic, not the other branch native.
                if let (Some(other), Some(ty)) = (other_branch(), qualified(&y)) {
                    return vec![make(other, Fix::Store(ty))];
                }
            }
            if (dynamic(&x) || dynamic(&y)) && x != y {
                // A value of run-time format meets one of a known format: converted into the
                // type rustc expects. (rustc names the first token of an expression the macro
                // rewrote: the whole expression starting there is the value.)
                let range = widest_at(base, range);
                return match (expression_at(base, range), qualified(&x)) {
                    (Some(()), Some(ty)) => vec![make(range, Fix::Store(ty))],
                    _ => Vec::new(),
                };
            }
            if stochastic(&x) && !stochastic(&y) {
                if expression_at(base, range).is_none() {
                    return Vec::new();
                }
                if let Some(f) = constant_format(&x).filter(|_| in_constant(base, range)) {
                    return vec![make(range, Fix::Constant(f))];
                }
                if float_literal_at(base, range).is_some() {
                    // A literal, with its siblings when it is an element of an array (rustc
                    // gives the array the first element's type, and names only that one).
                    let literals = array_literals(base, range).unwrap_or_else(|| vec![range]);
                    return literals
                        .into_iter()
                        .filter_map(|r| float_literal_at(base, r).map(|digits| make(r, Fix::Literal { digits })))
                        .collect();
                }
                return vec![make(range, Fix::ToStochastic)];
            }
            if stochastic(&y) && !stochastic(&x) {
                // The other branch of an `if` or `match`, primitive: made stochastic instead.
                if let Some(other) = other_branch() {
                    return vec![make(other, Fix::ToStochastic)];
                }
                if expression_at(base, range).is_some() {
                    return vec![make(range, Fix::ToNative)];
                }
            }
            Vec::new()
        }
        "E0605" if stochastic(&e.message) => match cast_at(base, range) {
            Some((operand_end, ty)) => vec![make(range, Fix::Cast { operand_end, ty })],
            None => Vec::new(),
        },
        "E0277" => {
            // `the trait bound `Stochastic<f64>: Trait` is not satisfied`: a value goes to a trait
            // of another crate. At a call, the literals it is given stay primitive (a generic
            // function converting a constant, `convert(1.0)`); at a value, the value does.
            let Some(self_ty) = e.message.strip_prefix("the trait bound `").and_then(|r| r.split(':').next()) else { return Vec::new() };
            if !stochastic(self_ty) || self_ty.starts_with("fn(") {
                return Vec::new();
            }
            if let Some(path) = float_path_callee(base, range) {
                // `f64::from(t)` in generic code (`where f64: From<T>`): the conversion's result
                // is primitive, as its bound says.
                return vec![make(path, Fix::KeepPrimitive(base[path.0..path.1].to_string()))];
            }
            let in_tokens = (call_at(base, range).is_none() && in_macro_tokens(base, range)).then(|| literals_in_text(base, range));
            match call_at(base, range).or(in_tokens) {
                Some(literals) if !literals.is_empty() => literals.into_iter().map(|l| make(l, Fix::ToNative)).collect(),
                Some(_) => Vec::new(),
                None if expression_at(base, range).is_some() => vec![make(range, Fix::ToNative)],
                None => Vec::new(),
            }
        }
        "E0599" if stochastic(&e.message) => {
            if e.message.starts_with("no method named") {
                // A method only `f64` has: the receiver is made primitive.
                return receiver_of(base, range).map(|r| vec![make(r, Fix::ToNative)]).unwrap_or_default();
            }
            if e.message.starts_with("no function or associated item named") {
                // `f64::from_bits(..)`, mapped to the stochastic type, which has no such function.
                return float_path_before(base, range).map(|r| vec![make(r, Fix::KeepPrimitive(base[r.0..r.1].to_string()))]).unwrap_or_default();
            }
            Vec::new()
        }
        // `f64::consts::PI` in a macro made `Sf64::consts`: the path stays primitive.
        "E0433" if stochastic(&e.message) || e.message.contains("Sf64") || e.message.contains("Sf32") => {
            float_path_at(base, range).map(|r| vec![make(r, Fix::KeepPrimitive(base[r.0..r.1].to_string()))]).unwrap_or_default()
        }
        // `lit(d, s)` (the stochastic build leaves an elaborated literal's type to rustc) where
        // nothing gives one: its elaborated type is kept.
        "E0282" | "E0283" => {
            let Some(ident) = elaborated_literal_ident(base, range) else { return Vec::new() };
            match literal_argument_receiver(base, ident) {
                Some((receiver, open)) => vec![make((ident.0, open + 1), Fix::LiteralLike(receiver))],
                None => vec![make(ident, Fix::TypedLiteral)],
            }
        }
        "E0015" if e.message.contains("in constant functions") => {
            const_keyword_around(base, range).map(|r| vec![make(r, Fix::Unconst)]).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// The `lit` of the elaborated literal `::fptune::__rt::lit::<T>(..)` whose path `range` names
/// (rustc points at the path or at its last segment).
fn elaborated_literal_ident(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    const CALL: &str = "__rt::lit::<";
    let ident = "__rt::".len();
    let from = range.0.saturating_sub(CALL.len());
    let to = (range.1 + CALL.len()).min(text.len());
    text.get(from..to)?
        .match_indices(CALL)
        .map(|(i, _)| (from + i + ident, from + i + ident + "lit".len()))
        .find(|&(a, b)| a < range.1 && b > range.0)
}

/// The methods of the float method set taking another float (`Stochastic`'s take any
/// `impl Into<Self>`, which gives a literal argument no type): the argument is of the receiver's
/// type.
const OPERAND_METHODS: [&str; 10] = ["powf", "atan2", "hypot", "min", "max", "clamp", "mul_add", "copysign", "rem_euclid", "div_euclid"];

/// When the elaborated literal whose `lit` is at `ident` is an argument of a float method
/// ([`OPERAND_METHODS`]) whose receiver is a path or a field of one (evaluated again at no cost,
/// with no effect): the receiver's text and the offset of the literal's `(`.
fn literal_argument_receiver(text: &str, ident: (usize, usize)) -> Option<(String, usize)> {
    fn plain(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Path(p) => p.qself.is_none(),
            syn::Expr::Field(f) => plain(&f.base),
            syn::Expr::Paren(p) => plain(&p.expr),
            _ => false,
        }
    }
    let open = ident.1 + text.get(ident.1..)?.find('(')?;
    find_expr(text, ident, |e, at| match e {
        syn::Expr::MethodCall(m) if plain(&m.receiver) && OPERAND_METHODS.iter().any(|n| m.method == n) => m.args.iter().any(|a| {
            // The literal, negated (`x.copysign(-1.0)`) or in parentheses.
            let mut a = a;
            while let syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) | syn::Expr::Paren(syn::ExprParen { expr, .. }) = a {
                a = expr;
            }
            matches!(a, syn::Expr::Call(c) if at(c.func.span()).is_some_and(|(a, b)| a <= ident.0 && ident.1 <= b))
        })
        .then(|| at(m.receiver.span()).and_then(|(a, b)| text.get(a..b)).map(|r| (r.to_string(), open)))
        .flatten(),
        _ => None,
    })
}

/// `Stochastic<f64>` -> `f64` (the formats a constant can be written in).
fn constant_format(ty: &str) -> Option<String> {
    let inner = ty.strip_prefix("Stochastic<")?.strip_suffix('>')?;
    matches!(inner, "f64" | "f32").then(|| inner.to_string())
}

/// Whether `range` of `text` is inside a `const` or `static` item's value or a `const fn`.
fn in_constant(text: &str, range: (usize, usize)) -> bool {
    struct Finder<'t> {
        text: &'t str,
        range: (usize, usize),
        found: bool,
    }
    impl Finder<'_> {
        fn holds(&self, span: proc_macro2::Span) -> bool {
            let (s, e) = (span.start(), span.end());
            match (splice::offset(self.text, s.line, s.column), splice::offset(self.text, e.line, e.column)) {
                (Some(a), Some(b)) => a <= self.range.0 && self.range.1 <= b,
                _ => false,
            }
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_item_const(&mut self, i: &'ast syn::ItemConst) {
            self.found |= self.holds(i.expr.span());
            syn::visit::visit_item_const(self, i);
        }
        fn visit_item_static(&mut self, i: &'ast syn::ItemStatic) {
            self.found |= self.holds(i.expr.span());
            syn::visit::visit_item_static(self, i);
        }
        fn visit_impl_item_const(&mut self, i: &'ast syn::ImplItemConst) {
            self.found |= self.holds(i.expr.span());
            syn::visit::visit_impl_item_const(self, i);
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.found |= f.sig.constness.is_some() && self.holds(f.block.span());
            syn::visit::visit_item_fn(self, f);
        }
    }
    let Ok(file) = syn::parse_file(text) else { return false };
    let mut f = Finder { text, range, found: false };
    f.visit_file(&file);
    f.found
}

/// A span's byte range in the text being searched.
type Place<'a> = &'a dyn Fn(proc_macro2::Span) -> Option<(usize, usize)>;

/// Expressions of `text` whose span is exactly `range`, and what the caller wants of one.
fn find_expr<T>(text: &str, range: (usize, usize), pick: impl Fn(&syn::Expr, Place<'_>) -> Option<T>) -> Option<T> {
    struct Finder<'t, 'p, T> {
        text: &'t str,
        range: (usize, usize),
        pick: &'p dyn Fn(&syn::Expr, Place<'_>) -> Option<T>,
        out: Option<T>,
    }
    impl<T> Finder<'_, '_, T> {
        fn at(&self, span: proc_macro2::Span) -> Option<(usize, usize)> {
            let (s, e) = (span.start(), span.end());
            Some((splice::offset(self.text, s.line, s.column)?, splice::offset(self.text, e.line, e.column)?))
        }
    }
    impl<'ast, T> Visit<'ast> for Finder<'_, '_, T> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.out.is_some() {
                return;
            }
            let Some((a, b)) = self.at(e.span()) else { return };
            if b < self.range.0 || a > self.range.1 {
                return;
            }
            if a <= self.range.0 && self.range.1 <= b {
                let at = |s: proc_macro2::Span| self.at(s);
                if let Some(t) = (self.pick)(e, &at) {
                    self.out = Some(t);
                    return;
                }
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
            if let Ok(args) = syn::parse::Parser::parse2(parser, m.tokens.clone()) {
                for a in &args {
                    self.visit_expr(a);
                }
            }
        }
    }
    let file = syn::parse_file(text).ok()?;
    let mut f = Finder { text, range, pick: &pick, out: None };
    f.visit_file(&file);
    f.out
}

/// The outermost operation (arithmetic, a method chain, a cast, an index) that starts where
/// `range` starts and holds it: the value rustc means when it points at the first token of an
/// expression `#[fptune::tune]` rewrote (its spans are that token's).
fn widest_at(text: &str, range: (usize, usize)) -> (usize, usize) {
    struct Finder<'t> {
        text: &'t str,
        range: (usize, usize),
        best: (usize, usize),
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            let (s, t) = (e.span().start(), e.span().end());
            if let (Some(a), Some(b)) = (splice::offset(self.text, s.line, s.column), splice::offset(self.text, t.line, t.column)) {
                let operation = matches!(
                    e,
                    syn::Expr::Binary(_) | syn::Expr::MethodCall(_) | syn::Expr::Cast(_) | syn::Expr::Unary(_) | syn::Expr::Index(_) | syn::Expr::Field(_) | syn::Expr::Paren(_)
                );
                if a == self.range.0 && b >= self.range.1 && operation && b - a > self.best.1 - self.best.0 {
                    self.best = (a, b);
                }
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let Ok(file) = syn::parse_file(text) else { return range };
    let mut f = Finder { text, range, best: range };
    f.visit_file(&file);
    f.best
}

/// Whether `range` is a whole expression (not the function a call calls).
fn expression_at(text: &str, range: (usize, usize)) -> Option<()> {
    let callee = find_expr(text, range, |e, at| match e {
        syn::Expr::Call(c) if at(c.func.span()) == Some(range) => Some(()),
        _ => None,
    });
    if callee.is_some() {
        return None;
    }
    find_expr(text, range, |e, at| (at(e.span()) == Some(range)).then_some(()))
        .or_else(|| (in_macro_tokens(text, range) && balanced(&text[range.0..range.1])).then_some(()))
}

/// Whether `range` lies in the tokens of a macro (a `macro_rules!` body, an invocation's
/// arguments), which syn sees as tokens only.
fn in_macro_tokens(text: &str, range: (usize, usize)) -> bool {
    struct Finder<'t> {
        text: &'t str,
        range: (usize, usize),
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let span = m.delimiter.span().join();
            let (s, e) = (span.start(), span.end());
            if let (Some(a), Some(b)) = (splice::offset(self.text, s.line, s.column), splice::offset(self.text, e.line, e.column)) {
                self.found |= a <= self.range.0 && self.range.1 <= b;
            }
        }
    }
    let Ok(file) = syn::parse_file(text) else { return false };
    let mut f = Finder { text, range, found: false };
    f.visit_file(&file);
    f.found
}

/// Whether a text could be one expression, seen as tokens: its brackets balance, and no `,` or
/// `;` stands outside them.
fn balanced(text: &str) -> bool {
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else { return false };
    let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
    !tokens.is_empty()
        && !tokens.iter().any(|t| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' || p.as_char() == ';'))
}

/// In a macro's tokens, the receiver before `.name` (where `name` is at `range`): the longest
/// run of paths, fields, calls and bracketed groups before the dot.
fn receiver_in_tokens(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let before = &text[..range.0];
    let dot = before.trim_end().strip_suffix('.')?.len();
    let bytes = text.as_bytes();
    let mut i = dot;
    loop {
        while i > 0 && bytes[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        if i == 0 {
            break;
        }
        let c = bytes[i - 1];
        if c == b')' || c == b']' {
            let (open, close) = if c == b')' { (b'(', b')') } else { (b'[', b']') };
            let mut depth = 0;
            while i > 0 {
                i -= 1;
                if bytes[i] == close {
                    depth += 1;
                } else if bytes[i] == open {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            while i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b'$') {
                i -= 1;
            }
        } else {
            break;
        }
        // Go on through `.field`, `::path` and a call's or index's callee.
        let rest = text[..i].trim_end();
        if rest.ends_with('.') && !rest.ends_with("..") {
            i = rest.len() - 1;
        } else if rest.ends_with("::") {
            i = rest.len() - 2;
        } else if matches!(bytes.get(i), Some(b'(') | Some(b'[')) && rest.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            i = rest.len();
        } else {
            break;
        }
    }
    let start = i + (text[i..dot].len() - text[i..dot].trim_start().len());
    (start < dot).then(|| (start, text[..dot].trim_end().len()))
}

/// The operand of `&e` spanning `range`, or of `&mut e` where `e` is not a place.
fn lent_referent(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::Reference(r) if (r.mutability.is_none() || !is_place(&r.expr)) && at(e.span()) == Some(range) => at(r.expr.span()),
        _ => None,
    })
}

/// Whether an expression names a place (a variable, a field, an element, a dereference): lent
/// mutably, the lender sees what the callee writes, which a converted copy would not give back.
/// Anything else (`&mut 1.0`, `&mut vec![1.0]`) lends a temporary, which may be converted.
fn is_place(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Index(_) => true,
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)),
        syn::Expr::Paren(p) => is_place(&p.expr),
        syn::Expr::Group(g) => is_place(&g.expr),
        _ => false,
    }
}

/// The call spanning `range` (or whose callee does): the ranges of its arguments that are
/// elaborated literals.
fn call_at(text: &str, range: (usize, usize)) -> Option<Vec<(usize, usize)>> {
    find_expr(text, range, |e, at| {
        let (whole, args) = match e {
            syn::Expr::Call(c) => (at(e.span()) == Some(range) || at(c.func.span()) == Some(range), &c.args),
            syn::Expr::MethodCall(m) => (at(e.span()) == Some(range) || at(m.method.span()) == Some(range), &m.args),
            _ => return None,
        };
        whole.then(|| args.iter().filter(|a| elaborated_literal(a)).filter_map(|a| at(a.span())).collect())
    })
}

/// The elaborated literals written in `range` of `text` (in a macro's tokens).
fn literals_in_text(text: &str, range: (usize, usize)) -> Vec<(usize, usize)> {
    const LIT: &str = "::fptune::__rt::lit::<";
    let mut out = Vec::new();
    let mut from = range.0;
    while let Some(p) = text[from..range.1].find(LIT) {
        let start = from + p;
        let Some(open) = text[start..range.1].find('(').map(|o| start + o) else { break };
        let mut depth = 0;
        let mut end = None;
        for (i, c) in text[open..range.1].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        out.push((start, end));
        from = end;
    }
    out
}

/// `::fptune::__rt::lit::<T>(..)`, an elaborated literal.
fn elaborated_literal(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p)
        if p.path.segments.last().is_some_and(|s| s.ident == "lit") && p.path.segments.iter().any(|s| s.ident == "__rt")))
}

/// In `f64::name`, where `name` is at `range`: the range of `f64` (or `f32`).
fn float_path_before(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let before = text[..range.0].trim_end();
    let before = before.strip_suffix("::")?.trim_end();
    for ty in ["f64", "f32"] {
        if let Some(rest) = before.strip_suffix(ty) {
            if !rest.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                return Some((rest.len(), rest.len() + ty.len()));
            }
        }
    }
    None
}

/// The stochastic type written by fptune where `range` is (`::fptune::Sf64` in a macro, from
/// the user's `f64`): its range, when the text there is a float type path.
fn float_path_at(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let here = text.get(range.0..range.1)?;
    ["f64", "f32"].contains(&here).then_some(range)
}

/// When `range` is a call's callee written `f64::name`: the range of `f64`.
fn float_path_callee(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
                let first = &p.path.segments[0].ident;
                let here = [at(c.func.span()), at(e.span()), at(first.span())].contains(&Some(range));
                (here && (first == "f64" || first == "f32")).then(|| at(first.span())).flatten()
            }
            _ => None,
        },
        _ => None,
    })
}

/// The `const` keyword of the `const fn` holding `range`.
fn const_keyword_around(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    struct Finder<'t> {
        text: &'t str,
        range: (usize, usize),
        out: Option<(usize, usize)>,
    }
    impl Finder<'_> {
        fn at(&self, span: proc_macro2::Span) -> Option<(usize, usize)> {
            let (s, e) = (span.start(), span.end());
            Some((splice::offset(self.text, s.line, s.column)?, splice::offset(self.text, e.line, e.column)?))
        }
        fn check(&mut self, sig: &syn::Signature, block: &syn::Block) {
            if let (Some(c), Some((a, b))) = (&sig.constness, self.at(block.span())) {
                if a <= self.range.0 && self.range.1 <= b {
                    // With the space after it.
                    self.out = self.at(c.span).map(|(s, e)| (s, e + usize::from(self.text[e..].starts_with(' '))));
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.check(&f.sig, &f.block);
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.check(&f.sig, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    let file = syn::parse_file(text).ok()?;
    let mut f = Finder { text, range, out: None };
    f.visit_file(&file);
    f.out
}

/// The cast `e as T` spanning `range`: where ` as T` starts, and `T`.
fn cast_at(text: &str, range: (usize, usize)) -> Option<(usize, String)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::Cast(c) if at(e.span()) == Some(range) => {
            let (_, operand_end) = at(c.expr.span())?;
            let (ty_start, ty_end) = at(c.ty.span())?;
            Some((operand_end, text[ty_start..ty_end].to_string()))
        }
        _ => None,
    })
}

/// The receiver of the method call whose method name is at `range`.
fn receiver_of(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::MethodCall(m) if at(m.method.span()) == Some(range) => at(m.receiver.span()),
        _ => None,
    })
    .or_else(|| in_macro_tokens(text, range).then(|| receiver_in_tokens(text, range)).flatten())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splice::splice;

    #[test]
    fn an_elaborated_literal_rustc_cannot_type_is_found_by_its_path_or_its_call() {
        let text = "f(::fptune::__rt::lit::<f64>(0.5f64, 0.5f32), x)";
        let lit = text.find("lit::<").unwrap();
        assert_eq!(elaborated_literal_ident(text, (lit, lit + 3)), Some((lit, lit + 3)));
        assert_eq!(elaborated_literal_ident(text, (2, lit + 3)), Some((lit, lit + 3)));
        assert_eq!(elaborated_literal_ident(text, (2, text.len() - 4)), Some((lit, lit + 3)));
        assert_eq!(elaborated_literal_ident(text, (text.len() - 2, text.len() - 1)), None);
        let heal = Heal { file: "f".into(), start: lit, end: lit + 3, fix: Fix::TypedLiteral, why: String::new() };
        assert_eq!(splice(text, &heal.edits()).unwrap().text, "f(::fptune::__rt::typed_lit::<f64>(0.5f64, 0.5f32), x)");
    }

    #[test]
    fn a_literal_given_to_a_method_of_a_path_takes_the_receivers_type() {
        let text = "fn f() { acc += s.v.powf(::fptune::__rt::lit::<f64>(1.5f64, 1.5f32)); g(s).powf(::fptune::__rt::lit::<f64>(2.0f64, 2.0f32)); s.run(::fptune::__rt::lit::<f64>(1.0f64, 1.0f32)); }";
        let first = text.find("lit::<").unwrap();
        let (receiver, open) = literal_argument_receiver(text, (first, first + 3)).expect("a method's argument");
        assert_eq!(receiver, "s.v");
        let heal = Heal { file: "f".into(), start: first, end: open + 1, fix: Fix::LiteralLike(receiver), why: String::new() };
        let healed = splice(text, &heal.edits()).unwrap().text;
        assert!(healed.contains("s.v.powf(::fptune::__rt::lit_like(&(s.v), 1.5f64, 1.5f32))"), "{healed}");
        // A receiver that would be evaluated twice is not written again.
        let second = text.find("lit::<f64>(2.0").unwrap();
        assert_eq!(literal_argument_receiver(text, (second, second + 3)), None);
        // A method of the program's own takes what its parameter says.
        let third = text.rfind("lit::<").unwrap();
        assert_eq!(literal_argument_receiver(text, (third, third + 3)), None);
        // A negated literal, in parentheses or not.
        let text = "fn f() { a.copysign(-::fptune::__rt::lit::<f64>(1.0f64, 1.0f32)); a.max((-::fptune::__rt::lit::<f64>(0.5f64, 0.5f32))); }";
        for at in text.match_indices("lit::<").map(|(i, _)| i) {
            assert_eq!(literal_argument_receiver(text, (at, at + 3)).map(|r| r.0), Some("a".to_string()), "{at}");
        }
    }

    #[test]
    fn a_bound_of_the_crates_own_trait_on_a_knob_is_named() {
        assert_eq!(knob_trait_bound("the trait bound `fptune::__rt::Knob<f64, 0>: Real` is not satisfied"), Some("Real"));
        assert_eq!(knob_trait_bound("the trait bound `Knob<f64, { 3 | CONSTANT }>: geo::Real<f64>` is not satisfied"), Some("geo::Real<f64>"));
        assert_eq!(knob_trait_bound("the trait bound `Stochastic<f32>: From<Stochastic<f64>>` is not satisfied"), None);
        assert_eq!(knob_trait_bound("mismatched types"), None);
    }

    #[test]
    fn values_of_run_time_format_are_floats_too() {
        assert!(float_shaped("Stochastic<f64>", "fptune::__rt::Sdyn"));
        assert!(float_shaped("Vec<Stochastic<f64>>", "Vec<fptune::__rt::Knob<f64, 3>>"));
        assert!(float_shaped("f64", "Knob<f64, { 4 | ::fptune::__rt::CONSTANT }, Ndyn>"));
        assert!(dynamic("Sdyn") && !dynamic("Stochastic<f64>"));
        assert_eq!(qualified("Stochastic<f64>").as_deref(), Some(":: fptune :: Stochastic < :: fptune :: __rt :: primitive :: f64 >"));
        assert_eq!(
            qualified("Vec<fptune::__rt::Knob<f64, 3>>").as_deref(),
            Some("Vec < :: fptune :: __rt :: Knob < :: fptune :: __rt :: primitive :: f64 , 3 > >")
        );
        assert_eq!(qualified("V3"), None);
    }

    #[test]
    fn a_lent_table_is_stored_into_the_type_lent_with_its_own_length() {
        let slice = "&[fptune::__rt::Knob<f64, 0>]";
        assert_eq!(lent_as(slice, "&[Knob<f64, {0 | CONSTANT}, Ndyn>; 4]").as_deref(), Some("[fptune::__rt::Knob<f64, 0>; 4]"));
        assert_eq!(lent_as(slice, "&Vec<Knob<f64, 1>>").as_deref(), Some("Vec<fptune::__rt::Knob<f64, 0>>"));
        assert_eq!(lent_as("&[Knob<f64, 0>; 2]", "&[Knob<f64, 1>; 2]").as_deref(), Some("[Knob<f64, 0>; 2]"));
        assert_eq!(lent_as("&Knob<f64, 0>", "&Knob<f64, 1>").as_deref(), Some("Knob<f64, 0>"));
        assert_eq!(lent_as(slice, "&Foo"), None);
        assert_eq!(slice_element("&[Stochastic<f64>]"), Some("Stochastic<f64>"));
        assert_eq!(slice_element("&[f64; 2]"), None);
        let text = "weigh(t, x)";
        let heal = Heal { file: "f".into(), start: 6, end: 7, fix: Fix::LendCopy(None), why: String::new() };
        assert_eq!(splice(text, &heal.edits()).unwrap().text, "weigh(&::fptune::__rt::to_stochastic(&(t)[..]), x)");
    }

    #[test]
    fn float_kinds_are_told_apart_from_other_types() {
        assert!(float_shaped("Stochastic<f64>", "f64"));
        assert!(float_shaped("Vec<Stochastic<f32>>", "Vec<f32>"));
        assert!(float_shaped("Stochastic<f64>", "{float}"));
        assert!(!float_shaped("Stochastic<f64>", "usize"));
        assert!(!float_shaped("V3", "f64"));
        assert!(!float_shaped("f64", "f64"));
    }

    #[test]
    fn casts_and_receivers_are_found_by_their_places() {
        let text = "fn f(t: f64) -> i64 { let y = (t * 2.0) as i64; t.foo(3) + y }\n";
        let start = text.find("(t * 2.0) as i64").expect("cast");
        let (end_operand, ty) = cast_at(text, (start, start + "(t * 2.0) as i64".len())).expect("found");
        assert_eq!(&text[start..end_operand], "(t * 2.0)");
        assert_eq!(ty, "i64");
        let m = text.find("foo").expect("method");
        let r = receiver_of(text, (m, m + 3)).expect("receiver");
        assert_eq!(&text[r.0..r.1], "t");
        let heal = Heal { file: "f".into(), start, end: start + 16, fix: Fix::Cast { operand_end: end_operand, ty }, why: String::new() };
        let out = splice(text, &heal.edits()).expect("edits");
        assert!(out.text.contains("let y = ::fptune::__rt::cast::<i64, _>((t * 2.0));"), "{}", out.text);
    }

    #[test]
    fn in_a_macros_tokens_receivers_and_literals_are_found_by_text() {
        let text = "macro_rules! m { ($x:expr) => { (a.b(c)[1]).to_bits() + nu.to_bits() + f(::fptune::__rt::lit::<f64>(1e-5f64, 1e-5f32)) }; }\n";
        let m = text.find("to_bits").expect("first");
        let r = receiver_of(text, (m, m + 7)).expect("receiver");
        assert_eq!(&text[r.0..r.1], "(a.b(c)[1])");
        let n = text.rfind("to_bits").expect("second");
        let r = receiver_of(text, (n, n + 7)).expect("receiver");
        assert_eq!(&text[r.0..r.1], "nu");
        let call = text.find("f(::").expect("call");
        let lits = literals_in_text(text, (call, text.rfind(')').expect("end")));
        assert_eq!(lits.len(), 1);
        assert_eq!(&text[lits[0].0..lits[0].1], "::fptune::__rt::lit::<f64>(1e-5f64, 1e-5f32)");
        assert!(balanced("(a, b)") && !balanced("a, b") && !balanced("a; b"));
    }

    #[test]
    fn the_value_a_first_token_stands_for_is_the_operation_it_starts() {
        let text = "fn f() { let v = S { imag: r46 * *x, re: a }; g(zeta - z); }\n";
        let at = |needle: &str| {
            let a = text.find(needle).expect("needle");
            (a, a + needle.len())
        };
        let r = widest_at(text, at("r46"));
        assert_eq!(&text[r.0..r.1], "r46 * *x");
        let z = widest_at(text, at("zeta"));
        assert_eq!(&text[z.0..z.1], "zeta - z");
        let a = widest_at(text, at("a }"));
        assert_eq!(&text[a.0..a.1], "a }");
    }

    #[test]
    fn constants_are_told_from_code() {
        let text = "const C: S = S { a: 1.5 };\nfn f() -> f64 { 1.5 }\n";
        let first = text.find("1.5").expect("a");
        assert!(in_constant(text, (first, first + 3)));
        let second = text.rfind("1.5").expect("b");
        assert!(!in_constant(text, (second, second + 3)));
    }
}

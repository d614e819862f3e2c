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
    /// `::fptune::Stochastic::<F>::constant(e)` (in a `const` or `static`).
    Constant(String),
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
            Fix::Constant(f) => wrap(self.start, self.end, &format!("::fptune::Stochastic::<{f}>::constant(")),
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
        let heal = match (span.byte_start, span.byte_end) {
            (Some(a), Some(b)) => heal_for(e, &span.file, file, (a, b)),
            _ => None,
        };
        match heal {
            Some(h) if !written.contains(&h) && !reading.heals.contains(&h) => reading.heals.push(h),
            Some(_) => reading.stuck.push(stuck_at(e, &place_of(file, &span.file, span.byte_start, user), "(fptune's conversion here did not compile)")),
            None => reading.stuck.push(stuck_at(e, &place_of(file, &span.file, span.byte_start, user), &advice_for(e))),
        }
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
    match e.code.as_deref() {
        Some("E0282" | "E0283") => "rustc cannot infer a type here in fptune's stochastic build: write the type (`let x: f64 = ..`, `.sum::<f64>()`)".into(),
        _ => ADVICE.into(),
    }
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
/// `{float}`), reference against reference.
fn float_shaped(expected: &str, found: &str) -> bool {
    normalize(expected) == normalize(found) && expected != found
}

/// A type with every float kind written as `F`.
fn normalize(ty: &str) -> String {
    let mut t = ty.replace(' ', "");
    for (from, to) in [("Stochastic<f64>", "F"), ("Stochastic<f32>", "F"), ("Stochastic<f16>", "F"), ("Stochastic<bf16>", "F"), ("{float}", "F")] {
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

/// The heal for one error at `(a, b)` of the built file, if there is one.
fn heal_for(e: &Diagnostic, name: &str, file: &Built<'_>, (a, b): (usize, usize)) -> Option<Heal> {
    let code = e.code.as_deref()?;
    let text = rendered(e);
    let why = e.message.clone();
    let make = |range: (usize, usize), fix: Fix| Heal { file: name.to_string(), start: range.0, end: range.1, fix, why: why.clone() };
    match code {
        "E0308" => {
            let (x, y) = expected_found(&text).into_iter().next()?;
            if !float_shaped(&x, &y) || x.starts_with('&') || y.starts_with('&') {
                return None;
            }
            let range = file.base_range(a, b)?;
            if stochastic(&x) && !stochastic(&y) {
                return Some(match constant_format(&x).filter(|_| in_constant(file.base, range)) {
                    Some(f) => make(range, Fix::Constant(f)),
                    None => make(range, Fix::ToStochastic),
                });
            }
            if stochastic(&y) && !stochastic(&x) {
                // The other branch of an `if` or `match`, primitive: made stochastic instead.
                let other = e.spans.iter().find(|s| !s.primary && s.label.as_deref().is_some_and(|l| l.contains("expected because of this")));
                if let Some(other) = other {
                    if let (Some(oa), Some(ob)) = (other.byte_start, other.byte_end) {
                        if let Some(range) = file.base_range(oa, ob) {
                            return Some(make(range, Fix::ToStochastic));
                        }
                    }
                }
                return Some(make(range, Fix::ToNative));
            }
            None
        }
        "E0605" => {
            if !stochastic(&e.message) {
                return None;
            }
            let range = file.base_range(a, b)?;
            let (operand_end, ty) = cast_at(file.base, range)?;
            Some(make(range, Fix::Cast { operand_end, ty }))
        }
        "E0277" => {
            // `the trait bound `Stochastic<f64>: Trait` is not satisfied`: the value at the place
            // goes to a trait of another crate.
            let self_ty = e.message.strip_prefix("the trait bound `").and_then(|r| r.split(':').next())?;
            if !stochastic(self_ty) || self_ty.starts_with('&') && !self_ty.starts_with("&Stochastic") {
                return None;
            }
            let range = file.base_range(a, b)?;
            expression_at(file.base, range)?;
            Some(make(range, Fix::ToNative))
        }
        "E0599" => {
            // `no method named `m` found for struct `Stochastic<f64>``: the receiver is made
            // primitive for a method only `f64` has.
            if !(e.message.starts_with("no method named") && stochastic(&e.message)) {
                return None;
            }
            let range = file.base_range(a, b)?;
            let receiver = receiver_of(file.base, range)?;
            Some(make(receiver, Fix::ToNative))
        }
        _ => None,
    }
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

/// Expressions of `text` whose span is exactly `range`, and what the caller wants of one.
fn find_expr<T>(text: &str, range: (usize, usize), pick: impl Fn(&syn::Expr, &dyn Fn(proc_macro2::Span) -> Option<(usize, usize)>) -> Option<T>) -> Option<T> {
    struct Finder<'t, 'p, T> {
        text: &'t str,
        range: (usize, usize),
        pick: &'p dyn Fn(&syn::Expr, &dyn Fn(proc_macro2::Span) -> Option<(usize, usize)>) -> Option<T>,
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
            if (a, b) == self.range || matches!(e, syn::Expr::MethodCall(_)) {
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

fn expression_at(text: &str, range: (usize, usize)) -> Option<()> {
    find_expr(text, range, |e, at| (at(e.span()) == Some(range)).then_some(()))
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splice::splice;

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
    fn constants_are_told_from_code() {
        let text = "const C: S = S { a: 1.5 };\nfn f() -> f64 { 1.5 }\n";
        let first = text.find("1.5").expect("a");
        assert!(in_constant(text, (first, first + 3)));
        let second = text.rfind("1.5").expect("b");
        assert!(!in_constant(text, (second, second + 3)));
    }
}

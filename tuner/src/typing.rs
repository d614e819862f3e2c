//! rustc's own types for a crate's float literals and untyped bindings, read from its lints.
//!
//! The conversion of a crate follows the types rustc infers, not the shapes of its syntax. rustc
//! has no stable way to print the type of an expression, but two of its lints print types after
//! inference is complete (after the `{float}` fallback to `f64`, with every closure and generic
//! call resolved), so a *typing build* (`cargo check` of a copy of the crate) asks them:
//!
//! | query | written into the copy | rustc answers |
//! |---|---|---|
//! | an unsuffixed float literal | the literal replaced by `1e999` | `overflowing_literals`: literal out of range for `f32` |
//! | a `let` without a type, a closure parameter without one | `{ const fn q<T: ?Sized>(x: &T) -> &T { x } q(&x); }` after the `let`, at the closure body's start | `unused_results`: unused result of type `&Vec<f64>` |
//!
//! Both are *lints*, which run on the fully typed program: a type error would tell the type at
//! the moment of the error (`{float}`), and would change what rustc infers after it. `1e999` is
//! out of range for every float type, and a literal is a literal: inference is the original's.
//! The copy's crate roots get `#![warn(overflowing_literals, unused_results)]`, and every lint
//! attribute of the crate is blanked, so neither the user's `allow`s nor a `deny(warnings)` hide
//! the answers (an answer turned into an error is still read). The build shares the native check
//! builds' options and target directory; only where the user's flags still stop it (a lint
//! forbidden on the command line) does it run again with `--cap-lints warn`, apart. fptune's markers are blanked too:
//! the typing build is the plain program at its declared types.
//!
//! [`typing_sources`] writes the copy and its queries (pure); [`read_answers`] matches rustc's
//! diagnostics to them. A query without an answer (code `cfg`'d out, a literal inside a macro
//! that drops it) is simply unknown; a site asked twice with two answers (a literal in a
//! `macro_rules!` body expanded at two types) is [`Observed::Mixed`].

use std::collections::BTreeMap;

use std::path::Path;

use anyhow::Result;
use proc_macro2::{TokenStream, TokenTree};
use serde::{Deserialize, Serialize};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::cargo::{self, BuildOptions, Diagnostic};
use crate::scratch::Scratch;
use crate::splice::{self, splice, Edit};

/// The function a binding's query calls (declared in the query itself, so it is found in any
/// edition and in `no_std` crates).
const Q: &str = "__fptune_type_of";

/// The crate-level attribute that makes the two lints answer.
pub const LINTS: &str = "#![warn(overflowing_literals, unused_results)]\n";

/// A place in a source: a file (relative to the package root) and a byte range of its original
/// text (a literal, or a binding's identifier).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Site {
    /// The file.
    pub file: String,
    /// First byte.
    pub start: usize,
    /// Byte past the end.
    pub end: usize,
}

/// What is asked about a site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum QueryKind {
    /// An unsuffixed float literal: its type.
    Literal,
    /// A binding of a `let` or a closure parameter written without a type: its type.
    Binding {
        /// The binding's name.
        name: String,
        /// A closure parameter (else a `let`).
        closure: bool,
    },
}

/// One query of a typing build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// Where it asks.
    pub site: Site,
    /// What.
    pub kind: QueryKind,
    /// The range of the query's text in the typing copy of the file.
    placed: (usize, usize),
}

/// What rustc answered about a site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observed {
    /// One type, as rustc prints it (`f64`, `Vec<f32>`, `[f64; 3]`).
    Type(String),
    /// Several (a site in a macro body expanded at several types).
    Mixed(Vec<String>),
}

impl Observed {
    /// The type, when rustc gave one.
    pub fn single(&self) -> Option<&str> {
        match self {
            Observed::Type(t) => Some(t),
            Observed::Mixed(_) => None,
        }
    }
}

/// The typing copy of a crate: the files to write and the queries in them.
#[derive(Clone, Debug, Default)]
pub struct TypingSources {
    /// `(relative path, text)` of every file that differs from the original.
    pub files: Vec<(String, String)>,
    /// Every query, by file.
    pub queries: BTreeMap<String, Vec<Query>>,
}

/// What a typing build answered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Typing {
    /// The type of every unsuffixed float literal rustc answered for.
    pub literals: BTreeMap<Site, Observed>,
    /// The type of every untyped binding rustc answered for (by the identifier's site).
    pub bindings: BTreeMap<Site, (String, Observed)>,
    /// How many queries were asked, and how many got no answer.
    pub asked: usize,
    /// Queries without an answer.
    pub unanswered: usize,
    /// Where the names in the bindings' types live ([`crate::naming`]).
    #[serde(default)]
    pub names: crate::naming::Names,
}

impl Typing {
    /// The float type of the literal at `site`, when rustc gave it one.
    pub fn literal(&self, file: &str, start: usize, end: usize) -> Option<&str> {
        self.literals.get(&Site { file: file.to_string(), start, end }).and_then(Observed::single)
    }

    /// The type of the binding whose identifier is at `site`.
    pub fn binding(&self, file: &str, start: usize, end: usize) -> Option<&str> {
        self.bindings.get(&Site { file: file.to_string(), start, end }).and_then(|(_, o)| o.single())
    }

    /// The type of the binding at `site` as it can be written in its file: as rustc printed it,
    /// or with the paths of its names ([`crate::naming::write_type`]).
    pub fn written_binding(&self, file: &str, start: usize, end: usize) -> Option<String> {
        let ty = self.binding(file, start, end)?;
        if crate::elaborate::writable(ty) {
            return Some(ty.to_string());
        }
        crate::naming::write_type(ty, file, &self.names)
    }

    /// What the foreign alias `name` (`Complex64`, as written in `file`) stands for, written
    /// in full with paths (`::num_complex::Complex<f64>`), when it holds a float and can be
    /// written whole (no argument left to inference: it may stand in a signature).
    pub fn written_alias(&self, file: &str, name: &str) -> Option<String> {
        let printed = self.names.aliases.get(file)?.get(name)?;
        if !crate::elaborate::holds_float(printed) {
            return None;
        }
        let written = if crate::elaborate::writable(printed) {
            printed.clone()
        } else {
            crate::naming::write_type(printed, file, &self.names)?
        };
        let inferred = written.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|t| t == "_");
        (!inferred).then_some(written)
    }

    /// The generic type a foreign alias of a float type stands for, without its arguments
    /// (`Complex64` -> `::num_complex::Complex`), when every argument is a float: what an
    /// expression path through the alias (`Complex64::new(..)`) is written as, the float left to
    /// inference from the arguments and the place, as the alias fixed it natively.
    pub fn alias_head(&self, file: &str, name: &str) -> Option<String> {
        let printed = self.names.aliases.get(file)?.get(name)?;
        let syn::Type::Path(p) = syn::parse_str::<syn::Type>(printed).ok()? else { return None };
        let last = p.path.segments.last()?;
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
        let floats = args.args.iter().all(|a| {
            matches!(a, syn::GenericArgument::Type(syn::Type::Path(t)) if t.path.is_ident("f64") || t.path.is_ident("f32"))
        });
        if !floats || p.qself.is_some() {
            return None;
        }
        let key: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.names.path(file, &key.join("::")).map(str::to_string)
    }

    /// The names in the bindings' types that are not in scope everywhere.
    pub fn unresolved_names(&self) -> std::collections::BTreeSet<String> {
        self.bindings
            .values()
            .filter_map(|(_, o)| o.single())
            .filter(|ty| !crate::elaborate::writable(ty) && crate::elaborate::holds_float(ty))
            .flat_map(crate::naming::unresolved)
            .collect()
    }
}

/// The typing copy of `sources` (relative path, text): `roots` are the crate root files (`src/main.rs`,
/// `src/lib.rs`, ...), which get [`LINTS`]. Files that do not parse are left as they are.
pub fn typing_sources(sources: &[(String, String)], roots: &[String]) -> TypingSources {
    let mut out = TypingSources::default();
    for (rel, text) in sources {
        let Ok(file) = syn::parse_file(text) else { continue };
        let mut finder = Finder { text, edits: Vec::new(), queries: Vec::new(), deferred: Vec::new() };
        finder.visit_file(&file);
        if let Ok(tokens) = text.parse::<TokenStream>() {
            finder.literals(tokens);
        }
        if roots.iter().any(|r| r == rel) {
            let at = if text.starts_with('\u{feff}') { 3 } else { 0 };
            finder.edits.push(Edit::insert(at, LINTS));
        }
        if finder.edits.is_empty() {
            continue;
        }
        let Ok(spliced) = splice(text, &finder.edits) else { continue };
        let queries = finder
            .queries
            .into_iter()
            .map(|(edit, site, kind)| {
                let placed = spliced.placed[edit];
                Query { site: Site { file: rel.clone(), start: site.0, end: site.1 }, kind, placed }
            })
            .collect();
        out.queries.insert(rel.clone(), queries);
        out.files.push((rel.clone(), spliced.text));
    }
    out
}

/// Matches a typing build's diagnostics (warnings included) to `sources`' queries.
pub fn read_answers(sources: &TypingSources, diagnostics: &[Diagnostic]) -> Typing {
    let mut answers: BTreeMap<(String, usize), Vec<String>> = BTreeMap::new();
    for d in diagnostics {
        let Some(code) = d.code.as_deref() else { continue };
        let ty = match code {
            "overflowing_literals" => d.message.strip_prefix("literal out of range for `").and_then(|r| r.strip_suffix('`')),
            "unused_results" => d
                .message
                .strip_prefix("unused result of type `")
                .and_then(|r| r.strip_suffix('`'))
                .map(|t| t.strip_prefix('&').unwrap_or(t)),
            _ => None,
        };
        let Some(ty) = ty else { continue };
        let Some(span) = d.primary() else { continue };
        let Some(queries) = sources.queries.get(&span.file) else { continue };
        let (Some(a), Some(b)) = (span.byte_start, span.byte_end) else { continue };
        if let Some(i) = queries.iter().position(|q| q.placed.0 <= a && b <= q.placed.1) {
            let ty = ty.trim().to_string();
            let seen = answers.entry((span.file.clone(), i)).or_default();
            if !seen.contains(&ty) {
                seen.push(ty);
            }
        }
    }
    let mut typing = Typing::default();
    for (file, queries) in &sources.queries {
        for (i, q) in queries.iter().enumerate() {
            typing.asked += 1;
            let Some(mut types) = answers.remove(&(file.clone(), i)) else {
                typing.unanswered += 1;
                continue;
            };
            let observed = if types.len() == 1 { Observed::Type(types.remove(0)) } else { Observed::Mixed(types) };
            match &q.kind {
                QueryKind::Literal => {
                    typing.literals.insert(q.site.clone(), observed);
                }
                QueryKind::Binding { name, .. } => {
                    typing.bindings.insert(q.site.clone(), (name.clone(), observed));
                }
            }
        }
    }
    typing
}

/// Collects a file's edits and queries.
struct Finder<'t> {
    text: &'t str,
    edits: Vec<Edit>,
    /// (index of the edit holding the query, original range of the site, kind).
    queries: Vec<(usize, (usize, usize), QueryKind)>,
    /// `let x;` bindings not assigned yet, in the order met: name and identifier range.
    deferred: Vec<(String, (usize, usize))>,
}

impl Finder<'_> {
    fn range(&self, span: proc_macro2::Span) -> Option<(usize, usize)> {
        let (s, e) = (span.start(), span.end());
        Some((splice::offset(self.text, s.line, s.column)?, splice::offset(self.text, e.line, e.column)?))
    }

    /// Every unsuffixed float literal token of the file, in code and in macro arguments alike;
    /// not a tuple index (`t.0.1` is lexed with a float `0.1`).
    fn literals(&mut self, tokens: TokenStream) {
        let mut after_dot = false;
        for tt in tokens {
            match tt {
                TokenTree::Group(g) => {
                    self.literals(g.stream());
                    after_dot = false;
                }
                TokenTree::Punct(p) => after_dot = p.as_char() == '.',
                TokenTree::Ident(_) => after_dot = false,
                TokenTree::Literal(lit) => {
                    let float = matches!(syn::Lit::new(lit.clone()), syn::Lit::Float(f) if f.suffix().is_empty());
                    if float && !after_dot {
                        if let Some(range) = self.range(lit.span()) {
                            self.edits.push(Edit::replace(range.0, range.1, "1e999"));
                            self.queries.push((self.edits.len() - 1, range, QueryKind::Literal));
                        }
                    }
                    after_dot = false;
                }
            }
        }
    }

    /// A query (`q(&name);`) for each binding of `pat` written without a type,
    /// inserted at `at`.
    fn ask_bindings(&mut self, pat: &syn::Pat, at: usize, closure: bool) {
        let mut names = Vec::new();
        untyped_bindings(pat, &mut names);
        for ident in names {
            let Some(range) = self.range(ident.span()) else { continue };
            self.edits.push(Edit::insert(at, format!(" {{ const fn {Q}<T: ?Sized>(x: &T) -> &T {{ x }} {Q}(&{ident}); }}")));
            self.queries.push((self.edits.len() - 1, range, QueryKind::Binding { name: ident.to_string(), closure }));
        }
    }

    fn blank(&mut self, span: proc_macro2::Span) {
        if let Some((a, b)) = self.range(span) {
            let blank: String = self.text[a..b].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
            self.edits.push(Edit::replace(a, b, blank));
        }
    }
}

/// The identifiers a pattern binds without a written type (inside a `x: T` pattern, none).
fn untyped_bindings(pat: &syn::Pat, out: &mut Vec<syn::Ident>) {
    match pat {
        syn::Pat::Ident(p) => {
            if let Some((_, sub)) = &p.subpat {
                untyped_bindings(sub, out);
            }
            out.push(p.ident.clone());
        }
        syn::Pat::Type(_) => {}
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| untyped_bindings(p, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| untyped_bindings(p, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| untyped_bindings(&f.pat, out)),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| untyped_bindings(p, out)),
        syn::Pat::Reference(r) => untyped_bindings(&r.pat, out),
        syn::Pat::Paren(p) => untyped_bindings(&p.pat, out),
        syn::Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                untyped_bindings(first, out);
            }
        }
        _ => {}
    }
}

/// Attributes the typing build does without: fptune's markers, and lint levels.
fn blanked(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    let last = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    let fptune = path.segments.len() == 2 && path.segments[0].ident == "fptune";
    (path.segments.len() == 1 && matches!(last.as_str(), "tune" | "allow" | "warn" | "deny" | "forbid" | "expect"))
        || (fptune && matches!(last.as_str(), "tune" | "__convert"))
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if blanked(attr) {
            self.blank(attr.span());
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        syn::visit::visit_local(self, local);
        if local.init.is_none() {
            // `let x;`: a borrow before its assignment would not compile; asked after the first
            // statement that assigns it (`visit_block`).
            if let syn::Pat::Ident(p) = &local.pat {
                if let Some(range) = self.range(p.ident.span()) {
                    self.deferred.push((p.ident.to_string(), range));
                }
            }
            return;
        }
        if let Some((_, end)) = self.range(local.semi_token.span) {
            self.ask_bindings(&local.pat, end, false);
        }
    }

    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        syn::visit::visit_stmt(self, stmt);
        // `x = value;`, the first assignment of a `let x;` above: the query follows it.
        let syn::Stmt::Expr(syn::Expr::Assign(a), Some(semi)) = stmt else { return };
        let syn::Expr::Path(p) = &*a.left else { return };
        let Some(name) = p.path.get_ident().map(ToString::to_string) else { return };
        let Some(i) = self.deferred.iter().rposition(|(n, _)| *n == name) else { return };
        let (_, range) = self.deferred.remove(i);
        if let Some((_, end)) = self.range(semi.span) {
            self.edits.push(Edit::insert(end, format!(" {{ const fn {Q}<T: ?Sized>(x: &T) -> &T {{ x }} {Q}(&{name}); }}")));
            self.queries.push((self.edits.len() - 1, range, QueryKind::Binding { name, closure: false }));
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let untyped: Vec<&syn::Pat> = c.inputs.iter().filter(|p| !matches!(p, syn::Pat::Type(_))).collect();
        if !untyped.is_empty() {
            match &*c.body {
                syn::Expr::Block(b) if b.label.is_none() => {
                    if let Some((_, open)) = self.range(b.block.brace_token.span.open()) {
                        for p in untyped {
                            self.ask_bindings(p, open, true);
                        }
                    }
                }
                body => {
                    if let Some((start, end)) = self.range(body.span()) {
                        self.edits.push(Edit::insert(start, "{"));
                        for p in untyped {
                            self.ask_bindings(p, start, true);
                        }
                        // In parentheses: a body starting with `if` or `match` would end the
                        // block's statement there (`|i| if c { 4.0 } else { 2.0 } * f(i)`).
                        self.edits.push(Edit::insert(start, " ("));
                        self.edits.push(Edit::insert(end, ") }"));
                    }
                }
            }
        }
        syn::visit::visit_expr_closure(self, c);
    }
}

/// What a typing build gave: the answers, and the first error that is not an answer (the copy
/// did not type-check, so the lints did not run where it is).
#[derive(Clone, Debug, Default)]
pub struct TypingBuild {
    /// The answers.
    pub typing: Typing,
    /// The first error that is not a lint's answer.
    pub error: Option<Diagnostic>,
    /// How long `cargo check` took (the last one, where there were two).
    pub seconds: f64,
    /// Whether the answers came from the second build, with `--cap-lints warn`.
    pub capped: bool,
}

/// Runs a typing build of `sources` in `scratch` and puts the copy's sources back.
///
/// `opts` are the options of the native `cargo check` builds that follow (their target directory,
/// profile and flags), so the dependencies checked here serve them too. Where that build stops
/// at an error that is not an answer (the user's flags forbid a lint the copy asks to warn, say
/// `-F unused-results`), it runs again with `--cap-lints warn` in the target directory `apart`
/// (a flag the other builds do not have, so it gets a directory of its own), logged beside `log`
/// as `.capped.log`.
pub fn typing_build(scratch: &Scratch, sources: &[(String, String)], roots: &[String], opts: BuildOptions, apart: &Path, log: &Path) -> Result<TypingBuild> {
    let copy = typing_sources(sources, roots);
    scratch.apply_sources(&copy.files)?;
    let mut opts = opts;
    opts.check = true;
    let first = checked(&copy, &opts, log, false);
    let built = match first {
        Ok(b) if b.error.is_some() => {
            opts.target_dir = Some(apart.to_path_buf());
            opts.add_rustflags(&["--cap-lints", "warn"]);
            checked(&copy, &opts, &log.with_extension("capped.log"), true)
        }
        other => other,
    };
    scratch.restore_all()?;
    built
}

/// One `cargo check` of the typing copy (already written), read.
fn checked(copy: &TypingSources, opts: &BuildOptions, log: &Path, capped: bool) -> Result<TypingBuild> {
    let built = cargo::build(opts, log)?;
    let diagnostics: Vec<Diagnostic> = built.errors.iter().chain(&built.lints).cloned().collect();
    let error = built.errors.iter().find(|e| !ANSWERS.contains(&e.code.as_deref().unwrap_or_default())).cloned();
    let error = error.or_else(|| {
        (!built.success && built.errors.is_empty()).then(|| Diagnostic {
            level: "error".into(),
            message: built.first_error(),
            code: None,
            rendered: None,
            spans: Vec::new(),
            children: Vec::new(),
        })
    });
    Ok(TypingBuild { typing: read_answers(copy, &diagnostics), error, seconds: built.elapsed.as_secs_f64(), capped })
}

/// The lints whose diagnostics are answers.
const ANSWERS: [&str; 2] = ["overflowing_literals", "unused_results"];

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(text: &str) -> TypingSources {
        typing_sources(&[("src/main.rs".to_string(), text.to_string())], &["src/main.rs".to_string()])
    }

    #[test]
    fn literals_become_out_of_range_and_bindings_are_asked_after_their_let() {
        let text = "fn main() {\n    let mut s = 0.5;\n    let t: f64 = 2.;\n    let (a, b) = (s, t.0.1);\n    s += a * b;\n}\n";
        let s = sources(text);
        let out = &s.files[0].1;
        assert!(out.starts_with(LINTS), "{out}");
        assert!(out.contains("let mut s = 1e999; { const fn __fptune_type_of<T: ?Sized>(x: &T) -> &T { x } __fptune_type_of(&s); }"), "{out}");
        assert!(out.contains("let t: f64 = 1e999;\n"), "{out}");
        assert!(out.contains("t.0.1); { const fn __fptune_type_of<T: ?Sized>(x: &T) -> &T { x } __fptune_type_of(&a); } { const fn __fptune_type_of<T: ?Sized>(x: &T) -> &T { x } __fptune_type_of(&b); }"), "{out}");
        let q = &s.queries["src/main.rs"];
        assert_eq!(q.len(), 5);
        assert_eq!(&text[q[0].site.start..q[0].site.end], "s");
        let lit = q.iter().find(|q| q.kind == QueryKind::Literal).expect("a literal");
        assert_eq!(&text[lit.site.start..lit.site.end], "0.5");
        syn::parse_file(out).expect("still parses");
    }

    #[test]
    fn closure_parameters_are_asked_at_the_body_and_markers_and_lint_levels_are_blanked() {
        let text = "#![allow(dead_code)]\n#[fptune::tune]\nfn f(xs: &[f64]) -> f64 {\n    #[tune] let k = 3.0;\n    xs.iter().fold(0.0, |a, &x| a + x * k)\n}\nfn main() { let g = |t| { t }; g(1.5); let h: f64 = (0..3).map(|i| if i % 2 == 1 { 4.0 } else { 2.0 } * g(1.0)).sum(); }\n";
        let s = sources(text);
        let out = &s.files[0].1;
        assert!(!out.contains("allow") && !out.contains("#[tune]") && !out.contains("fptune::tune"), "{out}");
        assert!(out.contains("|a, &x| { { const fn __fptune_type_of<T: ?Sized>(x: &T) -> &T { x } __fptune_type_of(&a); } { const fn __fptune_type_of<T: ?Sized>(x: &T) -> &T { x } __fptune_type_of(&x); } (a + x * k) }"), "{out}");
        assert!(out.contains("|t| { { const fn __fptune_type_of<T: ?Sized>(x: &T) -> &T { x } __fptune_type_of(&t); } t }"), "{out}");
        // A body that starts with `if` stays one expression.
        assert!(out.contains("__fptune_type_of(&i); } (if i % 2 == 1 { 1e999 } else { 1e999 } * g(1e999)) }"), "{out}");
        syn::parse_file(out).expect("still parses");
    }

    fn diagnostic(code: &str, message: &str, file: &str, at: (usize, usize)) -> Diagnostic {
        Diagnostic {
            level: "warning".into(),
            message: message.into(),
            code: Some(code.into()),
            rendered: None,
            spans: vec![crate::cargo::Span {
                file: file.into(),
                line: 1,
                column: 1,
                line_end: 1,
                column_end: 1,
                byte_start: Some(at.0),
                byte_end: Some(at.1),
                primary: true,
                label: None,
                macro_name: None,
                call_site: None,
            }],
            children: Vec::new(),
        }
    }

    #[test]
    fn answers_are_matched_to_queries_by_their_place_in_the_copy() {
        let text = "fn main() { let v = vec![0.0; 2]; let w: Vec<f32> = v; }\n";
        let s = sources(text);
        let out = &s.files[0].1;
        let lit = out.find("1e999").expect("literal");
        let ask = out.find("__fptune_type_of(&v);").expect("binding");
        let diags = [
            diagnostic("overflowing_literals", "literal out of range for `f32`", "src/main.rs", (lit, lit + 5)),
            diagnostic("unused_results", "unused result of type `&Vec<f32>`", "src/main.rs", (ask, ask + 21)),
            diagnostic("dead_code", "function `x` is never used", "src/main.rs", (0, 3)),
        ];
        let typing = read_answers(&s, &diags);
        let at = text.find("0.0").expect("0.0");
        assert_eq!(typing.literal("src/main.rs", at, at + 3), Some("f32"));
        let v = text.find("v =").expect("v");
        assert_eq!(typing.binding("src/main.rs", v, v + 1), Some("Vec<f32>"));
        assert_eq!((typing.asked, typing.unanswered), (2, 0));
    }
}

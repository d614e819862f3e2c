//! Writes down what rustc inferred ([`crate::typing`]): the elaborated sources every build of the
//! tuner starts from.
//!
//! The elaborated crate means what the original means, natively, but says it in the source, where
//! the macro and the tuner's rewrites can see it:
//!
//! | original | elaborated | why |
//! |---|---|---|
//! | `vec![0.0; n]` (rustc: `f64`) | `vec![::fptune::__rt::lit::<f64>(0.0f64, 0.0f32); n]` | the stochastic build makes it `Sf64` (the macro maps every float type written), and an operand still adapts as a literal does |
//! | `let pk = a * z - b;` (rustc: `f64`) | `let pk: f64 = a * z - b;` | a knob marked there has its type written; stores into `pk` and casts of it are known to be floats |
//! | `\|x, i\| x * i as f64` (rustc: `f64`, `usize`) | `\|x: f64, i: usize\| ..` | the closure's body no longer waits for its parameters' types |
//!
//! A suffixed literal (`3f64`) is written as a cast (`(3f64 as f64)`), which the stochastic build
//! maps to its stochastic type as it maps every float type written.
//!
//! A type is written only where it can be: primitives, arrays, slices, tuples, references
//! without named lifetimes, and `Vec`, `Option`, `Box`, `String` (rustc prints paths trimmed:
//! a user's type might not be in scope under the name printed). Literals are elaborated only
//! where a function call may stand: not in `const`/`static` items, `const fn`s, array lengths or
//! patterns, and inside macro invocations only in the arguments of the formatting, assertion and
//! `vec!` macros the macro itself converts.
//!
//! [`elaborate`] is pure: text and answers in, text out, and each edit's kind, so that a patch
//! can keep the annotations of knobs and drop the rest ([`Elaborated::spliced`]).

use std::collections::{BTreeMap, BTreeSet};

use fptune_syntax::{APPROX_MACROS, EXPRESSION_MACROS};
use proc_macro2::{TokenStream, TokenTree};

use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::splice::{self, splice, Edit, Spliced};
use crate::typing::Typing;

/// What one elaboration edit is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// `extern crate fptune;` at the root of a 2015-edition crate, whose paths name other crates
    /// only so.
    Extern,
    /// A literal written with its type.
    Literal,
    /// A zero-touch marker (`#[fptune::tune]`, `#[tune]`).
    Marker,
    /// Half of `::fptune::typed_by_place!(e)` around a call whose result type its place gives,
    /// which fptune's store would leave untyped (written where the elaborated build asks for an
    /// annotation there: `sources.rs`); written wherever the markers are.
    PlaceTyped,
    /// The parameter type of a closure given as an argument, written
    /// `: ::fptune::__rt::elaborated!(T)`: `#[fptune::tune]` leaves it to inference as the user
    /// did (the callee's bounds type the closure before its body), so that it follows a lowered
    /// knob in every build; the patch does not write it.
    Inferred,
    /// A field given by shorthand written in full (`S { x }` -> `S { x: x }`), so that a
    /// conversion rustc asks for can wrap the value; the patch does not write it.
    Field,
    /// A foreign alias of a float type (`Complex64`) written as the type it stands for
    /// (`::num_complex::Complex<f64>`); the patch writes it where it holds a knob's leaf.
    Alias,
    /// An expression path through a foreign alias of a float type (`Complex64::new`, `Complex64
    /// { .. }`) written through its generic type (`::num_complex::Complex::new`), the float left
    /// to inference from the arguments and the place, as it follows the knobs it meets: the
    /// patch writes it wherever it was written.
    AliasExpr,
    /// A binding's type written (`: T` after the pattern): the binding's identifier range in the
    /// original.
    Annotation {
        /// Byte range of the identifier (for a tuple pattern, of its first identifier).
        binding: (usize, usize),
        /// The type written.
        ty: String,
    },
}

/// One file's elaboration.
#[derive(Clone, Debug)]
pub struct Elaborated {
    /// The file (relative to the package root).
    pub file: String,
    /// The edits, on the original text.
    pub edits: Vec<(Edit, Written)>,
    /// The edits applied.
    pub spliced: Spliced,
}

/// Elaborates every file of `sources` that rustc answered about; `extern_roots` are the crate
/// roots of a 2015-edition package, which get `extern crate fptune;`. Files with nothing to
/// write are left out.
pub fn elaborate(sources: &[(String, String)], typing: &Typing, extern_roots: &[String], auto_files: &[String]) -> Vec<Elaborated> {
    let macros = crate_macros(sources);
    let mut out = Vec::new();
    for (rel, text) in sources {
        let Ok(file) = syn::parse_file(text) else { continue };
        let tuned = usize::from(auto_files.contains(rel));
        let mut e = Elaborator { rel, text, typing, edits: Vec::new(), constant: 0, tuned, macros: &macros, to_infer: false };
        e.visit_file(&file);
        if extern_roots.iter().any(|r| r == rel) {
            // After the inner attributes, which must come first.
            let at = file
                .attrs
                .iter()
                .filter(|a| matches!(a.style, syn::AttrStyle::Inner(_)))
                .filter_map(|a| e.range(a.span()).map(|r| r.1))
                .max()
                .unwrap_or(0);
            e.edits.push((Edit::insert(at, "\nextern crate fptune;\n"), Written::Extern));
        }
        if e.edits.is_empty() {
            continue;
        }
        let plain: Vec<Edit> = e.edits.iter().map(|(edit, _)| edit.clone()).collect();
        let Ok(spliced) = splice(text, &plain) else { continue };
        out.push(Elaborated { file: rel.clone(), edits: e.edits, spliced });
    }
    out
}

/// The elaborated text of every file (the original where nothing was written).
pub fn texts(sources: &[(String, String)], elaborated: &[Elaborated]) -> Vec<(String, String)> {
    let by_file: BTreeMap<&str, &Elaborated> = elaborated.iter().map(|e| (e.file.as_str(), e)).collect();
    sources
        .iter()
        .map(|(rel, text)| (rel.clone(), by_file.get(rel.as_str()).map_or_else(|| text.clone(), |e| e.spliced.text.clone())))
        .collect()
}

/// The names of the `macro_rules!` macros the crate defines.
pub fn crate_macros(sources: &[(String, String)]) -> BTreeSet<String> {
    struct Names(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if m.path.is_ident("macro_rules") {
                if let Some(TokenTree::Ident(name)) = m.tokens.clone().into_iter().next() {
                    self.0.insert(name.to_string());
                }
            }
        }
        fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
            if let Some(name) = &m.ident {
                self.0.insert(name.to_string());
            }
            syn::visit::visit_item_macro(self, m);
        }
    }
    let mut names = Names(BTreeSet::new());
    for (_, text) in sources {
        if let Ok(file) = syn::parse_file(text) {
            names.visit_file(&file);
        }
    }
    names.0
}

/// Whether rustc's printed type can be written in the source as it is (see the module's doc).
pub fn writable(ty: &str) -> bool {
    let Ok(parsed) = syn::parse_str::<syn::Type>(ty) else { return false };
    writable_type(&parsed)
}

/// The type names rustc prints that every module sees, so that they are written as printed: the
/// primitives and the prelude's `Vec`, `Option`, `Box`, `String`.
pub const IN_SCOPE: [&str; 21] = [
    "f64", "f32", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "bool", "char",
    "str", "Vec", "Option", "Box", "String",
];

fn writable_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => {
            p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() == 1
                && p.path.segments.iter().all(|s| {
                    IN_SCOPE.contains(&s.ident.to_string().as_str())
                        && match &s.arguments {
                            syn::PathArguments::None => true,
                            syn::PathArguments::AngleBracketed(a) => a.args.iter().all(|g| match g {
                                syn::GenericArgument::Type(t) => writable_type(t),
                                _ => false,
                            }),
                            syn::PathArguments::Parenthesized(_) => false,
                        }
                })
        }
        syn::Type::Reference(r) => r.lifetime.as_ref().is_none_or(|l| l.ident == "static") && writable_type(&r.elem),
        syn::Type::Array(a) => writable_type(&a.elem) && matches!(a.len, syn::Expr::Lit(_)),
        syn::Type::Slice(s) => writable_type(&s.elem),
        syn::Type::Tuple(t) => t.elems.iter().all(writable_type),
        syn::Type::Paren(p) => writable_type(&p.elem),
        _ => false,
    }
}

/// Whether a type printed by rustc holds a primitive float somewhere.
pub fn holds_float(ty: &str) -> bool {
    ty.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == "f64" || w == "f32")
}

struct Elaborator<'a> {
    rel: &'a str,
    text: &'a str,
    typing: &'a Typing,
    edits: Vec<(Edit, Written)>,
    /// Depth of constant contexts around the visitor (no calls there).
    constant: usize,
    /// Depth of tuned code around the visitor: items marked `#[fptune::tune]`, the crate's own
    /// macros, or a whole file zero-touch tuning marks. Outside, an unsuffixed literal stays
    /// as written: it adapts to a knob it meets in native builds as in the user's code, and the
    /// stochastic build's heals convert it where it meets a stochastic value.
    tuned: usize,
    /// The crate's own `macro_rules!` macros.
    macros: &'a BTreeSet<String>,
    /// Inside a named argument of an approx comparison (`epsilon = 1e-6`): a literal there is
    /// written `lit::<_>`, to take the compared values' `Epsilon` type in every build.
    to_infer: bool,
}

impl Elaborator<'_> {
    fn range(&self, span: proc_macro2::Span) -> Option<(usize, usize)> {
        let (s, e) = (span.start(), span.end());
        Some((splice::offset(self.text, s.line, s.column)?, splice::offset(self.text, e.line, e.column)?))
    }

    fn literal(&mut self, lit: &syn::LitFloat) {
        if self.constant > 0 {
            return;
        }
        let Some((a, b)) = self.range(lit.span()) else { return };
        if matches!(lit.suffix(), "f64" | "f32") {
            // A suffixed literal is a float of the type written: as a cast, which the stochastic
            // build maps as it maps every float type written (and which, as an operand, keeps
            // its format, as the suffix does).
            let written = format!("({} as {})", &self.text[a..b], lit.suffix());
            self.edits.push((Edit::replace(a, b, written), Written::Literal));
            return;
        }
        if !lit.suffix().is_empty() || self.tuned == 0 {
            return;
        }
        let Some(ty) = self.typing.literal(self.rel, a, b) else { return };
        if ty != "f64" && ty != "f32" {
            return;
        }
        let digits = fptune_syntax::suffixable_digits(lit);
        let ty = if self.to_infer { "_" } else { ty };
        let written = format!("::fptune::__rt::lit::<{ty}>({})", fptune_syntax::literal_args(&digits));
        self.edits.push((Edit::replace(a, b, written), Written::Literal));
    }

    /// The type of a binding rustc answered for, when it can be written. (Not only floats: a
    /// binding whose type is written never waits for inference, which the dispatch of tuned
    /// code's operators needs.)
    fn binding_type(&self, ident: &syn::Ident) -> Option<String> {
        let (a, b) = self.range(ident.span())?;
        self.typing.written_binding(self.rel, a, b)
    }

    /// `: T` after a `let` pattern or a closure parameter written without a type, when its type
    /// can be written: an identifier (`x`, `mut x`), a reference to one (`&x`: `&T`), a tuple of
    /// identifiers.
    fn annotate(&mut self, pat: &syn::Pat) {
        if self.tuned == 0 {
            // Untuned code keeps its inference: a binding there takes a knob's type natively.
            return;
        }
        let Some(ty) = self.pattern_type(pat) else { return };
        let Some((_, end)) = self.range(pat.span()) else { return };
        let first = first_ident(pat).and_then(|i| self.range(i.span()));
        let Some(binding) = first else { return };
        self.edits.push((Edit::insert(end, format!(": {ty}")), Written::Annotation { binding, ty }));
    }

    /// A closure's parameters annotated; `argument`: the closure is an argument of a call
    /// ([`Written::Inferred`]), except its first parameter when `accumulator` (`fold`'s: its type
    /// is the initial value's, which nothing else gives the body before it is checked).
    fn closure(&mut self, c: &syn::ExprClosure, argument: bool, accumulator: bool) {
        for (i, p) in c.inputs.iter().enumerate() {
            self.visit_pat(p);
            if !argument || self.tuned == 0 || (accumulator && i == 0) {
                self.annotate(p);
                continue;
            }
            let Some(ty) = self.pattern_type(p) else { continue };
            let Some((_, end)) = self.range(p.span()) else { continue };
            if holds_float(&ty) {
                self.edits.push((Edit::insert(end, format!(": ::fptune::__rt::elaborated!({ty})")), Written::Inferred));
            } else {
                self.annotate(p);
            }
        }
        self.visit_expr(&c.body);
    }

    /// The arguments of a call (of the method `method`), closures among them as
    /// [`Self::closure`] arguments.
    fn arguments<'ast>(&mut self, args: impl IntoIterator<Item = &'ast syn::Expr>, method: Option<&str>) {
        const ACCUMULATING: [&str; 5] = ["fold", "rfold", "try_fold", "try_rfold", "scan"];
        let accumulator = method.is_some_and(|m| ACCUMULATING.contains(&m));
        for a in args {
            match a {
                syn::Expr::Closure(c) => self.closure(c, true, accumulator),
                other => self.visit_expr(other),
            }
        }
    }

    fn pattern_type(&self, pat: &syn::Pat) -> Option<String> {
        match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => self.binding_type(&p.ident),
            syn::Pat::Reference(r) if r.mutability.is_none() => match &*r.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    self.binding_type(&p.ident).map(|t| format!("&{t}"))
                }
                _ => None,
            },
            syn::Pat::Tuple(t) if !t.elems.is_empty() => {
                let mut parts = Vec::new();
                for p in &t.elems {
                    let syn::Pat::Ident(i) = p else { return None };
                    if i.by_ref.is_some() || i.subpat.is_some() {
                        return None;
                    }
                    let (a, b) = self.range(i.ident.span())?;
                    parts.push(self.typing.written_binding(self.rel, a, b)?);
                }
                Some(if parts.len() == 1 { format!("({},)", parts[0]) } else { format!("({})", parts.join(", ")) })
            }
            _ => None,
        }
    }

    /// Every foreign alias of a float type (`Complex64`) in the types `walk` visits, written as
    /// what it stands for (`::num_complex::Complex<f64>`, [`Typing::written_alias`]): its float
    /// is then a leaf a knob can hold, as if the user had written the type in full.
    fn aliases_in(&mut self, walk: impl FnOnce(&mut AliasPaths<'_>)) {
        if self.typing.names.aliases.get(self.rel).is_none_or(BTreeMap::is_empty) {
            return;
        }
        let mut v = AliasPaths { text: self.text, rel: self.rel, typing: self.typing, found: Vec::new() };
        walk(&mut v);
        for ((a, b), ty) in v.found {
            self.edits.push((Edit::replace(a, b, ty), Written::Alias));
        }
    }

    fn macro_args(&mut self, mac: &syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if name == "macro_rules" || self.macros.contains(&name) {
            // The crate's own macros: their bodies and arguments are its code, token by token.
            self.tuned += 1;
            self.literal_tokens(mac.tokens.clone());
            self.tuned -= 1;
            return;
        }
        if !EXPRESSION_MACROS.contains(&name.as_str()) {
            return;
        }
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
            for arg in &args {
                match arg {
                    syn::Expr::Assign(a) if APPROX_MACROS.contains(&name.as_str()) => {
                        self.to_infer = true;
                        self.visit_expr(&a.right);
                        self.to_infer = false;
                    }
                    _ => self.visit_expr(arg),
                }
            }
        } else if let Ok(r) = syn::parse2::<Repeat>(mac.tokens.clone()) {
            self.visit_expr(&r.elem);
            self.constant += 1;
            self.visit_expr(&r.len);
            self.constant -= 1;
        }
    }

    /// Every unsuffixed float literal token rustc typed, in a token stream (not a tuple index).
    fn literal_tokens(&mut self, tokens: TokenStream) {
        let mut after_dot = false;
        for tt in tokens {
            match tt {
                TokenTree::Group(g) => {
                    self.literal_tokens(g.stream());
                    after_dot = false;
                }
                TokenTree::Punct(p) => after_dot = p.as_char() == '.',
                TokenTree::Ident(_) => after_dot = false,
                TokenTree::Literal(l) => {
                    if let (false, syn::Lit::Float(f)) = (after_dot, syn::Lit::new(l)) {
                        self.literal(&f);
                    }
                    after_dot = false;
                }
            }
        }
    }

    fn in_constant(&mut self, f: impl FnOnce(&mut Self)) {
        self.constant += 1;
        f(self);
        self.constant -= 1;
    }
}

fn first_ident(pat: &syn::Pat) -> Option<&syn::Ident> {
    match pat {
        syn::Pat::Ident(p) => Some(&p.ident),
        syn::Pat::Reference(r) => first_ident(&r.pat),
        syn::Pat::Tuple(t) => t.elems.iter().find_map(first_ident),
        syn::Pat::Paren(p) => first_ident(&p.pat),
        _ => None,
    }
}

/// `vec![elem; len]`'s arguments.
struct Repeat {
    elem: syn::Expr,
    len: syn::Expr,
}

impl syn::parse::Parse for Repeat {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let elem = input.parse()?;
        input.parse::<syn::Token![;]>()?;
        let len = input.parse()?;
        Ok(Repeat { elem, len })
    }
}

/// Whether an item carries `#[fptune::tune]` (with or without arguments).
fn marked_tuned(item: &syn::Item) -> bool {
    fptune_syntax::item_attrs(item).iter().any(|a| {
        let segs: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
        segs == ["fptune", "tune"]
    })
}

/// Finds the type paths that are foreign aliases of float types ([`Elaborator::aliases_in`]).
struct AliasPaths<'a> {
    text: &'a str,
    rel: &'a str,
    typing: &'a Typing,
    found: Vec<((usize, usize), String)>,
}

impl<'ast> Visit<'ast> for AliasPaths<'_> {
    fn visit_type_path(&mut self, p: &'ast syn::TypePath) {
        let plain = p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none());
        if plain {
            let key: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(ty) = self.typing.written_alias(self.rel, &key.join("::")) {
                let (s, e) = (p.span().start(), p.span().end());
                if let (Some(a), Some(b)) = (splice::offset(self.text, s.line, s.column), splice::offset(self.text, e.line, e.column)) {
                    self.found.push(((a, b), ty));
                }
                return;
            }
        }
        syn::visit::visit_type_path(self, p);
    }

    fn visit_expr(&mut self, _e: &'ast syn::Expr) {
        // Array lengths, const arguments.
    }
}

impl<'ast> Visit<'ast> for Elaborator<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let marked = marked_tuned(item);
        self.tuned += usize::from(marked);
        syn::visit::visit_item(self, item);
        self.tuned -= usize::from(marked);
    }

    fn visit_lit_float(&mut self, lit: &'ast syn::LitFloat) {
        self.literal(lit);
    }

    fn visit_lit_int(&mut self, lit: &'ast syn::LitInt) {
        // `1f64` is an integer token with a float suffix.
        if matches!(lit.suffix(), "f64" | "f32") && self.constant == 0 {
            if let Some((a, b)) = self.range(lit.span()) {
                let written = format!("({} as {})", &self.text[a..b], lit.suffix());
                self.edits.push((Edit::replace(a, b, written), Written::Literal));
            }
        }
    }

    fn visit_pat(&mut self, pat: &'ast syn::Pat) {
        // Literals in patterns stay literals; the types in them (`|z: Complex64|`) are types.
        self.aliases_in(|v| v.visit_pat(pat));
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        // `let (a, b) = f(..)`: the call's declared type (a knob's, where it returns one) types
        // the tuple; written down, its floats would be types no knob holds, which every knob its
        // parts meet would keep. A tuple composed here (`if .. { (PI, w) } else { (t[i], u[i]) }`)
        // is written down: its parts are stored into that type, whatever each arm's origin.
        let from_call = local.init.as_ref().is_some_and(|i| matches!(&*i.expr, syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Try(_)));
        if !(from_call && matches!(local.pat, syn::Pat::Tuple(_))) {
            self.annotate(&local.pat);
        }
        self.visit_pat(&local.pat);
        for attr in &local.attrs {
            self.visit_attribute(attr);
        }
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.closure(c, false, false);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        for attr in &c.attrs {
            self.visit_attribute(attr);
        }
        self.visit_expr(&c.func);
        self.arguments(&c.args, None);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        // `Complex64::new(..)`: the alias's generic type, its float left to inference.
        let segs = &e.path.segments;
        if e.qself.is_none() && segs.len() >= 2 && segs.iter().take(segs.len() - 1).all(|s| s.arguments.is_none()) {
            let key: Vec<String> = segs.iter().take(segs.len() - 1).map(|s| s.ident.to_string()).collect();
            if let Some(head) = self.typing.alias_head(self.rel, &key.join("::")) {
                let first = segs.first().map(|s| s.ident.span());
                let before_last = segs.iter().nth(segs.len() - 2).map(|s| s.ident.span());
                if let (Some(a), Some(b)) = (first.and_then(|s| self.range(s)), before_last.and_then(|s| self.range(s))) {
                    let start = if e.path.leading_colon.is_some() { a.0.saturating_sub(2) } else { a.0 };
                    self.edits.push((Edit::replace(start, b.1, head), Written::AliasExpr));
                }
            }
        }
        syn::visit::visit_expr_path(self, e);
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        if s.qself.is_none() && s.path.segments.iter().all(|s| s.arguments.is_none()) {
            let key: Vec<String> = s.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(head) = self.typing.alias_head(self.rel, &key.join("::")) {
                if let Some((a, b)) = self.range(s.path.span()) {
                    self.edits.push((Edit::replace(a, b, head), Written::AliasExpr));
                }
            }
        }
        if self.tuned > 0 {
            for f in &s.fields {
                if let (None, syn::Member::Named(name)) = (&f.colon_token, &f.member) {
                    if let Some((start, _)) = self.range(name.span()) {
                        self.edits.push((Edit::insert(start, format!("{name}: ")), Written::Field));
                    }
                }
            }
        }
        syn::visit::visit_expr_struct(self, s);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        for attr in &m.attrs {
            self.visit_attribute(attr);
        }
        self.visit_expr(&m.receiver);
        if let Some(t) = &m.turbofish {
            self.visit_angle_bracketed_generic_arguments(t);
        }
        self.arguments(&m.args, Some(&m.method.to_string()));
    }

    fn visit_item_const(&mut self, i: &'ast syn::ItemConst) {
        self.in_constant(|s| syn::visit::visit_item_const(s, i));
    }

    fn visit_item_static(&mut self, i: &'ast syn::ItemStatic) {
        self.in_constant(|s| syn::visit::visit_item_static(s, i));
    }

    fn visit_impl_item_const(&mut self, i: &'ast syn::ImplItemConst) {
        self.in_constant(|s| syn::visit::visit_impl_item_const(s, i));
    }

    fn visit_trait_item_const(&mut self, i: &'ast syn::TraitItemConst) {
        self.in_constant(|s| syn::visit::visit_trait_item_const(s, i));
    }

    fn visit_expr_const(&mut self, i: &'ast syn::ExprConst) {
        self.in_constant(|s| syn::visit::visit_expr_const(s, i));
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if f.sig.constness.is_some() {
            self.in_constant(|s| syn::visit::visit_item_fn(s, f));
        } else {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if f.sig.constness.is_some() {
            self.in_constant(|s| syn::visit::visit_impl_item_fn(s, f));
        } else {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_type(&mut self, ty: &'ast syn::Type) {
        // Array lengths and const generic arguments are constant; types hold no float literal,
        // but may name a foreign alias of a float type.
        self.aliases_in(|v| v.visit_type(ty));
    }

    fn visit_expr_repeat(&mut self, r: &'ast syn::ExprRepeat) {
        self.visit_expr(&r.expr);
        self.in_constant(|s| s.visit_expr(&r.len));
    }

    fn visit_variant(&mut self, v: &'ast syn::Variant) {
        self.in_constant(|s| syn::visit::visit_variant(s, v));
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.macro_args(mac);
    }

    fn visit_attribute(&mut self, _attr: &'ast syn::Attribute) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typing::{Observed, Site};

    fn site(text: &str, needle: &str, nth: usize) -> Site {
        let start = text.match_indices(needle).nth(nth).map(|(i, _)| i).expect("needle");
        Site { file: "src/main.rs".into(), start, end: start + needle.len() }
    }

    #[test]
    fn a_foreign_alias_of_a_float_type_is_written_in_full_as_a_type_and_generic_as_a_path() {
        let text = "use num_complex::Complex64;\nstruct M { a: Complex64 }\nfn f(z: &[Complex64]) -> Vec<Complex64> {\n    let w: Complex64 = Complex64::new(1.0, 0.0);\n    let m = M { a: Complex64 { re: 0.5, im: 0.0 } };\n    z.iter().map(|x: &Complex64| x * w).collect()\n}\n";
        let mut typing = Typing::default();
        let file = "src/main.rs".to_string();
        typing.names.files.insert(file.clone(), file.clone());
        typing.names.roots.insert(file.clone(), [("Complex".to_string(), "::num_complex::Complex".to_string())].into());
        typing.names.aliases.insert(file.clone(), [("Complex64".to_string(), "Complex<f64>".to_string())].into());
        let e = elaborate(&[(file, text.into())], &typing, &[], &[]);
        let out = &e[0].spliced.text;
        assert_eq!(
            out,
            "use num_complex::Complex64;\nstruct M { a: ::num_complex::Complex<f64> }\nfn f(z: &[::num_complex::Complex<f64>]) -> Vec<::num_complex::Complex<f64>> {\n    let w: ::num_complex::Complex<f64> = ::num_complex::Complex::new(1.0, 0.0);\n    let m = M { a: ::num_complex::Complex { re: 0.5, im: 0.0 } };\n    z.iter().map(|x: &::num_complex::Complex<f64>| x * w).collect()\n}\n"
        );
        assert!(e[0].edits.iter().any(|(_, w)| *w == Written::AliasExpr));
    }

    #[test]
    fn only_tuned_code_is_elaborated_and_untuned_code_keeps_its_inference() {
        let text = "#[fptune::tune]\nfn k() -> f64 {\n    let a = 0.25;\n    a\n}\nfn main() {\n    let b = 0.75;\n    let c = 1.5f64;\n}\n";
        let mut typing = Typing::default();
        for needle in ["0.25", "0.75"] {
            typing.literals.insert(site(text, needle, 0), Observed::Type("f64".into()));
        }
        for needle in ["a", "b"] {
            typing.bindings.insert(site(text, needle, 0), (needle.into(), Observed::Type("f64".into())));
        }
        let e = elaborate(&[("src/main.rs".into(), text.into())], &typing, &[], &[]);
        let out = &e[0].spliced.text;
        assert!(out.contains("let a: f64 = ::fptune::__rt::lit::<f64>(0.25f64, 0.25f32);"), "{out}");
        assert!(out.contains("let b = 0.75;"), "{out}");
        // A suffixed literal is a cast everywhere: the macro writes it so in the user's code too.
        assert!(out.contains("let c = (1.5f64 as f64);"), "{out}");
    }

    #[test]
    fn an_approx_tolerance_literal_takes_the_compared_values_type() {
        // `epsilon` is `T::Epsilon` of the compared values: left to inference, it follows a
        // lowered knob; the compared values' own literals keep rustc's type.
        let text = "fn main() {\n    let x = 1.0;\n    if approx::relative_eq!(x, 0.5, epsilon = 1e-6) {}\n}\n";
        let mut typing = Typing::default();
        for needle in ["1.0", "0.5", "1e-6"] {
            typing.literals.insert(site(text, needle, 0), Observed::Type("f64".into()));
        }
        let e = elaborate(&[("src/main.rs".into(), text.into())], &typing, &[], &["src/main.rs".to_string()]);
        let out = &e[0].spliced.text;
        assert!(out.contains("relative_eq!(x, ::fptune::__rt::lit::<f64>(0.5f64, 0.5f32), epsilon = ::fptune::__rt::lit::<_>(1e-6f64, 1e-6f32))"), "{out}");
    }

    #[test]
    fn literals_and_bindings_get_the_types_rustc_gave_them() {
        let text = "const C: f64 = 0.5;\nfn main() {\n    let mut out = [0.0; 2];\n    let pk = 2. * C;\n    let f = |x, &y| x + y;\n    out[0] = f(pk, &1.5);\n    match pk { 1.0 => {}, _ => {} }\n    println!(\"{}\", 3.25);\n}\n";
        let mut typing = Typing::default();
        for (needle, nth, ty) in [("0.5", 0, "f64"), ("0.0", 0, "f32"), ("2.", 0, "f64"), ("1.5", 0, "f64"), ("1.0", 0, "f64"), ("3.25", 0, "f64")] {
            typing.literals.insert(site(text, needle, nth), Observed::Type(ty.into()));
        }
        for (needle, ty) in [("out", "[f32; 2]"), ("pk", "f64"), ("f", "{closure@src/main.rs:5:13: 5:19}"), ("x", "f64"), ("y", "f64")] {
            typing.bindings.insert(site(text, needle, 0), (needle.into(), Observed::Type(ty.into())));
        }
        let e = elaborate(&[("src/main.rs".into(), text.into())], &typing, &[], &["src/main.rs".to_string()]);
        let out = &e[0].spliced.text;
        assert!(out.contains("const C: f64 = 0.5;"), "{out}");
        assert!(out.contains("let mut out: [f32; 2] = [::fptune::__rt::lit::<f32>(0.0f64, 0.0f32); 2];"), "{out}");
        assert!(out.contains("let pk: f64 = ::fptune::__rt::lit::<f64>(2.0f64, 2.0f32) * C;"), "{out}");
        assert!(out.contains("let f = |x: f64, &y: &f64| x + y;"), "{out}");
        assert!(out.contains("f(pk, &::fptune::__rt::lit::<f64>(1.5f64, 1.5f32))"), "{out}");
        assert!(out.contains("match pk { 1.0 =>"), "{out}");
        assert!(out.contains("println!(\"{}\", ::fptune::__rt::lit::<f64>(3.25f64, 3.25f32));"), "{out}");
        syn::parse_file(out).expect("parses");
        assert_eq!(e[0].edits.iter().filter(|(_, w)| matches!(w, Written::Annotation { .. })).count(), 4);
    }

    #[test]
    fn a_closure_given_as_an_argument_has_its_float_parameters_left_to_inference() {
        let text = "fn main() {\n    let v = vec![1.0, 2.0];\n    let s: Vec<f64> = v.windows(2).map(|w| w[0] + w[1]).collect();\n    let n = v.iter().filter(|i| **i > 1.0).count();\n    let g = |x| x * 2.0;\n    let m: f64 = v.iter().fold(0.0, |a, y| a + y);\n}\n";
        let mut typing = Typing::default();
        for (needle, ty) in [("|w|", "&[f64]"), ("|i|", "&&f64"), ("|x|", "f64"), ("|a,", "f64"), (" y|", "&f64")] {
            let at = site(text, needle, 0);
            let name = &needle[1..2];
            typing.bindings.insert(Site { start: at.start + 1, end: at.start + 2, ..at }, (name.into(), Observed::Type(ty.into())));
        }
        let e = elaborate(&[("src/main.rs".into(), text.into())], &typing, &[], &["src/main.rs".to_string()]);
        let out = &e[0].spliced.text;
        // An argument of a call: written so that `#[fptune::tune]` can take it out again.
        assert!(out.contains(".map(|w: ::fptune::__rt::elaborated!(&[f64])| w[0] + w[1])"), "{out}");
        // A closure bound to a name waits for no callee's bounds: its type is written.
        assert!(out.contains("let g = |x: f64| x"), "{out}");
        // `fold`'s accumulator has the initial value's type, which nothing gives its body.
        assert!(out.contains(".fold(0.0, |a: f64, y: ::fptune::__rt::elaborated!(&f64)| a + y)"), "{out}");
        syn::parse_file(out).expect("parses");
        assert!(e[0].edits.iter().any(|(_, w)| *w == Written::Inferred));
    }

    #[test]
    fn a_tuple_a_call_returns_follows_it_and_shorthand_fields_are_written_in_full() {
        let text = "struct P { a: f64, b: f64 }\nfn main() {\n    let (a, b) = parts();\n    let (c, d) = if true { (1.0, 2.0) } else { (3.0, 4.0) };\n    let p = P { a, b: c + d };\n}\n";
        let mut typing = Typing::default();
        for (needle, ty) in [("a, b)", "f64"), ("b) =", "f64"), ("c, d", "f64"), ("d) =", "f64")] {
            let at = site(text, needle, 0);
            typing.bindings.insert(Site { end: at.start + 1, ..at }, (needle[..1].into(), Observed::Type(ty.into())));
        }
        let e = elaborate(&[("src/main.rs".into(), text.into())], &typing, &[], &["src/main.rs".to_string()]);
        let out = &e[0].spliced.text;
        // The call's declared type (a return knob's) types the tuple: nothing written.
        assert!(out.contains("let (a, b) = parts();"), "{out}");
        // A tuple composed here is written down: each arm is stored into it.
        assert!(out.contains("let (c, d): (f64, f64) = if"), "{out}");
        // `P { a }`: a conversion can wrap `a` only where it is written `a: a`.
        assert!(out.contains("P { a: a, b:"), "{out}");
        syn::parse_file(out).expect("parses");
        assert!(e[0].edits.iter().any(|(_, w)| *w == Written::Field));
    }

    #[test]
    fn only_types_that_name_what_they_say_are_written() {
        for ty in ["f64", "Vec<Vec<f32>>", "&[f64]", "&mut [f64; 3]", "(usize, f64)", "Option<Box<f64>>", "&'static str"] {
            assert!(writable(ty), "{ty}");
        }
        for ty in ["V3", "Complex<f64>", "HashMap<u32, f64>", "{closure@src/main.rs:1:2: 1:5}", "&'a f64", "impl Fn(f64)", "<T as Tr>::X"] {
            assert!(!writable(ty), "{ty}");
        }
        assert!(holds_float("Vec<(usize, f32)>") && !holds_float("Vec<f64x4>") && !holds_float("u64"));
    }
}

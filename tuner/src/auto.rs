//! Zero-touch tuning (`--auto`): the markers a user would write, written by the tuner into its
//! scratch copies of the elaborated sources. Every float declaration is a knob.
//!
//! | declaration | marked | knob |
//! |---|---|---|
//! | `fn`, inherent `impl` method | `#[fptune::tune(printed)]` on the item | each float parameter, the return value |
//! | trait `impl` | `#[fptune::tune(printed)]` | none in the signatures (the trait fixes them) |
//! | `let` (written, or written by the elaboration) | | the variable |
//! | closure parameter with its type written (`\|x: f64\| ..`), the closure no call's argument | | the parameter |
//! | float type given as a generic argument in code (`integrate::<f64>(..)`) | `::fptune::knob!(f64)` | the instantiation |
//! | float type a cast converts to (`n as f64`) | `::fptune::knob!(f64)` | the cast |
//! | `struct` | `#[fptune::tune]` | each float field |
//! | `const`, `static`, `type` | `#[fptune::tune]` | the item itself |
//!
//! `printed` asks the macro to record every float a formatting macro of the item prints, when the
//! tuner's runs ask for printed results (`--check-printed`). Test code (`#[cfg(test)]`, `#[test]`)
//! and items fptune's macro does not take (enums, traits, unions, macro invocations) are left
//! alone; their floats are converted for the stochastic build all the same. A declaration whose
//! only float is a type alias's name is no knob of its own: the alias is.

use std::collections::BTreeSet;

use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::splice::{self, Edit};

/// The edits that mark `text` (a program file, elaborated) for zero-touch tuning.
pub fn markers(text: &str) -> Vec<Edit> {
    let Ok(file) = syn::parse_file(text) else { return Vec::new() };
    let mut m = Marker { text, edits: Vec::new(), aliases: float_aliases(&file) };
    m.items(&file.items);
    m.edits
}

/// The names of the file's type aliases of float types.
fn float_aliases(file: &syn::File) -> BTreeSet<String> {
    struct Aliases(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Aliases {
        fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
            if !fptune_syntax::float_leaves(&t.ty, &BTreeSet::new()).is_empty() {
                self.0.insert(t.ident.to_string());
            }
        }
    }
    let mut a = Aliases(BTreeSet::new());
    a.visit_file(file);
    a.0
}

struct Marker<'t> {
    text: &'t str,
    edits: Vec<Edit>,
    aliases: BTreeSet<String>,
}

/// Float literals, negated or not, references to other constants (`&TABLE_1`, which then share
/// its type), or arrays and tuples of them: a constant whose value the single build can hold
/// before its format is known.
fn literal_value(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
        syn::Expr::Reference(r) if r.mutability.is_none() => matches!(&*r.expr, syn::Expr::Path(_)),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => literal_value(&u.expr),
        syn::Expr::Paren(p) => literal_value(&p.expr),
        syn::Expr::Array(a) => a.elems.iter().all(literal_value),
        syn::Expr::Tuple(t) => t.elems.iter().all(literal_value),
        syn::Expr::Repeat(r) => literal_value(&r.expr),
        // `Complex { re: 0.0, im: 1.0 }`, `Complex::new(0.5, 0.0)`: a value of a generic type built
        // from literals (a `const fn` of the type, in a constant).
        syn::Expr::Struct(st) => st.rest.is_none() && st.fields.iter().all(|f| literal_value(&f.expr)),
        // (Not a primitive's function: `f64::from_bits(0x3ff0..)` is no literal.)
        syn::Expr::Call(c) => {
            matches!(&*c.func, syn::Expr::Path(p) if !p.path.segments.first().is_some_and(|s| s.ident == "f64" || s.ident == "f32"))
                && !c.args.is_empty()
                && c.args.iter().all(literal_value)
        }
        _ => false,
    }
}

/// Where an item's head starts: its visibility, or `keyword`.
fn vis_or(vis: &syn::Visibility, keyword: proc_macro2::Span) -> proc_macro2::Span {
    match vis {
        syn::Visibility::Inherited => keyword,
        v => v.span(),
    }
}

/// Where a function's head starts: its visibility, or its signature.
fn head(vis: &syn::Visibility, sig: &syn::Signature) -> proc_macro2::Span {
    match vis {
        syn::Visibility::Inherited => sig.span(),
        v => v.span(),
    }
}

/// Where a field starts: its visibility, its name, or its type.
fn field_head(f: &syn::Field) -> proc_macro2::Span {
    match (&f.vis, &f.ident) {
        (syn::Visibility::Inherited, Some(id)) => id.span(),
        (syn::Visibility::Inherited, None) => f.ty.span(),
        (v, _) => v.span(),
    }
}

/// Test code, or code fptune's macro must not see.
fn skipped(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        path.is_ident("test")
            || (path.is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().contains("test")))
            || fptune_syntax::is_tune_attribute(a)
    })
}

impl Marker<'_> {
    fn start(&self, span: proc_macro2::Span) -> Option<usize> {
        let s = span.start();
        splice::offset(self.text, s.line, s.column)
    }

    /// Where an item's attributes start (before its doc comment and attributes), so the marker
    /// goes before them.
    fn item_start(&self, attrs: &[syn::Attribute], rest: proc_macro2::Span) -> Option<usize> {
        let first = attrs.iter().filter(|a| matches!(a.style, syn::AttrStyle::Outer)).map(|a| a.span()).next().unwrap_or(rest);
        self.start(first)
    }

    fn insert(&mut self, at: Option<usize>, text: &str) {
        if let Some(at) = at {
            self.edits.push(Edit::insert(at, text));
        }
    }

    /// A knob of this type: some float written in it, not only an alias's name.
    fn knob_type(&self, ty: &syn::Type) -> bool {
        fptune_syntax::float_leaves(ty, &self.aliases).iter().any(|l| l.format.is_some())
    }

    /// Whether a typed pattern names a float: `x: f64`, or a part of `(t, y): (f64, f64)`
    /// (what `#[tune]` accepts on a `let` or a closure's parameter, one knob per name).
    fn named_floats(&self, pat: &syn::Pat, ty: &syn::Type) -> bool {
        fptune_syntax::named_parts(pat, ty, &self.aliases).is_ok_and(|parts| parts.iter().any(|(_, t)| self.knob_type(t)))
    }

    fn items(&mut self, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Fn(f) if !skipped(&f.attrs) => {
                    let at = self.item_start(&f.attrs, head(&f.vis, &f.sig));
                    self.insert(at, "#[fptune::tune(printed)] ");
                    self.signature(&f.sig, at);
                    self.body(&f.block);
                }
                syn::Item::Impl(i) if !skipped(&i.attrs) => {
                    self.insert(self.item_start(&i.attrs, i.impl_token.span), "#[fptune::tune(printed)] ");
                    let trait_impl = i.trait_.is_some();
                    for it in &i.items {
                        match it {
                            syn::ImplItem::Fn(f) if !skipped(&f.attrs) => {
                                if !trait_impl {
                                    let at = self.item_start(&f.attrs, head(&f.vis, &f.sig));
                                    self.signature(&f.sig, at);
                                }
                                self.body(&f.block);
                            }
                            syn::ImplItem::Const(c) if !trait_impl && self.knob_type(&c.ty) && literal_value(&c.expr) => {
                                self.insert(self.item_start(&c.attrs, vis_or(&c.vis, c.const_token.span)), "#[tune] ");
                            }
                            _ => {}
                        }
                    }
                }
                syn::Item::Struct(s) if !skipped(&s.attrs) => {
                    let knobs: Vec<Option<usize>> =
                        s.fields.iter().filter(|f| self.knob_type(&f.ty)).map(|f| self.item_start(&f.attrs, field_head(f))).collect();
                    if !knobs.is_empty() {
                        self.insert(self.item_start(&s.attrs, vis_or(&s.vis, s.struct_token.span)), "#[fptune::tune] ");
                        for at in knobs {
                            self.insert(at, "#[tune] ");
                        }
                    }
                }
                // A constant computed from others (`R46 = R23 * R23`) keeps its type: its value
                // could only be computed once a format is known, which the single build's
                // constants are not.
                syn::Item::Const(c) if !skipped(&c.attrs) && self.knob_type(&c.ty) && literal_value(&c.expr) => {
                    self.insert(self.item_start(&c.attrs, vis_or(&c.vis, c.const_token.span)), "#[fptune::tune] ");
                }
                syn::Item::Static(s) if !skipped(&s.attrs) && self.knob_type(&s.ty) && literal_value(&s.expr) => {
                    self.insert(self.item_start(&s.attrs, vis_or(&s.vis, s.static_token.span)), "#[fptune::tune] ");
                }
                syn::Item::Type(t) if !skipped(&t.attrs) && self.knob_type(&t.ty) => {
                    self.insert(self.item_start(&t.attrs, vis_or(&t.vis, t.type_token.span)), "#[fptune::tune] ");
                }
                syn::Item::Mod(m) if !skipped(&m.attrs) => {
                    if let Some((_, inner)) = &m.content {
                        self.items(inner);
                    }
                }
                _ => {}
            }
        }
    }

    /// Knob markers on a function's float parameters and its float return value (`#[tune]` at
    /// `at`, the function's start).
    fn signature(&mut self, sig: &syn::Signature, at: Option<usize>) {
        for input in &sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                if matches!(&*pt.pat, syn::Pat::Ident(_)) && self.knob_type(&fptune_syntax::declared_type(&pt.ty, sig)) {
                    self.insert(self.item_start(&pt.attrs, pt.pat.span()), "#[tune] ");
                }
            }
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            if self.knob_type(ty) {
                self.insert(at, "#[tune] ");
            }
        }
    }

    /// A float type given as a generic argument in code (`integrate::<f64>(..)`, `rng.gen::<f64>()`,
    /// `Rule::<f64> { .. }`) marked a knob: written `::fptune::knob!(f64)`.
    fn instantiations(&mut self, args: &syn::AngleBracketedGenericArguments) {
        for a in &args.args {
            let syn::GenericArgument::Type(t) = a else { continue };
            if self.knob_type(t) && fptune_syntax::knob_type_marker(t).is_none() {
                self.knob_marker(t);
            }
        }
    }

    /// The float type of a cast (`n as f64`) marked a knob: written `::fptune::knob!(f64)`.
    fn cast(&mut self, ty: &syn::Type) {
        if matches!(ty, syn::Type::Path(_)) && self.knob_type(ty) {
            self.knob_marker(ty);
        }
    }

    /// `ty` written `::fptune::knob!(ty)`.
    fn knob_marker(&mut self, ty: &syn::Type) {
        let (s, e) = (ty.span().start(), ty.span().end());
        if let (Some(a), Some(b)) = (splice::offset(self.text, s.line, s.column), splice::offset(self.text, e.line, e.column)) {
            self.edits.push(Edit::insert(a, "::fptune::knob!("));
            self.edits.push(Edit::insert(b, ")"));
        }
    }

    /// Knob markers on the float `let`s of a body (closures' included), and on the functions
    /// declared in it.
    fn body(&mut self, block: &syn::Block) {
        struct Lets<'m, 't>(&'m mut Marker<'t>);
        impl<'ast> Visit<'ast> for Lets<'_, '_> {
            fn visit_local(&mut self, l: &'ast syn::Local) {
                if let syn::Pat::Type(pt) = &l.pat {
                    if self.0.named_floats(&pt.pat, &pt.ty) && !skipped(&l.attrs) {
                        let at = self.0.item_start(&l.attrs, l.let_token.span);
                        self.0.insert(at, "#[tune] ");
                    }
                }
                syn::visit::visit_local(self, l);
            }
            fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
                // A closure's parameter whose float type is written (by the user, or by the
                // elaboration), where the closure is no method's argument (a method's closure
                // takes its parameters' types from the receiver: `fold`'s accumulator is its
                // initial value's, a `map`'s the items').
                for input in &c.inputs {
                    if let syn::Pat::Type(pt) = input {
                        if self.0.named_floats(&pt.pat, &pt.ty) && !skipped(&pt.attrs) {
                            let at = self.0.item_start(&pt.attrs, pt.pat.span());
                            self.0.insert(at, "#[tune] ");
                        }
                    }
                }
                syn::visit::visit_expr_closure(self, c);
            }
            fn visit_path(&mut self, p: &'ast syn::Path) {
                for seg in &p.segments {
                    if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                        self.0.instantiations(a);
                    }
                }
                syn::visit::visit_path(self, p);
            }
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                // `iter.sum::<f64>()`, `product::<f64>()`: a float sum is in the items'
                // format (the conversion's fold), so the type named is no declaration: a
                // knob there would be reported lowered while changing nothing.
                let folds = m.method == "sum" || m.method == "product";
                if let Some(t) = m.turbofish.as_ref().filter(|_| !folds) {
                    self.0.instantiations(t);
                }
                self.visit_expr(&m.receiver);
                self.arguments(&m.args);
            }
            fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
                // A function's closure argument whose parameter types are written
                // (`simpson(|t: f64| .., a, b)`) is marked: the function is usually the
                // crate's own, whose callable parameter is a knob the closure shares a type
                // with (the probe says so). A method's (`map`, `fold`, an iterator's adapters)
                // takes its types from the items and the initial value.
                syn::visit::visit_expr_call(self, c);
            }
            fn visit_macro(&mut self, m: &'ast syn::Macro) {
                // `vec![P { f: Box::new(|x: f64| ..) }]`: an expression macro's arguments are
                // code like any other.
                for arg in fptune_syntax::expression_args(m).iter().flatten() {
                    <Self as Visit<'_>>::visit_expr(self, arg);
                }
            }
            fn visit_expr_cast(&mut self, c: &'ast syn::ExprCast) {
                // `n as f64`: the float type the value is converted to is a declaration too
                // (natively it may follow what the value meets: `(i as f64 * h).sin()` stored
                // into a knob).
                self.0.cast(&c.ty);
                self.visit_expr(&c.expr);
            }
            fn visit_type(&mut self, _: &'ast syn::Type) {
                // Generic arguments inside a written type (`let v: Vec<f64>`) are the
                // declaration's, which is marked as a whole.
            }
            fn visit_item(&mut self, item: &'ast syn::Item) {
                // A function declared in the body (`fn main() { fn f(x: f64) -> f64 { .. } }`):
                // the enclosing item's `#[fptune::tune]` reaches it, so its parameters, return
                // value and `let`s are knobs as a top-level function's are. Other nested items
                // (a `struct`, an `impl`) would need a marker of their own: not marked.
                if let syn::Item::Fn(f) = item {
                    if !skipped(&f.attrs) {
                        let at = self.0.item_start(&f.attrs, head(&f.vis, &f.sig));
                        self.0.signature(&f.sig, at);
                        self.0.body(&f.block);
                    }
                }
            }
        }
        impl<'ast> Lets<'_, '_> {
            /// A call's arguments: a closure's body is visited, its parameters are not marked.
            fn arguments(&mut self, args: &'ast syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>) {
                for a in args {
                    match a {
                        syn::Expr::Closure(c) => syn::visit::visit_expr_closure(self, c),
                        other => self.visit_expr(other),
                    }
                }
            }
        }
        Lets(self).visit_block(block);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splice::splice;

    #[test]
    fn every_float_declaration_is_marked_as_a_user_would() {
        let text = "/// Doc.\npub struct V3(f64, f64, usize);\npub(crate) const K: f32 = 1.0;\nconst K2: f32 = K * K;\nstruct P { x: f32, n: u8 }\nconst C: [f64; 2] = [1.0, 2.0];\ntype Real = f64;\nfn g(x: Real) -> Real { x }\npub fn h(a: f32) -> f32 { a }\n\
                    impl V3 {\n    fn dot(&self, o: &V3) -> f64 { let s: f64 = self.0 * o.0; s }\n}\n\
                    impl std::ops::Add for V3 {\n    type Output = V3;\n    fn add(self, o: V3) -> V3 { let k: f64 = 2.0; V3(self.0 + o.0 * k, self.1, 0) }\n}\n\
                    fn main() {\n    let v: Vec<f64> = vec![1.0];\n    let n: usize = v.len();\n    println!(\"{}\", v[0]);\n}\n\
                    #[cfg(test)]\nmod tests { fn t(x: f64) {} }\n";
        let out = splice(text, &markers(text)).expect("edits").text;
        assert!(out.contains("#[fptune::tune] /// Doc.\npub struct V3(#[tune] f64, #[tune] f64, usize);"), "{out}");
        assert!(out.contains("#[fptune::tune] struct P { #[tune] x: f32, n: u8 }"), "{out}");
        assert!(out.contains("#[fptune::tune] pub(crate) const K: f32"), "{out}");
        assert!(out.contains("\nconst K2: f32 = K * K;"), "{out}");
        assert!(out.contains("#[fptune::tune] const C"), "{out}");
        assert!(out.contains("#[fptune::tune] type Real = f64;"), "{out}");
        assert!(out.contains("#[fptune::tune(printed)] fn g(x: Real) -> Real"), "{out}");
        assert!(out.contains("#[fptune::tune(printed)] impl V3 {\n    #[tune] fn dot(&self, o: &V3) -> f64 { #[tune] let s: f64"), "{out}");
        assert!(out.contains("#[fptune::tune(printed)] #[tune] pub fn h(#[tune] a: f32) -> f32"), "{out}");
        assert!(out.contains("#[fptune::tune(printed)] impl std::ops::Add for V3 {\n    type Output = V3;\n    fn add(self, o: V3) -> V3 { #[tune] let k: f64"), "{out}");
        assert!(out.contains("#[fptune::tune(printed)] fn main() {\n    #[tune] let v: Vec<f64> = vec![1.0];\n    let n: usize"), "{out}");
        assert!(out.contains("#[cfg(test)]\nmod tests { fn t(x: f64) {} }"), "{out}");
        let text = "fn k() { let s = |t: f64| t * t; let r = v.iter().map(|x: f64| x).fold(0.0, |a: f64, x: f64| a + x); }\n";
        let out = splice(text, &markers(text)).expect("edits").text;
        let turbofish = "fn k() { let y = integrate::<f64>(1.0); let u: f64 = rng.gen::<f64>(); let r = Rule::<f64> { w: 0.5 }; let v: Vec<f64> = Vec::new(); let s = v.iter().sum::<f64>(); }\n";
        let out2 = splice(turbofish, &markers(turbofish)).expect("edits").text;
        assert!(out2.contains(".sum::<f64>()"), "a sum is in its items' format: {out2}");
        assert!(out2.contains("integrate::<::fptune::knob!(f64)>(1.0)") && out2.contains("rng.gen::<::fptune::knob!(f64)>()"), "{out2}");
        assert!(out2.contains("Rule::<::fptune::knob!(f64)> { w: 0.5 }") && out2.contains("#[tune] let v: Vec<f64> = Vec::new();"), "{out2}");
        let casts = "type Real = f64;\nfn k(n: usize) -> f64 { let h = 1.0 / (n as f64); let r = n as Real; (0..n).map(|i| (i as f64 * h).sin()).sum() }\n";
        let out3 = splice(casts, &markers(casts)).expect("edits").text;
        assert!(out3.contains("1.0 / (n as ::fptune::knob!(f64))") && out3.contains("(i as ::fptune::knob!(f64) * h).sin()"), "{out3}");
        assert!(out3.contains("let r = n as Real;"), "an alias is its own knob: {out3}");
        syn::parse_file(&out3).expect("parses");
        let nested = "fn main() {\n    fn f(x: f64) -> f64 {\n        let y: f64 = x * x;\n        y\n    }\n    let z: f64 = f(2.0);\n}\n";
        let out4 = splice(nested, &markers(nested)).expect("edits").text;
        assert!(out4.contains("    #[tune] fn f(#[tune] x: f64) -> f64 {\n        #[tune] let y: f64"), "{out4}");
        assert!(!out4.contains("#[fptune::tune(printed)] fn f"), "the enclosing item's macro reaches it: {out4}");
        let generic = "const I: Complex<f64> = Complex { re: 0.0, im: 1.0 };\nconst H: Complex<f64> = Complex::new(0.5, -0.0);\nconst T: Complex<f64> = Complex::new(H.re, 1.0);\n";
        let out5 = splice(generic, &markers(generic)).expect("edits").text;
        assert!(out5.contains("#[fptune::tune] const I") && out5.contains("#[fptune::tune] const H"), "{out5}");
        assert!(out5.contains("\nconst T"), "computed from another constant, it keeps its type: {out5}");
        let bits = "const B: f64 = f64::from_bits(4607182418800017408);\n";
        assert_eq!(splice(bits, &markers(bits)).expect("edits").text, bits);
        assert!(out.contains("let s = |#[tune] t: f64| t * t;") && out.contains("map(|x: f64| x).fold(0.0, |a: f64, x: f64| a + x)"), "{out}");
        syn::parse_file(&out).expect("parses");
    }
}

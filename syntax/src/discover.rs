//! Knob discovery in one tuned item: every knob its markers declare, in source order, with the
//! errors a user must see (a marker on no float, a group mixing declared types, ..).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Expr, FnArg, Item, Pat, Type};

use crate::{float_leaves, is_marker, parse_marker, type_text, Knob, KnobKind, Marker};

/// The knobs of one tuned item and the errors found in its markers.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Knobs in source order.
    pub knobs: Vec<Knob>,
    /// Errors at the user's tokens.
    pub errors: Vec<syn::Error>,
    /// Knobs marked on a `let` without a written type (`#[tune] let x = a * b;`): the float type
    /// rustc infers for them is theirs. The macro leaves them as they are (at their inferred
    /// type, the program is the user's); the tuner writes the type rustc gives them before it
    /// finds the knobs, and says where it cannot.
    pub untyped: Vec<Untyped>,
}

/// A knob marked on a `let` whose type is not written.
#[derive(Clone, Debug)]
pub struct Untyped {
    /// The variable.
    pub name: String,
    /// Its identifier.
    pub span: Span,
    /// Line (1-based) of the name.
    pub line: usize,
    /// Column (1-based) of the name.
    pub column: usize,
}

impl Discovery {
    /// All errors combined into one, if any.
    pub fn error(&self) -> Option<syn::Error> {
        let mut it = self.errors.iter().cloned();
        let mut first = it.next()?;
        for e in it {
            first.combine(e);
        }
        Some(first)
    }
}

/// How the tuned item was marked at its top: `#[fptune::tune]` with its arguments.
#[derive(Clone, Debug, Default)]
pub struct Top {
    /// The group given at the top (for a `type` alias, `static` or `const` marked directly).
    pub marker: Marker,
}

/// Finds every knob of a tuned item (the item carrying `#[fptune::tune]`, whose own attribute has
/// already been removed) and checks the markers. `top` is the item's own marker.
pub fn discover(item: &Item, top: &Top) -> Discovery {
    let mut d = Discoverer { aliases: tuned_aliases(item, top), ..Discoverer::default() };
    d.top_level(item, top);
    d.check_groups();
    Discovery { knobs: d.knobs, errors: d.errors, untyped: d.untyped }
}

/// Names of the type aliases that are knobs in `item` (marked inside it, or the item itself).
pub fn tuned_aliases(item: &Item, _top: &Top) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Item::Type(t) = item {
        out.insert(t.ident.to_string());
    }
    struct Aliases<'a>(&'a mut BTreeSet<String>);
    impl<'ast> Visit<'ast> for Aliases<'_> {
        fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
            if t.attrs.iter().any(is_marker) {
                self.0.insert(t.ident.to_string());
            }
        }
        fn visit_impl_item_type(&mut self, t: &'ast syn::ImplItemType) {
            if t.attrs.iter().any(is_marker) {
                self.0.insert(t.ident.to_string());
            }
        }
    }
    Aliases(&mut out).visit_item(item);
    out
}

#[derive(Default)]
struct Discoverer {
    knobs: Vec<Knob>,
    errors: Vec<syn::Error>,
    untyped: Vec<Untyped>,
    aliases: BTreeSet<String>,
    scope: Vec<String>,
}

impl Discoverer {
    fn top_level(&mut self, item: &Item, top: &Top) {
        match item {
            Item::Type(t) => {
                self.add(&t.ident, KnobKind::Alias, &t.ty, Some(top.marker.clone()), t.ident.span());
            }
            Item::Static(s) => {
                self.add(&s.ident, KnobKind::Static, &s.ty, Some(top.marker.clone()), s.ident.span());
            }
            Item::Const(c) => {
                self.add(&c.ident, KnobKind::Const, &c.ty, Some(top.marker.clone()), c.ident.span());
            }
            _ => {
                if let Some((_, span)) = &top.marker.group {
                    self.errors.push(syn::Error::new(
                        *span,
                        "`group` belongs on a knob: write `#[tune(group = \"..\")]` on the declarations inside",
                    ));
                }
                self.visit_item(item);
            }
        }
    }

    fn marker_of(&mut self, attrs: &[Attribute]) -> Option<Marker> {
        let mut found = None;
        for attr in attrs.iter().filter(|a| is_marker(a)) {
            if found.is_some() {
                self.errors.push(syn::Error::new_spanned(attr, "`#[tune]` is given twice"));
                continue;
            }
            match parse_marker(attr) {
                Ok(m) => found = Some(m),
                Err(e) => {
                    self.errors.push(e);
                    found = Some(Marker::default());
                }
            }
        }
        found
    }

    fn add(&mut self, name: &dyn ToTokens, kind: KnobKind, ty: &Type, marker: Option<Marker>, span: Span) {
        let Some(marker) = marker else { return };
        let leaves = float_leaves(ty, &self.aliases);
        let name = name.to_token_stream().to_string();
        if leaves.is_empty() {
            self.errors.push(syn::Error::new(
                ty.span(),
                format!(
                    "`#[tune]` marks a float: `{name}` has type `{}`, in which no float type \
                     (f64, f32, fptune::f16, fptune::bf16) is written",
                    type_text(ty)
                ),
            ));
            return;
        }
        let format = leaves.iter().find_map(|l| l.format);
        let start = span.start();
        self.knobs.push(Knob {
            name,
            kind,
            ty: type_text(ty),
            leaves,
            format,
            group: marker.group.map(|(g, _)| g),
            span,
            line: start.line,
            column: start.column + 1,
            scope: self.scope.join("::"),
        });
    }

    /// A knob per float name of a typed pattern ([`named_parts`]), or `refusal` at a pattern
    /// that names none that way.
    fn add_named_parts(&mut self, pt: &syn::PatType, kind: KnobKind, marker: Option<Marker>, refusal: &str) {
        match named_parts(&pt.pat, &pt.ty, &self.aliases) {
            Ok(parts) => {
                for (ident, ty) in parts {
                    self.add(ident, kind, ty, marker.clone(), ident.span());
                }
            }
            Err(at) => self.errors.push(syn::Error::new(at, refusal)),
        }
    }

    fn check_groups(&mut self) {
        let mut first: BTreeMap<&str, &Knob> = BTreeMap::new();
        let mut errors = Vec::new();
        for k in &self.knobs {
            let Some(g) = &k.group else { continue };
            match first.get(g.as_str()) {
                None => {
                    first.insert(g, k);
                }
                Some(f) if f.format != k.format || f.leaves.len() != k.leaves.len() => {
                    errors.push(syn::Error::new(
                        k.span,
                        format!(
                            "group `{g}` mixes declared types: `{}` is `{}` but `{}` (line {}) is `{}`; \
                             knobs of a group share one precision, so declare them with the same float type",
                            k.name, k.ty, f.name, f.line, f.ty
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        self.errors.extend(errors);
    }

    /// The knobs `fptune::knob!(T)` marks among the generic arguments given to `name`.
    fn instantiations(&mut self, name: &syn::Ident, args: &syn::AngleBracketedGenericArguments) {
        for a in &args.args {
            if let syn::GenericArgument::Type(t) = a {
                if let Some(inner) = crate::knob_type_marker(t) {
                    self.add(name, KnobKind::Instantiation, &inner, Some(Marker::default()), name.span());
                }
            }
        }
    }

    fn fn_sig(&mut self, attrs: &[Attribute], sig: &syn::Signature) {
        for input in &sig.inputs {
            match input {
                FnArg::Typed(pt) => {
                    let marker = self.marker_of(&pt.attrs);
                    if marker.is_none() {
                        continue;
                    }
                    match &*pt.pat {
                        Pat::Ident(pi) => {
                            let ty = crate::declared_type(&pt.ty, sig);
                            self.add(&pi.ident, KnobKind::Param, &ty, marker, pi.ident.span());
                        }
                        other => self.errors.push(syn::Error::new(
                            other.span(),
                            "a knob is one named parameter: write `#[tune] name: f64`",
                        )),
                    }
                }
                FnArg::Receiver(r) => {
                    if let Some(attr) = r.attrs.iter().find(|a| is_marker(a)) {
                        self.errors.push(syn::Error::new_spanned(attr, "`self` cannot be a knob"));
                    }
                }
            }
        }
        let marker = self.marker_of(attrs);
        if marker.is_some() {
            match &sig.output {
                syn::ReturnType::Type(_, ty) => {
                    self.add(&sig.ident, KnobKind::Return, ty, marker, sig.ident.span());
                }
                syn::ReturnType::Default => self.errors.push(syn::Error::new(
                    sig.ident.span(),
                    "`#[tune]` on a function marks its return value, and this function returns nothing",
                )),
            }
        }
    }
}

impl<'ast> Visit<'ast> for Discoverer {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.scope.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.scope.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.scope.push(f.sig.ident.to_string());
        self.fn_sig(&f.attrs, &f.sig);
        self.visit_block(&f.block);
        self.scope.pop();
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let name = match &*i.self_ty {
            Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            other => type_text(other),
        };
        self.scope.push(name);
        syn::visit::visit_item_impl(self, i);
        self.scope.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.scope.push(f.sig.ident.to_string());
        self.fn_sig(&f.attrs, &f.sig);
        self.visit_block(&f.block);
        self.scope.pop();
    }

    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        let m = self.marker_of(&c.attrs);
        self.add(&c.ident, KnobKind::Const, &c.ty, m, c.ident.span());
    }

    fn visit_impl_item_type(&mut self, t: &'ast syn::ImplItemType) {
        let m = self.marker_of(&t.attrs);
        self.add(&t.ident, KnobKind::Alias, &t.ty, m, t.ident.span());
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        self.scope.push(s.ident.to_string());
        for (i, field) in s.fields.iter().enumerate() {
            let m = self.marker_of(&field.attrs);
            if m.is_none() {
                continue;
            }
            match &field.ident {
                Some(id) => self.add(id, KnobKind::Field, &field.ty, m, id.span()),
                None => {
                    let index = syn::Index::from(i);
                    self.add(&index, KnobKind::Field, &field.ty, m, field.ty.span());
                }
            }
        }
        self.scope.pop();
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        let m = self.marker_of(&s.attrs);
        self.add(&s.ident, KnobKind::Static, &s.ty, m, s.ident.span());
        self.visit_expr(&s.expr);
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        let m = self.marker_of(&c.attrs);
        self.add(&c.ident, KnobKind::Const, &c.ty, m, c.ident.span());
        self.visit_expr(&c.expr);
    }

    fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
        let m = self.marker_of(&t.attrs);
        self.add(&t.ident, KnobKind::Alias, &t.ty, m, t.ident.span());
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let marker = self.marker_of(&local.attrs);
        if marker.is_some() {
            match &local.pat {
                Pat::Type(pt) => self.add_named_parts(
                    pt,
                    KnobKind::Let,
                    marker,
                    "a knob is a named variable, or a tuple of them with the tuple's type written: \
                     write `#[tune] let name: f64 = ...` or `#[tune] let (a, b): (f64, f64) = ...`",
                ),
                Pat::Ident(pi) => {
                    let start = pi.ident.span().start();
                    self.untyped.push(Untyped {
                        name: pi.ident.to_string(),
                        span: pi.ident.span(),
                        line: start.line,
                        column: start.column + 1,
                    });
                }
                other => self.errors.push(syn::Error::new(
                    other.span(),
                    "a knob is one named variable: write `#[tune] let name: f64 = ...`",
                )),
            }
        }
        syn::visit::visit_local(self, local);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        syn::visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        for arg in crate::expression_args(m).iter().flatten() {
            <Self as Visit<'_>>::visit_expr(self, arg);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        for seg in &p.segments {
            if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                self.instantiations(&seg.ident, a);
            }
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if let Some(t) = &m.turbofish {
            self.instantiations(&m.method, t);
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_cast(&mut self, c: &'ast syn::ExprCast) {
        if let Some(inner) = crate::knob_type_marker(&c.ty) {
            self.add(&c.as_token, KnobKind::Cast, &inner, Some(Marker::default()), c.as_token.span);
        }
        syn::visit::visit_expr_cast(self, c);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        for input in &c.inputs {
            let Pat::Type(pt) = input else { continue };
            let marker = self.marker_of(&pt.attrs);
            if marker.is_none() {
                continue;
            }
            self.add_named_parts(
                pt,
                KnobKind::Closure,
                marker,
                "a knob is a named parameter, or a tuple of them with the tuple's type written: \
                 write `|#[tune] name: f64| ..` or `|#[tune] (a, b): (f64, f64)| ..`",
            );
        }
        syn::visit::visit_expr_closure(self, c);
    }
}

/// The names a typed pattern declares, each with its part of the type: `x: f64`, and `(t, (u,
/// v)): (f64, (f32, usize))` part by part (`t: f64`, `u: f32`, `v: usize`: a part without a float
/// is no knob, and `_` declares nothing). Any other pattern is refused at its span.
pub fn named_parts<'a>(pat: &'a Pat, ty: &'a Type, aliases: &BTreeSet<String>) -> Result<Vec<(&'a syn::Ident, &'a Type)>, Span> {
    fn strip(ty: &Type) -> &Type {
        match ty {
            Type::Paren(p) => strip(&p.elem),
            Type::Group(g) => strip(&g.elem),
            other => other,
        }
    }
    match (pat, strip(ty)) {
        (Pat::Ident(pi), _) if pi.subpat.is_none() => Ok(vec![(&pi.ident, ty)]),
        (Pat::Wild(_), _) => Ok(Vec::new()),
        (Pat::Paren(p), _) => named_parts(&p.pat, ty, aliases),
        (Pat::Tuple(parts), Type::Tuple(types)) if parts.elems.len() == types.elems.len() && !parts.elems.is_empty() => {
            let mut out = Vec::new();
            for (p, t) in parts.elems.iter().zip(types.elems.iter()) {
                out.extend(named_parts(p, t, aliases)?.into_iter().filter(|(_, t)| !float_leaves(t, aliases).is_empty() || !matches!(p, Pat::Ident(_))));
            }
            Ok(out)
        }
        (other, _) => Err(other.span()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FloatFormat;

    fn knobs(src: &str) -> Discovery {
        let item: Item = syn::parse_str(src).expect("test source parses");
        discover(&item, &Top::default())
    }

    #[test]
    fn a_generic_argument_marked_knob_is_a_knob() {
        let d = knobs("fn f() { let y = integrate::<fptune::knob!(f64)>(1.0); let u = rng.gen::<knob!(f32)>(); let v = Vec::<f64>::new(); }");
        let c = knobs("fn f(n: usize) { let h = 1.0 / (n as fptune::knob!(f64)); let m = n as f64; }");
        let found: Vec<_> = c.knobs.iter().map(|k| (k.name.clone(), k.kind, k.format)).collect();
        assert_eq!(found, [("as".to_string(), KnobKind::Cast, Some(FloatFormat::F64))]);
        let found: Vec<(String, KnobKind, Option<FloatFormat>)> = d.knobs.iter().map(|k| (k.name.clone(), k.kind, k.format)).collect();
        assert_eq!(
            found,
            [("integrate".to_string(), KnobKind::Instantiation, Some(FloatFormat::F64)), ("gen".to_string(), KnobKind::Instantiation, Some(FloatFormat::F32))]
        );
    }

    #[test]
    fn a_closure_parameter_with_its_type_written_is_a_knob() {
        let d = knobs("fn f() { let g = |#[tune] t: f64, u: f64| t * u; let h = |#[tune] (a, b): (f64, f64)| a; let k = |#[tune] [a, b]: [f64; 2]| a; }");
        let found: Vec<(String, KnobKind)> = d.knobs.iter().map(|k| (k.name.clone(), k.kind)).collect();
        let closure = |n: &str| (n.to_string(), KnobKind::Closure);
        assert_eq!(found, [closure("t"), closure("a"), closure("b")]);
        assert_eq!(d.errors.len(), 1, "a slice pattern is no knob: {:?}", d.errors);
    }

    #[test]
    fn a_closure_parameter_in_an_expression_macros_arguments_is_a_knob() {
        let d = knobs("fn f() { let v = vec![P { f: Box::new(|#[tune] x: f64| x) }]; println!(\"{}\", (|#[tune] y: f32| y)(1.0)); }");
        let found: Vec<&str> = d.knobs.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(found, ["x", "y"]);
    }

    #[test]
    fn a_tuple_let_with_its_type_written_is_a_knob_per_float_name() {
        let d = knobs("fn f() { #[tune] let (mut t, (y, _), n): (f64, (f32, f64), usize) = (0.0, (1.0, 2.0), 3); }");
        let found: Vec<(String, String)> = d.knobs.iter().map(|k| (k.name.clone(), k.ty.clone())).collect();
        assert_eq!(found, [("t".to_string(), "f64".to_string()), ("y".to_string(), "f32".to_string())]);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let d = knobs("fn f() { #[tune] let (a, b) = g(); }");
        assert_eq!(d.errors.len(), 1, "an untyped tuple: {:?}", d.errors);
    }

    #[test]
    fn every_marking_site_is_a_knob() {
        let d = knobs(
            r#"mod k {
                #[tune] type Real = f64;
                pub struct S { #[tune] a: f32, b: f64, #[tune(group = "g")] c: Vec<f64> }
                #[tune] static SCALE: f64 = 2.0;
                #[tune] fn f(#[tune] x: &[f64], #[tune(group = "g")] y: Vec<f64>) -> f64 {
                    #[tune] let mut h: Vec<Vec<f64>> = vec![];
                    #[tune] let d: [fptune::f16; 3] = [fptune::f16::ZERO; 3];
                    #[tune] let r: Real = 1.0;
                    0.0
                }
            }"#,
        );
        assert!(d.errors.is_empty(), "{:?}", d.error());
        let names: Vec<(String, KnobKind)> = d.knobs.iter().map(|k| (k.name.clone(), k.kind)).collect();
        assert_eq!(
            names,
            vec![
                ("Real".into(), KnobKind::Alias),
                ("a".into(), KnobKind::Field),
                ("c".into(), KnobKind::Field),
                ("SCALE".into(), KnobKind::Static),
                ("x".into(), KnobKind::Param),
                ("y".into(), KnobKind::Param),
                ("f".into(), KnobKind::Return),
                ("h".into(), KnobKind::Let),
                ("d".into(), KnobKind::Let),
                ("r".into(), KnobKind::Let),
            ]
        );
        let d_knob = &d.knobs[8];
        assert_eq!(d_knob.format, Some(FloatFormat::F16));
        assert_eq!(d_knob.ty, "[fptune::f16; 3]");
        assert_eq!(d.knobs[7].ty, "Vec<Vec<f64>>");
        assert_eq!(d.knobs[4].ty, "&[f64]");
        assert_eq!(d.knobs[9].leaves[0].alias.as_deref(), Some("Real"));
        assert_eq!(d.knobs[7].scope, "k::f");
    }

    #[test]
    fn a_non_float_knob_is_an_error_at_its_type() {
        let d = knobs("fn f() { #[tune] let n: usize = 3; }");
        let e = d.error().expect("an error");
        assert!(e.to_string().contains("`n` has type `usize`"), "{e}");
    }

    #[test]
    fn a_let_knob_without_its_type_written_is_the_type_rustc_infers() {
        let d = knobs("fn f() { #[tune] let x = 3.0; }");
        assert!(d.error().is_none());
        assert!(d.knobs.is_empty());
        assert_eq!(d.untyped.iter().map(|u| (u.name.as_str(), u.line, u.column)).collect::<Vec<_>>(), [("x", 1, 22)]);
    }

    #[test]
    fn unknown_arguments_and_conflicting_groups_are_errors() {
        let d = knobs("fn f() { #[tune(precision = 3)] let x: f64 = 1.0; }");
        assert!(d.error().expect("an error").to_string().contains("unknown argument `precision`"));
        let d = knobs(
            r#"fn f() { #[tune(group = "g")] let x: f64 = 1.0; #[tune(group = "g")] let y: f32 = 1.0; }"#,
        );
        assert!(d.error().expect("an error").to_string().contains("group `g` mixes declared types"));
    }
}

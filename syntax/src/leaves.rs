//! Which types are floats, and where in a declared type the float format is written (its leaves:
//! `f64` in `Vec<f64>`), so the tuner can rewrite exactly there.

use std::collections::BTreeSet;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

use fptune_spec::{Encoding, Overflow, Spec};

use crate::FloatFormat;

/// Where a float format is written inside a type.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// The format written there, or `None` for the name of a tuned type alias.
    pub format: Option<FloatFormat>,
    /// The alias name when `format` is `None`.
    pub alias: Option<String>,
    /// The tokens of the leaf (the whole path, e.g. `fptune::f16`).
    pub span: Span,
    /// Start and end of the leaf as (line, column), 1-based line, 0-based column.
    pub start: (usize, usize),
    /// End of the leaf.
    pub end: (usize, usize),
}

/// The probe build's knob type `::fptune::__rt::Probe<F, K>`, and the single build's
/// `::fptune::__rt::Knob<F, K>`: a float of format `F`.
fn probe_format(path: &syn::Path) -> Option<FloatFormat> {
    let last = path.segments.last()?;
    if last.ident != "Probe" && last.ident != "Knob" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        GenericArgument::Type(Type::Path(p)) if p.qself.is_none() => is_float_path(&p.path),
        _ => None,
    }
}

/// A format beyond the four, as fptune spells it: `fptune::Fx<E, M>` or `fptune::Fx<E, M, FLAGS>`
/// (integer literals), `fptune::E4M3`, `fptune::E5M2`, `fptune::TF32` (with or without a leading
/// `::`).
pub fn custom_format(path: &syn::Path) -> Option<FloatFormat> {
    let segs = &path.segments;
    if segs.len() != 2 || segs[0].ident != "fptune" || !segs[0].arguments.is_none() {
        return None;
    }
    let last = &segs[1];
    let spec = match (last.ident.to_string().as_str(), &last.arguments) {
        ("E4M3", PathArguments::None) => Spec::E4M3,
        ("E5M2", PathArguments::None) => Spec::E5M2,
        ("TF32", PathArguments::None) => Spec::TF32,
        ("Fx", PathArguments::AngleBracketed(args)) => {
            let numbers: Option<Vec<u32>> = args
                .args
                .iter()
                .map(|a| match a {
                    GenericArgument::Const(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) => i.base10_parse().ok(),
                    GenericArgument::Type(Type::Path(t)) => t.path.get_ident().and_then(|i| i.to_string().parse().ok()),
                    _ => None,
                })
                .collect();
            match numbers?.as_slice() {
                &[e, m] => Spec::new(e, m, Encoding::Ieee, Overflow::Special, false).ok()?,
                &[e, m, flags] if flags < 8 => {
                    let s = Spec::new(e, m, Encoding::Ieee, Overflow::Special, false).ok()?;
                    fptune_spec::spec_of(s.exp_bits, s.man_bits, flags)
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(FloatFormat::of(spec))
}

fn is_float_path(path: &syn::Path) -> Option<FloatFormat> {
    if let Some(custom) = custom_format(path) {
        return Some(custom);
    }
    let last = path.segments.last()?;
    if !last.arguments.is_none() {
        return probe_format(path);
    }
    let name = last.ident.to_string();
    let format = FloatFormat::from_ident(&name)?;
    // `f64`/`f32` are primitives only when written alone (or as core::primitive::f64);
    // `f16`/`bf16` are `half`'s types under any path (`fptune::f16`, `half::f16`, `f16`).
    match format {
        FloatFormat::F64 | FloatFormat::F32 => {
            let alone = path.segments.len() == 1 && path.leading_colon.is_none();
            (alone || primitive_path(path)).then_some(format)
        }
        _ => Some(format),
    }
}

/// The format of `ty` when `ty` itself is a float type (`f64`, `fptune::f16`, a probe type), not
/// a container of floats.
pub fn float_type(ty: &Type) -> Option<FloatFormat> {
    match ty {
        Type::Path(p) if p.qself.is_none() => is_float_path(&p.path),
        Type::Paren(p) => float_type(&p.elem),
        Type::Group(g) => float_type(&g.elem),
        _ => None,
    }
}

/// Every place in `ty` where a float format (or the name of one of `aliases`) is written, in
/// source order. Generic arguments, arrays, slices, references, tuples are looked through.
pub fn float_leaves(ty: &Type, aliases: &BTreeSet<String>) -> Vec<Leaf> {
    let mut out = Vec::new();
    collect_leaves(ty, aliases, &mut out);
    out
}

fn leaf(span: Span, format: Option<FloatFormat>, alias: Option<String>) -> Leaf {
    let (s, e) = (span.start(), span.end());
    Leaf { format, alias, span, start: (s.line, s.column), end: (e.line, e.column) }
}

fn collect_leaves(ty: &Type, aliases: &BTreeSet<String>, out: &mut Vec<Leaf>) {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if let Some(format) = is_float_path(&p.path) {
                out.push(leaf(p.span(), Some(format), None));
                return;
            }
            if p.path.segments.len() == 1 && p.path.leading_colon.is_none() {
                let name = p.path.segments[0].ident.to_string();
                if aliases.contains(&name) && p.path.segments[0].arguments.is_none() {
                    out.push(leaf(p.span(), None, Some(name)));
                    return;
                }
            }
            for seg in &p.path.segments {
                path_arguments(&seg.arguments, aliases, out);
            }
        }
        // `dyn Fn(f64) -> f64`, `impl Fn(f64) -> f64`, `fn(f64) -> f64`: a callable's parameter
        // and result types are declarations of the signature that writes them (one knob for all
        // of them: a closure given there has them all).
        Type::TraitObject(t) => bounds(&t.bounds, aliases, out),
        Type::ImplTrait(t) => bounds(&t.bounds, aliases, out),
        Type::BareFn(f) => {
            f.inputs.iter().for_each(|a| collect_leaves(&a.ty, aliases, out));
            if let syn::ReturnType::Type(_, t) = &f.output {
                collect_leaves(t, aliases, out);
            }
        }
        Type::Array(a) => collect_leaves(&a.elem, aliases, out),
        Type::Slice(s) => collect_leaves(&s.elem, aliases, out),
        Type::Reference(r) => collect_leaves(&r.elem, aliases, out),
        Type::Ptr(p) => collect_leaves(&p.elem, aliases, out),
        Type::Paren(p) => collect_leaves(&p.elem, aliases, out),
        Type::Group(g) => collect_leaves(&g.elem, aliases, out),
        Type::Tuple(t) => t.elems.iter().for_each(|e| collect_leaves(e, aliases, out)),
        _ => {}
    }
}

/// The leaves of a path segment's arguments: `<f64, T>`, and `Fn`'s `(f64, f64) -> f64`.
fn path_arguments(args: &PathArguments, aliases: &BTreeSet<String>, out: &mut Vec<Leaf>) {
    match args {
        PathArguments::AngleBracketed(args) => {
            for arg in &args.args {
                if let GenericArgument::Type(t) = arg {
                    collect_leaves(t, aliases, out);
                }
            }
        }
        PathArguments::Parenthesized(p) => {
            p.inputs.iter().for_each(|t| collect_leaves(t, aliases, out));
            if let syn::ReturnType::Type(_, t) = &p.output {
                collect_leaves(t, aliases, out);
            }
        }
        PathArguments::None => {}
    }
}

/// The leaves of a trait object's or `impl Trait`'s bounds (`dyn Fn(f64) -> f64 + Send`).
fn bounds(bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>, aliases: &BTreeSet<String>, out: &mut Vec<Leaf>) {
    for b in bounds {
        if let syn::TypeParamBound::Trait(t) = b {
            for seg in &t.path.segments {
                path_arguments(&seg.arguments, aliases, out);
            }
        }
    }
}

/// The parameter types of a callable type, when `ty` is one: `impl Fn(f64) -> f64`, `&dyn
/// FnMut(f64, f64) -> f64`, `Box<dyn Fn(f64) -> f64 + Send>`, `fn(f64) -> f64`, through
/// references, parentheses and the smart pointers that call through (`Box`, `Rc`, `Arc`).
/// `generic` names the item's type parameters bounded by a callable (`F: Fn(f64) -> f64`), with
/// that bound's parameters.
pub fn callable_parameters(ty: &Type, generic: &dyn Fn(&str) -> Option<Vec<Type>>) -> Option<Vec<Type>> {
    fn of_bounds<'a>(bounds: impl IntoIterator<Item = &'a syn::TypeParamBound>) -> Option<Vec<Type>> {
        bounds.into_iter().find_map(|b| match b {
            syn::TypeParamBound::Trait(t) => fn_arguments(&t.path),
            _ => None,
        })
    }
    match ty {
        Type::Reference(r) => callable_parameters(&r.elem, generic),
        Type::Paren(p) => callable_parameters(&p.elem, generic),
        Type::Group(g) => callable_parameters(&g.elem, generic),
        Type::TraitObject(t) => of_bounds(&t.bounds),
        Type::ImplTrait(t) => of_bounds(&t.bounds),
        Type::BareFn(f) => Some(f.inputs.iter().map(|a| a.ty.clone()).collect()),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if p.path.segments.len() == 1 && last.arguments.is_none() {
                return generic(&last.ident.to_string());
            }
            if !matches!(last.ident.to_string().as_str(), "Box" | "Rc" | "Arc") {
                return None;
            }
            match &last.arguments {
                PathArguments::AngleBracketed(args) => match args.args.first() {
                    Some(GenericArgument::Type(t)) => callable_parameters(t, generic),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// The type whose floats a function's parameter declares: its written type, or, for a type
/// parameter bounded by a callable that this parameter alone names (`fn secant<G: Fn(f64) ->
/// f64>(g: G, ..)`, also `&G` and in a `where` clause), that bound as `impl Fn(f64) -> f64`: its
/// floats are the parameter's, as they are of `g: impl Fn(f64) -> f64`.
pub fn declared_type<'a>(ty: &'a Type, sig: &syn::Signature) -> std::borrow::Cow<'a, Type> {
    use std::borrow::Cow;
    let mut inner = ty;
    while let Type::Reference(r) = inner {
        inner = &r.elem;
    }
    let Type::Path(p) = inner else { return Cow::Borrowed(ty) };
    let Some(name) = p.path.get_ident() else { return Cow::Borrowed(ty) };
    let Some(bound) = callable_bounds(&sig.generics).remove(&name.to_string()) else { return Cow::Borrowed(ty) };
    // Named by one parameter only (and not the result): the bound's floats are that
    // parameter's alone.
    let named = |t: &Type| quote::ToTokens::to_token_stream(t).into_iter().any(|tok| matches!(tok, proc_macro2::TokenTree::Ident(i) if &i == name));
    let uses = sig.inputs.iter().filter(|a| matches!(a, syn::FnArg::Typed(pt) if named(&pt.ty))).count();
    let in_result = matches!(&sig.output, syn::ReturnType::Type(_, t) if named(t));
    if uses != 1 || in_result {
        return Cow::Borrowed(ty);
    }
    Cow::Owned(Type::ImplTrait(syn::TypeImplTrait { impl_token: Default::default(), bounds: std::iter::once(bound).collect() }))
}

/// The type parameters of `generics` bounded by a callable (`F: Fn(f64) -> f64`, inline or in
/// the `where` clause), each with that bound.
pub fn callable_bounds(generics: &syn::Generics) -> std::collections::HashMap<String, syn::TypeParamBound> {
    let fn_bound = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds.iter().find(|b| matches!(b, syn::TypeParamBound::Trait(t) if fn_arguments(&t.path).is_some())).cloned()
    };
    let mut out = std::collections::HashMap::new();
    for p in generics.type_params() {
        if let Some(b) = fn_bound(&p.bounds) {
            out.entry(p.ident.to_string()).or_insert(b);
        }
    }
    for pred in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        if let syn::WherePredicate::Type(t) = pred {
            if let (Type::Path(p), Some(b)) = (&t.bounded_ty, fn_bound(&t.bounds)) {
                if let Some(id) = p.path.get_ident() {
                    out.entry(id.to_string()).or_insert(b);
                }
            }
        }
    }
    out
}

/// `Fn(f64, f64) -> f64` (also `FnMut`, `FnOnce`, a path to them): its parameter types.
pub fn fn_arguments(path: &syn::Path) -> Option<Vec<Type>> {
    let last = path.segments.last()?;
    if !matches!(last.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce") {
        return None;
    }
    match &last.arguments {
        PathArguments::Parenthesized(p) => Some(p.inputs.iter().cloned().collect()),
        _ => None,
    }
}

/// Whether values of `ty` can be converted on a store: a float (or tuned alias), or a `Vec`,
/// array or `Box` of such values, by value. References and slices are not (a borrowed buffer
/// cannot change type, which is what couples knobs).
pub fn is_storable_float(ty: &Type, aliases: &BTreeSet<String>) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if is_float_path(&p.path).is_some() {
                return true;
            }
            let Some(last) = p.path.segments.last() else { return false };
            if p.path.segments.len() == 1 && last.arguments.is_none() {
                return aliases.contains(&last.ident.to_string());
            }
            if last.ident == "Vec" || last.ident == "Box" {
                if let PathArguments::AngleBracketed(args) = &last.arguments {
                    if let Some(GenericArgument::Type(t)) = args.args.first() {
                        return is_storable_float(t, aliases);
                    }
                }
            }
            false
        }
        Type::Array(a) => is_storable_float(&a.elem, aliases),
        Type::Paren(p) => is_storable_float(&p.elem, aliases),
        Type::Group(g) => is_storable_float(&g.elem, aliases),
        Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(|e| is_storable_float(e, aliases)),
        _ => false,
    }
}

/// A primitive named by its full path, `core::primitive::f64` (also `::core::..`, `std::..`, and
/// `fptune::__rt::primitive::f64`, which the tuner writes as it resolves in every edition): the
/// way to keep a float primitive in the stochastic build.
pub fn primitive_path(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    matches!(names.iter().map(String::as_str).collect::<Vec<_>>().as_slice(), ["core" | "std", "primitive", _] | ["fptune", "__rt", "primitive", _])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_point_at_the_float_inside_the_type() {
        let ty: Type = syn::parse_str("Vec<(f64, usize, fptune::f16)>").expect("type parses");
        let leaves = float_leaves(&ty, &BTreeSet::new());
        assert_eq!(leaves.len(), 2);
        assert_eq!(leaves[0].format, Some(FloatFormat::F64));
        assert_eq!(leaves[1].format, Some(FloatFormat::F16));
        assert!(is_storable_float(&syn::parse_str("Vec<Vec<f32>>").expect("type"), &BTreeSet::new()));
        assert!(!is_storable_float(&syn::parse_str("&[f32]").expect("type"), &BTreeSet::new()));
        assert!(is_storable_float(&syn::parse_str("(Vec<f64>, f32)").expect("type"), &BTreeSet::new()));
        assert!(!is_storable_float(&syn::parse_str("(f64, usize)").expect("type"), &BTreeSet::new()));
    }

    #[test]
    fn a_callables_parameters_and_result_are_leaves_of_the_type_that_writes_them() {
        for (written, n) in [("&dyn Fn(f64, f64) -> f64", 3), ("Box<dyn FnMut(f32) -> f32 + Send>", 2), ("fn(f64) -> (f64, usize)", 2), ("impl Fn(usize) -> f64", 1)] {
            let ty: Type = syn::parse_str(written).expect("type parses");
            assert_eq!(float_leaves(&ty, &BTreeSet::new()).len(), n, "{written}");
        }
    }

    #[test]
    fn a_callables_parameters_are_found_through_pointers_and_bounds() {
        let none = |_: &str| None;
        for (written, n) in [("&dyn Fn(f64, f64) -> f64", 2), ("Box<dyn FnMut(f32) -> f32 + Send>", 1), ("fn(f64, usize) -> f64", 2), ("impl Fn(usize) -> f64", 1), ("&mut std::rc::Rc<dyn Fn(f64)>", 1)] {
            let ty: Type = syn::parse_str(written).expect("type parses");
            assert_eq!(callable_parameters(&ty, &none).map(|p| p.len()), Some(n), "{written}");
        }
        let ty: Type = syn::parse_str("&F").expect("type parses");
        let f64_ty: Type = syn::parse_str("f64").expect("type parses");
        let generic = |name: &str| (name == "F").then(|| vec![f64_ty.clone()]);
        assert_eq!(callable_parameters(&ty, &generic).map(|p| p.len()), Some(1));
        for written in ["Vec<f64>", "f64", "Box<f64>", "G"] {
            let ty: Type = syn::parse_str(written).expect("type parses");
            assert!(callable_parameters(&ty, &generic).is_none(), "{written}");
        }
    }

    #[test]
    fn a_parameter_of_a_type_bounded_by_a_callable_declares_the_bounds_floats() {
        let sig: syn::Signature = syn::parse_str("fn secant<G: Fn(f64) -> f64, H>(g: &G, h: H, x: f64) -> f64 where H: FnMut(f32) -> f32").expect("signature");
        let params: Vec<Type> = sig.inputs.iter().filter_map(|a| match a { syn::FnArg::Typed(pt) => Some((*pt.ty).clone()), _ => None }).collect();
        let leaves: Vec<usize> = params.iter().map(|t| float_leaves(&declared_type(t, &sig), &BTreeSet::new()).len()).collect();
        assert_eq!(leaves, [2, 2, 1]);
        // Two parameters of one type parameter, or the result: the bound is no one's.
        for written in ["fn f<G: Fn(f64) -> f64>(a: G, b: G)", "fn f<G: Fn(f64) -> f64>(a: G) -> G"] {
            let sig: syn::Signature = syn::parse_str(written).expect("signature");
            let Some(syn::FnArg::Typed(pt)) = sig.inputs.first() else { panic!() };
            assert!(float_leaves(&declared_type(&pt.ty, &sig), &BTreeSet::new()).is_empty(), "{written}");
        }
    }

    #[test]
    fn a_probe_type_is_one_float_of_its_format() {
        let ty: Type = syn::parse_str("Vec<::fptune::__rt::Probe<f32, 7>>").expect("type");
        let leaves = float_leaves(&ty, &BTreeSet::new());
        assert_eq!(leaves.len(), 1);
        assert_eq!(leaves[0].format, Some(FloatFormat::F32));
        assert!(is_storable_float(&ty, &BTreeSet::new()));
    }
}

#[cfg(test)]
mod custom_tests {
    use super::*;

    #[test]
    fn formats_beyond_the_four_are_floats_where_fptune_spells_them() {
        let ty = |s: &str| -> Type { syn::parse_str(s).expect("a type") };
        let f = |s: &str| float_type(&ty(s)).map(|f| f.to_string());
        assert_eq!(f("fptune::E4M3").as_deref(), Some("e4m3"));
        assert_eq!(f("::fptune::TF32").as_deref(), Some("tf32"));
        assert_eq!(f("fptune::Fx<11, 40>").as_deref(), Some("e11m40"));
        assert_eq!(f("fptune::Fx<4, 3, 5>").as_deref(), Some("e4m3-sat"));
        assert_eq!(f("fptune::Fx<8, 23, 2>").as_deref(), Some("f32-ftz"));
        assert_eq!(f("fptune::Fx<12, 3>"), None, "out of range");
        assert_eq!(f("other::Fx<4, 3>"), None, "another crate's Fx");
        let leaves = float_leaves(&ty("Vec<fptune::Fx<11, 30>>"), &BTreeSet::new());
        assert_eq!(leaves.len(), 1);
        assert_eq!(leaves[0].format.map(|f| f.rust().into_owned()).as_deref(), Some("fptune::Fx<11, 30>"));
    }
}

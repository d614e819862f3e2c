//! The arguments of formatting macros. Every value a formatting macro of a marked item formats
//! is passed as `Shown(&value)`, which formats as the value does but gives the 16-bit formats the
//! caller's flags in `{:e}` (`fptune::__rt::Shown`). Printed results
//! (`#[fptune::tune(printed)]`): every value of `print!`, `println!`, `write!`, `writeln!` and
//! `format!` is also recorded as a checked result when the run asks for printed results (a
//! `format!`ted float is what a program prints through a `String`: `println!("{}", s)`,
//! `.join(", ")`; one it never prints is checked all the same, which is stricter, never looser).
//!
//! ```text
//! println!("{} {x:.3} {:>1$}", a, w, n)
//!   -> println!("{} {x:.3} {:>1$}", Shown(match &a { v => { (&&printing(v)).__fp_printed(NAME); v } }), w,
//!               Shown(match &n { .. }), x = Shown(match &x { .. }))
//! eprintln!("{:e}", a) -> eprintln!("{:e}", Shown(&(a)))
//! ```
//!
//! The format string is read to tell values from counts: an argument used as a width or a
//! precision (`1$`, `.*`, `prec$`) is a count and is passed as written, as is one formatted as a
//! pointer (`{:p}`, whose reference would print another address). Implicit captures (`{x}`)
//! become named arguments. A format string that is not a literal, or one this module cannot
//! read, leaves the call as it is. What is recorded is decided by the value's type, at the call
//! (`fptune::__rt::Printed`): floats of every kind, and `Vec`s, arrays, slices and references of
//! them; other types are formatted only.

use std::collections::BTreeSet;

use proc_macro2::Span;
use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Token};

/// The formatting macros, the index of their format string, and whether what they format is a
/// printed result (stdout, a writer, a `String`: not stderr).
pub fn format_index(name: &str) -> Option<(usize, bool)> {
    match name {
        "print" | "println" | "format" => Some((0, true)),
        "write" | "writeln" => Some((1, true)),
        "eprint" | "eprintln" => Some((0, false)),
        _ => None,
    }
}

/// One `{..}` of a format string: what it formats and what it reads as counts.
#[derive(Debug, Default, PartialEq, Eq)]
struct Placeholder {
    /// The argument formatted.
    value: Arg,
    /// `{:p}`.
    pointer: bool,
    /// Arguments read as a width or a precision.
    counts: Vec<Arg>,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
enum Arg {
    #[default]
    None,
    Index(usize),
    Name(String),
}

/// The placeholders of a format string, or `None` when it cannot be read.
fn placeholders(fmt: &str) -> Option<Vec<Placeholder>> {
    let mut out = Vec::new();
    let mut chars = fmt.chars().peekable();
    let mut next = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
            }
            '}' => return None,
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        c => inner.push(c),
                    }
                }
                let (arg, spec) = match inner.split_once(':') {
                    Some((a, s)) => (a.trim(), s),
                    None => (inner.trim(), ""),
                };
                let mut p = Placeholder::default();
                // `.*`: the precision is the next positional argument, read before the value.
                let star = spec.contains(".*");
                if star {
                    p.counts.push(Arg::Index(next));
                    next += 1;
                }
                p.value = if arg.is_empty() {
                    next += 1;
                    Arg::Index(next - 1)
                } else if let Ok(i) = arg.parse() {
                    Arg::Index(i)
                } else {
                    Arg::Name(arg.to_string())
                };
                // `N$` and `name$` counts in the spec.
                let mut word = String::new();
                for ch in spec.chars() {
                    if ch == '$' {
                        let w = word.trim_start_matches(['.', '0', '<', '>', '^', '+', '-', '#']).to_string();
                        let w = if w.is_empty() { word.trim_start_matches('.').to_string() } else { w };
                        p.counts.push(match w.parse() {
                            Ok(i) => Arg::Index(i),
                            Err(_) => Arg::Name(w),
                        });
                        word.clear();
                    } else if ch.is_alphanumeric() || ch == '_' {
                        word.push(ch);
                    } else {
                        word.clear();
                        if ch == '.' {
                            word.push('.');
                        }
                    }
                }
                p.pointer = spec.ends_with('p');
                out.push(p);
            }
            _ => {}
        }
    }
    Some(out)
}

/// `match &e { v => { (&&printing(v)).__fp_printed(NAME); v } }`, at `e`'s place; `NAME` is
/// `written`'s text, the expression as the user wrote it (every build names it alike, however it
/// rewrote it).
fn recorded(e: &Expr, written: &Expr, span: Span) -> Expr {
    let name = user_text(written);
    syn::parse_quote_spanned!(span=> match &(#e) {
        __fptune_printed => {
            #[allow(unused_imports)]
            use ::fptune::__rt::prelude::*;
            (&&::fptune::__rt::printing(__fptune_printed))
                .__fp_printed(::fptune::__rt::concat!("printed ", ::fptune::__rt::file!(), ":", ::fptune::__rt::line!(), " ", #name));
            __fptune_printed
        }
    })
}

/// `written`'s text with what fptune wrote into the sources before this macro undone: the
/// elaborated literal `::fptune::__rt::lit::<T>(1.0f64, 1.0f32)` is `1.0`, a heal's conversion
/// (`to_stochastic(e)`, `<_ as Store<T>>::store(e)`, `Stochastic::<F>::constant(e)`) is `e`, its
/// cast `cast::<T, _>(e)` is `e as T`, a knob's or a kept primitive's type is its float. Builds
/// of one configuration heal differently (the single build, a configuration's own build), and
/// the name of a printed value must not tell them apart; nor should the report show them.
fn user_text(written: &Expr) -> String {
    struct Undo;
    fn fptune_path(p: &syn::Path) -> Option<String> {
        let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        (names.first().map(String::as_str) == Some("fptune")).then(|| names.last().cloned()).flatten()
    }
    fn float_of(args: &syn::PathArguments) -> Option<syn::Type> {
        match args {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            }),
            _ => None,
        }
    }
    impl syn::visit_mut::VisitMut for Undo {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            // A lent copy, its conversion undone: `& &(e)[..]` is `e`.
            if let Expr::Reference(outer) = e {
                if let Expr::Reference(inner) = &*outer.expr {
                    if let Expr::Index(ix) = &*inner.expr {
                        if let (Expr::Paren(base), Expr::Range(r)) = (&*ix.expr, &*ix.index) {
                            if r.start.is_none() && r.end.is_none() {
                                *e = (*base.expr).clone();
                                return;
                            }
                        }
                    }
                }
            }
            let Expr::Call(call) = e else { return };
            let Expr::Path(f) = &*call.func else { return };
            let first = call.args.first().cloned();
            let unwrapped = match (&f.qself, fptune_path(&f.path).as_deref(), first) {
                // `<_ as ::fptune::__rt::Store<T>>::store(e)`.
                (Some(q), Some("store"), Some(a)) if matches!(&*q.ty, syn::Type::Infer(_)) => Some(a),
                (None, Some("lit" | "typed_lit" | "lit_like"), Some(first)) if call.args.len() <= 3 => {
                    // `lit_like(&(s), d, s)`: the literal is the second argument.
                    let literal = if call.args.len() == 3 { call.args.iter().nth(1).cloned() } else { Some(first) };
                    let Some(Expr::Lit(mut l)) = literal else { return };
                    // `1.0f64`, or `2f64` (an integer token with a float suffix).
                    let digits = match &l.lit {
                        syn::Lit::Float(x) => Some(x.base10_digits().to_string()),
                        syn::Lit::Int(x) => Some(x.base10_digits().to_string()),
                        _ => None,
                    };
                    if let Some(digits) = digits {
                        let text = if digits.contains(['.', 'e', 'E']) { digits } else { format!("{digits}.0") };
                        l.lit = syn::Lit::Float(syn::LitFloat::new(&text, l.lit.span()));
                    }
                    Some(Expr::Lit(l))
                }
                (None, Some("to_stochastic" | "to_native" | "constant"), Some(a)) => Some(a),
                (None, Some("cast"), Some(a)) => {
                    let ty = f.path.segments.last().and_then(|s| float_of(&s.arguments));
                    ty.map(|ty| syn::parse_quote!(#a as #ty))
                }
                _ => None,
            };
            if let Some(u) = unwrapped {
                *e = u;
            }
        }
        fn visit_type_mut(&mut self, t: &mut syn::Type) {
            syn::visit_mut::visit_type_mut(self, t);
            let syn::Type::Path(p) = t else { return };
            if p.qself.is_some() {
                return;
            }
            let last = p.path.segments.last().cloned();
            let float = match (fptune_path(&p.path).as_deref(), last) {
                (Some("Knob" | "Probe" | "Stochastic"), Some(s)) => float_of(&s.arguments),
                (Some(name @ ("f64" | "f32" | "f16" | "bf16")), _) => syn::parse_str(name).ok(),
                (Some(name @ ("Sf64" | "Sf32" | "Sf16" | "Sbf16")), _) => syn::parse_str(&name[1..]).ok(),
                _ => None,
            };
            if let Some(f) = float {
                *t = f;
            }
        }
    }
    let mut e = written.clone();
    syn::visit_mut::VisitMut::visit_expr_mut(&mut Undo, &mut e);
    e.to_token_stream().to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `Shown(&(e))`, or `Shown(recorded)` when the value is recorded too.
fn shown(e: &Expr, written: &Expr, record: bool, span: Span) -> Expr {
    let inner: Expr = if record { recorded(e, written, span) } else { syn::parse_quote_spanned!(span=> &(#e)) };
    syn::parse_quote_spanned!(span=> ::fptune::__rt::Shown(#inner))
}

/// Rewrites the arguments of a formatting macro (already split, format string at `at`): each value
/// shown, and recorded when `record`; implicit captures added as named arguments; `written` are
/// the arguments as the user wrote them, which name the records. `None` leaves the call as it is.
pub fn rewrite(
    args: &syn::punctuated::Punctuated<Expr, Token![,]>,
    written: &syn::punctuated::Punctuated<Expr, Token![,]>,
    at: usize,
    record: bool,
) -> Option<syn::punctuated::Punctuated<Expr, Token![,]>> {
    let written_at = |i: usize| written.iter().nth(i);
    let Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(fmt), .. })) = args.iter().nth(at) else {
        return None;
    };
    let holders = placeholders(&fmt.value())?;
    let mut values = BTreeSet::new();
    let mut counts = BTreeSet::new();
    let mut pointers = BTreeSet::new();
    for h in &holders {
        let key = |a: &Arg| format!("{a:?}");
        if h.pointer {
            pointers.insert(key(&h.value));
        } else {
            values.insert(key(&h.value));
        }
        for c in &h.counts {
            counts.insert(key(c));
        }
    }
    let plain = |a: &Arg| -> bool {
        let k = format!("{a:?}");
        values.contains(&k) && !counts.contains(&k) && !pointers.contains(&k)
    };
    let mut out = syn::punctuated::Punctuated::new();
    let mut named = BTreeSet::new();
    for (i, e) in args.iter().enumerate() {
        if i <= at {
            out.push(e.clone());
            continue;
        }
        match e {
            Expr::Assign(a) => {
                let name = a.left.to_token_stream().to_string();
                named.insert(name.clone());
                if plain(&Arg::Name(name)) {
                    let mut a = a.clone();
                    let user = match written_at(i) {
                        Some(Expr::Assign(w)) => (*w.right).clone(),
                        _ => (*a.right).clone(),
                    };
                    *a.right = shown(&a.right, &user, record, a.right.span());
                    out.push(Expr::Assign(a));
                } else {
                    out.push(e.clone());
                }
            }
            _ if plain(&Arg::Index(i - at - 1)) => out.push(shown(e, written_at(i).unwrap_or(e), record, e.span())),
            _ => out.push(e.clone()),
        }
    }
    // `{x}`: a captured variable, given as a named argument to be shown (and recorded).
    let captured: BTreeSet<String> = holders
        .iter()
        .filter_map(|h| match &h.value {
            Arg::Name(n) if !named.contains(n) && plain(&h.value) => Some(n.clone()),
            _ => None,
        })
        .collect();
    for n in captured {
        let ident = syn::Ident::new(&n, fmt.span());
        let value: Expr = syn::parse_quote_spanned!(fmt.span()=> #ident);
        let rec = shown(&value, &value, record, fmt.span());
        out.push(syn::parse_quote_spanned!(fmt.span()=> #ident = #rec));
    }
    let _ = quote_spanned!(fmt.span()=>);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_counts_and_captures_are_told_apart() {
        let p = placeholders("{} {x:.3} {:>1$} {:.*} {0:?} {:p} {{}} {y:w$.p$e}").expect("reads");
        assert_eq!(p[0].value, Arg::Index(0));
        assert_eq!(p[1].value, Arg::Name("x".into()));
        assert_eq!((p[2].value.clone(), p[2].counts.clone()), (Arg::Index(1), vec![Arg::Index(1)]));
        assert_eq!((p[3].value.clone(), p[3].counts.clone()), (Arg::Index(3), vec![Arg::Index(2)]));
        assert_eq!(p[4].value, Arg::Index(0));
        assert!(p[5].pointer);
        assert_eq!(p.len(), 7);
        assert_eq!(p[6].counts, vec![Arg::Name("w".into()), Arg::Name("p".into())]);
        assert!(placeholders("{").is_none() && placeholders("}").is_none());
    }

    #[test]
    fn a_printed_value_is_named_as_the_user_wrote_it_whatever_fptune_wrote_around_it() {
        let healed: Expr = syn::parse_quote!(horner(&::fptune::__rt::to_stochastic(<_ as ::fptune::__rt::Store<[::fptune::__rt::Knob<::fptune::__rt::primitive::f64, 0>; 4]>>::store(COEFFS)), ::fptune::__rt::lit::<f64>(1.0f64, 1.0f32)));
        let plain: Expr = syn::parse_quote!(horner(&COEFFS, ::fptune::__rt::lit::<f64>(1.0f64, 1.0f32)));
        assert_eq!(user_text(&healed), "horner (& COEFFS , 1.0)");
        assert_eq!(user_text(&healed), user_text(&plain));
        let cast: Expr = syn::parse_quote!(::fptune::__rt::cast::<i64, _>(x) + ::fptune::Stochastic::<f64>::constant(::fptune::__rt::typed_lit::<f64>(2f64, 2f32)));
        assert_eq!(user_text(&cast), "x as i64 + 2.0");
        let lent: Expr = syn::parse_quote!(weigh(&::fptune::__rt::to_stochastic(&(t)[..]), x));
        assert_eq!(user_text(&lent), "weigh (t , x)");
        let turbofish: Expr = syn::parse_quote!(v.iter().sum::<::fptune::__rt::Knob<f64, 3>>() as ::fptune::__rt::primitive::f32);
        assert_eq!(user_text(&turbofish), "v . iter () . sum :: < f64 > () as f32");
    }

    #[test]
    fn printed_values_are_recorded_and_counts_left_as_they_are() {
        let args: syn::punctuated::Punctuated<Expr, Token![,]> =
            syn::parse_quote!("{} {:>1$} {z} {k}", a, w, k = 3);
        let out = rewrite(&args, &args, 0, true).expect("rewritten");
        let text = out.to_token_stream().to_string();
        assert_eq!(out.len(), 5, "{text}");
        assert!(text.contains("match & (a)"), "{text}");
        // `w` is the width of `{:>1$}`, the value of which is `w` too (index 1): a count wins.
        assert!(!text.contains("match & (w)"), "{text}");
        assert!(text.contains("k = :: fptune :: __rt :: Shown (match & (3)"), "{text}");
        assert!(text.contains("z = :: fptune :: __rt :: Shown (match & (z)"), "{text}");
        // Not recorded: shown only.
        let out = rewrite(&args, &args, 0, false).expect("rewritten");
        let text = out.to_token_stream().to_string();
        assert!(text.contains(":: fptune :: __rt :: Shown (& (a))") && !text.contains("printing"), "{text}");
        assert!(!text.contains("Shown (& (w))"), "{text}");
    }
}

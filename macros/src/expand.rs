//! The expansion of `#[fptune::tune]`.
//!
//! 1. Find the knobs and check the markers (`fptune_syntax::discover`); errors are collected and
//!    emitted together, at the user's tokens, next to the item (so that one mistake does not hide
//!    the others or cascade into type errors).
//! 2. Remove the markers.
//! 3. Rewrite the code so that mixed precision type-checks ([`Rewriter`]):
//!    - `a + b`, `a < b`, `a += b`, ... go through `::fptune::__rt`'s dispatch, which computes
//!      floats of two formats in the wider one and leaves every other type to its own operator;
//!    - an unsuffixed float literal operand becomes `Lit` (it takes the other operand's format),
//!      and so does an integer cast to float used as an operand;
//!    - stores into float places (annotated `let`s, assignments to float bindings, elements and
//!      fields, returns, arguments of the item's own functions, fields of its own structs) round to
//!      the place's type;
//!    - `x as T` with a float target, `.sum()`, `.product()`, `.copy_from_slice()` and
//!      `std::mem::swap` get their mixed-precision versions.
//! 4. In the stochastic build (feature `stochastic`), every float type written in the item becomes
//!    its stochastic type (`f64` -> `::fptune::Sf64`), except in `static`/`const` items, which
//!    stay exact primitive constants.

use std::collections::{BTreeSet, HashMap};

use fptune_syntax::{discover, is_marker, is_storable_float, stray_markers, FloatFormat, Marker, Top};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{
    parse_quote, parse_quote_spanned, BinOp, Block, Expr, FnArg, Item, Pat, ReturnType, Stmt, Type,
    UnOp,
};

/// The macros whose arguments are expressions of the item, rewritten as its code is (the tuner's
/// elaboration writes literals' types there too): formatting, assertions, `check!`, `vec!`.
pub const EXPRESSION_MACROS: [&str; 16] = [
    "println", "print", "eprintln", "eprint", "format", "write", "writeln", "panic", "assert", "assert_eq",
    "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "check", "vec",
];

/// Whether this build is the tuner's stochastic build.
const STOCHASTIC: bool = cfg!(feature = "stochastic");

pub fn tune(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args, item, true)
}

/// `#[fptune::__convert]`: any item, as the tuner marks every item of a stochastic scratch copy.
pub fn convert(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args, item, false)
}

fn expand(args: TokenStream, item: TokenStream, user_facing: bool) -> TokenStream {
    let marker = match syn::parse2::<Marker>(args) {
        Ok(m) => m,
        Err(e) => return with_error(item, e),
    };
    let mut item: Item = match syn::parse2(item.clone()) {
        Ok(i) => i,
        Err(e) => return with_error(item, e),
    };
    if user_facing {
        if let Err(e) = check_item_kind(&item) {
            return with_error(item.into_token_stream(), e);
        }
    }
    let top = Top { marker };
    let discovery = discover(&item, &top);
    let mut errors = discovery.errors;
    if STOCHASTIC {
        unconst_float_fns(&mut item);
    } else {
        // The native single build: a `const fn` holding its knob types computes with them as
        // any function does (a `Knob`'s operations are no `const` ones).
        unconst_fns_writing(&mut item, "Knob");
    }
    let context = Context::of(&item);
    generalize_knob_params(&mut item, &context.aliases);
    strip_markers(&mut item, true);
    errors.extend(stray_markers(&item));
    strip_markers(&mut item, false);

    let mut rewriter = Rewriter::new(context, STOCHASTIC);
    rewriter.printed = top.marker.printed;
    SuffixedLiterals.visit_item_mut(&mut item);
    if STOCHASTIC || holds_knob_type(&item) {
        UntypedLiterals.visit_item_mut(&mut item);
    }
    rewriter.visit_item_mut(&mut item);
    ElaboratedParams.visit_item_mut(&mut item);
    if STOCHASTIC {
        StochasticTypes.visit_item_mut(&mut item);
    } else {
        // The probe build: a `const fn` is left as written, knob types and all, as the native
        // builds leave it (so rustc names where its knobs meet each other's type), but it can no
        // longer be `const`: a `Probe`'s operations are not.
        unconst_fns_writing(&mut item, "Probe");
    }

    let mut out = item.into_token_stream();
    for e in errors {
        out.extend(e.to_compile_error());
    }
    out
}

fn with_error(item: TokenStream, e: syn::Error) -> TokenStream {
    let mut out = item;
    out.extend(e.to_compile_error());
    out
}

fn check_item_kind(item: &Item) -> syn::Result<()> {
    match item {
        Item::Mod(m) if m.content.is_none() => Err(syn::Error::new(
            m.span(),
            "`#[fptune::tune]` needs the module's content here: use an inline `mod name { ... }`, \
             or put `#[fptune::tune]` on the items of the module's file",
        )),
        Item::Mod(_)
        | Item::Fn(_)
        | Item::Impl(_)
        | Item::Struct(_)
        | Item::Type(_)
        | Item::Static(_)
        | Item::Const(_) => Ok(()),
        other => Err(syn::Error::new(
            other.span(),
            "`#[fptune::tune]` goes on an inline `mod`, a `fn`, an `impl`, a `struct`, a `type` alias, \
             a `static` or a `const`",
        )),
    }
}

// ----------------------------------------------------------------------------------------------
// Markers
// ----------------------------------------------------------------------------------------------

/// Removes `#[tune]` markers: with `sites_only`, only where a knob can be (the rest are then
/// reported as stray); otherwise everywhere.
fn strip_markers(item: &mut Item, sites_only: bool) {
    struct Strip {
        sites_only: bool,
    }
    fn strip(attrs: &mut Vec<syn::Attribute>) {
        attrs.retain(|a| !is_marker(a));
    }
    impl VisitMut for Strip {
        fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
            if !self.sites_only {
                strip(attrs);
            }
        }
        fn visit_local_mut(&mut self, l: &mut syn::Local) {
            strip(&mut l.attrs);
            visit_mut::visit_local_mut(self, l);
        }
        fn visit_fn_arg_mut(&mut self, a: &mut FnArg) {
            if let FnArg::Typed(pt) = a {
                strip(&mut pt.attrs);
            }
            visit_mut::visit_fn_arg_mut(self, a);
        }
        fn visit_field_mut(&mut self, f: &mut syn::Field) {
            strip(&mut f.attrs);
            visit_mut::visit_field_mut(self, f);
        }
        fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
            strip(&mut f.attrs);
            visit_mut::visit_item_fn_mut(self, f);
        }
        fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
            strip(&mut f.attrs);
            visit_mut::visit_impl_item_fn_mut(self, f);
        }
        fn visit_item_static_mut(&mut self, s: &mut syn::ItemStatic) {
            strip(&mut s.attrs);
            visit_mut::visit_item_static_mut(self, s);
        }
        fn visit_item_const_mut(&mut self, c: &mut syn::ItemConst) {
            strip(&mut c.attrs);
            visit_mut::visit_item_const_mut(self, c);
        }
        fn visit_impl_item_const_mut(&mut self, c: &mut syn::ImplItemConst) {
            strip(&mut c.attrs);
            visit_mut::visit_impl_item_const_mut(self, c);
        }
        fn visit_item_type_mut(&mut self, t: &mut syn::ItemType) {
            strip(&mut t.attrs);
            visit_mut::visit_item_type_mut(self, t);
        }
        fn visit_impl_item_type_mut(&mut self, t: &mut syn::ImplItemType) {
            strip(&mut t.attrs);
            visit_mut::visit_impl_item_type_mut(self, t);
        }
    }
    Strip { sites_only }.visit_item_mut(item);
}

/// A knob parameter taking a float by value (`#[tune] x: f64`, `#[tune] v: Vec<f64>`), or one whose
/// type is a float alias of the item, accepts any float of any format, converted on entry, so
/// that callers, also outside tuned code and with literals, keep compiling when the knob is
/// lowered (even to `f16`, which no literal can be): `fn f(#[tune] x: f32)` becomes
/// `fn f(x: impl Store<f32>) { let x: f32 = Store::store(x); .. }`. In the stochastic build every
/// float parameter taken by value does. Trait implementations keep their signatures.
fn generalize_knob_params(item: &mut Item, aliases: &BTreeSet<String>) {
    struct Generalize<'a> {
        aliases: &'a BTreeSet<String>,
        in_trait_impl: bool,
        /// Every float parameter (the stochastic build, whose callers are converted too).
        all: bool,
    }
    impl Generalize<'_> {
        fn apply(&self, sig: &mut syn::Signature, block: &mut Block) {
            // A `const fn` (native builds) keeps its parameters: a conversion is no `const`
            // operation, and its callers give it its own types, as the user's code does.
            if sig.constness.is_some() {
                return;
            }
            let mut entry: Vec<Stmt> = Vec::new();
            for input in sig.inputs.iter_mut() {
                let FnArg::Typed(pt) = input else { continue };
                let knob = pt.attrs.iter().any(is_marker);
                let alias = fptune_syntax::float_leaves(&pt.ty, self.aliases).iter().any(|l| l.alias.is_some());
                if !(knob || alias || self.all) || !is_storable_float(&pt.ty, self.aliases) {
                    continue;
                }
                let Pat::Ident(pi) = &mut *pt.pat else { continue };
                let ty = (*pt.ty).clone();
                let name = pi.ident.clone();
                let mutability = pi.mutability.take();
                let span = pt.ty.span();
                *pt.ty = parse_quote_spanned!(span=> impl ::fptune::__rt::Store<#ty>);
                entry.push(parse_quote_spanned!(span=>
                    let #mutability #name: #ty = ::fptune::__rt::Store::store(#name);
                ));
            }
            if !entry.is_empty() {
                entry.append(&mut block.stmts);
                block.stmts = entry;
            }
        }
    }
    impl VisitMut for Generalize<'_> {
        fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
            self.apply(&mut f.sig, &mut f.block);
            visit_mut::visit_item_fn_mut(self, f);
        }
        fn visit_item_impl_mut(&mut self, i: &mut syn::ItemImpl) {
            let outer = self.in_trait_impl;
            self.in_trait_impl = i.trait_.is_some();
            visit_mut::visit_item_impl_mut(self, i);
            self.in_trait_impl = outer;
        }
        fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
            if !self.in_trait_impl {
                self.apply(&mut f.sig, &mut f.block);
            }
            visit_mut::visit_impl_item_fn_mut(self, f);
        }
    }
    Generalize { aliases, in_trait_impl: false, all: STOCHASTIC }.visit_item_mut(item);
}

/// In the stochastic build, a `const fn` that computes with floats is an ordinary `fn`: its floats
/// are stochastic values, whose operations draw random roundings when the program runs.
fn unconst_float_fns(item: &mut Item) {
    fn floats(sig: &syn::Signature, block: &Block) -> bool {
        struct Finds(bool);
        impl<'ast> Visit<'ast> for Finds {
            fn visit_type(&mut self, t: &'ast Type) {
                self.0 |= fptune_syntax::float_type(t).is_some();
                syn::visit::visit_type(self, t);
            }
            fn visit_lit_float(&mut self, _: &'ast syn::LitFloat) {
                self.0 = true;
            }
        }
        let mut f = Finds(false);
        f.visit_signature(sig);
        f.visit_block(block);
        f.0
    }
    unconst_fns(item, floats);
}

/// Makes each `const fn` of the item (free or in an `impl`) for which `unmake(signature, body)`
/// holds an ordinary `fn`.
fn unconst_fns(item: &mut Item, unmake: impl Fn(&syn::Signature, &Block) -> bool) {
    struct Unconst<P>(P);
    impl<P: Fn(&syn::Signature, &Block) -> bool> VisitMut for Unconst<P> {
        fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
            if f.sig.constness.is_some() && (self.0)(&f.sig, &f.block) {
                f.sig.constness = None;
            }
            visit_mut::visit_item_fn_mut(self, f);
        }
        fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
            if f.sig.constness.is_some() && (self.0)(&f.sig, &f.block) {
                f.sig.constness = None;
            }
            visit_mut::visit_impl_item_fn_mut(self, f);
        }
    }
    Unconst(unmake).visit_item_mut(item);
}

// ----------------------------------------------------------------------------------------------
// What the item declares
// ----------------------------------------------------------------------------------------------

/// What the rewriter needs to know about the item's own declarations.
#[derive(Default)]
struct Context {
    /// Type aliases whose type is a float (tuned or not).
    aliases: BTreeSet<String>,
    /// Free functions and associated functions: the type of each parameter taking a float by
    /// value.
    fns: HashMap<String, Vec<Option<Type>>>,
    /// Methods (with a `self` receiver): the same for the parameters after `self`.
    methods: HashMap<String, Vec<Option<Type>>>,
    /// Struct name -> fields holding a float by value, with their types.
    structs: HashMap<String, HashMap<String, Type>>,
    /// Every field name holding a float (by value or in a buffer), any struct of the item.
    float_fields: BTreeSet<String>,
}

impl Context {
    fn of(item: &Item) -> Context {
        let mut c = Context::default();
        struct Aliases<'a>(&'a mut BTreeSet<String>);
        impl<'ast> Visit<'ast> for Aliases<'_> {
            fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
                if !fptune_syntax::float_leaves(&t.ty, self.0).is_empty() {
                    self.0.insert(t.ident.to_string());
                }
            }
            fn visit_impl_item_type(&mut self, t: &'ast syn::ImplItemType) {
                if !fptune_syntax::float_leaves(&t.ty, self.0).is_empty() {
                    self.0.insert(t.ident.to_string());
                }
            }
        }
        Aliases(&mut c.aliases).visit_item(item);

        struct Decls<'a>(&'a mut Context);
        impl<'ast> Visit<'ast> for Decls<'_> {
            fn visit_signature(&mut self, sig: &'ast syn::Signature) {
                let has_self = matches!(sig.inputs.first(), Some(FnArg::Receiver(_)));
                let params: Vec<Option<Type>> = sig
                    .inputs
                    .iter()
                    .filter_map(|a| match a {
                        // A knob parameter taking a float by value converts on entry
                        // (`generalize_knob_params`): callers pass what they have.
                        FnArg::Typed(pt) => {
                            let knob = pt.attrs.iter().any(is_marker);
                            let alias = fptune_syntax::float_leaves(&pt.ty, &self.0.aliases)
                                .iter()
                                .any(|l| l.alias.is_some());
                            let storable = is_storable_float(&pt.ty, &self.0.aliases);
                            Some((storable && !knob && !alias && !STOCHASTIC).then(|| (*pt.ty).clone()))
                        }
                        FnArg::Receiver(_) => None,
                    })
                    .collect();
                let name = sig.ident.to_string();
                if has_self {
                    self.0.methods.insert(name, params);
                } else {
                    self.0.fns.insert(name, params);
                }
            }
            fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
                let mut storable = HashMap::new();
                for f in &s.fields {
                    let Some(id) = &f.ident else { continue };
                    if is_storable_float(&f.ty, &self.0.aliases) {
                        storable.insert(id.to_string(), f.ty.clone());
                    }
                    if !fptune_syntax::float_leaves(&f.ty, &self.0.aliases).is_empty() {
                        self.0.float_fields.insert(id.to_string());
                    }
                }
                self.0.structs.insert(s.ident.to_string(), storable);
            }
        }
        Decls(&mut c).visit_item(item);
        c
    }
}

// ----------------------------------------------------------------------------------------------
// The rewrite
// ----------------------------------------------------------------------------------------------

/// A binding in scope.
#[derive(Clone, Copy, Default)]
struct Binding {
    /// Holds a float by value (scalar, `Vec`, array): assignments to it store.
    storable: bool,
    /// Holds floats somewhere (also `&mut [f64]`): assignments to its elements store.
    floaty: bool,
    /// Unannotated and initialised: its type is the initialiser's, which in the single build can
    /// be a value of run-time format (`__rt::Sdyn`), so stores into it must see the place.
    inferred: bool,
}

struct Rewriter {
    cx: Context,
    stochastic: bool,
    scopes: Vec<HashMap<String, Binding>>,
    /// For each enclosing function (None for a closure): its return type when that is a
    /// storable float.
    returns: Vec<Option<Option<Type>>>,
    /// `#[fptune::tune(printed)]`: the arguments of printing macros are recorded.
    printed: bool,
}

const ARITH: [&str; 5] = ["add", "sub", "mul", "div", "rem"];

fn arith_name(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => ARITH[0],
        BinOp::Sub(_) => ARITH[1],
        BinOp::Mul(_) => ARITH[2],
        BinOp::Div(_) => ARITH[3],
        BinOp::Rem(_) => ARITH[4],
        _ => return None,
    })
}

fn assign_name(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "add_assign",
        BinOp::SubAssign(_) => "sub_assign",
        BinOp::MulAssign(_) => "mul_assign",
        BinOp::DivAssign(_) => "div_assign",
        BinOp::RemAssign(_) => "rem_assign",
        _ => return None,
    })
}

fn cmp_name(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Eq(_) => "eq",
        BinOp::Ne(_) => "ne",
        BinOp::Lt(_) => "lt",
        BinOp::Le(_) => "le",
        BinOp::Gt(_) => "gt",
        BinOp::Ge(_) => "ge",
        _ => return None,
    })
}

/// An unsuffixed float literal, possibly negated or parenthesised: its digits with the sign.
/// The tuner's elaborated literal `::fptune::__rt::lit::<T>(0.5f64, 0.5f32)` (an unsuffixed
/// literal whose type rustc inferred as `T`) is one too.
fn float_literal(e: &Expr) -> Option<(String, Span)> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) if f.suffix().is_empty() => Some((fptune_syntax::suffixable_digits(f), f.span())),
            _ => None,
        },
        Expr::Call(c) if elaborated_literal(c) => match c.args.first() {
            Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. })) => Some((fptune_syntax::suffixable_digits(f), c.span())),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            let (digits, span) = float_literal(&u.expr)?;
            Some((if let Some(d) = digits.strip_prefix('-') { d.to_string() } else { format!("-{digits}") }, span))
        }
        Expr::Paren(p) => float_literal(&p.expr),
        Expr::Group(g) => float_literal(&g.expr),
        _ => None,
    }
}

/// The stochastic build's elaborated literals that are arguments of a call (`Square(1.1)`,
/// `f(0.5)`, `Some(0.0)`) or values of a struct literal's fields: `lit(d, s)`, their type left to
/// rustc, which the place gives, so that they follow a lowered place in every configuration (a
/// `lit::<f64>` there fails to build where the field is lowered); so are a method's arguments,
/// and literals the place types as a whole (`&mut 1.0`, `[0.5, 1.5]`, `vec![0.0; n]`). Where
/// nothing gives one (a generic function's argument), the conversion writes `typed_lit::<T>`.
/// The arguments of a method given a closure keep their type: a generic method
/// (`fold(0.0, |acc, x| ..)`) would leave its closure untyped.
struct UntypedLiterals;

impl UntypedLiterals {
    fn untype(e: &mut Expr) {
        match e {
            Expr::Call(c) if elaborated_literal(c) => {
                if let Expr::Path(p) = &mut *c.func {
                    if let Some(last) = p.path.segments.last_mut() {
                        last.arguments = syn::PathArguments::None;
                    }
                }
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
                Self::untype(&mut u.expr);
                // `-lit(d, s)` is `lit(-d, -s)`: an operator on a value rustc has not typed yet
                // would leave it untyped (E0282).
                let mut inner = &mut *u.expr;
                while let Expr::Paren(p) = inner {
                    inner = &mut *p.expr;
                }
                if let Expr::Call(c) = inner {
                    if elaborated_literal(c) {
                        let mut c = c.clone();
                        for a in c.args.iter_mut() {
                            *a = syn::parse_quote!(-#a);
                        }
                        *e = Expr::Call(c);
                    }
                }
            }
            Expr::Paren(p) => Self::untype(&mut p.expr),
            // What the place types as a whole: a temporary lent (`&mut 1.0`), the elements of an
            // array, a tuple or a `vec![..]`.
            Expr::Reference(r) => Self::untype(&mut r.expr),
            Expr::Array(a) => a.elems.iter_mut().for_each(Self::untype),
            Expr::Tuple(t) => t.elems.iter_mut().for_each(Self::untype),
            Expr::Repeat(r) => Self::untype(&mut r.expr),
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "vec") => Self::untype_vec(&mut m.mac),
            _ => {}
        }
    }

    /// The elements of `vec![a, b]` or the value of `vec![v; n]`.
    fn untype_vec(mac: &mut syn::Macro) {
        use syn::parse::Parser;
        use syn::punctuated::Punctuated;
        if let Ok(VecRepeat { mut elem, len }) = syn::parse2::<VecRepeat>(mac.tokens.clone()) {
            Self::untype(&mut elem);
            mac.tokens = quote!(#elem; #len);
        } else if let Ok(mut elems) = Punctuated::<Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone()) {
            elems.iter_mut().for_each(Self::untype);
            mac.tokens = elems.into_token_stream();
        }
    }
}

/// The arguments of the formatting, assertion and `vec!` macros are code of the item too:
/// `visit` sees each (a `vec![x; n]`'s element), and the macro gets them back as visited.
fn visit_macro_exprs(mac: &mut syn::Macro, mut visit: impl FnMut(&mut Expr)) {
    let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    if !EXPRESSION_MACROS.contains(&name.as_str()) {
        return;
    }
    if name == "vec" {
        if let Ok(mut r) = syn::parse2::<VecRepeat>(mac.tokens.clone()) {
            visit(&mut r.elem);
            let (e, n) = (&r.elem, &r.len);
            mac.tokens = quote!(#e; #n);
            return;
        }
    }
    let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
    if let Ok(mut args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
        args.iter_mut().for_each(&mut visit);
        mac.tokens = args.into_token_stream();
    }
}

impl VisitMut for UntypedLiterals {
    // A literal in a method call inside `println!(..)` is typed by its place as anywhere else.
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, |e| self.visit_expr_mut(e));
    }

    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        if !elaborated_literal(c) {
            c.args.iter_mut().for_each(Self::untype);
        }
        visit_mut::visit_expr_call_mut(self, c);
    }

    fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
        // Beside a closure the literal may be what types it (`fold(0.0, |acc, x| ..)`).
        if !m.args.iter().any(|a| matches!(a, Expr::Closure(_))) {
            m.args.iter_mut().for_each(Self::untype);
        }
        visit_mut::visit_expr_method_call_mut(self, m);
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        s.fields.iter_mut().for_each(|f| Self::untype(&mut f.expr));
        visit_mut::visit_expr_struct_mut(self, s);
    }
}

/// The parameter types the tuner wrote for closures given as arguments,
/// `|x: ::fptune::__rt::elaborated!(f64)|`, left to inference in every build, as the user wrote
/// them (the callee's bounds type such a closure before its body), so that a parameter follows a
/// lowered knob in every configuration.
struct ElaboratedParams;

impl VisitMut for ElaboratedParams {
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        for input in c.inputs.iter_mut() {
            let syn::Pat::Type(pt) = input else { continue };
            if matches!(&*pt.ty, Type::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "elaborated")) {
                *input = (*pt.pat).clone();
            }
        }
        visit_mut::visit_expr_closure_mut(self, c);
    }
}

/// Makes each `const fn` of the item that writes `::fptune::__rt::<name>` (`Knob`, `Probe`: a type
/// of fptune's builds, whose operations are no `const` ones) an ordinary `fn`. A `const fn` of
/// the user's types (the native builds, the applied code) stays `const`, its body as written.
fn unconst_fns_writing(item: &mut Item, name: &'static str) {
    unconst_fns(item, |sig, block| {
        writes_rt(name, |find| {
            find.visit_signature(sig);
            find.visit_block(block);
        })
    });
}

/// Finds a path `..::__rt::<name>` (a type of fptune's runtime written into the code).
struct RtPath {
    name: &'static str,
    found: bool,
}

impl<'ast> Visit<'ast> for RtPath {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let n = p.segments.len();
        self.found |= n >= 2 && p.segments[n - 2].ident == "__rt" && p.segments[n - 1].ident == self.name;
        syn::visit::visit_path(self, p);
    }
}

/// Whether what `visit` walks writes `..::__rt::<name>`.
fn writes_rt(name: &'static str, visit: impl FnOnce(&mut RtPath)) -> bool {
    let mut find = RtPath { name, found: false };
    visit(&mut find);
    find.found
}

/// Whether the item writes a single build's knob type (`::fptune::__rt::Knob<F, U, ..>`): the
/// native single build, whose literals follow their places as the stochastic build's do (a
/// literal is no `Knob`, an elaborated one may become one).
fn holds_knob_type(item: &Item) -> bool {
    writes_rt("Knob", |find| find.visit_item(item))
}

/// An integer literal (`1`, `-2`, `3usize`; not `1f64`, an integer token with a float suffix).
fn integer_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => !matches!(i.suffix(), "f32" | "f64"),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => integer_literal(&u.expr),
        Expr::Paren(p) => integer_literal(&p.expr),
        Expr::Group(g) => integer_literal(&g.expr),
        _ => false,
    }
}

/// `::fptune::__rt::lit::<T>(d, s)`, the tuner's elaborated literal.
fn elaborated_literal(c: &syn::ExprCall) -> bool {
    runtime_literal(c, "lit")
}

/// `::fptune::__rt::typed_lit::<T>(d, s)`, an elaborated literal the conversion kept typed.
fn typed_literal(c: &syn::ExprCall) -> bool {
    runtime_literal(c, "typed_lit")
}

/// `::fptune::__rt::lit_like(&(receiver), d, s)`, an elaborated literal of its receiver's type.
fn receivers_literal(c: &syn::ExprCall) -> bool {
    let Expr::Path(p) = &*c.func else { return false };
    let n = p.path.segments.len();
    c.args.len() == 3 && n >= 2 && p.path.segments[n - 2].ident == "__rt" && p.path.segments[n - 1].ident == "lit_like"
}

/// A call of `__rt::{function}` with a literal's two roundings.
fn runtime_literal(c: &syn::ExprCall, function: &str) -> bool {
    let Expr::Path(p) = &*c.func else { return false };
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    c.args.len() == 2 && segs.len() >= 2 && segs[segs.len() - 2] == "__rt" && segs[segs.len() - 1] == function
}

fn is_literal_operand(e: &Expr) -> bool {
    float_literal(e).is_some()
}

/// A float literal, a cast (an integer cast adapts like a literal), or arithmetic of those: an
/// expression whose format only its context decides.
fn literal_like(e: &Expr, aliases: &BTreeSet<String>) -> bool {
    match e {
        Expr::Cast(c) => cast_float_target(&c.ty, aliases),
        Expr::Paren(p) => literal_like(&p.expr, aliases),
        Expr::Group(g) => literal_like(&g.expr, aliases),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => literal_like(&u.expr, aliases),
        Expr::Binary(b) if arith_name(&b.op).is_some() => {
            literal_like(&b.left, aliases) && literal_like(&b.right, aliases)
        }
        _ => is_literal_operand(e),
    }
}

/// A float literal, or an array or `vec!` of them: its type is the place's.
fn literal_value(e: &Expr) -> bool {
    match e {
        Expr::Array(a) => !a.elems.is_empty() && a.elems.iter().all(literal_value),
        Expr::Repeat(r) => literal_value(&r.expr),
        Expr::Paren(p) => literal_value(&p.expr),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            match syn::parse::Parser::parse2(parser, m.mac.tokens.clone()) {
                Ok(items) => !items.is_empty() && items.iter().all(literal_value),
                Err(_) => syn::parse2::<VecRepeat>(m.mac.tokens.clone()).is_ok_and(|r| literal_value(&r.elem)),
            }
        }
        _ => is_literal_operand(e),
    }
}

/// `static X: f16 = 1.5` -> `static X: f16 = <f16>::from_f64_const(1.5)` (also in arrays and
/// tuples). In the single build, a knob of a constant unit (`static X: Knob<f64, { 3 |
/// CONSTANT }> = 1.5`) holds its literal as `<Knob<..>>::constant(1.5f64)`, and any other value
/// is an error: it could only be computed in a format known when the program runs.
fn half_literal(ty: &Type, e: &mut Expr) {
    match (ty, &mut *e) {
        (Type::Array(a), Expr::Array(items)) => {
            for item in items.elems.iter_mut() {
                half_literal(&a.elem, item);
            }
        }
        (Type::Array(a), Expr::Repeat(r)) => half_literal(&a.elem, &mut r.expr),
        (Type::Tuple(t), Expr::Tuple(items)) => {
            for (ty, item) in t.elems.iter().zip(items.elems.iter_mut()) {
                half_literal(ty, item);
            }
        }
        (Type::Paren(p), _) => half_literal(&p.elem, e),
        (Type::Path(p), _) if p.path.segments.last().is_some_and(|l| l.ident == "Knob") => {
            *e = match float_literal(e) {
                Some((digits, span)) => {
                    let d: TokenStream = format!("{digits}f64").parse().unwrap_or_default();
                    parse_quote_spanned!(span=> <#ty>::constant(#d))
                }
                None => {
                    let span = e.span();
                    parse_quote_spanned!(span=> ::fptune::__rt::compile_error!(
                        "fptune's single build: a `const` or `static` knob's value must be float literals \
                         (or arrays or tuples of them), as its format is chosen when the program starts"
                    ))
                }
            };
        }
        (Type::Path(p), _) => {
            let Some(format) = p.path.segments.last().and_then(|l| FloatFormat::from_ident(&l.ident.to_string())) else {
                return;
            };
            if !matches!(format, FloatFormat::F16 | FloatFormat::BF16) {
                return;
            }
            if let Some((digits, span)) = float_literal(e) {
                let d: TokenStream = format!("{digits}f64").parse().unwrap_or_default();
                *e = parse_quote_spanned!(span=> <#ty>::from_f64_const(#d));
            }
        }
        _ => {}
    }
}

/// A float literal (or an array or `vec!` of them) with every literal as a `Lit`, so a store
/// rounds it to nearest into the place's format (the compiler's rounding of a literal).
fn literal_as_lit(e: Expr) -> Expr {
    if let Some((digits, span)) = float_literal(&e) {
        let lit = lit_tokens(&digits, span);
        return parse_quote_spanned!(span=> #lit);
    }
    match e {
        Expr::Array(mut a) if literal_value(&Expr::Array(a.clone())) => {
            for item in a.elems.iter_mut() {
                let taken = std::mem::replace(item, parse_quote!(()));
                *item = literal_as_lit(taken);
            }
            Expr::Array(a)
        }
        Expr::Repeat(mut r) if literal_value(&r.expr) => {
            let taken = std::mem::replace(&mut *r.expr, parse_quote!(()));
            *r.expr = literal_as_lit(taken);
            Expr::Repeat(r)
        }
        Expr::Macro(mut m) if m.mac.path.is_ident("vec") && literal_value(&Expr::Macro(m.clone())) => {
            if let Ok(r) = syn::parse2::<VecRepeat>(m.mac.tokens.clone()) {
                let (elem, len) = (literal_as_lit(r.elem), r.len);
                m.mac.tokens = quote!(#elem; #len);
            } else {
                let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
                if let Ok(items) = syn::parse::Parser::parse2(parser, m.mac.tokens.clone()) {
                    let items: Vec<Expr> = items.into_iter().map(literal_as_lit).collect();
                    m.mac.tokens = quote!(#(#items),*);
                }
            }
            Expr::Macro(m)
        }
        other => other,
    }
}

/// A constructor whose type only the annotation gives (`Vec::new()`, `Default::default()`,
/// `vec![]`): stored as it is, the annotation types it.
fn typed_by_annotation(e: &Expr) -> bool {
    match e {
        Expr::Call(c) if c.args.is_empty() || matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "with_capacity")) => {
            matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
                s.ident == "new" || s.ident == "default" || s.ident == "with_capacity"
            }))
        }
        Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        Expr::Array(a) => a.elems.is_empty(),
        _ => false,
    }
}

/// A method whose result type the context chooses (`s.parse().unwrap()`, `x.into()`): the
/// annotation must type it, so no store is put in between.
fn generic_result(e: &Expr) -> bool {
    const GENERIC: [&str; 9] =
        ["parse", "unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else", "into", "try_into", "default"];
    match e {
        Expr::MethodCall(m) => GENERIC.iter().any(|g| m.method == g),
        Expr::Try(t) => generic_result(&t.expr),
        Expr::Paren(p) => generic_result(&p.expr),
        _ => false,
    }
}

/// A value whose type its context chooses (`x.into()`, `s.parse()?`, `From::from(x)`, and
/// `unwrap`-like calls on those): a store put around it would leave rustc nothing to choose the
/// type from. (`collect()` is stored with the place's shape, `Vec<_>`, which types it.)
fn context_typed(e: &Expr) -> bool {
    const CHOSEN: [&str; 4] = ["into", "try_into", "parse", "default"];
    const THROUGH: [&str; 5] = ["unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else"];
    match e {
        Expr::MethodCall(m) if m.turbofish.is_none() && CHOSEN.iter().any(|g| m.method == g) => true,
        Expr::MethodCall(m) if THROUGH.iter().any(|g| m.method == g) => context_typed(&m.receiver),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            matches!(segs.as_slice(), [.., t, m] if (t == "From" && m == "from") || (t == "Into" && m == "into"))
        }),
        Expr::Try(t) => context_typed(&t.expr),
        Expr::Paren(p) => context_typed(&p.expr),
        _ => false,
    }
}

fn strip_type_parens(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => strip_type_parens(&p.elem),
        Type::Group(g) => strip_type_parens(&g.elem),
        other => other,
    }
}

/// A place `&mut` can borrow as it is: a variable, a field, an element, a dereference (not a
/// destructuring tuple or struct).
fn simple_place(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Field(f) => simple_place(&f.base),
        Expr::Index(_) | Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), .. }) => true,
        Expr::Paren(p) => simple_place(&p.expr),
        _ => false,
    }
}

/// What a place is an element of: through indexing, parentheses and dereferences.
fn place_root(e: &Expr) -> &Expr {
    match e {
        Expr::Index(i) => place_root(&i.expr),
        Expr::Paren(p) => place_root(&p.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => place_root(&u.expr),
        _ => e,
    }
}

/// A value chosen by branches (`if`, `match`, a block): each tail is stored on its own.
fn branches(e: &Expr) -> bool {
    matches!(e, Expr::If(_) | Expr::Match(_) | Expr::Block(_))
}

/// Whether `e` is a call or a method call (in parentheses or not): what an iterator chain's
/// `sum()` or `product()` is called on.
fn chain_end(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => chain_end(&p.expr),
        Expr::MethodCall(_) | Expr::Call(_) => true,
        _ => false,
    }
}

fn strip_parens(e: Expr) -> Expr {
    match e {
        Expr::Paren(p) => strip_parens(*p.expr),
        other => other,
    }
}

/// `::fptune::__rt::Lit::new(0.1f64, 0.1f32)` for a literal's digits.
fn lit_tokens(digits: &str, span: Span) -> TokenStream {
    let args: TokenStream = fptune_syntax::literal_args(digits).parse().unwrap_or_default();
    quote_spanned!(span=> ::fptune::__rt::Lit::new(#args))
}

/// A float type written in a cast target (`f64`, `fptune::f16`, a float alias).
fn cast_float_target(ty: &Type, aliases: &BTreeSet<String>) -> bool {
    let leaves = fptune_syntax::float_leaves(ty, aliases);
    leaves.len() == 1 && matches!(ty, Type::Path(_))
}

const INT_TYPES: [&str; 12] =
    ["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"];

fn int_target(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1
        && INT_TYPES.iter().any(|t| p.path.segments[0].ident == t))
}

/// Methods whose result is a float when their receiver is: a cast of such a call to an integer
/// is a float-to-integer cast.
const FLOAT_METHODS: [&str; 27] = [
    "floor", "ceil", "round", "trunc", "sqrt", "abs", "exp", "ln", "log10", "log2", "powi", "powf",
    "sin", "cos", "tan", "max", "min", "to_degrees", "to_radians", "recip", "cbrt", "hypot", "atan2",
    "mul_add", "copysign", "rem_euclid", "div_euclid",
];

/// Float methods of two operands that the dispatch computes in the operands' common format.
const TWO_OPERAND_METHODS: [&str; 8] = ["powf", "atan2", "hypot", "min", "max", "copysign", "rem_euclid", "div_euclid"];

fn wrap_dispatch(span: Span, body: TokenStream) -> Expr {
    parse_quote_spanned!(span=> {
        #[allow(unused_imports)]
        use ::fptune::__rt::prelude::*;
        #body
    })
}

/// `ty` with every float written in it replaced by `_`: the shape of the value before the store,
/// which lets `collect()` and friends infer their containers as they did without the store.
fn shape(ty: &Type, aliases: &BTreeSet<String>) -> Type {
    struct Shape<'a>(&'a BTreeSet<String>);
    impl VisitMut for Shape<'_> {
        fn visit_type_mut(&mut self, t: &mut Type) {
            let alias = matches!(t, Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1
                && p.path.segments[0].arguments.is_none()
                && self.0.contains(&p.path.segments[0].ident.to_string()));
            if alias || fptune_syntax::float_type(t).is_some() {
                *t = parse_quote!(_);
                return;
            }
            visit_mut::visit_type_mut(self, t);
        }
    }
    let mut out = ty.clone();
    Shape(aliases).visit_type_mut(&mut out);
    out
}

/// A tuple type some of whose elements are storable floats (or such tuples) and some not, like
/// `(usize, f64)`: no `Store` converts it whole, so a tuple expression stored into it is stored
/// element by element.
/// Returns the tuple type, through parentheses.
fn mixed_float_tuple<'t>(ty: &'t Type, aliases: &BTreeSet<String>) -> Option<&'t syn::TypeTuple> {
    match ty {
        Type::Paren(p) => mixed_float_tuple(&p.elem, aliases),
        Type::Group(g) => mixed_float_tuple(&g.elem, aliases),
        Type::Tuple(t) => (!is_storable_float(ty, aliases) && t.elems.iter().any(|e| stored_type(e, aliases))).then_some(t),
        _ => None,
    }
}

/// `Option<T>` or `Result<T, E>` with `T` a stored type: the payload's type, and the variant
/// that carries it (`Some`, `Ok`).
fn float_payload<'t>(ty: &'t Type, aliases: &BTreeSet<String>) -> Option<(&'t Type, &'static str)> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let variant = match last.ident.to_string().as_str() {
        "Option" => "Some",
        "Result" => "Ok",
        _ => return None,
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    let Some(syn::GenericArgument::Type(t)) = args.args.first() else { return None };
    stored_type(t, aliases).then_some((t, variant))
}

/// Whether a value of type `ty` goes through a store: a storable float type, a mixed tuple, or
/// an `Option` or `Result` of one (its payload does).
fn stored_type(ty: &Type, aliases: &BTreeSet<String>) -> bool {
    is_storable_float(ty, aliases) || mixed_float_tuple(ty, aliases).is_some() || float_payload(ty, aliases).is_some()
}

fn store_expr(e: Expr, ty: Option<&Type>, aliases: &BTreeSet<String>) -> Expr {
    let span = e.span();
    match ty.map(|t| shape(t, aliases)) {
        Some(shape) if !matches!(shape, Type::Infer(_)) => wrap_dispatch(
            span,
            quote_spanned!(span=>
                let __fptune_value: #shape = #e;
                (&&::fptune::__rt::src(__fptune_value)).__fp_store()
            ),
        ),
        _ => wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::src(#e)).__fp_store())),
    }
}

/// Writes a suffixed float literal (`0.5f64`, `0_f64`) as the cast `(0.5f64 as f64)`, as the
/// tuner's elaboration does: the user's code and the tuner's builds of it expand alike.
struct SuffixedLiterals;

impl VisitMut for SuffixedLiterals {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Lit(l) = e {
            let suffix = match &l.lit {
                syn::Lit::Float(f) => f.suffix().to_string(),
                syn::Lit::Int(i) => i.suffix().to_string(),
                _ => String::new(),
            };
            if suffix == "f64" || suffix == "f32" {
                let span = l.span();
                let ty = syn::Ident::new(&suffix, span);
                let lit = l.clone();
                *e = parse_quote_spanned!(span=> (#lit as #ty));
            }
            return;
        }
        if matches!(e, Expr::Call(c) if elaborated_literal(c) || typed_literal(c) || receivers_literal(c)) {
            // The tuner's literal (`__rt::lit::<T>(0.5f64, 0.5f32)`, `__rt::typed_lit::<T>(..)`,
            // `__rt::lit_like(&(s), ..)`) carries the literal's two roundings, suffixed.
            return;
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}

    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

impl Rewriter {
    fn new(cx: Context, stochastic: bool) -> Rewriter {
        Rewriter { cx, stochastic, scopes: vec![HashMap::new()], returns: Vec::new(), printed: false }
    }

    fn bind(&mut self, name: String, b: Binding) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name, b);
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn binding_of_type(&self, ty: &Type) -> Binding {
        Binding {
            storable: is_storable_float(ty, &self.cx.aliases),
            floaty: !fptune_syntax::float_leaves(ty, &self.cx.aliases).is_empty(),
            inferred: false,
        }
    }

    fn bind_pat(&mut self, pat: &Pat, b: Binding) {
        match pat {
            Pat::Ident(pi) => self.bind(pi.ident.to_string(), b),
            Pat::Type(pt) => match (&*pt.pat, strip_type_parens(&pt.ty)) {
                // `let (a, b): (f64, usize)`: each part has its type.
                (Pat::Tuple(parts), Type::Tuple(types)) if parts.elems.len() == types.elems.len() => {
                    for (p, t) in parts.elems.iter().zip(types.elems.iter()) {
                        let b = self.binding_of_type(t);
                        self.bind_pat(p, b);
                    }
                }
                _ => {
                    let b = self.binding_of_type(&pt.ty);
                    self.bind_pat(&pt.pat, b);
                }
            },
            Pat::Reference(r) => self.bind_pat(&r.pat, b),
            _ => {
                // Destructuring: the parts' types are unknown here.
                struct Names<'a>(&'a mut Vec<String>);
                impl<'ast> Visit<'ast> for Names<'_> {
                    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                        self.0.push(p.ident.to_string());
                    }
                }
                let mut names = Vec::new();
                Names(&mut names).visit_pat(pat);
                for n in names {
                    self.bind(n, Binding::default());
                }
            }
        }
    }

    /// Whether an assignment to `place` stores into a float.
    fn float_place(&self, place: &Expr) -> bool {
        match place {
            Expr::Path(p) if p.path.segments.len() == 1 => {
                self.lookup(&p.path.segments[0].ident.to_string()).is_some_and(|b| b.storable)
            }
            Expr::Index(i) => self.floaty_root(&i.expr),
            Expr::Field(f) => match &f.member {
                syn::Member::Named(id) => self.cx.float_fields.contains(&id.to_string()),
                syn::Member::Unnamed(_) => false,
            },
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => self.floaty_root(&u.expr),
            Expr::Paren(p) => self.float_place(&p.expr),
            _ => false,
        }
    }

    /// The binding a place is (an element of), when it is a local variable.
    fn root_binding(&self, e: &Expr) -> Option<Binding> {
        match place_root(e) {
            Expr::Path(p) if p.path.segments.len() == 1 => self.lookup(&p.path.segments[0].ident.to_string()),
            _ => None,
        }
    }

    /// Whether the place is (an element of) a binding whose type was inferred ([`Binding`]).
    fn inferred_root(&self, e: &Expr) -> bool {
        self.root_binding(e).is_some_and(|b| b.inferred)
    }

    fn floaty_root(&self, e: &Expr) -> bool {
        match place_root(e) {
            Expr::Field(f) => match &f.member {
                syn::Member::Named(id) => self.cx.float_fields.contains(&id.to_string()),
                syn::Member::Unnamed(_) => false,
            },
            Expr::MethodCall(m) if m.method == "as_mut_slice" || m.method == "as_slice" => {
                self.floaty_root(&m.receiver)
            }
            _ => self.root_binding(e).is_some_and(|b| b.floaty),
        }
    }

    /// Whether an expression cast to an integer is (probably) a float: a float binding, literal,
    /// field or math method result. Casts of anything else (enums, chars, integers) are left to
    /// `as`, which the dispatch cannot express for every type.
    fn looks_float(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_)),
            Expr::Path(p) if p.path.segments.len() == 1 => {
                self.lookup(&p.path.segments[0].ident.to_string()).is_some_and(|b| b.floaty)
            }
            Expr::Index(i) => self.floaty_root(&i.expr),
            Expr::Field(_) => self.floaty_root(e),
            Expr::Paren(p) => self.looks_float(&p.expr),
            Expr::Group(g) => self.looks_float(&g.expr),
            Expr::Unary(u) => self.looks_float(&u.expr),
            Expr::Binary(b) => self.looks_float(&b.left) || self.looks_float(&b.right),
            // `(0_f64 as f64)`, as fptune's elaboration writes a suffixed literal.
            Expr::Cast(c) => cast_float_target(&c.ty, &self.cx.aliases),
            Expr::MethodCall(m) => {
                FLOAT_METHODS.iter().any(|n| m.method == n) && self.looks_float(&m.receiver)
                    || m.method == "to_f64"
                    || m.method == "to_f32"
            }
            // `f64::max(a, b)`, `f32::sqrt(x)`.
            Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.path.segments.len() == 2
                && FloatFormat::from_ident(&p.path.segments[0].ident.to_string()).is_some()
                && FLOAT_METHODS.iter().any(|n| p.path.segments[1].ident == n)),
            Expr::Block(b) => b.block.stmts.last().is_some_and(|s| match s {
                Stmt::Expr(e, None) => self.looks_float(e),
                _ => false,
            }),
            _ => false,
        }
    }

    /// Whether an assigned value is a float computation (a store then converts it to the place's
    /// type): literals, arithmetic, negation, float bindings and math methods. Other values (which
    /// may rely on coercions, like `r = &v`) are assigned as written.
    fn float_valued(&self, e: &Expr) -> bool {
        literal_like(e, &self.cx.aliases)
            || matches!(e, Expr::Binary(b) if arith_name(&b.op).is_some())
            || matches!(e, Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)))
            || self.looks_float(e)
    }

    /// An operand of arithmetic or comparison: literals and integer casts adapt.
    fn operand(&mut self, e: Expr) -> TokenStream {
        // Parentheses are not needed around a dispatch argument.
        let mut e = strip_parens(e);
        if let Some((digits, span)) = float_literal(&e) {
            return lit_tokens(&digits, span);
        }
        let cast_target = match &e {
            Expr::Paren(p) => match &*p.expr {
                Expr::Cast(c) => Some(c.clone()),
                _ => None,
            },
            Expr::Cast(c) => Some(c.clone()),
            _ => None,
        };
        if let Some(c) = cast_target {
            if cast_float_target(&c.ty, &self.cx.aliases) {
                let mut src = strip_parens((*c.expr).clone());
                let ty = (*c.ty).clone();
                self.visit_expr_mut(&mut src);
                let span = c.span();
                return quote_spanned!(span=> ::fptune::__rt::cast_operand::<#ty, _>(#src));
            }
        }
        if let Expr::Binary(b) = strip_parens(e.clone()) {
            if let Some(name) = arith_name(&b.op) {
                if literal_like(&Expr::Binary(b.clone()), &self.cx.aliases) {
                    // Inside a larger expression, literal-only arithmetic adapts too.
                    let span = b.span();
                    let left = self.operand(*b.left);
                    let right = self.operand(*b.right);
                    let method = syn::Ident::new(&format!("__fp_{name}"), b.op.span());
                    return wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::pair(#left, #right)).#method()))
                        .into_token_stream();
                }
            }
        }
        self.visit_expr_mut(&mut e);
        e.into_token_stream()
    }

    /// Applies a store to the value(s) a tail expression produces (through `if`, `match` and
    /// blocks, so that each branch converts on its own).
    fn store_tail(&mut self, e: &mut Expr, ty: Option<&Type>) {
        match e {
            Expr::If(i) => {
                self.store_block(&mut i.then_branch, ty);
                if let Some((_, els)) = &mut i.else_branch {
                    self.store_tail(els, ty);
                }
            }
            Expr::Match(m) => {
                for arm in &mut m.arms {
                    self.store_tail(&mut arm.body, ty);
                }
            }
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => self.store_block(&mut b.block, ty),
            // A tail with attributes (`#[cfg(..)] { .. }`) may not be there once they apply.
            Expr::Block(_) => {}
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {}
            Expr::Macro(m) if m.mac.path.is_ident("panic") || m.mac.path.is_ident("unreachable") => {}
            // `Some(x)` into `Option<f64>`, `Ok(x)` into `Result<f64, E>`: the payload is stored;
            // `None`, `Err(..)` and any other value (a call's result) have their type already.
            _ if let Some((payload, variant)) = ty.and_then(|t| float_payload(t, &self.cx.aliases)) => match e {
                Expr::Paren(p) => self.store_tail(&mut p.expr, ty),
                Expr::Call(c) if c.args.len() == 1 && matches!(&*c.func, Expr::Path(f) if f.path.is_ident(variant)) => {
                    let payload = payload.clone();
                    if let Some(x) = c.args.first_mut() {
                        self.store_tail(x, Some(&payload));
                    }
                }
                _ => {}
            },
            _ if let Some(types) = ty.and_then(|t| mixed_float_tuple(t, &self.cx.aliases)) => match e {
                Expr::Paren(p) => self.store_tail(&mut p.expr, ty),
                // `(1, 0.5)` into `(usize, f64)`: each float element on its own.
                Expr::Tuple(t) if types.elems.len() == t.elems.len() => {
                    for (e, ety) in t.elems.iter_mut().zip(types.elems.iter()) {
                        if stored_type(ety, &self.cx.aliases) {
                            self.store_tail(e, Some(ety));
                        }
                    }
                }
                // Any other value of a mixed tuple type (a call's result, say) has its type already.
                _ => {}
            },
            // `vec![]`, `Vec::new()`, `x.into()`, `s.parse()?`: the place's type is what types it.
            other if typed_by_annotation(other) || context_typed(other) => {}
            other => {
                let taken = std::mem::replace(other, parse_quote!(()));
                // A literal is rounded to nearest into the place, as the compiler rounds it.
                let taken = literal_as_lit(taken);
                *other = store_expr(taken, ty, &self.cx.aliases);
            }
        }
    }

    fn store_block(&mut self, block: &mut Block, ty: Option<&Type>) {
        if let Some(Stmt::Expr(e, None)) = block.stmts.last_mut() {
            self.store_tail(e, ty);
        }
    }

    fn fn_body(&mut self, sig: &syn::Signature, block: &mut Block) {
        self.scopes.push(HashMap::new());
        for input in &sig.inputs {
            if let FnArg::Typed(pt) = input {
                let b = self.binding_of_type(&pt.ty);
                self.bind_pat(&pt.pat, b);
            }
        }
        let ret = match &sig.output {
            ReturnType::Type(_, ty) => stored_type(ty, &self.cx.aliases).then(|| (**ty).clone()),
            ReturnType::Default => None,
        };
        self.returns.push(Some(ret.clone()));
        self.visit_block_mut(block);
        if let Some(ty) = &ret {
            self.store_block(block, Some(ty));
        }
        self.returns.pop();
        self.scopes.pop();
        // `half`'s 16-bit types lack most of `f64`'s method set (`sqrt`, `sin`, `abs`, ..):
        // `HalfMath` gives it to them (computed in `f32`, rounded to nearest), so a knob lowered
        // to 16 bits keeps compiling. Every other float has these methods of its own, which win.
        block.stmts.insert(0, parse_quote!(#[allow(unused_imports)] use ::fptune::__rt::HalfMath as _;));
    }

    fn rewrite_call_args(&mut self, params: Option<&Vec<Option<Type>>>, args: &mut syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        for (i, arg) in args.iter_mut().enumerate() {
            self.visit_expr_mut(arg);
            let ty = params.and_then(|p| p.get(i)).cloned().flatten();
            if ty.is_some() {
                self.store_tail(arg, ty.as_ref());
            }
        }
    }

    /// Rewrites the arguments of a known formatting or collection macro; others are left alone.
    fn visit_macro_args(&mut self, mac: &mut syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let format_like = name != "vec" && EXPRESSION_MACROS.contains(&name.as_str());
        if name == "vec" {
            if let Ok(mut arr) = syn::parse2::<VecRepeat>(mac.tokens.clone()) {
                self.visit_expr_mut(&mut arr.elem);
                self.visit_expr_mut(&mut arr.len);
                // (`vec![x; n]`'s length is an ordinary expression.)
                let (e, n) = (&arr.elem, &arr.len);
                mac.tokens = quote!(#e; #n);
                return;
            }
        }
        if format_like || name == "vec" {
            let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            if let Ok(mut args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
                let written = args.clone();
                for arg in args.iter_mut() {
                    match arg {
                        // `name = value` in a format macro is a named argument, not a store.
                        Expr::Assign(a) if format_like => self.visit_expr_mut(&mut a.right),
                        _ => self.visit_expr_mut(arg),
                    }
                }
                if let Some((at, stdout)) = crate::printed::format_index(&name) {
                    if let Some(shown) = crate::printed::rewrite(&args, &written, at, stdout && self.printed) {
                        args = shown;
                    }
                }
                mac.tokens = args.into_token_stream();
            }
        }
    }
}

/// `vec![elem; len]`.
struct VecRepeat {
    elem: Expr,
    len: Expr,
}

impl syn::parse::Parse for VecRepeat {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let elem: Expr = input.parse()?;
        input.parse::<syn::Token![;]>()?;
        let len: Expr = input.parse()?;
        Ok(VecRepeat { elem, len })
    }
}

impl VisitMut for Rewriter {
    fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
        // A `const fn`'s body cannot call the dispatch: it stays as written (the stochastic build
        // made every `const fn` computing with floats an ordinary one, `unconst_float_fns`).
        if f.sig.constness.is_none() {
            let sig = f.sig.clone();
            self.fn_body(&sig, &mut f.block);
        }
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        if f.sig.constness.is_none() {
            let sig = f.sig.clone();
            self.fn_body(&sig, &mut f.block);
        }
    }

    fn visit_trait_item_fn_mut(&mut self, f: &mut syn::TraitItemFn) {
        if let Some(block) = &mut f.default {
            let sig = f.sig.clone();
            self.fn_body(&sig, block);
        }
    }

    // Constant contexts cannot call the dispatch: their expressions stay as written, but a
    // literal given to a 16-bit type (which no literal can be) goes through half's const
    // conversion.
    fn visit_item_const_mut(&mut self, c: &mut syn::ItemConst) {
        half_literal(&c.ty, &mut c.expr);
    }
    fn visit_item_static_mut(&mut self, s: &mut syn::ItemStatic) {
        half_literal(&s.ty, &mut s.expr);
    }
    fn visit_impl_item_const_mut(&mut self, c: &mut syn::ImplItemConst) {
        half_literal(&c.ty, &mut c.expr);
    }
    fn visit_expr_const_mut(&mut self, _c: &mut syn::ExprConst) {}
    fn visit_type_mut(&mut self, _t: &mut Type) {}

    fn visit_block_mut(&mut self, b: &mut Block) {
        self.scopes.push(HashMap::new());
        visit_mut::visit_block_mut(self, b);
        self.scopes.pop();
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        let annotated = match &l.pat {
            Pat::Type(pt) => Some((*pt.ty).clone()),
            _ => None,
        };
        let literal_init = l.init.as_ref().is_some_and(|i| is_literal_operand(&i.expr));
        let literal_init_value = l.init.as_ref().is_some_and(|i| literal_value(&i.expr));
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, diverge)) = &mut init.diverge {
                self.visit_expr_mut(diverge);
            }
            match &annotated {
                Some(_) if typed_by_annotation(&init.expr) || generic_result(&init.expr) => {}
                Some(ty) if stored_type(ty, &self.cx.aliases) && init.diverge.is_none() => {
                    self.store_tail(&mut init.expr, Some(ty));
                }
                // A literal value takes the annotated type, whatever float it names (an alias
                // declared elsewhere, `f16`, a stochastic type).
                Some(_) if literal_init_value && init.diverge.is_none() => {
                    self.store_tail(&mut init.expr, None);
                }
                None if literal_init && self.stochastic => {
                    // An unannotated float literal binding is an f64 (the dispatch's fallback);
                    // in the stochastic build, a stochastic one.
                    if let Some((digits, span)) = float_literal(&init.expr) {
                        let d: TokenStream = format!("{digits}f64").parse().unwrap_or_default();
                        *init.expr = parse_quote_spanned!(span=> ::fptune::Sf64::from_f64(#d));
                    }
                }
                _ => {}
            }
        }
        let b = match &annotated {
            Some(ty) => self.binding_of_type(ty),
            None => Binding { storable: literal_init, floaty: literal_init, inferred: l.init.is_some() },
        };
        self.bind_pat(&l.pat, b);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.scopes.push(HashMap::new());
        for input in &c.inputs {
            self.bind_pat(input, Binding::default());
        }
        self.returns.push(None);
        self.visit_expr_mut(&mut c.body);
        self.returns.pop();
        self.scopes.pop();
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let span = e.span();
        if let Expr::Call(c) = e {
            // (`lit::<T>(..)`; a heal's `lit(..)` has no type written and is left to infer it.)
            let typed = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| !s.arguments.is_empty()));
            if elaborated_literal(c) && typed {
                // The tuner's elaborated literal where no operator takes it (an argument, a
                // field, a tuple): in a native or probe build, the literal as the user wrote it,
                // which takes the type its place has, as it does in the user's build of the tuned
                // code. The stochastic build keeps its type, made stochastic, except where
                // [`UntypedLiterals`] left it to rustc.
                if !self.stochastic {
                    if let Some((digits, span)) = float_literal(e) {
                        // Too large for `f32` (`1e99`), it can only be an `f64` (rustc refuses the
                        // literal at `f32`, a lint the probe build never reaches): said so, the
                        // probe holds the place at `f64`.
                        let digits = if fptune_syntax::too_large_for_f32(&digits) { format!("{digits}f64") } else { digits };
                        *e = Expr::Lit(syn::ExprLit { attrs: Vec::new(), lit: syn::Lit::Float(syn::LitFloat::new(&digits, span)) });
                    }
                }
                return;
            }
        }
        match e {
            // An integer literal operand (`m + 1`, `i < 3`, `k += 1`): Rust has no float
            // operand beside one, so the native operator stays (a dispatched one would leave the
            // result's type open where the integer's is not known yet).
            Expr::Binary(b) if integer_literal(&b.left) || integer_literal(&b.right) => visit_mut::visit_expr_binary_mut(self, b),
            Expr::Binary(b) => {
                if let Some(name) = arith_name(&b.op) {
                    if literal_like(&b.left, &self.cx.aliases) && literal_like(&b.right, &self.cx.aliases) {
                        // A value of literals and casts only: written types, native operator.
                        visit_mut::visit_expr_binary_mut(self, b);
                        return;
                    }
                    let left = self.operand((*b.left).clone());
                    let right = self.operand((*b.right).clone());
                    let method = syn::Ident::new(&format!("__fp_{name}"), b.op.span());
                    *e = wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::pair(#left, #right)).#method()));
                } else if let Some(name) = cmp_name(&b.op) {
                    if is_literal_operand(&b.left) && is_literal_operand(&b.right) {
                        return;
                    }
                    let left = self.operand((*b.left).clone());
                    let right = self.operand((*b.right).clone());
                    let method = syn::Ident::new(&format!("__fp_{name}"), b.op.span());
                    *e = wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::pair(&(#left), &(#right))).#method()));
                } else if let Some(name) = assign_name(&b.op) {
                    let mut place = (*b.left).clone();
                    self.visit_expr_mut(&mut place);
                    let right = self.operand((*b.right).clone());
                    let method = syn::Ident::new(name, b.op.span());
                    // The value first, then the place (`h[i] -= f * h[k]` borrows `h` twice),
                    // evaluated once; the dispatch looks at the types only.
                    *e = wrap_dispatch(span, quote_spanned!(span=>
                        let __fptune_rhs = #right;
                        let __fptune_place = &mut #place;
                        (&&::fptune::__rt::types(&*__fptune_place, &__fptune_rhs))
                            .__fp_compound()
                            .#method(__fptune_place, __fptune_rhs)
                    ));
                } else {
                    visit_mut::visit_expr_binary_mut(self, b);
                }
            }
            // `_ = e`: nothing is stored.
            Expr::Assign(a) if matches!(*a.left, Expr::Infer(_)) => self.visit_expr_mut(&mut a.right),
            Expr::Assign(a) => {
                let store = self.float_place(&a.left) || self.float_valued(&a.right);
                self.visit_expr_mut(&mut a.left);
                self.visit_expr_mut(&mut a.right);
                if store && self.inferred_root(&a.left) && simple_place(&a.left) && !branches(&a.right) {
                    // The value first, then the place, as `=` evaluates them; the store sees
                    // the place (one of run-time format keeps its format, see `Store::store_into`).
                    let left = &a.left;
                    let right = literal_as_lit((*a.right).clone());
                    *e = wrap_dispatch(span, quote_spanned!(span=>
                        let __fptune_value = #right;
                        let __fptune_place = &mut #left;
                        (&&::fptune::__rt::src(__fptune_value)).__fp_store_into(__fptune_place)
                    ));
                } else if store {
                    self.store_tail(&mut a.right, None);
                }
            }
            Expr::Cast(c) => {
                if cast_float_target(&c.ty, &self.cx.aliases)
                    || (int_target(&c.ty) && self.looks_float(&c.expr))
                {
                    self.visit_expr_mut(&mut c.expr);
                    let src = strip_parens((*c.expr).clone());
                    let ty = &c.ty;
                    *e = parse_quote_spanned!(span=> ::fptune::__rt::cast::<#ty, _>(#src));
                } else {
                    visit_mut::visit_expr_cast_mut(self, c);
                }
            }
            Expr::Return(r) => {
                if let Some(value) = &mut r.expr {
                    self.visit_expr_mut(value);
                    if let Some(Some(Some(ty))) = self.returns.last().cloned() {
                        self.store_tail(value, Some(&ty));
                    }
                }
            }
            Expr::Call(call) => {
                self.visit_expr_mut(&mut call.func);
                let name = match &*call.func {
                    Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                };
                let is_swap = matches!(&*call.func, Expr::Path(p) if {
                    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                    segs.len() >= 2 && segs[segs.len() - 2] == "mem" && segs[segs.len() - 1] == "swap"
                });
                if is_swap {
                    *call.func = parse_quote_spanned!(span=> ::fptune::__rt::swap);
                }
                let params = name.and_then(|n| self.cx.fns.get(&n).cloned());
                self.rewrite_call_args(params.as_ref(), &mut call.args);
            }
            Expr::MethodCall(m)
                if m.args.len() == 1
                    && m.turbofish.is_none()
                    && TWO_OPERAND_METHODS.iter().any(|n| m.method == n)
                    && self.looks_float(&m.receiver)
                    && !(literal_like(&m.receiver, &self.cx.aliases) && literal_like(&m.args[0], &self.cx.aliases)) =>
            {
                // `x.powf(y)` between floats: computed in their common format, a literal argument
                // adapting to the receiver, as `x + y` is.
                let method = syn::Ident::new(&format!("__fp_{}", m.method), m.method.span());
                let recv = self.operand((*m.receiver).clone());
                let arg = self.operand(m.args[0].clone());
                *e = wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::pair(#recv, #arg)).#method()));
            }
            Expr::MethodCall(m) => {
                // A method of an elaborated literal (`0.5.sqrt()`, rustc typed it) keeps the
                // literal's type: a bare literal's would be ambiguous.
                if !matches!(&*m.receiver, Expr::Call(c) if elaborated_literal(c)) {
                    self.visit_expr_mut(&mut m.receiver);
                }
                let method = m.method.to_string();
                let params = self.cx.methods.get(&method).cloned();
                self.rewrite_call_args(params.as_ref(), &mut m.args);
                let recv = &m.receiver;
                match method.as_str() {
                    // An iterator's `sum`/`product` ends a chain (`v.iter().map(..).sum()`); on a
                    // path (`acc.sum()`) it is as likely a method of the program's own type,
                    // which the fold's dispatch would not find.
                    "sum" | "product" if m.args.is_empty() && chain_end(recv) => {
                        let turbofish = m.turbofish.as_ref().map(|t| &t.args);
                        let name = match turbofish {
                            Some(_) => format!("__fp_{method}_as"),
                            None => format!("__fp_{method}"),
                        };
                        let call = syn::Ident::new(&name, m.method.span());
                        let body = match turbofish {
                            Some(args) => quote_spanned!(span=> (&&::fptune::__rt::fold(#recv)).#call::<#args>()),
                            None => quote_spanned!(span=> (&&::fptune::__rt::fold(#recv)).#call()),
                        };
                        *e = wrap_dispatch(span, body);
                    }
                    "copy_from_slice" if m.args.len() == 1 => {
                        let src = &m.args[0];
                        *e = wrap_dispatch(
                            span,
                            quote_spanned!(span=> (&&::fptune::__rt::pair(
                                // `[..]` reborrows a `&mut [T]` binding as the method call
                                // does (no `mut` needed), and borrows a `Vec` or an array.
                                &mut (#recv)[..],
                                ::fptune::__rt::AsRef::<[_]>::as_ref(#src),
                            )).__fp_copy_from_slice()),
                        );
                    }
                    _ => {}
                }
            }
            Expr::Struct(s) => {
                let name = s.path.segments.last().map(|seg| seg.ident.to_string()).unwrap_or_default();
                let storable = self.cx.structs.get(&name).cloned();
                for field in s.fields.iter_mut() {
                    let member = match &field.member {
                        syn::Member::Named(id) => id.to_string(),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    let literal = is_literal_operand(&field.expr);
                    self.visit_expr_mut(&mut field.expr);
                    let ty = storable.as_ref().and_then(|f| f.get(&member)).cloned();
                    if ty.is_some() || (literal && self.stochastic) {
                        // Field-init shorthand `S { a }` becomes `S { a: store(a) }`.
                        field.colon_token.get_or_insert_with(Default::default);
                        self.store_tail(&mut field.expr, ty.as_ref());
                    }
                }
                if let Some(rest) = &mut s.rest {
                    self.visit_expr_mut(rest);
                }
            }
            Expr::Macro(m) => self.visit_macro_args(&mut m.mac),
            // `[x; N]`: `N` is a constant, which no call of the dispatch may compute.
            Expr::Repeat(r) => self.visit_expr_mut(&mut r.expr),
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_stmt_macro_mut(&mut self, m: &mut syn::StmtMacro) {
        self.visit_macro_args(&mut m.mac);
    }
}

// ----------------------------------------------------------------------------------------------
// Stochastic types
// ----------------------------------------------------------------------------------------------

/// Replaces every float type written in the item by its stochastic type, and `f64::sqrt(x)`-style
/// calls by the stochastic type's. `static` and `const` items keep their primitive types.
struct StochasticTypes;

fn stochastic_path(format: FloatFormat, span: Span) -> syn::Path {
    let text: TokenStream = format.stochastic().parse().unwrap_or_default();
    let mut path: syn::Path = parse_quote!(#text);
    // Every token at the user's `f64`, so that rustc's errors point there.
    if let Some(colons) = &mut path.leading_colon {
        colons.spans = [span; 2];
    }
    for mut pair in path.segments.pairs_mut() {
        pair.value_mut().ident.set_span(span);
        if let Some(p) = pair.punct_mut() {
            p.spans = [span; 2];
        }
    }
    path
}

/// A bound of a conversion trait (`From<f64>`, `SubsetOf<f64>`, `AsPrimitive<f64>`): it relates a
/// generic type to a primitive one.
fn conversion_bound(bound: &syn::TypeParamBound) -> bool {
    const CONVERSIONS: [&str; 8] = ["From", "Into", "TryFrom", "TryInto", "SubsetOf", "SupersetOf", "AsPrimitive", "FromPrimitive"];
    matches!(bound, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| CONVERSIONS.iter().any(|c| s.ident == c)))
}

impl VisitMut for StochasticTypes {
    fn visit_item_const_mut(&mut self, _c: &mut syn::ItemConst) {}
    fn visit_item_static_mut(&mut self, _s: &mut syn::ItemStatic) {}
    fn visit_impl_item_const_mut(&mut self, _c: &mut syn::ImplItemConst) {}

    // A float in a conversion trait's bound (`T: SubsetOf<f64>`, `T: From<f64>`,
    // `where f64: From<T>`) names how a generic value meets the crate's constants, which stay
    // primitive; other bounds (`impl Biquad<f64>`, `F: Fn(f64) -> f64`) are about its values.
    fn visit_type_param_bound_mut(&mut self, bound: &mut syn::TypeParamBound) {
        if !conversion_bound(bound) {
            visit_mut::visit_type_param_bound_mut(self, bound);
        }
    }
    fn visit_where_predicate_mut(&mut self, p: &mut syn::WherePredicate) {
        if let syn::WherePredicate::Type(t) = p {
            if !t.bounds.iter().any(conversion_bound) {
                self.visit_type_mut(&mut t.bounded_ty);
            }
            for bound in t.bounds.iter_mut() {
                self.visit_type_param_bound_mut(bound);
            }
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, |e| self.visit_expr_mut(e));
    }

    fn visit_type_mut(&mut self, t: &mut Type) {
        if let Type::Path(p) = t {
            if p.path.segments.last().is_some_and(|s| s.ident == "Knob") {
                // The single build's knob (`__rt::Knob<F, K>`) is stochastic already; `F` is the
                // declared format.
                return;
            }
            if p.qself.is_none() && !fptune_syntax::primitive_path(&p.path) {
                let leaves = fptune_syntax::float_leaves(&Type::Path(p.clone()), &BTreeSet::new());
                if leaves.len() == 1 && leaves[0].alias.is_none() {
                    if let (Some(format), Some(last)) = (leaves[0].format, p.path.segments.last()) {
                        if last.arguments.is_none() && FloatFormat::from_ident(&last.ident.to_string()).is_some() {
                            p.path = stochastic_path(format, p.span());
                            return;
                        }
                    }
                }
            }
        }
        visit_mut::visit_type_mut(self, t);
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        // `f64::sqrt` -> `::fptune::Sf64::sqrt`; `std::f64::consts::PI` stays.
        let segs = &p.path.segments;
        if p.qself.is_none() && segs.len() == 2 && p.path.leading_colon.is_none() {
            if let Some(format) = FloatFormat::from_ident(&segs[0].ident.to_string()) {
                let member = segs[1].ident.to_string();
                if member.chars().next().is_some_and(|c| c.is_lowercase()) {
                    let mut path = stochastic_path(format, p.span());
                    path.segments.push(segs[1].clone());
                    p.path = path;
                    return;
                }
            }
        }
        visit_mut::visit_expr_path_mut(self, p);
    }

    // `f64::NEG_INFINITY`, `f64::EPSILON` (a float-valued associated constant of a float type) as a value:
    // the stochastic value, as the functions beside it are (`.fold(f64::NEG_INFINITY,
    // f64::max)`). Constants and patterns keep them (they are not visited).
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            let segs = &p.path.segments;
            // The float-valued ones: `MAX_EXP`, `DIGITS`, `RADIX` and the like are integers.
            const FLOAT_VALUED: [&str; 7] = ["EPSILON", "MAX", "MIN", "MIN_POSITIVE", "INFINITY", "NEG_INFINITY", "NAN"];
            if p.qself.is_none() && segs.len() == 2 && p.path.leading_colon.is_none() && FLOAT_VALUED.contains(&segs[1].ident.to_string().as_str()) {
                if let Some(format @ (FloatFormat::F64 | FloatFormat::F32)) = FloatFormat::from_ident(&segs[0].ident.to_string()) {
                    let span = p.span();
                    let ty = stochastic_path(format, span);
                    *e = parse_quote_spanned!(span=> <#ty>::from(#p));
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_mut(&mut self, p: &mut syn::Pat) {
        if !matches!(p, syn::Pat::Path(_) | syn::Pat::Range(_)) {
            visit_mut::visit_pat_mut(self, p);
        }
    }
}

//! The names in scope of the rewrite (`Binding`s), and from them which places and values are
//! floats.

use fptune_syntax::{is_storable_float, FloatFormat};
use syn::visit::Visit;
use syn::{Expr, Pat, Stmt, Type, UnOp};

use crate::expand::macro_args::VecRepeat;

use super::operators::{arith_name, cast_float_target, literal_like};
use super::{Binding, Rewriter};

impl Rewriter {
    pub(super) fn bind(&mut self, name: String, b: Binding) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name, b);
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    pub(super) fn binding_of_type(&mut self, ty: &Type) -> Binding {
        let generic = self.generic_callables.last();
        let callable = fptune_syntax::callable_parameters(ty, &|name| generic.and_then(|g| g.get(name)).cloned()).map(|params| {
            // A float taken by value is stored into, in every build: unlike the item's own
            // functions' parameters (`generalize_knob_params`), a callable's cannot accept
            // any float.
            let stored = params.into_iter().map(|t| is_storable_float(&t, &self.cx.aliases).then_some(t)).collect();
            self.callables.push(stored);
            self.callables.len() - 1
        });
        Binding {
            storable: is_storable_float(ty, &self.cx.aliases),
            floaty: callable.is_none() && !fptune_syntax::float_leaves(ty, &self.cx.aliases).is_empty(),
            inferred: false,
            open: false,
            callable,
        }
    }

    /// The float parameters of the callable `name` is bound to, if it is one.
    pub(super) fn callable(&self, name: &str) -> Option<Vec<Option<Type>>> {
        self.lookup(name)?.callable.map(|i| self.callables[i].clone())
    }

    /// Binds every name of an untyped closure parameter's pattern as [`Binding::open`].
    pub(super) fn bind_open(&mut self, pat: &Pat) {
        for n in pat_names(pat) {
            self.bind(n, Binding { open: true, ..Binding::default() });
        }
    }

    /// Whether rustc has typed `e` where it is used as an operand, or will type it as its own
    /// operator would (a float literal's binding, `{float}`): a binding not [`Binding::open`],
    /// its fields, elements and dereferences, calls and method calls whose result type is
    /// declared, and arithmetic of such values (whose result the dispatch's first level types,
    /// or a float level types from two known types). Anything else (a literal operand, a cast,
    /// a block, a macro, a call whose result type waits for its use, `x.into()`, `.sum()`) may
    /// have a type the dispatch leaves open until later: the dispatch's first level, two
    /// operands of one native type, would take it for the other operand's type.
    pub(super) fn settled(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => match p.path.get_ident() {
                Some(id) => !self.lookup(&id.to_string()).is_some_and(|b| b.open),
                // A constant, a unit struct, an associated constant: declared.
                None => true,
            },
            Expr::Field(f) => self.settled(&f.base),
            Expr::Index(i) => self.settled(&i.expr),
            Expr::Paren(p) => self.settled(&p.expr),
            Expr::Group(g) => self.settled(&g.expr),
            Expr::Reference(r) => self.settled(&r.expr),
            Expr::Unary(u) => self.settled(&u.expr),
            Expr::Binary(b) if arith_name(&b.op).is_some() => self.settled(&b.left) && self.settled(&b.right),
            Expr::MethodCall(m) => (m.turbofish.is_some() || !OPEN_RESULTS.iter().any(|n| m.method == n)) && self.settled(&m.receiver),
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => p.path.segments.last().is_some_and(|l| !OPEN_RESULTS.iter().any(|n| l.ident == n)),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether a `let`'s unannotated value leaves the binding typed as [`Rewriter::settled`]
    /// says: a float literal (rustc's `{float}`), arrays and `vec![..]`s of such values, or a
    /// settled value.
    pub(super) fn settled_value(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => self.settled_value(&u.expr),
            Expr::Paren(p) => self.settled_value(&p.expr),
            Expr::Array(a) => a.elems.iter().all(|x| self.settled_value(x)),
            Expr::Repeat(r) => self.settled_value(&r.expr),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                use syn::parse::Parser;
                if let Ok(VecRepeat { elem, .. }) = syn::parse2::<VecRepeat>(m.mac.tokens.clone()) {
                    return self.settled_value(&elem);
                }
                syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated
                    .parse2(m.mac.tokens.clone())
                    .is_ok_and(|elems| elems.iter().all(|x| self.settled_value(x)))
            }
            other => self.settled(other),
        }
    }

    pub(super) fn bind_pat(&mut self, pat: &Pat, b: Binding) {
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
                for n in pat_names(pat) {
                    self.bind(n, Binding::default());
                }
            }
        }
    }

    /// Whether an assignment to `place` stores into a float.
    pub(super) fn float_place(&self, place: &Expr) -> bool {
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
    pub(super) fn inferred_root(&self, e: &Expr) -> bool {
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
    pub(super) fn looks_float(&self, e: &Expr) -> bool {
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
    pub(super) fn float_valued(&self, e: &Expr) -> bool {
        literal_like(e, &self.cx.aliases)
            || matches!(e, Expr::Binary(b) if arith_name(&b.op).is_some())
            || matches!(e, Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)))
            || self.looks_float(e)
    }
}

/// The names a pattern binds.
fn pat_names(pat: &Pat) -> Vec<String> {
    struct Names<'a>(&'a mut Vec<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
        }
    }
    let mut names = Vec::new();
    Names(&mut names).visit_pat(pat);
    names
}

pub(super) fn strip_type_parens(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => strip_type_parens(&p.elem),
        Type::Group(g) => strip_type_parens(&g.elem),
        other => other,
    }
}

/// A place `&mut` can borrow as it is: a variable, a field, an element, a dereference (not a
/// destructuring tuple or struct).
pub(super) fn simple_place(e: &Expr) -> bool {
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

/// Functions and methods whose result type waits for its use (a generic result): their value's
/// type may still be open where it is an operand ([`Rewriter::settled`]).
const OPEN_RESULTS: [&str; 14] =
    ["into", "try_into", "from", "try_from", "default", "parse", "sum", "product", "collect", "fold", "cast", "unwrap_or_default", "from_f64", "from_f32"];

/// Methods whose result is a float when their receiver is: a cast of such a call to an integer
/// is a float-to-integer cast.
const FLOAT_METHODS: [&str; 27] = [
    "floor", "ceil", "round", "trunc", "sqrt", "abs", "exp", "ln", "log10", "log2", "powi", "powf",
    "sin", "cos", "tan", "max", "min", "to_degrees", "to_radians", "recip", "cbrt", "hypot", "atan2",
    "mul_add", "copysign", "rem_euclid", "div_euclid",
];

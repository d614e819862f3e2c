//! Which heal answers one error of the stochastic build, by its code and the types it names.


use syn::spanned::Spanned;

use crate::cargo::Diagnostic;
use crate::probe::expected_found;

use super::find::{
    array_literals, call_at, cast_at, const_keyword_around, expression_at, find_expr, float_literal_at, float_path_at, float_path_before,
    float_path_callee, in_constant, in_macro_tokens, lent_referent, literals_in_text, receiver_of, widest_at,
};
use super::types::{dynamic, float_shaped, lent_as, qualified, slice_element, split_words, stochastic};
use super::{rendered, Built, Fix, Heal};


/// The heals for one error at `(a, b)` of the built file (none when no heal answers it).
pub(super) fn heals_for(e: &Diagnostic, name: &str, file: &Built<'_>, (a, b): (usize, usize)) -> Vec<Heal> {
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
            if x.contains("DynNative") && (y.contains("DynStochastic") || stochastic(&y)) {
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
                if y.contains("{float}") && (y.contains('<') || y.starts_with('[')) {
                    // A container of literals from a foreign macro: its literals follow the
                    // place in every configuration, as natively.
                    return vec![make(range, Fix::Relit)];
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
        "E0277" if iterator_items(&e.message).is_some() => {
            let Some(fix) = iterator_items(&e.message) else { return Vec::new() };
            match method_name_at(base, range) {
                Some(()) => vec![make(range, fix)],
                None => Vec::new(),
            }
        }
        "E0277" => {
            // `the trait bound `Stochastic<f64>: Trait` is not satisfied`: a value goes to a trait
            // of another crate. At a call, the literals it is given stay primitive (a generic
            // function converting a constant, `convert(1.0)`); at a value, the value does.
            let Some(self_ty) = e.message.strip_prefix("the trait bound `").and_then(|r| r.split(':').next()) else { return Vec::new() };
            if !stochastic(self_ty) && from_stochastic(&e.message) {
                // `T::from(k)`, `T::try_from(k)` in generic code whose `T` converts from `f64`
                // (`where T: From<f64>`): the argument is given as the primitive it asks for.
                return conversion_args(base, range).into_iter().map(|a| make(a, Fix::ToNative)).collect();
            }
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
            if scalar_left_of_container(&e.message) {
                // `dt / dx * &u`: ndarray and nalgebra put a scalar on the left of their
                // containers for primitive scalars only.
                return operands_at(base, range).map(|(l, _)| vec![make(l, Fix::ScalarLeft)]).unwrap_or_default();
            }
            if let Some(left_native) = native_operand(&e.message) {
                // `I * z` with `const I: Complex<f64>` kept primitive (no knob) and `z` stochastic:
                // the primitive operand is made stochastic, an exact value.
                return operands_at(base, range)
                    .map(|(l, r)| vec![make(if left_native { l } else { r }, Fix::ToStochastic)])
                    .unwrap_or_default();
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

/// The two operand types of an operator's dispatch that rustc refused ("the method `__fp_mul`
/// exists for reference `&&&Pair<A, B>`, but its trait bounds were not satisfied").
fn pair_operands(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("the method `__fp_")?;
    let pair = &rest[rest.find("Pair<")? + "Pair<".len()..];
    let mut depth = 0i32;
    let mut split = None;
    let mut end = pair.len();
    for (i, c) in pair.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' if depth == 0 => {
                end = i;
                break;
            }
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => split = Some(i),
            _ => {}
        }
    }
    let split = split?;
    Some((pair[..split].trim(), pair[split + 1..end].trim()))
}

/// Whether a refused operator has a stochastic scalar (or a knob) on the left and an ndarray
/// array or a nalgebra matrix on the right (`Pair<Stochastic<f64>, &ArrayBase<..>>`).
pub(super) fn scalar_left_of_container(message: &str) -> bool {
    let Some((a, b)) = pair_operands(message) else { return false };
    let container = |t: &str| t.contains("ArrayBase<") || t.contains("Matrix<");
    (stochastic(a) || dynamic(a)) && !container(a) && !a.contains("Complex<") && container(b)
}

/// The dispatch of an operator between a primitive float container and a stochastic value
/// ("the method `__fp_mul` exists for reference `&&Pair<Complex<f64>, Stochastic<f64>>`, but its
/// trait bounds were not satisfied"): `Some(true)` when the left operand is the primitive one.
pub(super) fn native_operand(message: &str) -> Option<bool> {
    let (a, b) = pair_operands(message)?;
    let primitive = |t: &str| !stochastic(t) && !dynamic(t) && split_words(t).iter().any(|w| w == "f64" || w == "f32");
    match (primitive(a) && stochastic(b), stochastic(a) && primitive(b)) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

/// The operands of the binary operator whose token `range` names.
fn operands_at(text: &str, range: (usize, usize)) -> Option<((usize, usize), (usize, usize))> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::Binary(b) if at(b.op.span()) == Some(range) => Some((at(b.left.span())?, at(b.right.span())?)),
        _ => None,
    })
}

/// Whether a trait error says a type does not convert from a stochastic value: "the trait bound
/// `T: From<Stochastic<f64>>` (`TryFrom`) is not satisfied".
pub(super) fn from_stochastic(message: &str) -> bool {
    let Some(bound) = message.strip_prefix("the trait bound `").and_then(|r| r.strip_suffix("` is not satisfied")) else { return false };
    let Some((_, tr)) = bound.split_once(": ") else { return false };
    ["From<", "TryFrom<"].iter().any(|c| tr.starts_with(c) && stochastic(tr))
}

/// The arguments of the conversion call (`T::from(k)`, `T::try_from(k)`) whose path or whole
/// call `range` names.
pub(super) fn conversion_args(text: &str, range: (usize, usize)) -> Vec<(usize, usize)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else { return None };
            let name = p.path.segments.last()?.ident.to_string();
            let here = at(e.span()) == Some(range) || at(c.func.span()) == Some(range);
            (here && (name == "from" || name == "try_from")).then(|| c.args.iter().filter_map(|a| at(a.span())).collect())
        }
        _ => None,
    })
    .unwrap_or_default()
}

/// An iterator's items meeting a collection, sum or product of the other kind of float: "a value
/// of type `Vec<Stochastic<f64>>` cannot be built from an iterator over elements of type `f64`",
/// "a value of type `f64` cannot be made by summing an iterator over elements of type
/// `Stochastic<f64>`": [`Fix::MapItems`]. In the single build, items of run-time format
/// (`DynStochastic`, another unit's knob) collected into a knob's container: [`Fix::StoreItems`]
/// into the element type rustc names. `None` for anything else (two stochastic formats: the
/// probe's business, not a heal's).
pub(super) fn iterator_items(message: &str) -> Option<Fix> {
    let rest = message.strip_prefix("a value of type `")?;
    let (target, rest) = rest.split_once('`')?;
    let items = ["cannot be built from an iterator over elements of type `", "cannot be made by summing an iterator over elements of type `", "cannot be made by multiplying all elements of type `"]
        .iter()
        .find_map(|p| rest.trim_start().strip_prefix(p))?;
    let (item, _) = items.split_once('`')?;
    let deref = item.starts_with('&');
    let bare = item.trim_start_matches('&');
    let float = |t: &str| matches!(t, "f64" | "f32") || t.ends_with("::f16") || t.ends_with("::bf16") || t == "f16" || t == "bf16";
    if dynamic(target) || dynamic(bare) {
        let element = if rest.trim_start().starts_with("cannot be built") { only_argument(target)? } else { target };
        return (dynamic(element) || dynamic(bare)).then(|| qualified(element)).flatten().map(|ty| Fix::StoreItems { ty, deref });
    }
    if stochastic(target) && float(bare) {
        Some(Fix::MapItems { stochastic: true, deref })
    } else if stochastic(bare) && !stochastic(target) && target.contains("f64") | target.contains("f32") {
        Some(Fix::MapItems { stochastic: false, deref })
    } else {
        None
    }
}

/// The one generic argument of a type (`T` of `Vec<T>`, `VecDeque<T>`), `None` when it has
/// none or several.
fn only_argument(ty: &str) -> Option<&str> {
    let inner = ty.get(ty.find('<')? + 1..ty.rfind('>')?)?;
    let mut depth = 0i32;
    for c in inner.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => return None,
            _ => {}
        }
    }
    Some(inner.trim())
}

/// Whether `range` is a method's name in a method call (`.collect`, `.sum::<T>`).
fn method_name_at(text: &str, range: (usize, usize)) -> Option<()> {
    let name = text.get(range.0..range.1)?;
    let ident = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    let dot = text[..range.0].trim_end().ends_with('.');
    (ident && dot).then_some(())
}

/// The `lit` of the elaborated literal `::fptune::__rt::lit::<T>(..)` whose path `range` names
/// (rustc points at the path or at its last segment).
pub(super) fn elaborated_literal_ident(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
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
pub(super) const OPERAND_METHODS: [&str; 10] = ["powf", "atan2", "hypot", "min", "max", "clamp", "mul_add", "copysign", "rem_euclid", "div_euclid"];

/// When the elaborated literal whose `lit` is at `ident` is an argument of a float method
/// ([`OPERAND_METHODS`]) whose receiver is a path or a field of one (evaluated again at no cost,
/// with no effect): the receiver's text and the offset of the literal's `(`.
pub(super) fn literal_argument_receiver(text: &str, ident: (usize, usize)) -> Option<(String, usize)> {
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
pub(super) fn constant_format(ty: &str) -> Option<String> {
    let inner = ty.strip_prefix("Stochastic<")?.strip_suffix('>')?;
    matches!(inner, "f64" | "f32").then(|| inner.to_string())
}

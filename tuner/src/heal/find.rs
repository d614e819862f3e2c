//! Finding in a source the expression, call, literal or constant an error's span names.


use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::splice::{self};



/// The digits of the unsuffixed float literal spanning `range` of `text` (`0.` as `0.0`).
pub(super) fn float_literal_at(text: &str, range: (usize, usize)) -> Option<String> {
    let lit: syn::LitFloat = syn::parse_str(text.get(range.0..range.1)?.trim()).ok()?;
    lit.suffix().is_empty().then(|| fptune_syntax::suffixable_digits(&lit))
}

/// The float literals among the elements of the array expression (`[a, b, c]`, also in `vec![..]`)
/// that `range` is an element of: their ranges (a negative one's after its `-`).
pub(super) fn array_literals(text: &str, range: (usize, usize)) -> Option<Vec<(usize, usize)>> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut open = None;
    for i in (0..range.0).rev() {
        match bytes[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'{' if depth == 0 => return None,
            b'(' | b'{' => depth -= 1,
            b'[' if depth == 0 => {
                open = Some(i);
                break;
            }
            b'[' => depth -= 1,
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    let open = open?;
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    for (i, &b) in bytes.iter().enumerate().skip(open + 1) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b'}' if depth > 0 => depth -= 1,
            b']' if depth > 0 => depth -= 1,
            b',' | b']' | b';' if depth == 0 => {
                let piece = &text[start..i];
                let lead = piece.len() - piece.trim_start().len();
                let mut a = start + lead;
                let b_end = start + piece.trim_end().len();
                if text[a..b_end].starts_with('-') {
                    a += 1 + text[a + 1..b_end].len() - text[a + 1..b_end].trim_start().len();
                }
                if a < b_end {
                    out.push((a, b_end));
                }
                if b != b',' {
                    // `[x; n]` repeats one element.
                    return out.contains(&range).then_some(out);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// Whether `range` of `text` is inside a `const` or `static` item's value or a `const fn`.
pub(super) fn in_constant(text: &str, range: (usize, usize)) -> bool {
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

/// A macro's arguments when they are a comma-separated list of expressions (any macro's: the
/// heals look into the crate's own and foreign macros' calls alike).
fn macro_args(m: &syn::Macro) -> Option<syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>> {
    let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    syn::parse::Parser::parse2(parser, m.tokens.clone()).ok()
}

/// A span's byte range in the text being searched.
pub(crate) type Place<'a> = &'a dyn Fn(proc_macro2::Span) -> Option<(usize, usize)>;

/// Expressions of `text` whose span is exactly `range`, and what the caller wants of one.
pub(crate) fn find_expr<T>(text: &str, range: (usize, usize), pick: impl Fn(&syn::Expr, Place<'_>) -> Option<T>) -> Option<T> {
    struct Finder<'t, 'p, T> {
        text: &'t str,
        range: (usize, usize),
        pick: &'p dyn Fn(&syn::Expr, Place<'_>) -> Option<T>,
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
            if a <= self.range.0 && self.range.1 <= b {
                let at = |s: proc_macro2::Span| self.at(s);
                if let Some(t) = (self.pick)(e, &at) {
                    self.out = Some(t);
                    return;
                }
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            for a in macro_args(m).iter().flatten() {
                self.visit_expr(a);
            }
        }
    }
    let file = syn::parse_file(text).ok()?;
    let mut f = Finder { text, range, pick: &pick, out: None };
    f.visit_file(&file);
    f.out
}

/// The outermost operation (arithmetic, a method chain, a cast, an index) that starts where
/// `range` starts and holds it: the value rustc means when it points at the first token of an
/// expression `#[fptune::tune]` rewrote (its spans are that token's).
pub(super) fn widest_at(text: &str, range: (usize, usize)) -> (usize, usize) {
    struct Finder<'t> {
        text: &'t str,
        range: (usize, usize),
        best: (usize, usize),
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            let (s, t) = (e.span().start(), e.span().end());
            if let (Some(a), Some(b)) = (splice::offset(self.text, s.line, s.column), splice::offset(self.text, t.line, t.column)) {
                let operation = matches!(
                    e,
                    syn::Expr::Binary(_) | syn::Expr::MethodCall(_) | syn::Expr::Cast(_) | syn::Expr::Unary(_) | syn::Expr::Index(_) | syn::Expr::Field(_) | syn::Expr::Paren(_)
                );
                if a == self.range.0 && b >= self.range.1 && operation && b - a > self.best.1 - self.best.0 {
                    self.best = (a, b);
                }
            }
            syn::visit::visit_expr(self, e);
        }
        // An expression macro's arguments (`vec![s[1], -g * s[0]]`) are expressions too.
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            for a in macro_args(m).iter().flatten() {
                <Self as Visit<'_>>::visit_expr(self, a);
            }
        }
    }
    let Ok(file) = syn::parse_file(text) else { return range };
    let mut f = Finder { text, range, best: range };
    f.visit_file(&file);
    f.best
}

/// Whether `range` is a whole expression (not the function a call calls).
pub(super) fn expression_at(text: &str, range: (usize, usize)) -> Option<()> {
    let callee = find_expr(text, range, |e, at| match e {
        syn::Expr::Call(c) if at(c.func.span()) == Some(range) => Some(()),
        _ => None,
    });
    if callee.is_some() {
        return None;
    }
    find_expr(text, range, |e, at| (at(e.span()) == Some(range)).then_some(()))
        .or_else(|| {
            // In a macro's tokens, what parses as an expression (not a lone `-`).
            let t = &text[range.0..range.1];
            (in_macro_tokens(text, range) && balanced(t) && syn::parse_str::<syn::Expr>(t).is_ok()).then_some(())
        })
}

/// Whether `range` lies in the tokens of a macro (a `macro_rules!` body, an invocation's
/// arguments), which syn sees as tokens only.
pub(super) fn in_macro_tokens(text: &str, range: (usize, usize)) -> bool {
    struct Finder<'t> {
        text: &'t str,
        range: (usize, usize),
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let span = m.delimiter.span().join();
            let (s, e) = (span.start(), span.end());
            if let (Some(a), Some(b)) = (splice::offset(self.text, s.line, s.column), splice::offset(self.text, e.line, e.column)) {
                self.found |= a <= self.range.0 && self.range.1 <= b;
            }
        }
    }
    let Ok(file) = syn::parse_file(text) else { return false };
    let mut f = Finder { text, range, found: false };
    f.visit_file(&file);
    f.found
}

/// Whether a text could be one expression, seen as tokens: its brackets balance, and no `,` or
/// `;` stands outside them.
pub(super) fn balanced(text: &str) -> bool {
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else { return false };
    let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
    !tokens.is_empty()
        && !tokens.iter().any(|t| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' || p.as_char() == ';'))
}

/// In a macro's tokens, the receiver before `.name` (where `name` is at `range`): the longest
/// run of paths, fields, calls and bracketed groups before the dot.
pub(super) fn receiver_in_tokens(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let before = &text[..range.0];
    let dot = before.trim_end().strip_suffix('.')?.len();
    let bytes = text.as_bytes();
    let mut i = dot;
    loop {
        while i > 0 && bytes[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        if i == 0 {
            break;
        }
        let c = bytes[i - 1];
        if c == b')' || c == b']' {
            let (open, close) = if c == b')' { (b'(', b')') } else { (b'[', b']') };
            let mut depth = 0;
            while i > 0 {
                i -= 1;
                if bytes[i] == close {
                    depth += 1;
                } else if bytes[i] == open {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            while i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b'$') {
                i -= 1;
            }
        } else {
            break;
        }
        // Go on through `.field`, `::path` and a call's or index's callee.
        let rest = text[..i].trim_end();
        if rest.ends_with('.') && !rest.ends_with("..") {
            i = rest.len() - 1;
        } else if rest.ends_with("::") {
            i = rest.len() - 2;
        } else if matches!(bytes.get(i), Some(b'(') | Some(b'[')) && rest.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            i = rest.len();
        } else {
            break;
        }
    }
    let start = i + (text[i..dot].len() - text[i..dot].trim_start().len());
    (start < dot).then(|| (start, text[..dot].trim_end().len()))
}

/// The operand of `&e` spanning `range`, or of `&mut e` where `e` is not a place.
pub(super) fn lent_referent(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::Reference(r) if (r.mutability.is_none() || !is_place(&r.expr)) && at(e.span()) == Some(range) => at(r.expr.span()),
        _ => None,
    })
}

/// Whether an expression names a place (a variable, a field, an element, a dereference): lent
/// mutably, the lender sees what the callee writes, which a converted copy would not give back.
/// Anything else (`&mut 1.0`, `&mut vec![1.0]`) lends a temporary, which may be converted.
pub(super) fn is_place(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Index(_) => true,
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)),
        syn::Expr::Paren(p) => is_place(&p.expr),
        syn::Expr::Group(g) => is_place(&g.expr),
        _ => false,
    }
}

/// The call spanning `range` (or whose callee does): the ranges of its arguments that are
/// elaborated literals.
pub(super) fn call_at(text: &str, range: (usize, usize)) -> Option<Vec<(usize, usize)>> {
    find_expr(text, range, |e, at| {
        let (whole, args) = match e {
            syn::Expr::Call(c) => (at(e.span()) == Some(range) || at(c.func.span()) == Some(range), &c.args),
            syn::Expr::MethodCall(m) => (at(e.span()) == Some(range) || at(m.method.span()) == Some(range), &m.args),
            _ => return None,
        };
        whole.then(|| args.iter().filter(|a| elaborated_literal(a)).filter_map(|a| at(a.span())).collect())
    })
}

/// The elaborated literals written in `range` of `text` (in a macro's tokens).
pub(super) fn literals_in_text(text: &str, range: (usize, usize)) -> Vec<(usize, usize)> {
    const LIT: &str = "::fptune::__rt::lit::<";
    let mut out = Vec::new();
    let mut from = range.0;
    while let Some(p) = text[from..range.1].find(LIT) {
        let start = from + p;
        let Some(open) = text[start..range.1].find('(').map(|o| start + o) else { break };
        let mut depth = 0;
        let mut end = None;
        for (i, c) in text[open..range.1].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        out.push((start, end));
        from = end;
    }
    out
}

/// `::fptune::__rt::lit::<T>(..)`, an elaborated literal.
pub(super) fn elaborated_literal(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p)
        if p.path.segments.last().is_some_and(|s| s.ident == "lit") && p.path.segments.iter().any(|s| s.ident == "__rt")))
}

/// In `f64::name`, where `name` is at `range`: the range of `f64` (or `f32`).
pub(super) fn float_path_before(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let before = text[..range.0].trim_end();
    let before = before.strip_suffix("::")?.trim_end();
    for ty in ["f64", "f32"] {
        if let Some(rest) = before.strip_suffix(ty) {
            if !rest.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                return Some((rest.len(), rest.len() + ty.len()));
            }
        }
    }
    None
}

/// The stochastic type written by fptune where `range` is (`::fptune::Sf64` in a macro, from
/// the user's `f64`): its range, when the text there is a float type path.
pub(super) fn float_path_at(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let here = text.get(range.0..range.1)?;
    ["f64", "f32"].contains(&here).then_some(range)
}

/// When `range` is a call's callee written `f64::name`: the range of `f64`.
pub(super) fn float_path_callee(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
                let first = &p.path.segments[0].ident;
                let here = [at(c.func.span()), at(e.span()), at(first.span())].contains(&Some(range));
                (here && (first == "f64" || first == "f32")).then(|| at(first.span())).flatten()
            }
            _ => None,
        },
        _ => None,
    })
}

/// The `const` keyword of the `const fn` holding `range`.
pub(super) fn const_keyword_around(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    struct Finder<'t> {
        text: &'t str,
        range: (usize, usize),
        out: Option<(usize, usize)>,
    }
    impl Finder<'_> {
        fn at(&self, span: proc_macro2::Span) -> Option<(usize, usize)> {
            let (s, e) = (span.start(), span.end());
            Some((splice::offset(self.text, s.line, s.column)?, splice::offset(self.text, e.line, e.column)?))
        }
        fn check(&mut self, sig: &syn::Signature, block: &syn::Block) {
            if let (Some(c), Some((a, b))) = (&sig.constness, self.at(block.span())) {
                if a <= self.range.0 && self.range.1 <= b {
                    // With the space after it.
                    self.out = self.at(c.span).map(|(s, e)| (s, e + usize::from(self.text[e..].starts_with(' '))));
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.check(&f.sig, &f.block);
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.check(&f.sig, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    let file = syn::parse_file(text).ok()?;
    let mut f = Finder { text, range, out: None };
    f.visit_file(&file);
    f.out
}

/// The cast `e as T` spanning `range`: where ` as T` starts, and `T`.
pub(super) fn cast_at(text: &str, range: (usize, usize)) -> Option<(usize, String)> {
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
pub(super) fn receiver_of(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    find_expr(text, range, |e, at| match e {
        syn::Expr::MethodCall(m) if at(m.method.span()) == Some(range) => at(m.receiver.span()),
        _ => None,
    })
    .or_else(|| in_macro_tokens(text, range).then(|| receiver_in_tokens(text, range)).flatten())
}

#[cfg(test)]
mod macro_argument_tests {
    #[test]
    fn an_operation_in_a_macros_arguments_is_widened_from_its_first_token() {
        let text = "fn f(g: f64, s: &[f64]) -> Vec<f64> { vec![s[1], -g * s[0]] }\n";
        let minus = text.find("-g").expect("minus");
        let wide = super::widest_at(text, (minus, minus + 1));
        assert_eq!(&text[wide.0..wide.1], "-g * s[0]");
        assert!(super::expression_at(text, (minus, minus + 1)).is_none(), "a lone `-` is no expression");
        assert!(super::expression_at(text, wide).is_some());
    }
}

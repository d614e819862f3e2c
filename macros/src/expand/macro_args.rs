//! The expressions inside the macros the item calls (formatting, assertions, `check!`, `vec!`):
//! which macros have them, and how they are taken out and given back.

use fptune_syntax::EXPRESSION_MACROS;
use quote::{quote, ToTokens};
use syn::Expr;

/// The arguments of the formatting, assertion and `vec!` macros are code of the item too:
/// `visit` sees each (a `vec![x; n]`'s element), and the macro gets them back as visited.
pub(super) fn visit_macro_exprs(mac: &mut syn::Macro, mut visit: impl FnMut(&mut Expr)) {
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

/// `vec![elem; len]`.
pub(super) struct VecRepeat {
    pub(super) elem: Expr,
    pub(super) len: Expr,
}

impl syn::parse::Parse for VecRepeat {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let elem: Expr = input.parse()?;
        input.parse::<syn::Token![;]>()?;
        let len: Expr = input.parse()?;
        Ok(VecRepeat { elem, len })
    }
}

//! The `#[tune]` / `#[tune(group = "name")]` attribute: which attributes are markers, what their
//! arguments say, and the errors for markers where no knob can be.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Item, LitStr, Token};

/// `#[tune]` or `#[tune(group = "name")]`.
#[derive(Clone, Debug, Default)]
pub struct Marker {
    /// The group, with the span of its name.
    pub group: Option<(String, Span)>,
    /// `#[fptune::tune(printed)]`: the floats the item prints are checked results too, in runs
    /// that ask for them (the tuner's `--check-printed`).
    pub printed: bool,
}

mod kw {
    syn::custom_keyword!(group);
    syn::custom_keyword!(printed);
}

impl Parse for Marker {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut marker = Marker::default();
        while !input.is_empty() {
            if input.peek(kw::group) {
                input.parse::<kw::group>()?;
                input.parse::<Token![=]>()?;
                let name: LitStr = input.parse()?;
                if name.value().trim().is_empty() {
                    return Err(syn::Error::new(name.span(), "a group needs a name: `group = \"name\"`"));
                }
                if marker.group.is_some() {
                    return Err(syn::Error::new(name.span(), "`group` is given twice"));
                }
                marker.group = Some((name.value(), name.span()));
            } else if input.peek(kw::printed) {
                input.parse::<kw::printed>()?;
                marker.printed = true;
            } else {
                let unknown: proc_macro2::TokenTree = input.parse()?;
                return Err(syn::Error::new(
                    unknown.span(),
                    format!("unknown argument `{unknown}`: `#[tune]` takes `group = \"name\"` (and `#[fptune::tune]` also `printed`)"),
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(marker)
    }
}

/// Whether an attribute is a knob marker (`#[tune]`, `#[tune(..)]`, `#[fptune::tune]`).
pub fn is_marker(attr: &Attribute) -> bool {
    let path = attr.path();
    path.is_ident("tune")
        || (path.segments.len() == 2 && path.segments[0].ident == "fptune" && path.segments[1].ident == "tune")
}

/// The type inside a knob marker written as a type, `fptune::knob!(f64)` (`knob!(f64)`, a leading
/// `::` and `$crate` paths too); `None` for any other type.
pub fn knob_type_marker(ty: &syn::Type) -> Option<syn::Type> {
    let syn::Type::Macro(m) = ty else { return None };
    let segs: Vec<String> = m.mac.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let named = matches!(segs.iter().map(String::as_str).collect::<Vec<_>>()[..], ["knob"] | ["fptune", "knob"]);
    if !named {
        return None;
    }
    syn::parse2(m.mac.tokens.clone()).ok()
}

/// Parses the marker of an attribute known to be one.
pub fn parse_marker(attr: &Attribute) -> syn::Result<Marker> {
    match &attr.meta {
        syn::Meta::Path(_) => Ok(Marker::default()),
        syn::Meta::List(list) => list.parse_args::<Marker>(),
        syn::Meta::NameValue(nv) => Err(syn::Error::new(
            nv.span(),
            "write `#[tune]` or `#[tune(group = \"name\")]`",
        )),
    }
}

/// Whether an item attribute is `#[fptune::tune]` (or `#[tune]` where imported): the item is tuned.
pub fn is_tune_attribute(attr: &Attribute) -> bool {
    is_marker(attr)
}

/// Errors for `#[tune]` attributes left where no knob can be (after knobs were taken out).
pub fn stray_markers(item: &Item) -> Vec<syn::Error> {
    struct Stray(Vec<syn::Error>);
    impl<'ast> Visit<'ast> for Stray {
        fn visit_attribute(&mut self, attr: &'ast Attribute) {
            if is_marker(attr) {
                self.0.push(syn::Error::new_spanned(
                    attr,
                    "`#[tune]` goes on a `let`, a function parameter, a function (its return value), \
                     a struct field, a `static`/`const` or a `type` alias",
                ));
            }
        }
    }
    let mut s = Stray(Vec::new());
    s.visit_item(item);
    s.0
}

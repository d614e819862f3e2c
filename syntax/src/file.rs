//! Knob discovery in a whole source file: its tuned items (those carrying `#[fptune::tune]`),
//! found at any depth of untuned inline modules.

use syn::{Attribute, Item};

use crate::{discover, is_tune_attribute, parse_marker, Discovery, Marker, Top};

/// Every knob of every tuned item of a file: items carrying `#[fptune::tune]`, at any depth of
/// (untuned) inline modules. Knob order is source order.
pub fn discover_file(file: &syn::File) -> Discovery {
    let mut out = Discovery::default();
    discover_items(&file.items, &mut out);
    out
}

fn discover_items(items: &[Item], out: &mut Discovery) {
    for item in items {
        let attrs = item_attrs(item);
        if let Some(attr) = attrs.iter().find(|a| is_tune_attribute(a)) {
            let marker = match parse_marker(attr) {
                Ok(m) => m,
                Err(e) => {
                    out.errors.push(e);
                    Marker::default()
                }
            };
            // The attribute being expanded is the one taken out, as rustc does: a `#[tune]` beside
            // it (`#[fptune::tune] #[tune] fn f() -> f64`) marks the function's return value.
            let mut bare = item.clone();
            if let Some(a) = item_attrs_mut(&mut bare) {
                if let Some(at) = a.iter().position(is_tune_attribute) {
                    a.remove(at);
                }
            }
            let d = discover(&bare, &Top { marker });
            out.knobs.extend(d.knobs);
            out.errors.extend(d.errors);
            out.untyped.extend(d.untyped);
        } else if let Item::Mod(m) = item {
            if let Some((_, inner)) = &m.content {
                discover_items(inner, out);
            }
        }
    }
}

/// An item's outer attributes (none for the kinds `#[fptune::tune]` never goes on).
pub fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Mod(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        _ => &[],
    }
}

fn item_attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    Some(match item {
        Item::Mod(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        _ => return None,
    })
}

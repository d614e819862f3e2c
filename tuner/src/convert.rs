//! The sources of a configuration: knob types rewritten to their formats, and, for the
//! stochastic build, every item of the copy marked for conversion (as PROMISE's cadnaizer converts
//! a whole C program), so that code outside the tuned items computes with stochastic values too
//! and samples survive every store.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use syn::spanned::Spanned;

use crate::leaves::{leaf_edits, spliced};
use crate::splice::{splice, Edit};

use crate::model::{Configuration, Knob, KnobKind, Unit};

/// The text of every file with each knob written at its unit's format in `config`. Only files
/// with knobs are returned.
pub fn configured_sources(
    sources: &[(String, String)],
    knobs: &[Knob],
    units: &[Unit],
    config: &Configuration,
) -> Result<Vec<(String, String)>> {
    Ok(spliced(sources, &configured_edits(sources, knobs, units, config)?)?)
}

/// The sources of the single build: the knobs of every unit the search may lower written as
/// `::fptune::__rt::Knob<F, U>` (`F` the declared format, `U` the unit), whose format each run
/// reads from `FPTUNE_FORMATS`; pinned units keep their declared type. With `native` (the native
/// single build, built without the `stochastic` feature), as `::fptune::__rt::Knob<F, U,
/// ::fptune::__rt::DynNative>`: each knob computes in its format's own round-to-nearest arithmetic.
/// A `const` or `static` knob is a constant knob, `Knob<F, { U |
/// ::fptune::__rt::CONSTANT }, ::fptune::__rt::DynNative>` in both builds: its knobs keep their values
/// widened, so that the item's literal can be written before the format is known
/// (`fptune::__rt::CONSTANT`), and native, as the primitive constants of a configuration's own
/// stochastic build are. A unit that mixes them with variables (`let mut sum = EPSILON;`) writes
/// each as its kind is, both reading the unit's format, and the conversion's heals join them as
/// they join a configuration's own build. Only files with such knobs are returned.
pub fn single_build_sources(
    sources: &[(String, String)],
    knobs: &[Knob],
    units: &[Unit],
    native: bool,
) -> Result<Vec<(String, String)>> {
    Ok(spliced(sources, &single_build_edits(sources, knobs, units, native)?)?)
}

/// The edits of [`single_build_sources`], by file.
pub fn single_build_edits(
    sources: &[(String, String)],
    knobs: &[Knob],
    units: &[Unit],
    native: bool,
) -> Result<BTreeMap<String, Vec<Edit>>> {
    let mut unit_of: Vec<Option<String>> = vec![None; knobs.len()];
    for unit in units.iter().filter(|u| u.pinned.is_none()) {
        for &k in &unit.knobs {
            unit_of[k] = Some(if is_constant(&knobs[k]) {
                format!("{{ {} | ::fptune::__rt::CONSTANT }}, ::fptune::__rt::DynNative", unit.id)
            } else if native {
                format!("{}, ::fptune::__rt::DynNative", unit.id)
            } else {
                unit.id.to_string()
            });
        }
    }
    Ok(leaf_edits(sources, knobs, |k| match &unit_of[k.id] {
        Some(u) => format!("::fptune::__rt::Knob<{}, {u}>", k.declared.rust()),
        None => k.declared.rust().to_string(),
    })?)
}

/// A knob that holds a compile-time value.
fn is_constant(k: &Knob) -> bool {
    matches!(k.kind, KnobKind::Const | KnobKind::Static)
}

/// The edits of [`configured_sources`]: each knob written at its unit's format in `config`.
pub fn configured_edits(sources: &[(String, String)], knobs: &[Knob], units: &[Unit], config: &Configuration) -> Result<BTreeMap<String, Vec<Edit>>> {
    let format_of = config.knob_formats(units, knobs.len());
    Ok(leaf_edits(sources, knobs, |k| format_of[k.id].rust().to_string())?)
}

/// `text` with `#[fptune::__convert]` before every item that is not already tuned: functions,
/// `impl`s, structs, enums, traits, inline modules (whose contents it then covers).
pub fn mark_for_conversion(text: &str) -> Result<String> {
    Ok(splice(text, &conversion_marks(text)?)?.text)
}

/// The edits of [`mark_for_conversion`].
pub fn conversion_marks(text: &str) -> Result<Vec<Edit>> {
    let file = syn::parse_file(text).context("parsing a source for the stochastic build")?;
    let mut marks = Vec::new();
    mark_items(text, &file.items, &mut marks);
    Ok(marks)
}

/// Marks of [`conversion_marks`] for `items`. An inline module holding a tuned item is entered
/// rather than marked whole: the tuned item is expanded by its own attribute, and the conversion
/// of the module around it would take its markers for stray ones.
fn mark_items(text: &str, items: &[syn::Item], marks: &mut Vec<Edit>) {
    for item in items {
        if let syn::Item::Mod(m) = item {
            if let Some((_, inner)) = &m.content {
                if !m.attrs.iter().any(fptune_syntax::is_tune_attribute) && holds_tuned_item(inner) {
                    mark_items(text, inner, marks);
                    continue;
                }
            }
        }
        let (attrs, convert) = match item {
            syn::Item::Fn(i) => (&i.attrs, true),
            syn::Item::Impl(i) => (&i.attrs, true),
            syn::Item::Struct(i) => (&i.attrs, true),
            syn::Item::Enum(i) => (&i.attrs, true),
            syn::Item::Trait(i) => (&i.attrs, true),
            syn::Item::Type(i) => (&i.attrs, true),
            syn::Item::Mod(i) => (&i.attrs, i.content.is_some()),
            _ => continue,
        };
        if !convert || attrs.iter().any(fptune_syntax::is_tune_attribute) {
            continue;
        }
        let start = item.span().start();
        if let Some(at) = fptune_syntax::offset_of(text, (start.line, start.column)) {
            marks.push(Edit::insert(at, "#[fptune::__convert] "));
        }
    }
}

/// Whether any of `items`, or of the inline modules among them, carries `#[fptune::tune]`.
fn holds_tuned_item(items: &[syn::Item]) -> bool {
    items.iter().any(|item| {
        fptune_syntax::item_attrs(item).iter().any(fptune_syntax::is_tune_attribute)
            || matches!(item, syn::Item::Mod(m) if m.content.as_ref().is_some_and(|(_, inner)| holds_tuned_item(inner)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untuned_items_are_marked_and_tuned_ones_left() {
        let text = "use std::f64;\n#[fptune::tune]\nmod k { pub fn f() {} }\n/// Doc.\n#[derive(Debug)]\nstruct S { x: f64 }\nfn main() {}\nmod outer;\n";
        let out = mark_for_conversion(text).expect("parses");
        assert!(out.contains("#[fptune::__convert] /// Doc.\n#[derive(Debug)]\nstruct S"));
        assert!(out.contains("#[fptune::__convert] fn main()"));
        assert!(out.contains("#[fptune::tune]\nmod k"));
        assert!(!out.contains("#[fptune::__convert] mod outer;"));
        assert!(!out.contains("#[fptune::__convert] use"));
        syn::parse_file(&out).expect("still parses");
    }

    #[test]
    fn an_inline_module_holding_a_tuned_item_is_entered_not_marked_whole() {
        let text = "mod m {\n    #[fptune::tune]\n    fn f() {}\n    fn g() {}\n    mod deep { #[fptune::tune] struct S; }\n}\nmod plain { fn h() {} }\n";
        let out = mark_for_conversion(text).expect("parses");
        assert!(out.starts_with("mod m {"), "{out}");
        assert!(out.contains("#[fptune::__convert] fn g()"), "{out}");
        assert!(out.contains("    mod deep { #[fptune::tune] struct S; }"), "{out}");
        assert!(!out.contains("#[fptune::__convert] #[fptune::tune]"), "{out}");
        assert!(out.contains("#[fptune::__convert] mod plain"), "{out}");
    }

    #[test]
    fn the_single_build_writes_each_searchable_knob_as_its_units_knob_type_dsa_or_native() -> Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("src"))?;
        let text = "#[fptune::tune]\nmod k {\n    pub fn f() -> f64 {\n        #[tune]\n        let a: f64 = 1.0;\n        \
                    #[tune]\n        let b: Vec<f32> = vec![2.0];\n        #[tune]\n        let c: f64 = 3.0;\n        \
                    a + b[0] as f64 + c\n    }\n}\n";
        std::fs::write(dir.path().join("src/main.rs"), text)?;
        let inv = crate::knobs::inventory(dir.path(), &["src/main.rs".to_string()])?;
        assert_eq!(inv.knobs.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        // `c` is pinned: it keeps its declared type in both builds.
        let unit = |id: usize, pinned: Option<&str>| Unit {
            id,
            knobs: vec![id],
            coupling: crate::model::Coupling::Alone,
            pinned: pinned.map(str::to_string),
            unchecked: false,
        };
        let units = [unit(0, None), unit(1, None), unit(2, Some("src/main.rs:9"))];
        let written = |native: bool| -> Result<String> {
            let files = single_build_sources(&inv.sources, &inv.knobs, &units, native)?;
            assert_eq!(files.len(), 1);
            Ok(files[0].1.clone())
        };
        let dsa = written(false)?;
        assert!(dsa.contains("let a: ::fptune::__rt::Knob<f64, 0> = 1.0;"), "{dsa}");
        assert!(dsa.contains("let b: Vec<::fptune::__rt::Knob<f32, 1>> = vec![2.0];"), "{dsa}");
        assert!(dsa.contains("let c: f64 = 3.0;"), "{dsa}");
        let native = written(true)?;
        assert!(native.contains("let a: ::fptune::__rt::Knob<f64, 0, ::fptune::__rt::DynNative> = 1.0;"), "{native}");
        assert!(native.contains("let b: Vec<::fptune::__rt::Knob<f32, 1, ::fptune::__rt::DynNative>> = vec![2.0];"), "{native}");
        assert!(native.contains("let c: f64 = 3.0;"), "{native}");
        syn::parse_file(&native)?;
        Ok(())
    }

    #[test]
    fn constant_knobs_are_native_in_both_single_builds_beside_variables_of_their_unit() -> Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("src"))?;
        let text = "#[fptune::tune]\nmod k {\n    #[tune]\n    const C: [f64; 2] = [1.0, 2.0];\n    \
                    #[tune]\n    static S: f32 = 0.5;\n    pub fn f() -> f64 {\n        #[tune]\n        let a: f64 = C[0];\n        \
                    a + S as f64\n    }\n}\n";
        std::fs::write(dir.path().join("src/main.rs"), text)?;
        let inv = crate::knobs::inventory(dir.path(), &["src/main.rs".to_string()])?;
        assert_eq!(inv.knobs.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["C", "S", "a"]);
        let unit = |id: usize, knobs: Vec<usize>| Unit { id, knobs, coupling: crate::model::Coupling::Alone, pinned: None, unchecked: false };
        let units = [unit(0, vec![0]), unit(1, vec![1]), unit(2, vec![2])];
        for native in [false, true] {
            let files = single_build_sources(&inv.sources, &inv.knobs, &units, native)?;
            let out = &files[0].1;
            let constant = "const C: [::fptune::__rt::Knob<f64, { 0 | ::fptune::__rt::CONSTANT }, ::fptune::__rt::DynNative>; 2]";
            assert!(out.contains(constant), "{out}");
            assert!(out.contains("static S: ::fptune::__rt::Knob<f32, { 1 | ::fptune::__rt::CONSTANT }, ::fptune::__rt::DynNative> = 0.5;"), "{out}");
            let variable = if native { "::fptune::__rt::Knob<f64, 2, ::fptune::__rt::DynNative>" } else { "::fptune::__rt::Knob<f64, 2>" };
            assert!(out.contains(&format!("let a: {variable} = C[0];")), "{out}");
        }
        // `a` made to share `C`'s type: each keeps its kind, both reading unit 0's format.
        let merged = [unit(0, vec![0, 2]), unit(1, vec![1])];
        let out = &single_build_sources(&inv.sources, &inv.knobs, &merged, false)?[0].1;
        assert!(out.contains("const C: [::fptune::__rt::Knob<f64, { 0 | ::fptune::__rt::CONSTANT }, ::fptune::__rt::DynNative>; 2]"), "{out}");
        assert!(out.contains("let a: ::fptune::__rt::Knob<f64, 0> = C[0];"), "{out}");
        Ok(())
    }
}

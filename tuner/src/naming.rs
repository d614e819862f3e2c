//! Paths for the names in the types rustc prints, so that fptune can write those types down.
//!
//! rustc prints a type with *trimmed* paths: `Matrix<f64, Dyn, Const<1>, VecStorage<f64, Dyn,
//! Const<1>>>` for nalgebra's `DVector<f64>`, `Complex<f64>`, `C<f64>` for a type of the crate's
//! own module `geo`. Written as printed, such a type does not compile where the binding is (the
//! names are not in scope there), and a binding whose type is not written leaves the stochastic
//! build to inference that the conversion's shims cannot always redo (`m[0] = x` into a generic
//! container: E0283). So a *naming build* asks rustc where each name lives, after the typing
//! build ([`crate::typing`]) and only when a printed type has such names:
//!
//! | asked, in a module appended to each crate root | rustc answers |
//! |---|---|
//! | `use ::nalgebra::Matrix as __fptune_3;`, one line per name and per crate the sources name | no error on the line: the path exists |
//! | `fn __fptune_q(_: Option<C>)` | E0412 with "consider importing": `use crate::geo::C;` (the crate's own items, `std`'s) |
//!
//! [`write_type`] then writes a printed type with those paths, every generic argument that holds
//! no float left to inference (`_`), which a `let` or a closure parameter allows:
//! `::nalgebra::Matrix<f64, _, _, ::nalgebra::VecStorage<f64, _, _>>`. Its floats are where the
//! knob's format is written, as in `Vec<f64>`. A name that no candidate resolves leaves its type
//! unwritten, which the elaborator already says.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::cargo::{self, BuildOptions};
use crate::scratch::Scratch;

/// Whether a printed path names a type every module sees ([`crate::elaborate::IN_SCOPE`], and the
/// prelude's `Result`), which needs no path.
fn in_scope(key: &str) -> bool {
    crate::elaborate::IN_SCOPE.contains(&key) || key == "Result"
}

/// Where a crate root's names live: printed path (`Matrix`, `geo::C`) -> a path that names it
/// anywhere in that crate (`::nalgebra::Matrix`, `crate::geo::C`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Names {
    /// Per crate root file: its answers.
    pub roots: BTreeMap<String, BTreeMap<String, String>>,
    /// Per source file: its crate root (files reached by `mod` declarations).
    pub files: BTreeMap<String, String>,
    /// Per source file: the type rustc prints for each foreign type alias written there
    /// without arguments (`Complex64` -> `Complex<f64>`), asked by [`alias_candidates`].
    #[serde(default)]
    pub aliases: BTreeMap<String, BTreeMap<String, String>>,
}

impl Names {
    /// The path of `printed` for code in `file`: its root's answer, else an answer of another
    /// root that is absolute (`::crate::..`) and so names the same item from anywhere.
    pub fn path(&self, file: &str, printed: &str) -> Option<&str> {
        if let Some(root) = self.files.get(file) {
            if let Some(p) = self.roots.get(root).and_then(|m| m.get(printed)) {
                return Some(p);
            }
        }
        self.roots.values().filter_map(|m| m.get(printed)).find(|p| p.starts_with("::")).map(String::as_str)
    }
}

/// The printed paths of `ty` (rustc's text) that are not in scope everywhere: each one's
/// segments without their generic arguments (`Matrix`, `geo::C`).
pub fn unresolved(ty: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Ok(parsed) = syn::parse_str::<syn::Type>(ty) {
        collect(&parsed, &mut out);
    }
    out
}

fn collect(ty: &syn::Type, out: &mut BTreeSet<String>) {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let key = path_key(&p.path);
            if !in_scope(&key) {
                out.insert(key);
            }
            for seg in &p.path.segments {
                if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                    for g in &a.args {
                        if let syn::GenericArgument::Type(t) = g {
                            collect(t, out);
                        }
                    }
                }
            }
        }
        syn::Type::Reference(r) => collect(&r.elem, out),
        syn::Type::Array(a) => collect(&a.elem, out),
        syn::Type::Slice(s) => collect(&s.elem, out),
        syn::Type::Paren(p) => collect(&p.elem, out),
        syn::Type::Tuple(t) => t.elems.iter().for_each(|e| collect(e, out)),
        _ => {}
    }
}

fn path_key(path: &syn::Path) -> String {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    names.join("::")
}

/// `ty` (rustc's text) as it can be written in `file`: its paths from `names`, every generic
/// argument without a float `_`, lifetimes elided. `None` where a name has no path, or for a type
/// that cannot be written (a closure's, an `impl Trait`, an associated type) or holds no float
/// at all (nothing to gain over inference).
pub fn write_type(ty: &str, file: &str, names: &Names) -> Option<String> {
    let parsed = syn::parse_str::<syn::Type>(ty).ok()?;
    if !crate::elaborate::holds_float(ty) {
        return None;
    }
    write(&parsed, file, names)
}

fn has_float(ty: &syn::Type) -> bool {
    crate::elaborate::holds_float(&quote::ToTokens::to_token_stream(ty).to_string())
}

fn write(ty: &syn::Type, file: &str, names: &Names) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let key = path_key(&p.path);
            let head = if in_scope(&key) { key } else { names.path(file, &key)?.to_string() };
            let segs = &p.path.segments;
            if segs.iter().take(segs.len() - 1).any(|s| !s.arguments.is_none()) {
                return None;
            }
            match &segs.last()?.arguments {
                syn::PathArguments::None => Some(head),
                syn::PathArguments::AngleBracketed(a) => {
                    let mut args = Vec::new();
                    for g in &a.args {
                        args.push(match g {
                            syn::GenericArgument::Type(t) if !has_float(t) => "_".to_string(),
                            syn::GenericArgument::Type(t) => write(t, file, names)?,
                            syn::GenericArgument::Lifetime(_) => "'_".to_string(),
                            syn::GenericArgument::Const(c) => quote::ToTokens::to_token_stream(c).to_string(),
                            _ => return None,
                        });
                    }
                    Some(format!("{head}<{}>", args.join(", ")))
                }
                syn::PathArguments::Parenthesized(_) => None,
            }
        }
        syn::Type::Reference(r) => {
            let m = if r.mutability.is_some() { "mut " } else { "" };
            Some(format!("&{m}{}", write_nested(&r.elem, file, names)?))
        }
        syn::Type::Array(a) => {
            let syn::Expr::Lit(len) = &a.len else { return None };
            Some(format!("[{}; {}]", write_nested(&a.elem, file, names)?, quote::ToTokens::to_token_stream(len)))
        }
        syn::Type::Slice(s) => Some(format!("[{}]", write_nested(&s.elem, file, names)?)),
        syn::Type::Paren(p) => write(&p.elem, file, names),
        syn::Type::Tuple(t) => {
            let parts = t.elems.iter().map(|e| write_nested(e, file, names)).collect::<Option<Vec<_>>>()?;
            Some(if parts.len() == 1 { format!("({},)", parts[0]) } else { format!("({})", parts.join(", ")) })
        }
        _ => None,
    }
}

/// A part of a type: `_` when it holds no float and cannot be written as printed.
fn write_nested(ty: &syn::Type, file: &str, names: &Names) -> Option<String> {
    match write(ty, file, names) {
        Some(w) => Some(w),
        None if !has_float(ty) => Some("_".to_string()),
        None => None,
    }
}

/// The crates `sources` name (the first segment of a path, `nalgebra` in `nalgebra::DMatrix`,
/// and `extern crate`s): where an unqualified printed name may live.
pub fn named_crates(sources: &[(String, String)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, text) in sources {
        let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else { continue };
        scan(tokens, &mut out);
    }
    for kw in ["crate", "self", "super", "Self", "fptune"] {
        out.remove(kw);
    }
    out
}

fn scan(tokens: proc_macro2::TokenStream, out: &mut BTreeSet<String>) {
    use proc_macro2::TokenTree;
    let list: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in list.iter().enumerate() {
        match t {
            TokenTree::Group(g) => scan(g.stream(), out),
            TokenTree::Ident(id) => {
                let name = id.to_string();
                let first_char_lower = name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
                let before_colons = matches!((list.get(i + 1), list.get(i + 2)), (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':');
                let after_colons = i >= 2 && matches!((&list[i - 2], &list[i - 1]), (TokenTree::Punct(a), TokenTree::Punct(b)) if a.as_char() == ':' && b.as_char() == ':');
                let extern_crate = i >= 2 && matches!((&list[i - 2], &list[i - 1]), (TokenTree::Ident(a), TokenTree::Ident(b)) if a == "extern" && b == "crate");
                if first_char_lower && ((before_colons && !after_colons) || extern_crate) && !in_scope(&name) {
                    out.insert(name);
                }
            }
            _ => {}
        }
    }
}

/// The paths a file writes as types without arguments (`Complex64`, `na::Vector3d`) that may be
/// another crate's aliases of float types: not a primitive or the prelude's, not `Self`, not a
/// type the crate defines (`own`: its structs, enums, unions, traits and aliases, whose floats are
/// its own declarations already), and starting with a capital.
pub fn alias_candidates(text: &str, own: &BTreeSet<String>) -> BTreeSet<String> {
    struct Paths<'a>(BTreeSet<String>, &'a BTreeSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Paths<'_> {
        fn visit_type_path(&mut self, p: &'ast syn::TypePath) {
            let plain = p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none());
            let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            let capital = last.chars().next().is_some_and(|c| c.is_ascii_uppercase());
            let key = path_key(&p.path);
            if plain && capital && last != "Self" && !in_scope(&key) && !self.1.contains(&last) && p.path.leading_colon.is_none() {
                self.0.insert(key);
            }
            syn::visit::visit_type_path(self, p);
        }
    }
    let Ok(file) = syn::parse_file(text) else { return BTreeSet::new() };
    let mut v = Paths(BTreeSet::new(), own);
    syn::visit::Visit::visit_file(&mut v, &file);
    v.0
}

/// The names of the types and traits the crate defines (any module), and its generic
/// parameters' names: never another crate's alias.
pub fn own_type_names(sources: &[(String, String)]) -> BTreeSet<String> {
    struct Own(BTreeSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Own {
        fn visit_item(&mut self, i: &'ast syn::Item) {
            let name = match i {
                syn::Item::Struct(s) => Some(&s.ident),
                syn::Item::Enum(e) => Some(&e.ident),
                syn::Item::Union(u) => Some(&u.ident),
                syn::Item::Trait(t) => Some(&t.ident),
                syn::Item::Type(t) => Some(&t.ident),
                _ => None,
            };
            if let Some(n) = name {
                self.0.insert(n.to_string());
            }
            syn::visit::visit_item(self, i);
        }
        fn visit_type_param(&mut self, p: &'ast syn::TypeParam) {
            self.0.insert(p.ident.to_string());
        }
        fn visit_trait_item_type(&mut self, t: &'ast syn::TraitItemType) {
            self.0.insert(t.ident.to_string());
        }
    }
    let mut v = Own(BTreeSet::new());
    for (_, text) in sources {
        if let Ok(file) = syn::parse_file(text) {
            syn::visit::Visit::visit_file(&mut v, &file);
        }
    }
    v.0
}

/// The module appended to a file that asks what its alias candidates stand for, one function a
/// line: `let () = x;` of a value of the type makes rustc print it ("expected `Complex<f64>`,
/// found `()`"). `use super::*` sees the file's imports.
fn alias_module(candidates: &BTreeSet<String>) -> (String, Vec<(usize, String)>) {
    let mut lines = vec![
        "#[allow(unused_imports, dead_code, non_snake_case, unused)]".to_string(),
        "mod __fptune_aliases {".to_string(),
        "    use super::*;".to_string(),
    ];
    let mut asked = Vec::new();
    for (n, name) in candidates.iter().enumerate() {
        asked.push((lines.len(), name.clone()));
        lines.push(format!("    fn __fptune_a{n}(x: {name}) {{ let () = x; }}"));
    }
    lines.push("}".to_string());
    (lines.join("\n") + "\n", asked)
}

/// Reads what the alias questions of `file` got: name -> the type rustc printed.
fn read_aliases(file: &str, asked: &[(usize, String)], first_line: usize, errors: &[cargo::Diagnostic]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (line, name) in asked {
        let line = first_line + line + 1;
        let answer = errors
            .iter()
            .filter(|e| e.code.as_deref() == Some("E0308"))
            .filter(|e| e.spans.iter().any(|s| s.primary && s.file == file && s.line == line))
            .filter_map(|e| e.rendered.as_deref())
            .flat_map(|r| crate::probe::expected_found(&crate::probe::strip_ansi(r)))
            .map(|(expected, _)| expected)
            .next();
        if let Some(ty) = answer.filter(|t| t != name && crate::elaborate::holds_float(t)) {
            out.insert(name.clone(), ty);
        }
    }
    out
}

/// One question of a naming build: the line (0-based, in the appended module) and what it asks.
#[derive(Clone, Debug)]
struct Asked {
    line: usize,
    name: String,
    /// The candidate path (`None`: the line asks rustc for a suggestion).
    candidate: Option<String>,
}

/// The module appended to a crate root, and its questions (lines relative to its first line).
fn module(names: &BTreeSet<String>, crates: &BTreeSet<String>) -> (String, Vec<Asked>) {
    let mut lines = vec![
        "#[allow(unused_imports, dead_code, non_camel_case_types, unused)]".to_string(),
        "mod __fptune_names {".to_string(),
    ];
    let mut asked = Vec::new();
    let mut n = 0;
    for name in names {
        let candidates: Vec<String> = if name.contains("::") {
            vec![format!("::{name}"), format!("crate::{name}")]
        } else {
            crates.iter().map(|c| format!("::{c}::{name}")).collect()
        };
        for c in candidates {
            asked.push(Asked { line: lines.len(), name: name.clone(), candidate: Some(c.clone()) });
            lines.push(format!("    use {c} as __fptune_{n};"));
            n += 1;
        }
    }
    lines.push("    fn __fptune_q(".to_string());
    for name in names.iter().filter(|n| !n.contains("::")) {
        asked.push(Asked { line: lines.len(), name: name.clone(), candidate: None });
        lines.push(format!("        _: Option<{name}>,"));
    }
    lines.push("    ) {}".to_string());
    lines.push("}".to_string());
    (lines.join("\n") + "\n", asked)
}

/// The crate root of every source file: the files each root reaches by `mod name;`
/// declarations (`#[path]` is not followed; such a file gets no root, and absolute answers).
pub fn file_roots(sources: &[(String, String)], roots: &[String]) -> BTreeMap<String, String> {
    let texts: BTreeMap<&str, &str> = sources.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
    let mut out = BTreeMap::new();
    for root in roots {
        let mut todo = vec![root.clone()];
        while let Some(file) = todo.pop() {
            if out.contains_key(&file) {
                continue;
            }
            out.insert(file.clone(), root.clone());
            let Some(text) = texts.get(file.as_str()) else { continue };
            let Ok(parsed) = syn::parse_file(text) else { continue };
            let path = Path::new(&file);
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let dir = path.parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
            let owns_dir = file == *root || stem == "mod";
            let base = if owns_dir { dir } else if dir.is_empty() { stem.to_string() } else { format!("{dir}/{stem}") };
            for item in &parsed.items {
                let syn::Item::Mod(m) = item else { continue };
                if m.content.is_some() || m.attrs.iter().any(|a| a.path().is_ident("path")) {
                    continue;
                }
                let name = m.ident.to_string();
                let join = |f: String| if base.is_empty() { f } else { format!("{base}/{f}") };
                for f in [join(format!("{name}.rs")), join(format!("{name}/mod.rs"))] {
                    if texts.contains_key(f.as_str()) {
                        todo.push(f);
                    }
                }
            }
        }
    }
    out
}

/// Reads a naming build's errors: per root, printed name -> path.
fn read(root: &str, asked: &[Asked], first_line: usize, errors: &[cargo::Diagnostic], edition_2015: bool) -> BTreeMap<String, String> {
    let failed: BTreeSet<usize> = errors
        .iter()
        .flat_map(|e| e.spans.iter().filter(|s| s.primary && s.file == root).map(|s| s.line))
        .collect();
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for a in asked {
        let line = first_line + a.line + 1;
        match &a.candidate {
            Some(c) if !failed.contains(&line) => {
                out.entry(a.name.clone()).or_insert_with(|| c.clone());
            }
            Some(_) => {}
            None => {
                let suggested = errors
                    .iter()
                    .filter(|e| e.spans.iter().any(|s| s.primary && s.file == root && s.line == line))
                    .filter_map(|e| e.rendered.as_deref())
                    .flat_map(suggested_uses)
                    .next();
                if let Some(path) = suggested {
                    let absolute = if path.starts_with("crate::") || path.starts_with("::") {
                        path
                    } else if edition_2015 || path.starts_with("std::") || path.starts_with("core::") || path.starts_with("alloc::") {
                        format!("::{path}")
                    } else {
                        continue;
                    };
                    out.entry(a.name.clone()).or_insert(absolute);
                }
            }
        }
    }
    out
}

/// The paths of the `use` lines rustc suggests in a rendered diagnostic (`5 +     use crate::geo::C;`).
fn suggested_uses(rendered: &str) -> Vec<String> {
    rendered
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once('+')?;
            let rest = rest.trim();
            let path = rest.strip_prefix("use ")?.strip_suffix(';')?;
            (!path.contains(['{', '*', ' '])).then(|| path.to_string())
        })
        .collect()
}

/// Runs a naming build for `names` in `scratch` (sources as the user wrote them, a module
/// appended to each of `roots`) and puts the sources back. Every answer comes from one
/// `cargo check` (the dependencies are those the typing build checked).
pub fn naming_build(
    scratch: &Scratch,
    sources: &[(String, String)],
    roots: &[String],
    names: &BTreeSet<String>,
    aliases: &BTreeMap<String, BTreeSet<String>>,
    edition_2015: bool,
    opts: &BuildOptions,
    log: &Path,
) -> Result<Names> {
    let files = file_roots(sources, roots);
    if names.is_empty() && aliases.values().all(BTreeSet::is_empty) {
        return Ok(Names { files, ..Names::default() });
    }
    let crates = named_crates(sources);
    let (text, asked) = module(names, &crates);
    let mut copy = Vec::new();
    let mut first_lines = BTreeMap::new();
    let mut alias_questions = BTreeMap::new();
    for (rel, original) in sources {
        let root = roots.contains(rel) && !names.is_empty();
        let candidates = aliases.get(rel).filter(|c| !c.is_empty());
        if !root && candidates.is_none() {
            continue;
        }
        let mut appended = original.clone();
        if !appended.ends_with('\n') {
            appended.push('\n');
        }
        if let Some(c) = candidates {
            let (module, asked) = alias_module(c);
            alias_questions.insert(rel.clone(), (appended.lines().count(), asked));
            appended.push_str(&module);
        }
        if root {
            first_lines.insert(rel.clone(), appended.lines().count());
            appended.push_str(&text);
        }
        copy.push((rel.clone(), appended));
    }
    scratch.apply_sources(&copy)?;
    let mut opts = opts.clone();
    opts.check = true;
    let built = cargo::build(&opts, log);
    scratch.restore_all()?;
    let built = built?;
    let mut out = Names { files, ..Names::default() };
    for (root, first) in first_lines {
        out.roots.insert(root.clone(), read(&root, &asked, first, &built.errors, edition_2015));
    }
    for (file, (first, asked)) in alias_questions {
        let found = read_aliases(&file, &asked, first, &built.errors);
        if !found.is_empty() {
            out.aliases.insert(file, found);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(pairs: &[(&str, &str)]) -> Names {
        let mut root = BTreeMap::new();
        for (k, v) in pairs {
            root.insert(k.to_string(), v.to_string());
        }
        let mut n = Names::default();
        n.roots.insert("src/main.rs".into(), root);
        n.files.insert("src/main.rs".into(), "src/main.rs".into());
        n
    }

    #[test]
    fn printed_types_are_written_with_their_paths_and_non_float_arguments_inferred() {
        let ty = "Matrix<f64, Dyn, Const<1>, VecStorage<f64, Dyn, Const<1>>>";
        assert_eq!(unresolved(ty), ["Const", "Dyn", "Matrix", "VecStorage"].iter().map(|s| s.to_string()).collect());
        let n = names(&[("Matrix", "::nalgebra::Matrix"), ("VecStorage", "::nalgebra::VecStorage")]);
        assert_eq!(
            write_type(ty, "src/main.rs", &n).as_deref(),
            Some("::nalgebra::Matrix<f64, _, _, ::nalgebra::VecStorage<f64, _, _>>")
        );
        let n = names(&[("geo::C", "crate::geo::C"), ("Iter", "::std::slice::Iter")]);
        assert_eq!(write_type("(geo::C<f64>, &mut Vec<f64>)", "src/main.rs", &n).as_deref(), Some("(crate::geo::C<f64>, &mut Vec<f64>)"));
        assert_eq!(write_type("Iter<'_, f64>", "src/main.rs", &n).as_deref(), Some("::std::slice::Iter<'_, f64>"));
        // A name without a path, a closure, no float: not written.
        assert_eq!(write_type("Unknown<f64>", "src/main.rs", &n), None);
        assert_eq!(write_type("{closure@src/main.rs:3:5}", "src/main.rs", &n), None);
        assert_eq!(write_type("HashMap<String, usize>", "src/main.rs", &n), None);
    }

    #[test]
    fn foreign_aliases_are_asked_in_their_file_and_read_from_the_mismatch() {
        let sources = vec![(
            "src/main.rs".to_string(),
            "use num_complex::Complex64;\nstruct Mode<T> { amp: Complex64, x: T }\ntype Real = f64;\nfn f(z: &[Complex64], r: Real, m: Mode<f64>) -> Vec<Self> { todo!() }\n".to_string(),
        )];
        let own = own_type_names(&sources);
        assert!(own.contains("Mode") && own.contains("Real") && own.contains("T"), "{own:?}");
        let asked = alias_candidates(&sources[0].1, &own);
        assert_eq!(asked, ["Complex64"].iter().map(|s| s.to_string()).collect());
        let (module, questions) = alias_module(&asked);
        syn::parse_file(&module).expect("parses");
        assert!(module.contains("use super::*;") && module.contains("fn __fptune_a0(x: Complex64) { let () = x; }"), "{module}");
        // rustc's answer, on the question's line (the module starts after line 4).
        let span = cargo::Span {
            file: "src/main.rs".into(),
            line: 4 + questions[0].0 + 1,
            column: 40,
            line_end: 4 + questions[0].0 + 1,
            column_end: 42,
            primary: true,
            label: None,
            macro_name: None,
            call_site: None,
            byte_start: None,
            byte_end: None,
        };
        let error = cargo::Diagnostic {
            level: "error".into(),
            message: "mismatched types".into(),
            code: Some("E0308".into()),
            rendered: Some("error[E0308]: mismatched types\n  |     ^^ expected `Complex<f64>`, found `()`\n".into()),
            spans: vec![span],
            children: Vec::new(),
        };
        let read = read_aliases("src/main.rs", &questions, 4, &[error]);
        assert_eq!(read.get("Complex64").map(String::as_str), Some("Complex<f64>"));
    }

    #[test]
    fn the_module_asks_each_crate_named_and_reads_rustcs_suggestions() {
        let sources = vec![(
            "src/main.rs".to_string(),
            "use nalgebra::DMatrix;\nextern crate serde;\nfn main() { let x = num_complex::Complex::new(1.0, 2.0); let y = f64::consts::PI; }".to_string(),
        )];
        let crates = named_crates(&sources);
        assert_eq!(crates, ["nalgebra", "num_complex", "serde"].iter().map(|s| s.to_string()).collect());
        let names: BTreeSet<String> = ["Matrix", "geo::C"].iter().map(|s| s.to_string()).collect();
        let (text, asked) = module(&names, &crates);
        assert!(text.contains("use ::nalgebra::Matrix as __fptune_"), "{text}");
        assert!(text.contains("use crate::geo::C as __fptune_"), "{text}");
        assert!(text.contains("_: Option<Matrix>,"), "{text}");
        assert_eq!(asked.iter().filter(|a| a.name == "Matrix").count(), 4);
        syn::parse_file(&text).expect("parses");
        let uses = suggested_uses("error[E0412]: cannot find type `C`\nhelp: consider importing this struct\n  |\n5 +     use crate::geo::C;\n  |");
        assert_eq!(uses, vec!["crate::geo::C".to_string()]);
    }

    #[test]
    fn files_belong_to_the_root_that_declares_them() {
        let s = |r: &str, t: &str| (r.to_string(), t.to_string());
        let sources = vec![
            s("src/lib.rs", "pub mod geo;\nmod solver;"),
            s("src/geo.rs", "pub mod shapes;"),
            s("src/geo/shapes.rs", ""),
            s("src/solver/mod.rs", ""),
            s("src/main.rs", "mod cli;"),
            s("src/cli.rs", ""),
        ];
        let roots = file_roots(&sources, &["src/lib.rs".to_string(), "src/main.rs".to_string()]);
        assert_eq!(roots["src/geo/shapes.rs"], "src/lib.rs");
        assert_eq!(roots["src/solver/mod.rs"], "src/lib.rs");
        assert_eq!(roots["src/cli.rs"], "src/main.rs");
    }
}

//! Knob and check discovery over a package's sources, with the same `fptune-syntax` code the
//! macro runs, so knob identities agree.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use syn::visit::Visit;

use crate::model::{FloatFormat, Knob, LeafSpan};

/// The knobs and checks of a package.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Inventory {
    /// Knobs, ids in order (files sorted by path, source order within a file).
    pub knobs: Vec<Knob>,
    /// `check!` calls: (file:line, name).
    pub checks: Vec<Check>,
    /// Source texts as read (relative path, text), for rewriting.
    #[serde(skip)]
    pub sources: Vec<(String, String)>,
    /// Knobs marked on a `let` whose type is not written (`#[tune] let x = a * b;`): the tuner
    /// writes the type rustc infers before it finds the knobs ([`crate::elaborate`]); one still
    /// here is one whose type it could not write.
    pub untyped: Vec<Untyped>,
}

/// A knob marked on a `let` without a written type.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Untyped {
    /// The file.
    pub file: String,
    /// 1-based line of the name.
    pub line: usize,
    /// 1-based column of the name.
    pub column: usize,
    /// The variable.
    pub name: String,
}

/// A `fptune::check!` call site.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Check {
    /// `file:line`.
    pub place: String,
    /// The name it records under (the literal, or the expression's text).
    pub name: String,
}

/// Reads every source of the package and finds its knobs and checks. Marker errors (the same
/// ones the compiler would give) are all reported, with their places.
pub fn inventory(root: &Path, files: &[String]) -> Result<Inventory> {
    let mut sources = Vec::new();
    for rel in files {
        let text = std::fs::read_to_string(root.join(rel)).with_context(|| format!("reading {rel}"))?;
        sources.push((rel.clone(), text));
    }
    inventory_of(sources)
}

/// [`inventory`] of texts already read (the package's, or the tuner's elaborated ones).
pub fn inventory_of(sources: Vec<(String, String)>) -> Result<Inventory> {
    let mut inv = Inventory::default();
    let mut errors = String::new();
    for (rel, text) in sources {
        let file = match syn::parse_file(&text) {
            Ok(f) => f,
            Err(e) => {
                let at = e.span().start();
                let _ = writeln!(errors, "{rel}:{}:{}: {e}", at.line, at.column + 1);
                inv.sources.push((rel, text));
                continue;
            }
        };
        let d = fptune_syntax::discover_file(&file);
        for e in &d.errors {
            let at = e.span().start();
            let _ = writeln!(errors, "{rel}:{}:{}: {e}", at.line, at.column + 1);
        }
        for k in d.knobs {
            let declared = k.format.unwrap_or(FloatFormat::F64);
            inv.knobs.push(Knob {
                id: inv.knobs.len(),
                file: rel.clone(),
                line: k.line,
                column: k.column,
                name: k.name,
                kind: k.kind,
                ty: k.ty,
                declared,
                group: k.group,
                scope: k.scope,
                leaves: k.leaves.iter().map(|l| LeafSpan { start: l.start, end: l.end }).collect(),
            });
        }
        for u in d.untyped {
            inv.untyped.push(Untyped { file: rel.clone(), line: u.line, column: u.column, name: u.name });
        }
        let mut checks = Checks { rel: &rel, found: Vec::new() };
        checks.visit_file(&file);
        inv.checks.extend(checks.found);
        inv.sources.push((rel, text));
    }
    if !errors.is_empty() {
        bail!("the fptune markers have errors (cargo build shows the same):\n{errors}");
    }
    Ok(inv)
}

impl Inventory {
    /// Refuses a package with nothing to tune or nothing to check (`printed`: the floats it
    /// prints are checked).
    pub fn require_knobs_and_checks(&self, printed: bool) -> Result<()> {
        if self.knobs.is_empty() && self.untyped.is_empty() {
            bail!(
                "no knobs: mark the float variables to tune with #[tune] inside an item carrying \
                 #[fptune::tune] (see the README, \"Marking a crate\"), or tune every float declaration \
                 with --auto"
            );
        }
        if self.checks.is_empty() && !printed {
            bail!(
                "no checked results: name the results whose digits count with fptune::check!(value) \
                 or fptune::check!(\"name\", values), or check what the program prints with --check-printed"
            );
        }
        Ok(())
    }

    /// The distinct `check!` names seen in the sources.
    pub fn check_names(&self) -> BTreeSet<String> {
        self.checks.iter().map(|c| c.name.clone()).collect()
    }

    /// `cargo fptune list`'s table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} knob(s):", self.knobs.len());
        let _ = writeln!(out, "  {:>3}  {:<28} {:<8} {:<22} {:<10} place", "id", "knob", "kind", "type", "group");
        for k in &self.knobs {
            let name = if k.scope.is_empty() { k.name.clone() } else { format!("{}::{}", k.scope, k.name) };
            let _ = writeln!(
                out,
                "  {:>3}  {:<28} {:<8} {:<22} {:<10} {}:{}:{}",
                k.id,
                name,
                k.kind.name(),
                k.ty,
                k.group.as_deref().unwrap_or("-"),
                k.file,
                k.line,
                k.column
            );
        }
        let _ = writeln!(out, "{} check(s):", self.checks.len());
        for c in &self.checks {
            let _ = writeln!(out, "  {:<28} {}", c.name, c.place);
        }
        out
    }
}

struct Checks<'a> {
    rel: &'a str,
    found: Vec<Check>,
}

impl<'ast> Visit<'ast> for Checks<'_> {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.segments.last().is_some_and(|s| s.ident == "check") {
            let at = m.path.segments.last().map(|s| s.ident.span().start()).unwrap_or_else(|| {
                proc_macro2::Span::call_site().start()
            });
            let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
            let name = match syn::parse::Parser::parse2(parser, m.tokens.clone()) {
                Ok(args) => match args.first() {
                    Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) if args.len() > 1 => s.value(),
                    Some(e) => quote::ToTokens::to_token_stream(e).to_string().replace(' ', ""),
                    None => String::new(),
                },
                Err(_) => m.tokens.to_string(),
            };
            self.found.push(Check { place: format!("{}:{}", self.rel, at.line), name });
        }
        syn::visit::visit_macro(self, m);
    }
}

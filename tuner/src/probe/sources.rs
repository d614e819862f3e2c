//! The probe build's sources: every knob's leaves written as its probe type.

use std::collections::BTreeSet;

use quote::ToTokens;

use crate::leaves::{self, SourceError};
use crate::splice;
use crate::model::{FloatFormat, Knob};

/// The probe type of a knob: `::fptune::__rt::Probe<F, ::fptune::__rt::Id<ID>>`, `F` the format
/// spelled as a type.
pub fn probe_type(format: FloatFormat, id: usize) -> String {
    format!("::fptune::__rt::Probe<{}, ::fptune::__rt::Id<{id}>>", plain_type(format))
}

/// A format spelled as the type a native build writes for it.
pub(super) fn plain_type(format: FloatFormat) -> String {
    match format {
        FloatFormat::F64 | FloatFormat::F32 => format.rust().into_owned(),
        // `fptune::f16`, `fptune::Fx<..>`: from the crate root, whatever the module.
        _ => format!("::{}", format.rust()),
    }
}

/// The probe build's sources: every leaf of every knob rewritten to `::fptune::__rt::Probe<F, ID>`,
/// `F` the knob's declared format and `ID` its id.
///
/// `files` are `(path relative to the package root, text)`; the result has the files that hold
/// knobs, rewritten, in the order given (the others are unchanged). Only the type tokens change:
/// comments and formatting survive, so rustc's line numbers are the user's.
pub fn probe_sources(files: &[(String, String)], knobs: &[Knob]) -> Result<Vec<(String, String)>, SourceError> {
    rewrite(files, knobs, |k| probe_type(k.declared, k.id))
}

/// Writes each knob's leaves as `type_of(knob)` ([`crate::leaves::rewritten`]); refused when a
/// knob's file is not among `files`.
pub(super) fn rewrite(
    files: &[(String, String)],
    knobs: &[Knob],
    type_of: impl Fn(&Knob) -> String,
) -> Result<Vec<(String, String)>, SourceError> {
    if let Some(k) = knobs.iter().find(|k| !files.iter().any(|(p, _)| *p == k.file)) {
        return Err(SourceError::MissingFile { knob: k.name.clone(), file: k.file.clone() });
    }
    leaves::rewritten(files, knobs, type_of)
}

/// `files` with the value of each knob declaration (a `let` written with a probe type) that
/// starts on one of `places` (file, line) written `::fptune::__rt::relit(value)`: the same
/// container (its shape, its dimensions) of the declaration's element type, so that what the
/// type leaves to inference (`_`) is inferred and the knob's later meetings are named (the probe
/// build is compiled, never run). See [`super::Couplings::literal_inits`].
pub(super) fn without_literal_inits(files: Vec<(String, String)>, places: &BTreeSet<(String, usize)>) -> Vec<(String, String)> {
    use syn::spanned::Spanned;
    use syn::visit::Visit;
    struct Inits<'a> {
        lines: Vec<usize>,
        text: &'a str,
        found: Vec<(usize, usize)>,
    }
    impl<'ast> Visit<'ast> for Inits<'_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (syn::Pat::Type(pt), Some(init)) = (&l.pat, &l.init) {
                let (a, b) = (init.expr.span().start(), init.expr.span().end());
                let probe = pt.ty.to_token_stream().to_string().contains("Probe");
                if probe && self.lines.iter().any(|&n| a.line <= n && n <= b.line) {
                    if let (Some(x), Some(y)) = (splice::offset(self.text, a.line, a.column), splice::offset(self.text, b.line, b.column)) {
                        self.found.push((x, y));
                    }
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    files
        .into_iter()
        .map(|(rel, text)| {
            let lines: Vec<usize> = places.iter().filter(|(f, _)| *f == rel).map(|(_, l)| *l).collect();
            if lines.is_empty() {
                return (rel, text);
            }
            let Ok(file) = syn::parse_file(&text) else { return (rel, text) };
            let mut v = Inits { lines, text: &text, found: Vec::new() };
            v.visit_file(&file);
            let edits: Vec<splice::Edit> = v
                .found
                .iter()
                .filter(|&&(a, _)| !text[..a].ends_with("relit("))
                .flat_map(|&(a, b)| [splice::Edit::insert(a, "::fptune::__rt::relit("), splice::Edit::insert(b, ")")])
                .collect();
            match splice::splice(&text, &edits) {
                Ok(s) => (rel, s.text),
                Err(_) => (rel, text),
            }
        })
        .collect()
}

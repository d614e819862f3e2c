//! The probe build's sources: every knob's leaves written as its probe type.

use crate::leaves::{self, SourceError};
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

//! The probe build's sources: every knob's leaves written as its probe type.

use std::collections::BTreeMap;

use fptune_syntax::offset_of;

use crate::model::{FloatFormat, Knob};

/// The probe type of a knob: `::fptune::__rt::Probe<F, ID>`, `F` the format spelled as a type.
pub fn probe_type(format: FloatFormat, id: usize) -> String {
    format!("::fptune::__rt::Probe<{}, {id}>", plain_type(format))
}

/// A format spelled as the type a native build writes for it.
pub(super) fn plain_type(format: FloatFormat) -> &'static str {
    match format {
        FloatFormat::F64 => "f64",
        FloatFormat::F32 => "f32",
        FloatFormat::F16 => "::fptune::f16",
        FloatFormat::BF16 => "::fptune::bf16",
    }
}

/// Why the probe sources could not be written: the knob table does not match the files (it was
/// made from other versions of them).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// A knob's file is not among the files given.
    #[error("knob `{knob}` is in {file}, which is not among the crate's files: discover the knobs again")]
    MissingFile {
        /// The knob's name.
        knob: String,
        /// Its file.
        file: String,
    },
    /// A leaf's position is outside its file, or the text there is not a type.
    #[error(
        "knob `{knob}` ({file}:{line}): its type is not where the knob table says (found `{found}`): \
         the file changed since the knobs were found; discover them again"
    )]
    StaleLeaf {
        /// The knob's name.
        knob: String,
        /// Its file.
        file: String,
        /// The leaf's line.
        line: usize,
        /// The text at the leaf's place (empty when outside the file).
        found: String,
    },
    /// Two leaves overlap (a knob table with a knob twice).
    #[error("{file}: knobs `{a}` and `{b}` claim the same type tokens: discover the knobs again")]
    Overlap {
        /// The file.
        file: String,
        /// One knob.
        a: String,
        /// The other.
        b: String,
    },
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

/// Writes each knob's leaves as `type_of(knob)`.
pub(super) fn rewrite(
    files: &[(String, String)],
    knobs: &[Knob],
    type_of: impl Fn(&Knob) -> String,
) -> Result<Vec<(String, String)>, SourceError> {
    let mut by_file: BTreeMap<&str, Vec<&Knob>> = BTreeMap::new();
    for k in knobs {
        by_file.entry(k.file.as_str()).or_default().push(k);
    }
    if let Some(k) = knobs.iter().find(|k| !files.iter().any(|(p, _)| *p == k.file)) {
        return Err(SourceError::MissingFile { knob: k.name.clone(), file: k.file.clone() });
    }
    let mut out = Vec::new();
    for (path, text) in files {
        let Some(file_knobs) = by_file.get(path.as_str()) else { continue };
        // (start, end, replacement, knob name)
        let mut edits: Vec<(usize, usize, String, &str)> = Vec::new();
        for k in file_knobs {
            let replacement = type_of(k);
            for leaf in &k.leaves {
                let stale = |found: &str| SourceError::StaleLeaf {
                    knob: k.name.clone(),
                    file: k.file.clone(),
                    line: leaf.start.0,
                    found: found.to_string(),
                };
                let (Some(a), Some(b)) = (offset_of(text, leaf.start), offset_of(text, leaf.end)) else {
                    return Err(stale(""));
                };
                let found = text.get(a..b).unwrap_or("");
                if a >= b || !is_type_path(found) {
                    return Err(stale(found));
                }
                edits.push((a, b, replacement.clone(), &k.name));
            }
        }
        edits.sort_by_key(|e| e.0);
        for w in edits.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(SourceError::Overlap { file: path.clone(), a: w[0].3.to_string(), b: w[1].3.to_string() });
            }
        }
        let mut new = text.clone();
        for (a, b, r, _) in edits.iter().rev() {
            new.replace_range(*a..*b, r);
        }
        out.push((path.clone(), new));
    }
    Ok(out)
}

/// Whether `s` reads as a type path (`f64`, `fptune::f16`, `Real`): what a leaf covers.
pub(super) fn is_type_path(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':' || c.is_whitespace())
}

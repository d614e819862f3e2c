//! Knob types written in a source: each knob's leaves (its type tokens) rewritten as a given
//! type, checked against the knob table (a stale or overlapping leaf is refused), through the one
//! splicer ([`crate::splice`]). The probe build, a configuration's build and the single build
//! all write their knobs so.

use std::collections::BTreeMap;

use crate::model::Knob;
use crate::splice::{self, splice, Edit, SpliceError};

/// Why knob types could not be written: the knob table does not match the files (it was made
/// from other versions of them).
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
    /// The edits could not be applied (a leaf's edit meets another of the same file).
    #[error("{file}: {source}")]
    Splice {
        /// The file.
        file: String,
        /// What the splicer said.
        source: SpliceError,
    },
}

/// The edits that write each knob's leaves as `written(knob)`, by file. A knob whose file is not
/// among `sources` is left out; a leaf that is not a type where the knob table says
/// ([`SourceError::StaleLeaf`]), or that overlaps another ([`SourceError::Overlap`]), is refused.
pub fn leaf_edits(
    sources: &[(String, String)],
    knobs: &[Knob],
    written: impl Fn(&Knob) -> String,
) -> Result<BTreeMap<String, Vec<Edit>>, SourceError> {
    let texts: BTreeMap<&str, &str> = sources.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
    // Per file: (start, end, knob name) of each leaf, to say which knobs overlap.
    let mut claims: BTreeMap<&str, Vec<(usize, usize, &str)>> = BTreeMap::new();
    let mut by_file: BTreeMap<String, Vec<Edit>> = BTreeMap::new();
    for k in knobs {
        let Some(text) = texts.get(k.file.as_str()) else { continue };
        let replacement = written(k);
        for leaf in &k.leaves {
            let stale = |found: &str| SourceError::StaleLeaf {
                knob: k.name.clone(),
                file: k.file.clone(),
                line: leaf.start.0,
                found: found.to_string(),
            };
            let (Some(a), Some(b)) = (splice::offset(text, leaf.start.0, leaf.start.1), splice::offset(text, leaf.end.0, leaf.end.1)) else {
                return Err(stale(""));
            };
            let found = text.get(a..b).unwrap_or("");
            if a >= b || !is_type_path(found) {
                return Err(stale(found));
            }
            claims.entry(k.file.as_str()).or_default().push((a, b, &k.name));
            by_file.entry(k.file.clone()).or_default().push(Edit::replace(a, b, replacement.clone()));
        }
    }
    for (file, mut leaves) in claims {
        leaves.sort_by_key(|l| l.0);
        for w in leaves.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(SourceError::Overlap { file: file.to_string(), a: w[0].2.to_string(), b: w[1].2.to_string() });
            }
        }
    }
    Ok(by_file)
}

/// The files of `sources` that `edits` (by file) change, spliced, in the order given.
pub fn spliced(sources: &[(String, String)], edits: &BTreeMap<String, Vec<Edit>>) -> Result<Vec<(String, String)>, SourceError> {
    let mut out = Vec::new();
    for (file, text) in sources {
        let Some(edits) = edits.get(file) else { continue };
        let text = splice(text, edits).map_err(|source| SourceError::Splice { file: file.clone(), source })?.text;
        out.push((file.clone(), text));
    }
    Ok(out)
}

/// The files of `sources` with knob leaves, each leaf written as `written(knob)` (see
/// [`leaf_edits`]), in the order given. Only the type tokens change: comments and formatting
/// survive, so rustc's line numbers are the user's.
pub fn rewritten(sources: &[(String, String)], knobs: &[Knob], written: impl Fn(&Knob) -> String) -> Result<Vec<(String, String)>, SourceError> {
    spliced(sources, &leaf_edits(sources, knobs, written)?)
}

/// Whether `s` reads as a type path (`f64`, `fptune::f16`, `Real`): what a leaf covers.
fn is_type_path(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':' || c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LeafSpan;

    fn knob(id: usize, name: &str, leaves: &[((usize, usize), (usize, usize))]) -> Knob {
        Knob { leaves: leaves.iter().map(|&(start, end)| LeafSpan { start, end }).collect(), ..Knob::for_test(id, name) }
    }

    #[test]
    fn each_leaf_is_written_and_the_files_without_knobs_are_left_out() {
        let files = vec![
            ("src/main.rs".to_string(), "let a: f64 = 1.0; // f64\nlet b: Vec<f64> = v;\n".to_string()),
            ("src/other.rs".to_string(), "fn f() {}\n".to_string()),
        ];
        let knobs = [knob(0, "a", &[((1, 7), (1, 10))]), knob(1, "b", &[((2, 11), (2, 14))])];
        let out = rewritten(&files, &knobs, |k| if k.id == 0 { "f32".into() } else { "::fptune::f16".into() }).expect("written");
        assert_eq!(out, vec![("src/main.rs".to_string(), "let a: f32 = 1.0; // f64\nlet b: Vec<::fptune::f16> = v;\n".to_string())]);
    }

    #[test]
    fn a_stale_or_overlapping_leaf_is_refused_for_every_user() {
        let files = vec![("src/main.rs".to_string(), "let a: f64 = 1.0;\n".to_string())];
        let stale = leaf_edits(&files, &[knob(0, "a", &[((1, 11), (1, 14))])], |_| "f32".into()).expect_err("not a type");
        assert!(matches!(&stale, SourceError::StaleLeaf { found, .. } if found == "= 1"), "{stale}");
        let twice = [knob(0, "a", &[((1, 7), (1, 10))]), knob(1, "b", &[((1, 7), (1, 10))])];
        let overlap = leaf_edits(&files, &twice, |_| "f32".into()).expect_err("overlap");
        assert_eq!(overlap, SourceError::Overlap { file: "src/main.rs".into(), a: "a".into(), b: "b".into() });
        let elsewhere = knob(0, "a", &[((1, 7), (1, 10))]);
        let gone = Knob { file: "src/gone.rs".into(), ..elsewhere };
        assert!(leaf_edits(&files, &[gone], |_| "f32".into()).expect("a knob of another file is left out").is_empty());
    }
}

//! Text edits at byte ranges of a source, applied at once: the edited text, where each edit
//! landed in it, and the way back from a place in the edited text to the original.
//!
//! Every rewrite the tuner makes to a user's source (type queries, elaboration, conversions,
//! knob types) is a list of [`Edit`]s on the original text, so comments and formatting survive
//! and rustc's diagnostics on the edited text can be traced back to the user's code.

use std::fmt;

/// Replace `start..end` of the original text (byte offsets; `start == end` inserts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// Byte just past the replaced range.
    pub end: usize,
    /// What goes there.
    pub text: String,
}

impl Edit {
    /// Inserts `text` at `at`.
    pub fn insert(at: usize, text: impl Into<String>) -> Edit {
        Edit { start: at, end: at, text: text.into() }
    }

    /// Replaces `start..end` by `text`.
    pub fn replace(start: usize, end: usize, text: impl Into<String>) -> Edit {
        Edit { start, end, text: text.into() }
    }
}

/// Why edits could not be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpliceError {
    /// An edit reaches past the text's end or splits a character.
    #[error("an edit at bytes {start}..{end} is outside the text or splits a character")]
    OutOfRange {
        /// Its start.
        start: usize,
        /// Its end.
        end: usize,
    },
    /// Two edits replace overlapping ranges.
    #[error("two edits overlap at bytes {0}..{1} and {2}..{3}")]
    Overlap(usize, usize, usize, usize),
}

/// The result of [`splice`].
#[derive(Clone, PartialEq, Eq)]
pub struct Spliced {
    /// The edited text.
    pub text: String,
    /// For each edit, in the order given, the range its text occupies in [`Spliced::text`].
    pub placed: Vec<(usize, usize)>,
    /// The edits sorted as applied: (original start, original end, new start, new end).
    runs: Vec<(usize, usize, usize, usize)>,
}

impl fmt::Debug for Spliced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spliced").field("placed", &self.placed).finish_non_exhaustive()
    }
}

impl Spliced {
    /// The original offset of `offset` in the edited text, when it is outside every edit's
    /// new text (or at its start, which maps to the edit's original start).
    pub fn original(&self, offset: usize) -> Option<usize> {
        let mut shift: isize = 0;
        for &(os, oe, ns, ne) in &self.runs {
            if offset < ns {
                break;
            }
            if offset == ns {
                return Some(os);
            }
            if offset < ne {
                return None;
            }
            shift = ne as isize - oe as isize;
        }
        usize::try_from(offset as isize - shift).ok()
    }

    /// The index (in the order given) of the edit whose new text holds `start..end`.
    pub fn edit_holding(&self, start: usize, end: usize) -> Option<usize> {
        self.placed.iter().position(|&(s, e)| s <= start && end <= e && s < e)
    }
}

/// Applies `edits` to `text`. Edits may come in any order; insertions at one place keep the
/// order given; replaced ranges may not overlap.
pub fn splice(text: &str, edits: &[Edit]) -> Result<Spliced, SpliceError> {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].start, edits[i].end, i));
    for &i in &order {
        let e = &edits[i];
        if e.start > e.end || e.end > text.len() || !text.is_char_boundary(e.start) || !text.is_char_boundary(e.end) {
            return Err(SpliceError::OutOfRange { start: e.start, end: e.end });
        }
    }
    for w in order.windows(2) {
        let (a, b) = (&edits[w[0]], &edits[w[1]]);
        if b.start < a.end {
            return Err(SpliceError::Overlap(a.start, a.end, b.start, b.end));
        }
    }
    let mut out = String::with_capacity(text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut placed = vec![(0, 0); edits.len()];
    let mut runs = Vec::with_capacity(edits.len());
    let mut at = 0;
    for &i in &order {
        let e = &edits[i];
        out.push_str(&text[at..e.start]);
        let ns = out.len();
        out.push_str(&e.text);
        placed[i] = (ns, out.len());
        runs.push((e.start, e.end, ns, out.len()));
        at = e.end;
    }
    out.push_str(&text[at..]);
    Ok(Spliced { text: out, placed, runs })
}

/// The byte offset of a 1-based line and 0-based character column (proc-macro2's spans).
pub fn offset(text: &str, line: usize, column: usize) -> Option<usize> {
    fptune_syntax::offset_of(text, (line, column))
}

/// The 1-based line and column (in characters) of a byte offset, as rustc and editors count.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_any_order_and_say_where_they_landed() {
        let text = "let x = 1.0; let y = x;";
        let edits = [Edit::replace(8, 11, "1e999"), Edit::insert(12, " id(&x);"), Edit::insert(0, "/*a*/")];
        let s = splice(text, &edits).expect("applies");
        assert_eq!(s.text, "/*a*/let x = 1e999; id(&x); let y = x;");
        assert_eq!(&s.text[s.placed[0].0..s.placed[0].1], "1e999");
        assert_eq!(&s.text[s.placed[1].0..s.placed[1].1], " id(&x);");
        assert_eq!(s.edit_holding(s.placed[1].0 + 1, s.placed[1].1 - 1), Some(1));
        // `let y` is at 13 in the original.
        let y = s.text.find("let y").expect("y");
        assert_eq!(s.original(y), Some(13));
        assert_eq!(s.original(s.placed[0].0 + 2), None);
        assert_eq!(s.original(s.placed[0].0), Some(8));
    }

    #[test]
    fn overlapping_or_outside_edits_are_refused() {
        assert!(matches!(splice("abcdef", &[Edit::replace(1, 3, "x"), Edit::replace(2, 4, "y")]), Err(SpliceError::Overlap(..))));
        assert!(matches!(splice("abc", &[Edit::replace(2, 9, "x")]), Err(SpliceError::OutOfRange { .. })));
        assert!(matches!(splice("é", &[Edit::insert(1, "x")]), Err(SpliceError::OutOfRange { .. })));
    }

    #[test]
    fn lines_and_columns_count_characters() {
        let text = "ab\nçd\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 5), (2, 2));
        assert_eq!(offset(text, 2, 1), Some(5));
    }
}

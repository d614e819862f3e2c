//! The errors of a probe build as the probe reads them: rustc's headline, rendered text and place.

use serde::{Deserialize, Serialize};

use crate::cargo::Diagnostic;

/// An error rustc reported for the probe build: what [`couplings`] reads. Convert cargo's
/// errors with [`DiagnosticLike::from_error`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticLike {
    /// The headline, e.g. "mismatched types".
    pub message: String,
    /// The full text as rustc prints it (labels and notes carry the types).
    pub rendered: String,
    /// The primary span's file, relative to the package root.
    pub file: Option<String>,
    /// The primary span's line (1-based).
    pub line: Option<usize>,
}

impl DiagnosticLike {
    /// A build's error ([`crate::cargo::BuildResult::errors`]) as the probe reads it: its
    /// headline, its rendered text (the headline when rustc rendered none) and the place of its
    /// primary span. The one conversion of cargo's errors for the probe, the tool's and the
    /// tests' alike.
    pub fn from_error(d: &Diagnostic) -> DiagnosticLike {
        let primary = d.primary();
        DiagnosticLike {
            message: d.message.clone(),
            rendered: d.rendered.clone().unwrap_or_else(|| d.message.clone()),
            file: primary.map(|s| s.file.clone()),
            line: primary.map(|s| s.line),
        }
    }

    /// `file:line` of the error, as the report shows places (`?` when rustc gave none).
    pub fn place(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => f.clone(),
            _ => rendered_place(&self.rendered).unwrap_or_else(|| "?".into()),
        }
    }
}

/// `file:line` from the first `--> file:line:column` of a rendered diagnostic.
pub(super) fn rendered_place(rendered: &str) -> Option<String> {
    let rest = rendered.lines().find_map(|l| l.trim_start().strip_prefix("--> "))?;
    let mut parts = rest.trim().rsplitn(3, ':');
    let _column = parts.next()?;
    let line = parts.next()?;
    let file = parts.next()?;
    Some(format!("{file}:{line}"))
}

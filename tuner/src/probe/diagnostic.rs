//! The errors of a probe build as the probe reads them: rustc's headline, rendered text and place.

use serde::{Deserialize, Serialize};

/// An error rustc reported for the probe build: what [`couplings`] reads. Convert cargo's
/// diagnostics with [`DiagnosticLike::from_cargo`].
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
    /// The error of a cargo `compiler-message`, or `None` for warnings and notes.
    ///
    /// The place is the primary span's; when that lies outside the package (a macro's definition,
    /// the standard library), the macro call site in the package is taken instead.
    pub fn from_cargo(d: &cargo_metadata::diagnostic::Diagnostic) -> Option<DiagnosticLike> {
        use cargo_metadata::diagnostic::DiagnosticLevel;
        if !matches!(d.level, DiagnosticLevel::Error | DiagnosticLevel::Ice) {
            return None;
        }
        let mut span = d.spans.iter().find(|s| s.is_primary).or_else(|| d.spans.first());
        while let Some(s) = span {
            if !outside_package(&s.file_name) {
                break;
            }
            span = s.expansion.as_deref().map(|e| &e.span);
        }
        Some(DiagnosticLike {
            message: d.message.clone(),
            rendered: d.rendered.clone().unwrap_or_else(|| d.message.clone()),
            file: span.map(|s| s.file_name.clone()),
            line: span.map(|s| s.line_start),
        })
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

pub(super) fn outside_package(file: &str) -> bool {
    file.starts_with('/') || file.starts_with('<') || file.contains(":\\") || file.starts_with("\\\\")
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

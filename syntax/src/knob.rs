//! What a knob is: a declaration whose float type the tuner may change, its kind, and its
//! declared type as the report shows it.

use std::fmt;

use proc_macro2::Span;
use quote::ToTokens;
use syn::Type;

use crate::{FloatFormat, Leaf};

/// What kind of declaration a knob is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum KnobKind {
    /// `let x: T = ..`
    Let,
    /// A function parameter.
    Param,
    /// A closure's parameter whose type is written (`|x: f64| ..`).
    Closure,
    /// A float type given as a generic argument, marked `fptune::knob!(f64)`
    /// (`integrate::<fptune::knob!(f64)>(..)`): named after what it instantiates.
    Instantiation,
    /// The float type a cast converts to, marked `fptune::knob!(f64)` (`i as
    /// fptune::knob!(f64)`): named `as`.
    Cast,
    /// A function's return value.
    Return,
    /// A struct field.
    Field,
    /// A `static`.
    Static,
    /// A `const`.
    Const,
    /// A `type` alias: one knob for every use.
    Alias,
}

impl KnobKind {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Let => "let",
            Self::Param => "param",
            Self::Closure => "closure",
            Self::Instantiation => "instantiation",
            Self::Cast => "cast",
            Self::Return => "return",
            Self::Field => "field",
            Self::Static => "static",
            Self::Const => "const",
            Self::Alias => "alias",
        }
    }
}

impl fmt::Display for KnobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A knob: a declaration whose float type the tuner may change.
#[derive(Clone, Debug)]
pub struct Knob {
    /// The variable, parameter, field, static, alias or function name (`scale::return` style for a
    /// return value is left to the reader: the name is the function's).
    pub name: String,
    /// The kind of declaration.
    pub kind: KnobKind,
    /// The declared type, normalised.
    pub ty: String,
    /// Where the float format is written in the type (one or more places).
    pub leaves: Vec<Leaf>,
    /// The format written (the first leaf's, or the alias's for a leaf naming a tuned alias).
    pub format: Option<FloatFormat>,
    /// The group, if any.
    pub group: Option<String>,
    /// The span of the name.
    pub span: Span,
    /// Line (1-based) and column (1-based) of the name.
    pub line: usize,
    /// Column of the name, 1-based.
    pub column: usize,
    /// Enclosing function or item, for the report (`det`, `Controller::step`).
    pub scope: String,
}

/// Normalised text of a type, as the report shows it (`Vec<f64>`, `&mut [f32]`).
pub fn type_text(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let mut prev = ' ';
    for (i, c) in raw.char_indices() {
        let next = raw[i + c.len_utf8()..].chars().next().unwrap_or(' ');
        if c == ' ' {
            let glue = matches!(prev, '<' | '&' | '[' | '(' | ':' | '*')
                || matches!(next, '<' | '>' | ',' | ']' | ')' | ';' | ':');
            if glue && !(prev == ';' || prev == ',') {
                continue;
            }
        }
        out.push(c);
        prev = c;
    }
    out.replace("mut[", "mut [").replace("const[", "const [")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_text_reads_like_source() {
        for t in ["Vec<Vec<f64>>", "&mut [f32]", "[f64; 3]", "&[fptune::f16]", "(f64, f32)"] {
            let ty: Type = syn::parse_str(t).expect("type parses");
            assert_eq!(type_text(&ty), t);
        }
    }
}

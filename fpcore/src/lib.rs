//! fpcore2rust: translates FPBench's FPCore benchmarks into standalone Rust programs that read
//! like hand-written numerical code, as inputs for fptune.
//!
//! The pipeline so far: [`sexp`] reads the text, [`parse`] makes [`ast`] benchmarks, and
//! [`codegen`] writes expressions in the types [`precision`] chooses, naming variables with
//! [`names`].

pub mod ast;
pub mod codegen;
pub mod names;
pub mod number;
pub mod parse;
pub mod precision;
pub mod sexp;

use std::fmt;

/// Why a benchmark cannot be translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

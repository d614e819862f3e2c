//! The floating-point formats fptune can give a knob, and how each is spelled.

use std::fmt;

/// A floating-point format fptune can give a knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum FloatFormat {
    /// binary16 (`half::f16`, re-exported as `fptune::f16`).
    F16,
    /// bfloat16 (`half::bf16`, re-exported as `fptune::bf16`).
    BF16,
    /// binary32.
    F32,
    /// binary64.
    F64,
}

impl FloatFormat {
    /// Every format, narrowest first.
    pub const ALL: [FloatFormat; 4] = [Self::BF16, Self::F16, Self::F32, Self::F64];

    /// How the format is spelled in a user's source after tuning.
    pub fn rust(self) -> &'static str {
        match self {
            Self::F64 => "f64",
            Self::F32 => "f32",
            Self::F16 => "fptune::f16",
            Self::BF16 => "fptune::bf16",
        }
    }

    /// The stochastic type of the format, as the stochastic build spells it.
    pub fn stochastic(self) -> &'static str {
        match self {
            Self::F64 => "::fptune::Sf64",
            Self::F32 => "::fptune::Sf32",
            Self::F16 => "::fptune::Sf16",
            Self::BF16 => "::fptune::Sbf16",
        }
    }

    /// Short name: `f64`, `f32`, `f16`, `bf16`.
    pub fn short(self) -> &'static str {
        match self {
            Self::F64 => "f64",
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::BF16 => "bf16",
        }
    }

    /// The format named by a type's last path segment, if it is one.
    pub fn from_ident(name: &str) -> Option<FloatFormat> {
        match name {
            "f64" => Some(Self::F64),
            "f32" => Some(Self::F32),
            "f16" => Some(Self::F16),
            "bf16" => Some(Self::BF16),
            _ => None,
        }
    }

    /// Parses a short name (`f64`, `f32`, `f16`, `bf16`).
    pub fn parse(name: &str) -> Option<FloatFormat> {
        Self::from_ident(name.trim())
    }
}

impl fmt::Display for FloatFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

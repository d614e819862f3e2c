//! The floating-point formats fptune can give a knob, and how each is spelled.

use std::borrow::Cow;
use std::fmt;

use fptune_spec::Spec;

/// A floating-point format fptune can give a knob: one of the four Rust has a type for, or any
/// other binary format ([`Spec`]), spelled `fptune::Fx<E, M, FLAGS>` (`fptune::E4M3`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatFormat {
    /// binary16 (`half::f16`, re-exported as `fptune::f16`).
    F16,
    /// bfloat16 (`half::bf16`, re-exported as `fptune::bf16`).
    BF16,
    /// binary32.
    F32,
    /// binary64.
    F64,
    /// Any other format: `fptune::Fx<E, M, FLAGS>`, computed in `f64` and rounded after every
    /// operation (natively) or stochastic samples on its grid.
    Custom(Spec),
}

impl FloatFormat {
    /// The four primitive formats, narrowest first.
    pub const ALL: [FloatFormat; 4] = [Self::BF16, Self::F16, Self::F32, Self::F64];

    /// The format as data.
    pub fn spec(self) -> Spec {
        match self {
            Self::F64 => Spec::F64,
            Self::F32 => Spec::F32,
            Self::F16 => Spec::F16,
            Self::BF16 => Spec::BF16,
            Self::Custom(s) => s,
        }
    }

    /// The format of a spec: one of the four when it is one, else [`FloatFormat::Custom`].
    pub fn of(spec: Spec) -> FloatFormat {
        match spec {
            s if s == Spec::F64 => Self::F64,
            s if s == Spec::F32 => Self::F32,
            s if s == Spec::F16 => Self::F16,
            s if s == Spec::BF16 => Self::BF16,
            s => Self::Custom(s),
        }
    }

    /// Significand bits, the hidden bit included.
    pub fn precision(self) -> u32 {
        self.spec().precision()
    }

    /// How the format is spelled in a user's source after tuning.
    pub fn rust(self) -> Cow<'static, str> {
        match self {
            Self::F64 => "f64".into(),
            Self::F32 => "f32".into(),
            Self::F16 => "fptune::f16".into(),
            Self::BF16 => "fptune::bf16".into(),
            Self::Custom(s) => match s {
                s if s == Spec::E4M3 => "fptune::E4M3".into(),
                s if s == Spec::E5M2 => "fptune::E5M2".into(),
                s if s == Spec::TF32 => "fptune::TF32".into(),
                s => {
                    let flags = fptune_spec::flags_of(s);
                    if flags == 0 {
                        format!("fptune::Fx<{}, {}>", s.exp_bits, s.man_bits).into()
                    } else {
                        format!("fptune::Fx<{}, {}, {flags}>", s.exp_bits, s.man_bits).into()
                    }
                }
            },
        }
    }

    /// The stochastic type of the format, as the stochastic build spells it.
    pub fn stochastic(self) -> Cow<'static, str> {
        match self {
            Self::F64 => "::fptune::Sf64".into(),
            Self::F32 => "::fptune::Sf32".into(),
            Self::F16 => "::fptune::Sf16".into(),
            Self::BF16 => "::fptune::Sbf16".into(),
            Self::Custom(s) => format!("::fptune::Stochastic<::fptune::Fx<{}, {}, {}>>", s.exp_bits, s.man_bits, fptune_spec::flags_of(s)).into(),
        }
    }

    /// Short name: `f64`, `f32`, `f16`, `bf16`, or the spec's (`e4m3`, `e11m40`, `f32-ftz`).
    pub fn short(self) -> Cow<'static, str> {
        match self {
            Self::F64 => "f64".into(),
            Self::F32 => "f32".into(),
            Self::F16 => "f16".into(),
            Self::BF16 => "bf16".into(),
            Self::Custom(s) => s.name().into(),
        }
    }

    /// The format named by a type's last path segment, if it is one of the four.
    pub fn from_ident(name: &str) -> Option<FloatFormat> {
        match name {
            "f64" => Some(Self::F64),
            "f32" => Some(Self::F32),
            "f16" => Some(Self::F16),
            "bf16" => Some(Self::BF16),
            _ => None,
        }
    }

    /// Parses a short name: the four's, or any [`Spec::parse`] reads (`e4m3`, `tf32`, `e11m40`,
    /// `f32-ftz`).
    pub fn parse(name: &str) -> Result<FloatFormat, fptune_spec::SpecError> {
        Spec::parse(name).map(Self::of)
    }
}

impl fmt::Display for FloatFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short())
    }
}

/// As its short name (`"f64"`, `"e4m3"`): what reports and caches hold.
#[cfg(feature = "serde")]
impl serde::Serialize for FloatFormat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.short())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for FloatFormat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        FloatFormat::parse(&name).map_err(serde::de::Error::custom)
    }
}

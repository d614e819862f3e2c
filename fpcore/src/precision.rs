//! FPCore rounding contexts (`:precision`, `:round`) and the Rust types they become: binary32
//! is `f32`, binary64 `f64`, `integer` `i64`; wider or exotic formats fall back to `f64` with a
//! note the generated code repeats as a comment.

use crate::ast::{find_prop, Property};
use crate::number::FloatType;
use crate::sexp::Sexp;
use crate::Unsupported;

/// The Rust type of a generated value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `i64`.
    I64,
    /// `bool`.
    Bool,
}

impl Ty {
    /// The Rust spelling.
    pub fn rust(self) -> &'static str {
        match self {
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::I64 => "i64",
            Ty::Bool => "bool",
        }
    }

    /// The float type, for `f32` and `f64`.
    pub fn float(self) -> Option<FloatType> {
        match self {
            Ty::F32 => Some(FloatType::F32),
            Ty::F64 => Some(FloatType::F64),
            Ty::I64 | Ty::Bool => None,
        }
    }

    /// Whether values of this type are numbers.
    pub fn is_numeric(self) -> bool {
        self != Ty::Bool
    }
}

/// A rounding context: the type operations round to, and why when it is not FPCore's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// The type results are rounded to: `F32`, `F64` or `I64`.
    pub ty: Ty,
    /// When FPCore asked for a format Rust lacks: its name (the context then uses `f64`).
    pub substituted: Option<String>,
}

impl Context {
    /// FPCore's default context, binary64 rounding to nearest.
    pub fn binary64() -> Context {
        Context {
            ty: Ty::F64,
            substituted: None,
        }
    }

    /// The context `props` make of this one (`:precision`, `:round`; other keys are inherited
    /// or do not concern arithmetic).
    pub fn with_props(&self, props: &[Property]) -> Result<Context, Unsupported> {
        if let Some(mode) = find_prop(props, "round") {
            if mode.atom() != Some("nearestEven") {
                return Err(Unsupported(format!(
                    "the rounding mode `{mode}` (Rust rounds to nearest, ties to even)"
                )));
            }
        }
        match find_prop(props, "precision") {
            Some(precision) => Context::of_precision(precision),
            None => Ok(self.clone()),
        }
    }

    /// The context of an FPCore `:precision` value.
    pub fn of_precision(precision: &Sexp) -> Result<Context, Unsupported> {
        let exact = |ty| {
            Ok(Context {
                ty,
                substituted: None,
            })
        };
        let substitute = || {
            Ok(Context {
                ty: Ty::F64,
                substituted: Some(precision.to_string()),
            })
        };
        if let Some(name) = precision.atom() {
            return match name {
                "binary32" => exact(Ty::F32),
                "binary64" => exact(Ty::F64),
                "integer" => exact(Ty::I64),
                _ => substitute(),
            };
        }
        // (float es nbits): IEEE formats by exponent width and total width.
        let items = precision.list().unwrap_or_default();
        let ints: Vec<Option<u32>> = items
            .iter()
            .skip(1)
            .map(|i| i.atom().and_then(|a| a.parse().ok()))
            .collect();
        match (items.first().and_then(Sexp::atom), ints.as_slice()) {
            (Some("float"), [Some(8), Some(32)]) => exact(Ty::F32),
            (Some("float"), [Some(11), Some(64)]) => exact(Ty::F64),
            _ => substitute(),
        }
    }

    /// The comment the generated code carries where this context applies, if any.
    pub fn note(&self) -> Option<String> {
        self.substituted.as_ref().map(|name| {
            format!(
                "FPCore asks for {name} here; Rust has no such type, so this is computed in f64."
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sexp::read_all;

    fn context(precision: &str) -> Context {
        Context::of_precision(&read_all(precision).expect("readable")[0]).expect("a context")
    }

    fn props(text: &str) -> Vec<Property> {
        let data = read_all(text).expect("readable");
        data.chunks(2)
            .map(|pair| Property {
                key: pair[0]
                    .atom()
                    .expect("a key")
                    .trim_start_matches(':')
                    .to_string(),
                value: pair[1].clone(),
            })
            .collect()
    }

    #[test]
    fn ieee_formats_map_to_rust_floats_and_integer_to_i64() {
        assert_eq!(context("binary32").ty, Ty::F32);
        assert_eq!(context("binary64").ty, Ty::F64);
        assert_eq!(context("(float 8 32)").ty, Ty::F32);
        assert_eq!(context("integer").ty, Ty::I64);
        assert_eq!(context("binary64").note(), None);
    }

    #[test]
    fn formats_rust_lacks_fall_back_to_f64_with_a_note() {
        let wide = context("binary80");
        assert_eq!(wide.ty, Ty::F64);
        assert!(wide.note().expect("a note").contains("binary80"));
        assert_eq!(context("(posit 16 1)").ty, Ty::F64);
    }

    #[test]
    fn properties_change_the_context_and_unknown_rounding_modes_are_refused() {
        let base = Context::binary64();
        assert_eq!(
            base.with_props(&props(":precision binary32 :name \"x\""))
                .expect("ok")
                .ty,
            Ty::F32
        );
        assert_eq!(base.with_props(&props(":cite (a b)")).expect("ok"), base);
        assert!(base.with_props(&props(":round nearestEven")).is_ok());
        let err = base
            .with_props(&props(":round toZero"))
            .expect_err("refused");
        assert!(err.0.contains("toZero"), "{err}");
    }
}

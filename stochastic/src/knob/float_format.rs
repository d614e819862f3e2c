//! The formats known at run time (`FloatFormat`, `Tag`) and the format each unit has in this run: the
//! table read from [`FORMATS_ENV`] before `main` (`startup.rs`), read back with plain loads.

use super::*;

/// A format known at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FloatFormat {
    /// bfloat16.
    Bf16 = 1,
    /// binary16.
    F16 = 2,
    /// binary32.
    F32 = 3,
    /// binary64.
    F64 = 4,
}

impl FloatFormat {
    /// The format of a short name.
    pub fn parse(name: &str) -> Option<FloatFormat> {
        match name.trim() {
            "f64" => Some(FloatFormat::F64),
            "f32" => Some(FloatFormat::F32),
            "f16" => Some(FloatFormat::F16),
            "bf16" => Some(FloatFormat::Bf16),
            _ => None,
        }
    }

    #[inline]
    fn from_u8(v: u8) -> Option<FloatFormat> {
        match v {
            1 => Some(FloatFormat::Bf16),
            2 => Some(FloatFormat::F16),
            3 => Some(FloatFormat::F32),
            4 => Some(FloatFormat::F64),
            _ => None,
        }
    }

    /// The format's layout and range ([`Format::SPEC`]).
    #[inline]
    pub fn spec(self) -> fptune_spec::Spec {
        at_format!(self, G => <G as Format>::SPEC)
    }

    /// Whether every value of format `other` is one of `self` ([`crate::format::holds`]): the
    /// same format, or binary32 or binary64 wider than it.
    #[inline]
    pub fn holds(self, other: FloatFormat) -> bool {
        self == other || ((self as u8) >= 3 && (self as u8) > (other as u8))
    }

    /// The format two formats compute in ([`crate::Promote`]): the wider, and binary32 for
    /// binary16 with bfloat16.
    #[inline]
    pub fn promote(self, other: FloatFormat) -> FloatFormat {
        if self == other {
            self
        } else if (self as u8) >= 3 || (other as u8) >= 3 {
            if (self as u8) > (other as u8) {
                self
            } else {
                other
            }
        } else {
            FloatFormat::F32
        }
    }
}

/// Each unit's format as a [`FloatFormat`] (zero: the unit's declared format), read before `main`
/// ([`crate::startup`]): every store into a knob reads its unit's entry, and plain loads of a
/// value written once leave the loops that make them.
static TABLE: Plain<[u8; MAX_UNITS]> = Plain::new([0; MAX_UNITS]);

/// Reads [`FORMATS_ENV`] into the table; a list that is not one ends the process with a
/// message.
///
/// # Safety
/// No other thread may run (it is called before `main`).
pub(crate) unsafe fn read_formats() {
    if let Some(list) = std::env::var_os(FORMATS_ENV) {
        let list = list.to_string_lossy();
        // SAFETY: the caller's promise.
        if let Err(e) = unsafe { set_formats(&list) } {
            eprintln!("fptune: {FORMATS_ENV}={list:?}: {e}");
            std::process::exit(2);
        }
    }
}

/// Sets the units' formats from a list like [`FORMATS_ENV`]'s, which the program reads before
/// `main` (tests call this instead). A knob made before keeps its value's word and is read in
/// its unit's new format: make knobs after.
///
/// # Safety
/// No other thread may use a knob meanwhile (the table is read with plain loads).
pub unsafe fn set_formats(list: &str) -> Result<(), String> {
    let names: Vec<&str> = if list.trim().is_empty() { Vec::new() } else { list.split(',').collect() };
    if names.len() > MAX_UNITS {
        return Err(format!("{} units, at most {MAX_UNITS} can be given a format", names.len()));
    }
    let mut table = [0u8; MAX_UNITS];
    for (u, name) in names.iter().enumerate() {
        let f = FloatFormat::parse(name).ok_or_else(|| format!("unit {u}: `{name}` is not a format (f64, f32, f16, bf16)"))?;
        table[u] = f as u8;
    }
    // SAFETY: the caller's promise.
    unsafe { TABLE.set(table) };
    Ok(())
}

/// The format of unit `k` in this run: the table's entry, or the declared format where the run
/// names none. Once inlined, a load LLVM can hoist and a select.
#[inline]
pub(super) fn unit_format(k: u32, declared: FloatFormat) -> FloatFormat {
    TABLE.at((k & !CONSTANT) as usize).and_then(FloatFormat::from_u8).unwrap_or(declared)
}

/// The formats as the single build names them.
pub trait Tag: Format {
    /// The run-time name of the format.
    const FLOAT_FORMAT: FloatFormat;
}

impl Tag for f64 {
    const FLOAT_FORMAT: FloatFormat = FloatFormat::F64;
}
impl Tag for f32 {
    const FLOAT_FORMAT: FloatFormat = FloatFormat::F32;
}
impl Tag for f16 {
    const FLOAT_FORMAT: FloatFormat = FloatFormat::F16;
}
impl Tag for bf16 {
    const FLOAT_FORMAT: FloatFormat = FloatFormat::Bf16;
}

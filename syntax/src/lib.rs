//! The marker syntax of fptune, shared by the `#[fptune::tune]` macro and the `cargo fptune`
//! tuner so that both see the same knobs with the same identities.
//!
//! - [`FloatFormat`] and [`float_leaves`]: which types are floats, and where in a declared type
//!   the float format is written (`f64` in `Vec<f64>`), so the tuner can rewrite exactly there.
//! - [`Marker`]: the `#[tune]` / `#[tune(group = "name")]` attribute.
//! - [`discover`]: every knob of a tuned item, with the errors a user must see.
//!
//! One concern a module: `format` (the formats), `leaves` (float types and their leaves),
//! `literals` (a float literal's digits), `expression_macros` (the macros whose arguments are
//! code), `marker` (the attribute), `knob` (what a knob is), `discover` (the knobs of a tuned
//! item), `file` (the knobs of a source file), `rewrite` (a configuration written into source
//! text). Every item is used from the crate's root.

mod discover;
mod expression_macros;
mod file;
mod format;
mod knob;
mod leaves;
mod literals;
mod marker;
mod rewrite;

pub use discover::{discover, named_parts, tuned_aliases, Discovery, Top, Untyped};
pub use expression_macros::{expression_args, APPROX_MACROS, EXPRESSION_MACROS};
pub use file::{discover_file, item_attrs};
pub use format::FloatFormat;
pub use knob::{type_text, Knob, KnobKind};
pub use leaves::{callable_bounds, callable_parameters, custom_format, declared_type, fn_arguments, float_leaves, float_type, is_storable_float, primitive_path, Leaf};
pub use literals::{literal_args, suffixable_digits, too_large_for_f32};
pub use marker::{is_marker, is_tune_attribute, knob_type_marker, parse_marker, stray_markers, Marker};
pub use rewrite::{offset_of, rewrite_leaves};

//! `#[fptune::tune]`: marks the precision knobs of a numerical crate and makes every precision
//! configuration compile. Re-exported by the `fptune` crate; see its documentation and
//! `ARCHITECTURE.md` ("macros") for what the expansion does.

use proc_macro::TokenStream;

mod expand;
mod printed;

/// Marks an item (an inline `mod`, a `fn`, an `impl`, a `struct`, a `type` alias, a `static` or
/// `const`) whose floats fptune may tune. Inside it, `#[tune]` or `#[tune(group = "name")]` marks a
/// knob: a `let`, a function parameter, a function (its return value), a struct field, a
/// `static`/`const`, or a `type` alias (one knob for every use).
///
/// The expansion makes mixed precision type-check: operators between floats of two formats
/// compute in the wider one, float literals (and integers cast to float) take the other operand's
/// format, and stores into a float place round to the place's format.
#[proc_macro_attribute]
pub fn tune(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tune(args.into(), item.into()).into()
}

/// The tuner's whole-copy conversion (not a public API): processes any item as `tune` does,
/// without requiring it to be one of the items `tune` goes on, so that code outside the tuned
/// items is converted too in the stochastic build (as PROMISE's cadnaizer converts a C program).
#[doc(hidden)]
#[proc_macro_attribute]
pub fn __convert(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::convert(args.into(), item.into()).into()
}

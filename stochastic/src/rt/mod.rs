//! Runtime support for the code `#[fptune::tune]` expands to. Not a public API.
//!
//! Rust has no implicit conversions between float types, so the macro rewrites the arithmetic,
//! comparisons, compound assignments, casts and stores of tuned code into calls here. Each call
//! dispatches on the operand types with *autoref specialisation*: a method implemented for
//! `&Pair<A, B>` when both operands are floats of any kind (native, stochastic, literal) is found
//! before the fallback implemented for `Pair<A, B>` that forwards to the ordinary `std::ops`
//! trait; above both, a method implemented for `&&Pair<T, T>`, two operands of one native type
//! (`f64`, `f32`), is rustc's own operator, which types a float rustc has not typed yet by the
//! one it meets, as in unmarked code (`binary.rs`, [`Native`]). So integers, user types and
//! generic code keep their own operators, while floats follow DESIGN.md's semantics:
//!
//! 1. an operation between two formats is computed in the wider one (`Join`), and
//!    binary16 with bfloat16 in binary32;
//! 2. a literal (or an integer cast to float) used as an operand takes the other operand's format;
//! 3. storing into a place rounds to the place's format (`Store`);
//! 4. with a stochastic and a native operand, the native value joins as an exact stochastic value.
//!
//! Everything here is `#[inline(always)]` and, for native types of one format, compiles to the
//! plain operation: tuned code whose knobs are all `f64` runs as fast as untuned code.
//!
//! One file per part of the expansion: `literal.rs` (literals as operands), `join.rs` (the float
//! kinds and how two of them meet), `binary.rs` (operators, compound assignments, comparisons),
//! `store.rs`, `cast.rs`, `buffer.rs` (slices copied, swapped, summed), `half_math.rs` (the method
//! set of the 16-bit formats), `math2.rs` (two-operand methods), `probe.rs` (the probe build).

use std::cell::Cell;
use std::marker::PhantomData;
use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Rem, RemAssign, Sub, SubAssign};

use half::{bf16, f16};

use crate::cvt::Half32;
use crate::format::{Format, Promote, Repr};
use crate::value::{Sbf16, Sf16, Sf32, Sf64, Stochastic};

mod literal;
mod join;
mod binary;
mod store;
mod cast;
mod buffer;
mod half_math;
mod math2;
mod probe;

pub use literal::*;
pub use join::*;
pub use binary::*;
pub use store::*;
pub use cast::*;
pub use buffer::*;
pub use half_math::*;
pub use math2::*;
pub use probe::*;

pub use crate::check::{check, Checkable, Record};

/// Compares two floats of any kinds in their common format (for tests of the expansion).
#[inline(always)]
pub fn compare<A: Scalar + Join<B>, B>(a: A, b: B) -> Option<Ordering>
where
    A::Out: PartialOrd,
{
    let (a, b) = A::join(a, b);
    a.partial_cmp(&b)
}

/// Every dispatch trait, for a glob import where the expansion calls them.
pub mod prelude {
    pub use crate::printed::{FloatPrinted, StdPrinted};
    pub use super::{
        FloatAdd, FloatAtan2, FloatCmp, FloatCompoundKind, FloatCopy, FloatCopysign, FloatDiv,
        FloatDivEuclid, FloatFold, FloatHypot, FloatMax, FloatMin, FloatMul, FloatPowf, FloatRem,
        FloatRemEuclid, FloatStore, FloatSub, HalfMath, StdAdd, ContainerFold,
        LitCompoundKind, StdCompoundKind, StdCopy, StdDiv, StdEq, StdFold, StdMax, StdMin, StdMul, StdOrd, StdRem,
        StdStore, StdSub,
    };
    pub use super::{SameAdd, SameCmp, SameCompoundKind, SameDiv, SameMul, SameRem, SameSub};
    pub use super::{ElemAddLit, ElemDivLit, ElemMulLit, ElemSubLit, LitAddElem, LitDivElem, LitMulElem, LitSubElem};
    pub use super::{
        AddLit32, AddLit64, AddSlit32, AddSlit64, DivLit32, DivLit64, DivSlit32, DivSlit64,
        LitAdd32, LitAdd64, LitDiv32, LitDiv64, LitMul32, LitMul64, LitRem32, LitRem64, LitSub32,
        LitSub64, MulLit32, MulLit64, MulSlit32, MulSlit64, RemLit32, RemLit64, RemSlit32,
        RemSlit64, SlitAdd32, SlitAdd64, SlitDiv32, SlitDiv64, SlitMul32, SlitMul64, SlitRem32,
        SlitRem64, SlitSub32, SlitSub64, SubLit32, SubLit64, SubSlit32, SubSlit64,
    };
}


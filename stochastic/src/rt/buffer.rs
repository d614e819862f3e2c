//! Buffers of floats of two types: `copy_from_slice`, `swap`, `sum`, `product`.

use super::*;

/// `dst.copy_from_slice(src)` between float slices of any two types: element by element, rounding
/// to `dst`'s format.
pub trait FloatCopy {
    /// The copy.
    fn __fp_copy_from_slice(&self);
}

impl<A, B: Scalar + Store<A>> FloatCopy for &Pair<&mut [A], &[B]> {
    #[inline]
    fn __fp_copy_from_slice(&self) {
        let (dst, src) = self.take();
        assert_eq!(dst.len(), src.len(), "copy_from_slice: source and destination lengths differ");
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s.store();
        }
    }
}

/// Any other slices: `<[T]>::copy_from_slice`.
pub trait StdCopy {
    /// The copy.
    fn __fp_copy_from_slice(&self);
}

impl<A: Copy> StdCopy for Pair<&mut [A], &[A]> {
    #[inline(always)]
    fn __fp_copy_from_slice(&self) {
        let (dst, src) = self.take();
        dst.copy_from_slice(src);
    }
}

/// `std::mem::swap(a, b)` for two places whose float types may differ: when they do, each value is
/// stored into the other's type.
pub trait SwapWith<B> {
    /// The swap.
    fn swap_with(&mut self, other: &mut B);
}

impl<T> SwapWith<T> for T {
    #[inline(always)]
    fn swap_with(&mut self, other: &mut T) {
        std::mem::swap(self, other);
    }
}

macro_rules! swap_pairs {
    ($($a:ty, $b:ty);*) => {$(
        impl SwapWith<$b> for $a {
            #[inline]
            fn swap_with(&mut self, other: &mut $b) {
                let mine = std::mem::take(self);
                *self = std::mem::take(other).store();
                *other = mine.store();
            }
        }
        impl SwapWith<Vec<$b>> for Vec<$a> {
            #[inline]
            fn swap_with(&mut self, other: &mut Vec<$b>) {
                let mine = std::mem::take(self);
                *self = std::mem::take(other).store();
                *other = mine.store();
            }
        }
    )*};
}

swap_pairs!(f64, f32; f64, f16; f64, bf16; f32, f64; f32, f16; f32, bf16;
    f16, f64; f16, f32; f16, bf16; bf16, f64; bf16, f32; bf16, f16);
swap_pairs!(Sf64, Sf32; Sf64, Sf16; Sf64, Sbf16; Sf32, Sf64; Sf32, Sf16; Sf32, Sbf16;
    Sf16, Sf64; Sf16, Sf32; Sf16, Sbf16; Sbf16, Sf64; Sbf16, Sf32; Sbf16, Sf16);

/// `std::mem::swap` as the macro writes it.
#[inline(always)]
pub fn swap<A: SwapWith<B>, B>(a: &mut A, b: &mut B) {
    a.swap_with(b);
}

/// An iterator to sum or multiply, for dispatch.
pub struct Fold<I>(Cell<Option<I>>);

/// Wraps an iterator: `(&&fold(it)).__fp_sum()`.
#[inline(always)]
pub fn fold<I>(it: I) -> Fold<I> {
    Fold(Cell::new(Some(it)))
}

impl<I> std::fmt::Debug for Fold<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Fold")
    }
}

impl<I> Fold<I> {
    #[inline(always)]
    fn take(&self) -> I {
        match self.0.take() {
            Some(i) => i,
            None => unreachable!("an fptune fold is used once"),
        }
    }
}

/// Sums and products of floats: one rounding per step in the items' own format (`half`'s `Sum`
/// for `f16` accumulates in `f32`, which is not binary16 arithmetic).
pub trait FloatFold {
    /// The items' type.
    type Out;
    /// `iter.sum()`
    fn __fp_sum(&self) -> Self::Out;
    /// `iter.product()`
    fn __fp_product(&self) -> Self::Out;
    /// `iter.sum::<S>()`: the items' type (a float sum is in the items' format).
    fn __fp_sum_as<S>(&self) -> Self::Out;
    /// `iter.product::<S>()`
    fn __fp_product_as<S>(&self) -> Self::Out;
}

/// A float item, by value or by reference.
pub trait Item {
    /// The value type.
    type Value: Scalar;
    /// The value.
    fn value(self) -> Self::Value;
}

/// [`Item`] for float types (`[generics] type`): by value and by reference.
macro_rules! item {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> $crate::rt::Item for $t {
            type Value = $t;
            #[inline(always)]
            fn value(self) -> $t {
                self
            }
        }
        impl<'a, $($g)*> $crate::rt::Item for &'a $t {
            type Value = $t;
            #[inline(always)]
            fn value(self) -> $t {
                *self
            }
        }
    )*};
}
pub(crate) use item;

item!([] f64, [] f32, [] f16, [] bf16, [F: Format] Stochastic<F>, [F: Format, K: crate::rt::Ids] Probe<F, K>, [const E: u32, const M: u32, const FLAGS: u32] crate::Fx<E, M, FLAGS>);

impl<I: Iterator> FloatFold for &Fold<I>
where
    I::Item: Item,
    <I::Item as Item>::Value: Add<Output = <I::Item as Item>::Value>
        + Mul<Output = <I::Item as Item>::Value>
        + Store<<I::Item as Item>::Value>,
    Lit: Store<<I::Item as Item>::Value>,
{
    type Out = <I::Item as Item>::Value;
    #[inline]
    fn __fp_sum(&self) -> Self::Out {
        // std's float `Sum` starts from -0.0 (so that an empty or all -0.0 sum is -0.0).
        fold_from(self.take(), Lit::new(-0.0, -0.0), |acc, x| acc + x)
    }
    #[inline]
    fn __fp_product(&self) -> Self::Out {
        fold_from(self.take(), Lit::new(1.0, 1.0), |acc, x| acc * x)
    }
    #[inline]
    fn __fp_sum_as<S>(&self) -> Self::Out {
        self.__fp_sum()
    }
    #[inline]
    fn __fp_product_as<S>(&self) -> Self::Out {
        self.__fp_product()
    }
}

/// `start op item_1 op item_2 ...`, `start` in the items' format: stored into a place holding the
/// first item, so that items whose format is known only at run time ([`crate::knob::DynStochastic`]) fold
/// in their own format as items of a static type do.
#[inline]
fn fold_from<I: Iterator>(mut items: I, start: Lit, op: impl Fn(<I::Item as Item>::Value, <I::Item as Item>::Value) -> <I::Item as Item>::Value) -> <I::Item as Item>::Value
where
    I::Item: Item,
    <I::Item as Item>::Value: Store<<I::Item as Item>::Value>,
    Lit: Store<<I::Item as Item>::Value>,
{
    let Some(first) = items.next().map(Item::value) else { return start.store() };
    let mut acc = first;
    start.store_into(&mut acc);
    items.fold(op(acc, first), |acc, x| op(acc, x.value()))
}

/// A container with its own `sum()` and `product()` (ndarray's arrays: `a.mapv(f64::abs).sum()`),
/// which the macro cannot tell from an iterator's: the container's own (`traits/ndarray.rs`).
pub trait ContainerFold {
    /// The elements' type.
    type Out;
    /// `container.sum()`
    fn __fp_sum(&self) -> Self::Out;
    /// `container.product()`
    fn __fp_product(&self) -> Self::Out;
}

impl<I> Fold<I> {
    /// The container or iterator, taken once (for [`ContainerFold`]'s impls).
    #[inline(always)]
    pub fn taken(&self) -> I {
        self.take()
    }
}

/// Any other iterator: `Iterator::sum` / `product` into the type the context asks for.
pub trait StdFold {
    /// `iter.sum()`
    fn __fp_sum<S: std::iter::Sum<Self::Item>>(&self) -> S;
    /// `iter.product()`
    fn __fp_product<P: std::iter::Product<Self::Item>>(&self) -> P;
    /// `iter.sum::<S>()`
    fn __fp_sum_as<S: std::iter::Sum<Self::Item>>(&self) -> S;
    /// `iter.product::<S>()`
    fn __fp_product_as<P: std::iter::Product<Self::Item>>(&self) -> P;
    /// The items.
    type Item;
}

impl<I: Iterator> StdFold for Fold<I> {
    type Item = I::Item;
    #[inline(always)]
    fn __fp_sum<S: std::iter::Sum<I::Item>>(&self) -> S {
        self.take().sum()
    }
    #[inline(always)]
    fn __fp_product<P: std::iter::Product<I::Item>>(&self) -> P {
        self.take().product()
    }
    #[inline(always)]
    fn __fp_sum_as<S: std::iter::Sum<I::Item>>(&self) -> S {
        self.take().sum()
    }
    #[inline(always)]
    fn __fp_product_as<P: std::iter::Product<I::Item>>(&self) -> P {
        self.take().product()
    }
}

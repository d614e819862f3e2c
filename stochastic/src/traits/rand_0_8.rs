// rand 0.8's sampling traits for stochastic values: `rng.gen::<Sf64>()` (`Standard`) and
// `rng.gen_range(a..b)` (`SampleUniform`), so that seeded randomness runs under DSA.
//
// A drawn number is data, not the result of an operation: it is drawn exactly as the native
// program draws a number of the value's format (the same calls on the generator, so the same
// stream: a `Stochastic<f32>` consumes what an `f32` does), and becomes an exactly known value
// (three equal samples). The bounds of a range are the means of their samples. A format rand
// draws no number of (binary16, bfloat16) gets no impl: its knob stays at 32 bits, which the
// tuner's 16-bit trial build finds (`tuner/src/probe/mod.rs`).
//
// The single build's knobs ([`Knob`]) draw by their unit's format in the run: an `f64` or an
// `f32` as the native program of that configuration does; a 16-bit unit (which the search gives
// such a knob only if the probe let it) an `f32`, rounded to nearest.

use self::rand::distributions::uniform::{SampleBorrow, SampleUniform, UniformSampler};
use self::rand::distributions::{Distribution, Standard};
use self::rand::Rng;

use super::draws::{knob_bounds, narrow};
use crate::format::Format;
use crate::heal::ToNative;
use crate::knob::{DynFloat, FloatFormat, Knob, Tag};
use crate::value::Stochastic;

impl<F: Format> Distribution<Stochastic<F>> for Standard
where
    Standard: Distribution<F>,
{
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Stochastic<F> {
        Stochastic::new(<Standard as Distribution<F>>::sample(self, rng))
    }
}

/// The uniform sampler of a stochastic format: the native format's, on the bounds' means.
#[derive(Clone, Copy, Debug)]
pub struct UniformStochastic<F: SampleUniform>(F::Sampler);

/// A bound, made native: the mean of its samples.
fn native<F: Format, B: SampleBorrow<Stochastic<F>>>(b: &B) -> F
where
    Stochastic<F>: ToNative<Out = F>,
{
    b.borrow().to_native()
}

impl<F: Format + SampleUniform> UniformSampler for UniformStochastic<F>
where
    Stochastic<F>: ToNative<Out = F>,
{
    type X = Stochastic<F>;

    fn new<B1, B2>(low: B1, high: B2) -> Self
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        UniformStochastic(F::Sampler::new(native(&low), native(&high)))
    }

    fn new_inclusive<B1, B2>(low: B1, high: B2) -> Self
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        UniformStochastic(F::Sampler::new_inclusive(native(&low), native(&high)))
    }

    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Self::X {
        Stochastic::new(self.0.sample(rng))
    }

    // `gen_range` calls these: the native sampler's own, so that the stream is the native one.
    fn sample_single<R: Rng + ?Sized, B1, B2>(low: B1, high: B2, rng: &mut R) -> Self::X
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        Stochastic::new(F::Sampler::sample_single(native(&low), native(&high), rng))
    }

    fn sample_single_inclusive<R: Rng + ?Sized, B1, B2>(low: B1, high: B2, rng: &mut R) -> Self::X
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        Stochastic::new(F::Sampler::sample_single_inclusive(native(&low), native(&high), rng))
    }
}

impl<F: Format + SampleUniform> SampleUniform for Stochastic<F>
where
    Stochastic<F>: ToNative<Out = F>,
{
    type Sampler = UniformStochastic<F>;
}

impl<F: Tag, const K: u32, V: DynFloat> Distribution<Knob<F, K, V>> for Standard {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Knob<F, K, V> {
        Knob::from_dyn(match Knob::<F, K, V>::unit_format() {
            FloatFormat::F64 => V::exact(rng.gen::<f64>()),
            f => narrow(f, rng.gen::<f32>()),
        })
    }
}

/// The uniform sampler of a single-build knob: its unit's native sampler, on the bounds' values.
#[derive(Clone, Copy, Debug)]
pub enum UniformKnob {
    /// A unit of `f64`.
    Wide(<f64 as SampleUniform>::Sampler),
    /// Any other unit: `f32`'s sampler.
    Narrow(<f32 as SampleUniform>::Sampler),
}

/// `UniformSampler` for [`Knob`], one per (F, K, V): rand's trait has the sampled type as an
/// associated type.
#[derive(Clone, Copy, Debug)]
pub struct KnobSampler<F, const K: u32, V>(UniformKnob, std::marker::PhantomData<(F, V)>);

impl<F: Tag, const K: u32, V: DynFloat> KnobSampler<F, K, V> {
    /// The sampler of `low..high` (`low..=high` when `inclusive`) in the unit's format.
    fn uniform<B1, B2>(low: B1, high: B2, inclusive: bool) -> Self
    where
        B1: SampleBorrow<Knob<F, K, V>>,
        B2: SampleBorrow<Knob<F, K, V>>,
    {
        let ((l, h), (l32, h32)) = knob_bounds(low.borrow(), high.borrow());
        let u = match (Knob::<F, K, V>::unit_format(), inclusive) {
            (FloatFormat::F64, false) => UniformKnob::Wide(UniformSampler::new(l, h)),
            (FloatFormat::F64, true) => UniformKnob::Wide(UniformSampler::new_inclusive(l, h)),
            (_, false) => UniformKnob::Narrow(UniformSampler::new(l32, h32)),
            (_, true) => UniformKnob::Narrow(UniformSampler::new_inclusive(l32, h32)),
        };
        KnobSampler(u, std::marker::PhantomData)
    }

    /// One draw from `low..high` (`low..=high` when `inclusive`), as `gen_range` makes it: the
    /// native sampler's `sample_single`, so that the stream is the native one.
    fn single<R: Rng + ?Sized, B1, B2>(low: B1, high: B2, rng: &mut R, inclusive: bool) -> Knob<F, K, V>
    where
        B1: SampleBorrow<Knob<F, K, V>>,
        B2: SampleBorrow<Knob<F, K, V>>,
    {
        type Wide = <f64 as SampleUniform>::Sampler;
        type Narrow = <f32 as SampleUniform>::Sampler;
        let ((l, h), (l32, h32)) = knob_bounds(low.borrow(), high.borrow());
        Knob::from_dyn(match (Knob::<F, K, V>::unit_format(), inclusive) {
            (FloatFormat::F64, false) => V::exact(Wide::sample_single(l, h, rng)),
            (FloatFormat::F64, true) => V::exact(Wide::sample_single_inclusive(l, h, rng)),
            (f, false) => narrow(f, Narrow::sample_single(l32, h32, rng)),
            (f, true) => narrow(f, Narrow::sample_single_inclusive(l32, h32, rng)),
        })
    }
}

impl<F: Tag, const K: u32, V: DynFloat> UniformSampler for KnobSampler<F, K, V> {
    type X = Knob<F, K, V>;

    fn new<B1, B2>(low: B1, high: B2) -> Self
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        Self::uniform(low, high, false)
    }

    fn new_inclusive<B1, B2>(low: B1, high: B2) -> Self
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        Self::uniform(low, high, true)
    }

    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Self::X {
        Knob::from_dyn(match &self.0 {
            UniformKnob::Wide(u) => V::exact(u.sample(rng)),
            UniformKnob::Narrow(u) => narrow(Knob::<F, K, V>::unit_format(), u.sample(rng)),
        })
    }

    fn sample_single<R: Rng + ?Sized, B1, B2>(low: B1, high: B2, rng: &mut R) -> Self::X
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        Self::single(low, high, rng, false)
    }

    fn sample_single_inclusive<R: Rng + ?Sized, B1, B2>(low: B1, high: B2, rng: &mut R) -> Self::X
    where
        B1: SampleBorrow<Self::X> + Sized,
        B2: SampleBorrow<Self::X> + Sized,
    {
        Self::single(low, high, rng, true)
    }
}

impl<F: Tag, const K: u32, V: DynFloat> SampleUniform for Knob<F, K, V> {
    type Sampler = KnobSampler<F, K, V>;
}

#[cfg(test)]
mod tests {
    use super::rand;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use crate::value::{Sf32, Sf64};

    /// The stochastic draws are the native ones, number for number, and exact.
    #[test]
    fn a_stochastic_draw_is_the_native_draw() {
        let (mut a, mut b) = (StdRng::seed_from_u64(7), StdRng::seed_from_u64(7));
        for _ in 0..100 {
            let s: Sf64 = a.gen();
            let n: f64 = b.gen();
            assert_eq!(s.samples(), [n; 3]);
            let s: Sf32 = a.gen_range(Sf32::new(-1.0)..Sf32::new(2.5));
            let n: f32 = b.gen_range(-1.0f32..2.5);
            assert_eq!(s.samples(), [n; 3]);
            let s: Sf64 = a.gen_range(Sf64::new(0.0)..=Sf64::new(1.0));
            let n: f64 = b.gen_range(0.0..=1.0);
            assert_eq!(s.samples(), [n; 3]);
        }
        let u = rand::distributions::Uniform::new(Sf64::new(1.0), Sf64::new(3.0));
        let v = rand::distributions::Uniform::new(1.0f64, 3.0);
        for _ in 0..10 {
            assert_eq!(a.sample(u).samples(), [b.sample(v); 3]);
        }
    }

    /// A single-build knob of an `f64` unit draws the native `f64` stream.
    #[test]
    fn a_knob_draws_by_its_units_format() {
        use crate::knob::{DynFloat, DynNative, Knob};
        type K = Knob<f64, 9, DynNative>;
        let (mut a, mut b) = (StdRng::seed_from_u64(3), StdRng::seed_from_u64(3));
        for _ in 0..20 {
            let k: K = a.gen();
            assert_eq!(k.get().store_native::<f64>(), b.gen::<f64>());
            let lo = K::from_dyn(DynFloat::exact(-2.0f64));
            let hi = K::from_dyn(DynFloat::exact(0.5f64));
            let k: K = a.gen_range(lo..hi);
            assert_eq!(k.get().store_native::<f64>(), b.gen_range(-2.0f64..0.5));
        }
    }
}

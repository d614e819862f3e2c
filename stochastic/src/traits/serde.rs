//! serde's `Serialize` and `Deserialize` for stochastic values and the single build's knobs, so
//! that serde-derived state (`#[derive(Serialize, Deserialize)] struct State { x: Vec<f64> }`)
//! runs under DSA, and has a single build.
//!
//! A value is written as the native program writes a number of its format: its mean, rounded to
//! the format, so that the text has the native shape (a JSON number, not three). Read back, a
//! number becomes an exactly known value (three equal samples: input data) unless this run wrote
//! it: a checkpoint written and restored keeps the samples it had, or the error accumulated
//! before the checkpoint would be forgotten and the digits after it overstated. The run keeps
//! what it wrote in a table keyed by the format and the number written (the latest value written
//! as a number is the one read back as it); past [`KEPT`] entries it keeps no more, and says so
//! once on stderr: values written after that are read back as exact.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use half::{bf16, f16};

use crate::format::Format;
use crate::heal::ToNative;
use crate::knob::{DynFloat, DynNative, DynStochastic, FloatFormat, Knob, Tag};
use crate::value::Stochastic;

/// The most values a run keeps the samples of, for reading them back.
pub const KEPT: usize = 1 << 22;

type Key = (&'static str, u64);

fn written() -> &'static Mutex<HashMap<Key, [u64; 3]>> {
    static WRITTEN: OnceLock<Mutex<HashMap<Key, [u64; 3]>>> = OnceLock::new();
    WRITTEN.get_or_init(|| Mutex::new(HashMap::new()))
}

fn remember<F: Format>(number: F, x: &Stochastic<F>) {
    let samples = x.samples();
    if samples.iter().all(|s| s.to_bits64() == number.to_bits64()) {
        return; // exact: read back as exact anyway
    }
    let mut table = written().lock().unwrap_or_else(PoisonError::into_inner);
    let key = (F::NAME, number.to_bits64());
    if table.len() >= KEPT && !table.contains_key(&key) {
        static SAID: AtomicBool = AtomicBool::new(false);
        if !SAID.swap(true, Ordering::Relaxed) {
            eprintln!(
                "fptune: more than {KEPT} stochastic values were serialised; those written from now on are read back \
                 as exact values, without the error they carried"
            );
        }
        return;
    }
    table.insert(key, samples.map(Format::to_bits64));
}

fn recall<F: Format>(number: F) -> Stochastic<F> {
    let table = written().lock().unwrap_or_else(PoisonError::into_inner);
    match table.get(&(F::NAME, number.to_bits64())) {
        Some(bits) => Stochastic::from_samples(bits.map(F::from_bits64)),
        None => Stochastic::new(number),
    }
}

impl<F: Format + Serialize> Serialize for Stochastic<F>
where
    Stochastic<F>: ToNative<Out = F>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let number = self.to_native();
        remember(number, self);
        number.serialize(serializer)
    }
}

impl<'de, F: Format + Deserialize<'de>> Deserialize<'de> for Stochastic<F> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        F::deserialize(deserializer).map(recall)
    }
}

/// The single build's knobs: written and read as the stochastic value (DSA) or the native number
/// of the format the run gives the knob's unit, so that the text, and a checkpoint read back, are
/// those of the configuration's own build.
impl<F: Tag, const K: u32> Serialize for Knob<F, K, DynStochastic> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let v = self.get();
        match v.format() {
            FloatFormat::F64 => v.get::<f64>().serialize(serializer),
            FloatFormat::F32 => v.get::<f32>().serialize(serializer),
            FloatFormat::F16 => v.get::<f16>().serialize(serializer),
            FloatFormat::Bf16 => v.get::<bf16>().serialize(serializer),
        }
    }
}

impl<'de, F: Tag, const K: u32> Deserialize<'de> for Knob<F, K, DynStochastic> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = match Self::unit_format() {
            FloatFormat::F64 => DynStochastic::of(Stochastic::<f64>::deserialize(deserializer)?),
            FloatFormat::F32 => DynStochastic::of(Stochastic::<f32>::deserialize(deserializer)?),
            FloatFormat::F16 => DynStochastic::of(Stochastic::<f16>::deserialize(deserializer)?),
            FloatFormat::Bf16 => DynStochastic::of(Stochastic::<bf16>::deserialize(deserializer)?),
        };
        Ok(Knob::from_dyn(v))
    }
}

impl<F: Tag, const K: u32> Serialize for Knob<F, K, DynNative> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let v = self.get();
        match v.format() {
            FloatFormat::F64 => v.value_f64().serialize(serializer),
            FloatFormat::F32 => (v.value_f64() as f32).serialize(serializer),
            FloatFormat::F16 => f16::from_f64(v.value_f64()).serialize(serializer),
            FloatFormat::Bf16 => bf16::from_f64(v.value_f64()).serialize(serializer),
        }
    }
}

impl<'de, F: Tag, const K: u32> Deserialize<'de> for Knob<F, K, DynNative> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = match Self::unit_format() {
            FloatFormat::F64 => DynNative::exact(f64::deserialize(deserializer)?),
            FloatFormat::F32 => DynNative::exact(f32::deserialize(deserializer)?),
            FloatFormat::F16 => DynNative::exact(f16::deserialize(deserializer)?),
            FloatFormat::Bf16 => DynNative::exact(bf16::deserialize(deserializer)?),
        };
        Ok(Knob::from_dyn(v))
    }
}

#[cfg(test)]
mod tests {
    use crate::value::{Sf32, Sf64};

    /// Written as the native number; read back with its samples when this run wrote it, exact
    /// when it did not.
    #[test]
    fn a_checkpoint_keeps_its_samples() {
        let third = Sf64::new(1.0) / Sf64::new(3.0);
        let mut noisy = third;
        for _ in 0..50 {
            noisy = noisy * Sf64::new(3.0) - Sf64::new(2.0) * third;
        }
        let text = serde_json::to_string(&(noisy, Sf32::new(0.5))).expect("serialises");
        let (mean, half): (f64, f32) = serde_json::from_str(&text).expect("native shape");
        assert_eq!((mean, half), (noisy.mean(), 0.5));
        let (back, _): (Sf64, Sf32) = serde_json::from_str(&text).expect("parses");
        assert_eq!(back.samples(), noisy.samples());
        let read: Sf64 = serde_json::from_str("0.1234").expect("parses");
        assert_eq!(read.samples(), [0.1234; 3]);
    }

    /// A knob is written as the number of its unit's format, and read back so.
    #[test]
    fn a_knob_is_written_in_its_units_format() {
        use crate::knob::{DynFloat, DynNative, Knob};
        // Unit 4092 is given no format in the test run: its declared one, binary32.
        type N = Knob<f32, 4092, DynNative>;
        let x = N::from_dyn(DynNative::from_f64(0.1, crate::knob::FloatFormat::F32));
        let text = serde_json::to_string(&x).expect("serialises");
        assert_eq!(text, serde_json::to_string(&0.1f32).expect("f32"));
        let back: N = serde_json::from_str(&text).expect("parses");
        assert_eq!(back.get().value_f64(), 0.1f32 as f64);
    }
}

//! A two-layer perceptron's inference: 64 inputs, 32 hidden units (ReLU), 10 outputs (softmax).
//! The matrix-vector products are `fptune::dot`s, so under a target with a `machine` (the
//! `fp8-h200` target) a product whose operands went to bfloat16 or E4M3 is computed as that
//! machine's tensor core computes it, with its truncations. The weights and the input are
//! fixed pseudo-random values; the checked results are the ten probabilities.

#[fptune::tune]
mod net {
    /// A pseudo-random value in [-1, 1) from a seed and an index (a fixed linear congruential
    /// sequence, so that every run and every format sees the same numbers).
    fn uniform(seed: u64, i: u64) -> f64 {
        let x = (seed.wrapping_mul(6364136223846793005).wrapping_add(i.wrapping_mul(1442695040888963407))) >> 11;
        let x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
        (x as f64) / (1u64 << 53) as f64 * 2.0 - 1.0
    }

    /// The weights and input, exposed for the test's independent computation.
    pub fn value(seed: u64, i: u64) -> f64 {
        uniform(seed, i)
    }

    pub const INPUTS: usize = 64;
    pub const HIDDEN: usize = 32;
    pub const OUTPUTS: usize = 10;

    /// The ten class probabilities of the network for its fixed input.
    pub fn infer() -> Vec<f64> {
        let scale1 = 1.0 / (INPUTS as f64).sqrt();
        let scale2 = 1.0 / (HIDDEN as f64).sqrt();
        #[tune]
        let w1: Vec<f64> = (0..INPUTS * HIDDEN).map(|i| uniform(1, i as u64) * scale1).collect();
        #[tune]
        let b1: Vec<f64> = (0..HIDDEN).map(|i| uniform(2, i as u64) * 0.1).collect();
        #[tune]
        let w2: Vec<f64> = (0..HIDDEN * OUTPUTS).map(|i| uniform(3, i as u64) * scale2).collect();
        #[tune]
        let b2: Vec<f64> = (0..OUTPUTS).map(|i| uniform(4, i as u64) * 0.1).collect();
        #[tune]
        let x: Vec<f64> = (0..INPUTS).map(|i| uniform(5, i as u64)).collect();

        #[tune]
        let mut hidden: Vec<f64> = vec![0.0; HIDDEN];
        for j in 0..HIDDEN {
            #[tune]
            let z: f64 = fptune::dot(&w1[j * INPUTS..(j + 1) * INPUTS], &x, b1[j]);
            hidden[j] = if z > 0.0 { z } else { 0.0 };
        }
        #[tune]
        let mut logits: Vec<f64> = vec![0.0; OUTPUTS];
        for k in 0..OUTPUTS {
            logits[k] = fptune::dot(&w2[k * HIDDEN..(k + 1) * HIDDEN], &hidden, b2[k]);
        }
        // Softmax, shifted by the largest logit.
        let top = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        #[tune]
        let exps: Vec<f64> = logits.iter().map(|&l| (l - top).exp()).collect();
        let total: f64 = exps.iter().sum();
        exps.iter().map(|&e| e / total).collect()
    }
}

fn main() {
    let p = net::infer();
    for (k, v) in p.iter().enumerate() {
        println!("p[{k}] = {v:.6}");
    }
    fptune::check!("p", p);
}

#[cfg(test)]
mod tests {
    use super::net::{value, HIDDEN, INPUTS, OUTPUTS};

    /// The same network as plain loops in binary64: on a CPU (no machine set) `fptune::dot` is
    /// that loop, so the probabilities agree to the last bits, and they sum to one.
    #[test]
    fn the_f64_network_is_the_plain_loops() {
        let (s1, s2) = (1.0 / (INPUTS as f64).sqrt(), 1.0 / (HIDDEN as f64).sqrt());
        let x: Vec<f64> = (0..INPUTS).map(|i| value(5, i as u64)).collect();
        let hidden: Vec<f64> = (0..HIDDEN)
            .map(|j| {
                let z = (0..INPUTS).fold(value(2, j as u64) * 0.1, |acc, i| acc + value(1, (j * INPUTS + i) as u64) * s1 * x[i]);
                z.max(0.0)
            })
            .collect();
        let logits: Vec<f64> =
            (0..OUTPUTS).map(|k| (0..HIDDEN).fold(value(4, k as u64) * 0.1, |acc, j| acc + value(3, (k * HIDDEN + j) as u64) * s2 * hidden[j])).collect();
        let top = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
        let total: f64 = exps.iter().sum();
        let want: Vec<f64> = exps.iter().map(|e| e / total).collect();
        let got = super::net::infer();
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-15, "{g} against {w}");
        }
        assert!((got.iter().sum::<f64>() - 1.0).abs() < 1e-14);
    }
}

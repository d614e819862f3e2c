//! NPB's pseudo-random number generator `randlc`: the linear congruential generator
//! x_{k+1} = a x_k mod 2^46 with a = 5^13, returning x_{k+1} / 2^46 in (0, 1).
//!
//! NPB computes it in `double` arithmetic, splitting the operands into 23-bit halves so that every
//! intermediate is an exact integer; the state and the result are therefore exact and this
//! integer version returns the same doubles bit for bit (the tests compare both). The sparsity
//! pattern of CG's matrix depends on these numbers, so they stay out of the tuning: the state is
//! an integer, and the positions are drawn from it with integer arithmetic only.

/// The multiplier a = 5^13 (NPB's `amult`).
pub const AMULT: u64 = 1_220_703_125;
/// The seed of CG (NPB's `tran`).
pub const SEED: u64 = 314_159_265;

const MASK46: u64 = (1 << 46) - 1;
/// 2^-46, exact.
const R46: f64 = 1.0 / (1u64 << 46) as f64;

/// The generator's state: an integer below 2^46.
#[derive(Debug, Clone)]
pub struct Randlc {
    x: u64,
}

impl Randlc {
    pub fn new(seed: u64) -> Randlc {
        Randlc { x: seed & MASK46 }
    }

    /// Advances the state: x = a x mod 2^46 (a product mod 2^64 keeps its low 46 bits exact).
    pub fn next_state(&mut self) -> u64 {
        self.x = self.x.wrapping_mul(AMULT) & MASK46;
        self.x
    }

    /// NPB's `randlc(&tran, amult)`: the next number, x / 2^46.
    pub fn randlc(&mut self) -> f64 {
        self.next_state() as f64 * R46
    }

    /// NPB's `icnvrt(randlc(&tran, amult), nn1)` for a power of two `nn1` <= 2^46: the integer
    /// part of nn1 x / 2^46, computed without floating point (NPB's product is exact).
    pub fn next_index(&mut self, nn1: usize) -> usize {
        debug_assert!(nn1.is_power_of_two() && nn1.trailing_zeros() <= 46);
        let x = self.next_state();
        (x >> (46 - nn1.trailing_zeros())) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NPB's `randlc` in double arithmetic (NPB 3.3, common/c_randdp.c), as a reference.
    fn randlc_npb(x: &mut f64, a: f64) -> f64 {
        let r23 = 0.5f64.powi(23);
        let r46 = r23 * r23;
        let t23 = 2f64.powi(23);
        let t46 = t23 * t23;
        let a1 = (r23 * a).trunc();
        let a2 = a - t23 * a1;
        let x1 = (r23 * *x).trunc();
        let x2 = *x - t23 * x1;
        let t1 = a1 * x2 + a2 * x1;
        let t2 = (r23 * t1).trunc();
        let z = t1 - t23 * t2;
        let t3 = t23 * z + a2 * x2;
        let t4 = (r46 * t3).trunc();
        *x = t3 - t46 * t4;
        r46 * *x
    }

    #[test]
    fn the_integer_generator_gives_npbs_doubles_bit_for_bit() {
        let mut ours = Randlc::new(SEED);
        let mut tran = SEED as f64;
        for k in 0..1_000_000 {
            let (a, b) = (ours.randlc(), randlc_npb(&mut tran, AMULT as f64));
            assert_eq!(a.to_bits(), b.to_bits(), "draw {k}: {a:e} vs {b:e}");
            assert_eq!(ours.x as f64, tran);
        }
    }

    #[test]
    fn the_first_draw_and_the_indices_are_npbs() {
        let mut g = Randlc::new(SEED);
        // 314159265 * 5^13 mod 2^46, by hand in 128 bits.
        let first = ((SEED as u128 * AMULT as u128) % (1u128 << 46)) as u64;
        assert_eq!(first, 55_909_509_111_989);
        assert_eq!(g.randlc(), first as f64 / 2f64.powi(46));
        // icnvrt(x, nn1) = (int)(nn1 * x)
        let mut h = g.clone();
        let mut tran = h.x as f64;
        for nn1 in [1usize, 2, 2048, 8192, 16384, 131_072] {
            for _ in 0..1000 {
                let x = randlc_npb(&mut tran, AMULT as f64);
                assert_eq!(h.next_index(nn1), (nn1 as f64 * x) as usize);
            }
        }
    }
}

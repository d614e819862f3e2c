//! Programs shared by several test files.

use fptune::{Format, Stochastic};

/// CADNA's Hilbert examples (`examplesC/ex3`, `examples_half/ex2`): the pivots and determinant
/// of Hilbert's matrix of size `n` by Gaussian elimination without pivoting, each pivot row
/// scaled by the pivot's reciprocal, as CADNA's programs do it.
pub fn cadna_hilbert<F: Format>(n: usize) -> (Vec<Stochastic<F>>, Stochastic<F>) {
    let mut amat = vec![vec![Stochastic::<F>::default(); n]; n];
    for i in 1..=n {
        for j in 1..=n {
            amat[i - 1][j - 1] = 1.0 / Stochastic::<F>::from_f64((i + j - 1) as f64);
        }
    }
    let mut det = Stochastic::<F>::from_f64(1.0);
    let mut pivots = Vec::with_capacity(n);
    let mut i = 0;
    while i + 1 < n {
        pivots.push(amat[i][i]);
        det = det * amat[i][i];
        let aux = 1.0 / amat[i][i];
        for j in i + 1..n {
            amat[i][j] = amat[i][j] * aux;
        }
        for j in i + 1..n {
            let aux = amat[j][i];
            for k in i + 1..n {
                amat[j][k] = amat[j][k] - aux * amat[i][k];
            }
        }
        i += 1;
    }
    pivots.push(amat[i][i]);
    det = det * amat[i][i];
    (pivots, det)
}

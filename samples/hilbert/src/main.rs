//! Determinant of Hilbert's matrix H(i, j) = 1 / (i + j - 1) by Gaussian elimination without
//! pivoting, as in section 6.1 of the PROMISE half-precision paper. The determinant is the product
//! of the pivots. Usage: `hilbert [n]` (default 3).

#[fptune::tune]
pub mod elimination {
    /// The pivots and the determinant of Hilbert's matrix of size `n`.
    pub fn determinant(n: usize) -> (Vec<f64>, f64) {
        #[tune]
        let mut h: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| 1.0 / ((i + j + 1) as f64)).collect())
            .collect();
        #[tune]
        let mut pivots: Vec<f64> = vec![0.0; n];
        #[tune]
        let mut det: f64 = 1.0;
        for k in 0..n {
            #[tune]
            let pivot: f64 = h[k][k];
            pivots[k] = pivot;
            det *= pivot;
            for i in k + 1..n {
                #[tune]
                let factor: f64 = h[i][k] / pivot;
                for j in k + 1..n {
                    h[i][j] -= factor * h[k][j];
                }
            }
        }
        (pivots, det)
    }
}

fn main() {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => match a.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("usage: hilbert [n], with n a positive size (got `{a}`)");
                std::process::exit(2);
            }
        },
        None => 3,
    };
    let (pivots, det) = elimination::determinant(n);
    for (k, p) in pivots.iter().enumerate() {
        println!("p{} = {p:e}", k + 1);
    }
    println!("det = {det:e}");
    fptune::check!("pivots", pivots);
    fptune::check!("det", det);
}

#[cfg(test)]
mod tests {
    /// det H_n = c_n^4 / c_{2n} with c_n = prod_{i<n} i!: exact for small n.
    fn exact_det(n: usize) -> f64 {
        let fact = |k: usize| (1..=k).map(|i| i as f64).product::<f64>();
        let c = |m: usize| (0..m).map(fact).product::<f64>();
        c(n).powi(4) / c(2 * n)
    }

    #[test]
    fn the_f64_determinant_is_hilberts() {
        for n in 1..=6 {
            let (_, det) = super::elimination::determinant(n);
            let exact = exact_det(n);
            assert!(((det - exact) / exact).abs() < 1e-9, "n = {n}: {det:e} vs {exact:e}");
        }
        let (pivots, det) = super::elimination::determinant(3);
        assert_eq!(pivots[0], 1.0);
        assert!((det - 1.0 / 2160.0).abs() < 1e-17);
    }
}

//! Table 1 of the PROMISE half-precision paper: the pivots and determinant of Hilbert's matrix
//! of size 3 by Gaussian elimination without pivoting, under discrete stochastic arithmetic in
//! binary64 and binary16. Run: `cargo run -p fptune --example hilbert`.

use fptune::{Format, Stochastic};

fn pivots<F: Format>(n: usize) -> (Vec<Stochastic<F>>, Stochastic<F>) {
    let mut h: Vec<Vec<Stochastic<F>>> = (0..n)
        .map(|i| (0..n).map(|j| Stochastic::from_f64(1.0) / Stochastic::<F>::from_f64((i + j + 1) as f64)).collect())
        .collect();
    let mut pivots = Vec::with_capacity(n);
    let mut det = Stochastic::<F>::from_f64(1.0);
    for k in 0..n {
        let p = h[k][k];
        pivots.push(p);
        det *= p;
        for i in k + 1..n {
            let factor = h[i][k] / p;
            for j in k + 1..n {
                let hkj = h[k][j];
                h[i][j] -= factor * hkj;
            }
        }
    }
    (pivots, det)
}

fn main() {
    fptune::stochastic::set_seed(2021);
    let (p64, d64) = pivots::<f64>(3);
    let (p16, d16) = pivots::<fptune::f16>(3);
    println!("{:<4} {:>26} {:>12}", "", "double (Sf64)", "half (Sf16)");
    for (i, (a, b)) in p64.iter().zip(&p16).enumerate() {
        println!("p_{:<2} {:>26} {:>12}   digits {:5.2} {:5.2}", i + 1, a, b, a.digits(), b.digits());
    }
    println!("{:<4} {:>26} {:>12}   digits {:5.2} {:5.2}", "D", d64, d16, d64.digits(), d16.digits());
    println!("exact D = 1/2160 = {:e}", 1.0 / 2160.0);
    println!("{}", fptune::stochastic::report());
}

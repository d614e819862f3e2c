//! Jacobi's iteration x_i <- (b_i - sum_{j != i} a_ij x_j) / a_ii on a dense, strictly diagonally
//! dominant system A x = b of size `n` whose solution is known: a_ij = 1 / (1 + |i - j|) off the
//! diagonal, a_ii = twice the sum of the row's other entries, and b = A x* for
//! x*_i = 1 + i / n. The iteration matrix has infinity norm 1/2, so each of the `sweeps` sweeps
//! (from x = 0) at least halves the error until rounding errors dominate. Usage:
//! `jacobi [n] [sweeps]` (default 100 and 60; n >= 2).
//!
//! The solver stores the matrix it iterates with (`a`); the right-hand side is made from the
//! entries as the function `entry` defines them, so storing `a` at a lower precision perturbs the
//! system the solver solves, as it would with a matrix read from data.

#[fptune::tune]
pub mod iteration {
    /// The entry a_ij of the matrix of size `n`.
    pub fn entry(n: usize, i: usize, j: usize) -> f64 {
        if i != j {
            return 1.0 / ((1 + i.abs_diff(j)) as f64);
        }
        #[tune]
        let mut off_diagonal: f64 = 0.0;
        for k in 0..n {
            if k != i {
                off_diagonal += entry(n, i, k);
            }
        }
        2.0 * off_diagonal
    }

    /// The approximation of A x = b after `sweeps` Jacobi sweeps from x = 0.
    pub fn solve(n: usize, sweeps: usize) -> Vec<f64> {
        #[tune]
        let a: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| entry(n, i, j)).collect()).collect();
        #[tune]
        let solution: Vec<f64> = (0..n).map(|i| 1.0 + (i as f64) / (n as f64)).collect();
        #[tune]
        let mut b: Vec<f64> = vec![0.0; n];
        for (i, bi) in b.iter_mut().enumerate() {
            #[tune]
            let mut dot: f64 = 0.0;
            for (j, xj) in solution.iter().enumerate() {
                dot += entry(n, i, j) * xj;
            }
            *bi = dot;
        }
        #[tune]
        let mut x: Vec<f64> = vec![0.0; n];
        #[tune]
        let mut next: Vec<f64> = vec![0.0; n];
        for _ in 0..sweeps {
            for i in 0..n {
                #[tune]
                let mut sigma: f64 = 0.0;
                for j in 0..n {
                    if j != i {
                        sigma += a[i][j] * x[j];
                    }
                }
                next[i] = (b[i] - sigma) / a[i][i];
            }
            std::mem::swap(&mut x, &mut next);
        }
        x
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut at_least = |name: &str, least: usize, default: usize| -> usize {
        match args.next() {
            Some(a) => match a.parse() {
                Ok(v) if v >= least => v,
                _ => {
                    eprintln!("usage: jacobi [n] [sweeps], with n >= 2 and sweeps >= 1 (got {name} = `{a}`)");
                    std::process::exit(2);
                }
            },
            None => default,
        }
    };
    let n = at_least("n", 2, 100);
    let sweeps = at_least("sweeps", 1, 60);
    let x = iteration::solve(n, sweeps);
    for (i, xi) in x.iter().enumerate().step_by((n / 10).max(1)) {
        println!("x[{i}] = {xi:e}");
    }
    fptune::check!("x", x);
}

#[cfg(test)]
mod tests {
    use super::iteration::solve;

    #[test]
    fn the_f64_iteration_converges_to_the_known_solution() {
        for n in [2, 10, 100] {
            let x = solve(n, 60);
            for (i, xi) in x.iter().enumerate() {
                let exact = 1.0 + i as f64 / n as f64;
                assert!((xi - exact).abs() < 1e-14, "n = {n}: x[{i}] = {xi} vs {exact}");
            }
        }
    }

    #[test]
    fn each_sweep_at_least_halves_the_error() {
        let n = 50;
        let error = |sweeps: usize| {
            solve(n, sweeps).iter().enumerate().map(|(i, xi)| (xi - (1.0 + i as f64 / n as f64)).abs()).fold(0.0, f64::max)
        };
        // From x = 0 the error is max |x*| < 2.
        for sweeps in 1..20 {
            let e = error(sweeps);
            assert!(e <= 2.0 * 0.5f64.powi(sweeps as i32), "{sweeps} sweeps: {e:e}");
        }
        assert!(error(10) > 1e-8, "the iteration is not a direct solver");
    }
}

//! The nodes and weights of the `n`-point Gauss-Legendre quadrature rule: the roots x_i of
//! Legendre's polynomial P_n, found by Newton's method, and w_i = 2 / ((1 - x_i^2) P_n'(x_i)^2).
//!
//! P_n and P_n' come from the three-term recurrence (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}
//! and P_n' = n (x P_n - P_{n-1}) / (x^2 - 1). Newton starts from the asymptotic estimate
//! cos(pi (i - 1/4) / (n + 1/2)) of the i-th largest root and stops when the step is below
//! 1e-15 (or after 20 steps). The rule is symmetric, so only the (n + 1) / 2 non-negative
//! nodes are computed, the largest first. Usage: `newton [n]` (default 20; an even `n` has no
//! node at 0, whose relative accuracy would mean nothing).

#[fptune::tune]
pub mod gauss {
    use std::f64::consts::PI;

    /// Newton's steps at most, and the step below which a root has converged.
    const MAX_STEPS: usize = 20;
    const TOLERANCE: f64 = 1e-15;

    /// P_n(x) and P_n'(x), for n >= 1.
    pub fn legendre(n: usize, #[tune] x: f64) -> (f64, f64) {
        #[tune]
        let mut previous: f64 = 1.0;
        #[tune]
        let mut current: f64 = x;
        for k in 1..n {
            #[tune]
            let next: f64 = ((2 * k + 1) as f64 * x * current - (k as f64) * previous) / ((k + 1) as f64);
            previous = current;
            current = next;
        }
        #[tune]
        let derivative: f64 = (n as f64) * (x * current - previous) / (x * x - 1.0);
        (current, derivative)
    }

    /// The non-negative nodes, largest first, and their weights.
    pub fn rule(n: usize) -> (Vec<f64>, Vec<f64>) {
        let half = n.div_ceil(2);
        #[tune]
        let mut nodes: Vec<f64> = vec![0.0; half];
        #[tune]
        let mut weights: Vec<f64> = vec![0.0; half];
        for i in 0..half {
            #[tune]
            let mut x: f64 = (PI * ((i + 1) as f64 - 0.25) / (n as f64 + 0.5)).cos();
            for _ in 0..MAX_STEPS {
                let (p, dp) = legendre(n, x);
                #[tune]
                let step: f64 = p / dp;
                x -= step;
                if step.abs() <= TOLERANCE {
                    break;
                }
            }
            let (_, dp) = legendre(n, x);
            nodes[i] = x;
            weights[i] = 2.0 / ((1.0 - x * x) * dp * dp);
        }
        (nodes, weights)
    }
}

fn main() {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => match a.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("usage: newton [n], with n a positive number of nodes (got `{a}`)");
                std::process::exit(2);
            }
        },
        None => 20,
    };
    let (nodes, weights) = gauss::rule(n);
    for (x, w) in nodes.iter().zip(&weights) {
        println!("x = {x:e}, w = {w:e}");
    }
    fptune::check!("nodes", nodes);
    fptune::check!("weights", weights);
}

#[cfg(test)]
mod tests {
    use super::gauss::rule;

    #[test]
    fn the_f64_five_point_rule_is_the_closed_form() {
        let (nodes, weights) = rule(5);
        let r = (10.0f64 / 7.0).sqrt();
        let expected_nodes = [(5.0 + 2.0 * r).sqrt() / 3.0, (5.0 - 2.0 * r).sqrt() / 3.0, 0.0];
        let s = 70.0f64.sqrt();
        let expected_weights = [(322.0 - 13.0 * s) / 900.0, (322.0 + 13.0 * s) / 900.0, 128.0 / 225.0];
        for i in 0..3 {
            assert!((nodes[i] - expected_nodes[i]).abs() < 1e-15, "x{i} = {}", nodes[i]);
            assert!((weights[i] - expected_weights[i]).abs() < 1e-15, "w{i} = {}", weights[i]);
        }
    }

    /// The n-point rule integrates x^(2m) over [-1, 1], 2 / (2m + 1), exactly for 2m < 2n.
    #[test]
    fn the_f64_rule_integrates_polynomials_of_degree_below_2n() {
        for n in [2, 7, 20, 33] {
            let (nodes, weights) = rule(n);
            let node_at_zero = n % 2 == 1;
            for m in 0..n as i32 {
                let half_sum: f64 = nodes.iter().zip(&weights).map(|(x, w)| w * x.powi(2 * m)).sum();
                // The node at 0 is counted once, and contributes only to m = 0.
                let sum = 2.0 * half_sum - if node_at_zero && m == 0 { weights[n / 2] } else { 0.0 };
                let exact = 2.0 / (2 * m + 1) as f64;
                assert!((sum - exact).abs() < 1e-13, "n = {n}, x^{}: {sum} vs {exact}", 2 * m);
            }
            assert!(nodes.windows(2).all(|w| w[0] > w[1]) && nodes[0] < 1.0, "n = {n}: {nodes:?}");
        }
    }
}

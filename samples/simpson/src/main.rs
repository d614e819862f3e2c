//! The integral of 4 / (1 + x^2) over [0, 1], which is pi, by the composite Simpson rule with `n`
//! (even) subintervals of width h:
//!
//! ```text
//! S = h/3 (f(x_0) + 4 f(x_1) + 2 f(x_2) + 4 f(x_3) + ... + 4 f(x_{n-1}) + f(x_n))
//! ```
//!
//! The odd and the even interior points are summed separately. Usage: `simpson [n]` (default
//! 10,000; its truncation error, of order h^6 for this integrand, is far below f64's rounding).

#[fptune::tune]
pub mod quadrature {
    /// The interval of integration.
    pub const LOWER: f64 = 0.0;
    pub const UPPER: f64 = 1.0;

    /// The integrand, 4 / (1 + x^2).
    pub fn integrand(#[tune] x: f64) -> f64 {
        #[tune]
        let denominator: f64 = 1.0 + x * x;
        4.0 / denominator
    }

    /// Simpson's rule with `n` subintervals (`n` even).
    pub fn simpson(n: usize) -> f64 {
        assert!(n >= 2 && n % 2 == 0, "Simpson's rule needs an even number of subintervals, not {n}");
        #[tune]
        let h: f64 = (UPPER - LOWER) / (n as f64);
        #[tune]
        let mut odd: f64 = 0.0;
        #[tune]
        let mut even: f64 = 0.0;
        for i in 1..n {
            #[tune]
            let x: f64 = LOWER + (i as f64) * h;
            #[tune]
            let fx: f64 = integrand(x);
            if i % 2 == 1 {
                odd += fx;
            } else {
                even += fx;
            }
        }
        #[tune]
        let integral: f64 = h / 3.0 * (integrand(LOWER) + 4.0 * odd + 2.0 * even + integrand(UPPER));
        integral
    }
}

fn main() {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => match a.parse() {
            Ok(n) if n >= 2 && n % 2 == 0 => n,
            _ => {
                eprintln!("usage: simpson [n], with n an even number of subintervals, at least 2 (got `{a}`)");
                std::process::exit(2);
            }
        },
        None => 10_000,
    };
    let pi = quadrature::simpson(n);
    println!("simpson({n}) = {pi:e}");
    fptune::check!("pi", pi);
}

#[cfg(test)]
mod tests {
    use super::quadrature::simpson;
    use std::f64::consts::PI;

    /// The composite trapezoid rule with `n` subintervals, computed here independently.
    fn trapezoid(n: usize) -> f64 {
        let h = 1.0 / n as f64;
        let f = |x: f64| 4.0 / (1.0 + x * x);
        h * ((f(0.0) + f(1.0)) / 2.0 + (1..n).map(|i| f(i as f64 * h)).sum::<f64>())
    }

    #[test]
    fn the_f64_integral_is_pi() {
        let s = simpson(10_000);
        assert!((s - PI).abs() < 1e-13, "{s}");
    }

    #[test]
    fn simpson_is_richardsons_extrapolation_of_the_trapezoid_rule() {
        for n in [2, 4, 8, 16, 64] {
            let extrapolated = (4.0 * trapezoid(n) - trapezoid(n / 2)) / 3.0;
            assert!((simpson(n) - extrapolated).abs() < 1e-14, "n = {n}: {} vs {extrapolated}", simpson(n));
        }
        // Coarse rules are not exact, and the error shrinks quickly.
        let (coarse, finer) = ((simpson(4) - PI).abs(), (simpson(8) - PI).abs());
        assert!(coarse > 1e-7 && finer < coarse / 16.0, "{coarse:e} {finer:e}");
    }
}

//! The arc length of g(x) = x + sum_{k=1}^{5} 2^-k sin(2^k x) over [0, pi], by summing the
//! lengths of `n` chords: the `arclength` program of the Precimonious paper (Rubio-Gonzalez et al.,
//! SC'13), which tunes it with n = 1,000,000. Usage: `arclength [n]` (default 1,000,000).

#[fptune::tune]
pub mod arc {
    /// g(x) = x + sum_{k=1}^{5} sin(2^k x) / 2^k.
    pub fn fun(#[tune] x: f64) -> f64 {
        #[tune]
        let mut d1: f64 = 1.0;
        #[tune]
        let mut t1: f64 = x;
        for _ in 1..=5 {
            d1 = 2.0 * d1;
            t1 = t1 + (d1 * x).sin() / d1;
        }
        t1
    }

    /// The length of the curve of `fun` over [0, pi] with `n` chords.
    pub fn length(n: usize) -> f64 {
        #[tune]
        let h: f64 = std::f64::consts::PI / (n as f64);
        #[tune]
        let mut t1: f64 = 0.0;
        #[tune]
        let mut s1: f64 = 0.0;
        for i in 1..=n {
            #[tune]
            let t2: f64 = fun((i as f64) * h);
            s1 = s1 + (h * h + (t2 - t1) * (t2 - t1)).sqrt();
            t1 = t2;
        }
        s1
    }
}

fn main() {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => match a.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("usage: arclength [n], with n a positive number of chords (got `{a}`)");
                std::process::exit(2);
            }
        },
        None => 1_000_000,
    };
    let s = arc::length(n);
    println!("arclength({n}) = {s:e}");
    fptune::check!("arclength", s);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_f64_length_converges_to_the_known_value() {
        // Precimonious reports 5.795776322412856 for n = 1,000,000.
        let s = super::arc::length(1_000_000);
        assert!((s - 5.795776322412856).abs() < 1e-10, "{s}");
        // A coarse sum is shorter (chords cut corners) but close.
        let coarse = super::arc::length(1000);
        assert!(coarse < s && s - coarse < 1e-3, "{coarse}");
    }
}

//! Rump's polynomial (CADNA's example 1): the exact result is -0.827396..., floating-point
//! evaluation gives garbage, and DSA says so.
use fptune::Sf64;

fn main() {
    fptune::stochastic::set_seed(7);
    let x = Sf64::from(77617.0);
    let y = Sf64::from(33096.0);
    let res = 333.75 * y.powi(6) + x * x * (11.0 * x * x * y * y - y.powi(6) - 121.0 * y.powi(4) - 2.0)
        + 5.5 * y.powi(8)
        + x / (2.0 * y);
    println!("res: {res} {res:?} digits {}", res.digits());
    println!("{}", fptune::stochastic::report());
}

// The tuner's probe build gives each knob its own type. Arithmetic between knobs compiles (it
// converts); a buffer shared by reference cannot, and rustc's error names both knobs.
use fptune::__rt::{Id, Probe};

#[fptune::tune]
mod kernel {
    use super::{Id, Probe};

    pub fn norm(#[tune] x: &[Probe<f64, Id<1>>]) -> f64 {
        x.iter().map(|v| v.0 * v.0).sum()
    }

    pub fn run() -> f64 {
        #[tune] let y: Vec<Probe<f64, Id<2>>> = vec![Probe::new(3.0), Probe::new(4.0)];
        #[tune] let s: Probe<f64, Id<3>> = Probe::new(2.0);
        let scaled = s * y[0] + 1.0;
        scaled + norm(&y)
    }
}

fn main() {}

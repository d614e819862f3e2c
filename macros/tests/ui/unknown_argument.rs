#[fptune::tune]
fn scale(#[tune(precision = 3)] x: f64) -> f64 {
    x * 2.0
}

fn main() {}

#[fptune::tune]
fn scale() -> f64 {
    #[tune] let x = 2.0;
    x
}

fn main() {}

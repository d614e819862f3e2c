#[fptune::tune]
fn f(x: f64) -> f64 {
    #[tune]
    match x {
        _ => x,
    }
}

fn main() {}

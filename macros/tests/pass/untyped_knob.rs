// A knob marked on a `let` without its type written is the float rustc infers: the marker needs
// nothing else written, and the program compiles and runs as without it.
#[fptune::tune]
fn scale(a: f64, z: f64) -> f64 {
    #[tune] let x = 2.0;
    #[tune] let pk = a * z - x;
    pk * x
}

fn main() {
    assert_eq!(scale(3.0, 4.0), 20.0);
}

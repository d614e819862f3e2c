fn f() -> f64 {
    #[tune] let x: f64 = 1.0;
    x
}

fn main() {}

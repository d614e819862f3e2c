#[fptune::tune]
mod kernel {
    pub fn f(#[tune(precison = 3)] x: f64) -> f64 {
        #[tune] let n: usize = 3;
        #[tune] let y = 2.0;
        x * y * (n as f64)
    }
}

fn main() {}

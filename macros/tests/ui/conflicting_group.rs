#[fptune::tune]
mod kernel {
    pub fn f() -> f64 {
        #[tune(group = "acc")] let a: f64 = 1.0;
        #[tune(group = "acc")] let b: f32 = 2.0;
        a + b
    }
}

fn main() {}

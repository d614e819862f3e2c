#[fptune::tune]
fn count() -> usize {
    #[tune] let n: usize = 3;
    n
}

fn main() {}

#[fptune::tune]
enum Mode {
    Fast,
    Exact,
}

fn main() {}

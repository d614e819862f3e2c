// `#[fptune::tune(printed)]` records what printing macros print (when a run asks for it) and
// formats it as written: captures, widths and precisions read from arguments, pointers.
use std::fmt::Write as _;

#[fptune::tune(printed)]
fn show(x: f64, v: &[f64], n: usize) -> String {
    let w = 8;
    println!("{} {x:.3} {:>1$} {:.*} {:?} {n} {:p}", x, w, 2, x, v, &n);
    let mut s = String::new();
    write!(s, "{x:e}|{:>w$.2}", x).unwrap();
    writeln!(s, "{}", n).unwrap();
    s
}

fn main() {
    assert_eq!(show(1.5, &[1.0], 3), "1.5e0|    1.503\n");
}

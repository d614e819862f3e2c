// The single build writes a `const` knob's type as its constant unit's knob; a value that is not
// literals could only be computed once the format is known, when the program runs.
#[fptune::tune]
mod kernel {
    #[tune]
    pub const THIRD: ::fptune::__rt::Knob<f64, { 0 | ::fptune::__rt::CONSTANT }, ::fptune::__rt::DynNative> = 1.0 / 3.0;
    #[tune]
    pub static TENTHS: [::fptune::__rt::Knob<f64, { 1 | ::fptune::__rt::CONSTANT }, ::fptune::__rt::DynNative>; 2] = [0.1, -0.1];
}

fn main() {
    let _ = (kernel::THIRD, kernel::TENTHS);
}

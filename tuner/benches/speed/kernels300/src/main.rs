//! A handful of small numerical kernels.
//!
//! The program runs each kernel on deterministic input and prints one or
//! two results per kernel.  Nothing here reads files, uses the clock or
//! draws random numbers, so the output is fully reproducible and any change
//! in floating-point precision shows up directly in the printed digits.
//!
//! Kernels, in the order they run:
//!
//! * Horner evaluation of a fixed polynomial (a `const` coefficient table)
//! * naive and compensated (Kahan) summation
//! * dot product and Euclidean norm
//! * Gauss-Seidel sweeps on a diagonally dominant tridiagonal system
//! * composite Simpson quadrature of a smooth integrand
//! * a three-tap smoothing filter
//! * explicit Euler integration of a damped harmonic oscillator
//!
//! All sizes are small; the whole run takes a few microseconds.

/// Coefficients of a degree-6 polynomial, highest power first.
///
/// These are the Taylor coefficients of `exp(x)` truncated after `x^6`,
/// i.e. 1/720, 1/120, 1/24, 1/6, 1/2, 1 and 1, written out as literals
/// in the order that `horner` expects.  At `x = 1` the polynomial is
/// `e - 1/5040 - 1/40320 - ...`, about 2.7180556.
const COEFFS: [f64; 7] = [
    0.001388888888888889,
    0.008333333333333333,
    0.041666666666666664,
    0.16666666666666666,
    0.5,
    1.0,
    1.0,
];

/// Number of samples in the input signal.
const N: usize = 400;

/// Number of unknowns in the tridiagonal test system.
const SYSTEM_SIZE: usize = 16;

/// Number of Gauss-Seidel sweeps.
///
/// The spectral radius of the Gauss-Seidel iteration matrix for this system
/// is below 1/4, so forty sweeps are far more than enough to reach the
/// limit of double precision.
const SWEEPS: usize = 40;

/// Number of subintervals for Simpson's rule (must be even).
const INTERVALS: usize = 128;

/// Number of time steps for the oscillator.
const STEPS: usize = 1000;

/// Number of times the smoothing filter is applied.
const SMOOTH_PASSES: usize = 3;

// ----------------------------------------------------------------------
// Polynomials
// ----------------------------------------------------------------------

/// Evaluate a polynomial with Horner's rule.
///
/// `coeffs` is ordered from the highest power down to the constant term,
/// so `[a, b, c]` means `a*x^2 + b*x + c`.  An empty slice evaluates to
/// zero.
fn horner(coeffs: &[f64], x: f64) -> f64 {
    coeffs.iter().fold(0.0, |acc, &c| acc * x + c)
}

// ----------------------------------------------------------------------
// Reductions
// ----------------------------------------------------------------------

/// Compensated (Kahan) summation.
///
/// The running compensation `comp` captures the low-order bits that are
/// lost when a small term is added to a large partial sum, and feeds them
/// back into the next addition.  The error bound is independent of the
/// length of the input, unlike plain recursive summation whose error grows
/// linearly with it.
fn kahan_sum(xs: &[f64]) -> f64 {
    let mut sum = 0.0;
    let mut comp = 0.0;
    for i in 0..xs.len() {
        let y = xs[i] - comp;
        let t = sum + y;
        comp = (t - sum) - y;
        sum = t;
    }
    sum
}

/// Dot product of two slices.
///
/// If the slices have different lengths the extra elements of the longer
/// one are ignored, which is what `zip` does anyway.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum::<f64>()
}

// ----------------------------------------------------------------------
// Linear systems
// ----------------------------------------------------------------------

/// Gauss-Seidel sweeps for the tridiagonal system
///
/// ```text
///     4 x[i] - x[i-1] - x[i+1] = rhs[i]
/// ```
///
/// with the out-of-range neighbours taken as zero.  The matrix is strictly
/// diagonally dominant, so the iteration converges from any starting
/// vector; `x` holds the starting vector on entry and the approximate
/// solution on exit.
///
/// Each unknown is updated in place, so the sweep already uses the new
/// value of `x[i - 1]` when it computes `x[i]`.
fn gauss_seidel(rhs: &[f64], x: &mut [f64], sweeps: usize) {
    let n = x.len();
    for _ in 0..sweeps {
        for i in 0..n {
            let mut s = rhs[i];
            if i > 0 {
                s += x[i - 1];
            }
            if i + 1 < n {
                s += x[i + 1];
            }
            x[i] = s / 4.0;
        }
    }
}

// ----------------------------------------------------------------------
// Quadrature
// ----------------------------------------------------------------------

/// Composite Simpson rule on `[lo, hi]` with `n` subintervals.
///
/// `n` must be even.  The weights are 1, 4, 2, 4, ..., 2, 4, 1 times
/// `h / 3`, and the error is `O(h^4)` for integrands with a bounded fourth
/// derivative.
fn simpson(f: &dyn Fn(f64) -> f64, lo: f64, hi: f64, n: usize) -> f64 {
    assert!(n % 2 == 0, "Simpson needs an even interval count");
    let h = (hi - lo) / n as f64;
    (f(lo)
        + f(hi)
        + (1..n)
            .map(|i| if i % 2 == 1 { 4.0 } else { 2.0 } * f(lo + i as f64 * h))
            .sum::<f64>())
        * h
        / 3.0
}

// ----------------------------------------------------------------------
// Filters
// ----------------------------------------------------------------------

/// Three-tap smoothing filter with weights 1/4, 1/2, 1/4.
///
/// At the ends the missing neighbour is replaced by the end sample
/// itself, so a constant signal passes through unchanged.  The output has
/// the same length as the input.
fn smooth3(xs: &[f64]) -> Vec<f64> {
    let n = xs.len();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let prev = if i > 0 { i - 1 } else { 0 };
        let next = if i + 1 < n { i + 1 } else { n - 1 };
        out.push(0.25 * xs[prev] + 0.5 * xs[i] + 0.25 * xs[next]);
    }
    out
}

// ----------------------------------------------------------------------
// Ordinary differential equations
// ----------------------------------------------------------------------

/// Damped harmonic oscillator `x'' + c x' + x = 0` with unit mass and
/// unit stiffness.
struct Oscillator {
    pos: f64,
    vel: f64,
    damping: f64,
}

impl Oscillator {
    /// Advance the state by one explicit Euler step of size `dt`.
    ///
    /// Both updates use the state at the start of the step.
    fn step(&mut self, dt: f64) {
        let acc = -self.pos - self.damping * self.vel;
        self.pos += dt * self.vel;
        self.vel += dt * acc;
    }

    /// Total mechanical energy, kinetic plus potential.
    ///
    /// For the exact solution this decays monotonically when the damping
    /// is positive; explicit Euler adds a small spurious growth on top.
    fn energy(&self) -> f64 {
        0.5 * (self.vel * self.vel + self.pos * self.pos)
    }
}

fn main() {
    // ------------------------------------------------------------------
    // Input signal: two incommensurate waves plus a slow ramp.
    // ------------------------------------------------------------------
    let xs: Vec<f64> = (0..N)
        .map(|i| (i as f64 * 0.37).sin() + 0.5 * (i as f64 * 0.11).cos() + 1.0e-3 * i as f64)
        .collect();

    // ------------------------------------------------------------------
    // Horner: evaluate the truncated exponential series at every sample
    // and add the results up, then once at x = 1 as a sanity check.
    // ------------------------------------------------------------------
    println!(
        "horner sum      = {:.10e}",
        xs.iter().map(|&x| horner(&COEFFS, x)).sum::<f64>()
    );
    println!("horner(1.0)     = {:.10e}", horner(&COEFFS, 1.0));

    // ------------------------------------------------------------------
    // Summation: naive left-to-right versus compensated.  The terms are
    // all close to one, so the partial sums grow and the low bits of each
    // new term are the first to go.
    // ------------------------------------------------------------------
    let terms: Vec<f64> = xs.iter().map(|v| v * 1.0e-2 + 1.0).collect();
    println!("naive sum       = {:.10e}", terms.iter().sum::<f64>());
    println!("kahan sum       = {:.10e}", kahan_sum(&terms));

    // ------------------------------------------------------------------
    // Dot product of the signal with itself shifted by one sample, and
    // the Euclidean norm of the signal.
    // ------------------------------------------------------------------
    println!("dot(x, x<<1)    = {:.10e}", dot(&xs, &xs[1..]));
    println!("norm2(x)        = {:.10e}", dot(&xs, &xs).sqrt());

    // ------------------------------------------------------------------
    // Gauss-Seidel on a small tridiagonal system whose right-hand side is
    // the first SYSTEM_SIZE samples of the signal, starting from zero.
    // ------------------------------------------------------------------
    let mut sol = vec![0.0; SYSTEM_SIZE];
    gauss_seidel(&xs[..SYSTEM_SIZE], &mut sol, SWEEPS);
    println!("gs x[0]         = {:.10e}", sol[0]);
    println!("gs x[mid]       = {:.10e}", sol[SYSTEM_SIZE / 2]);
    println!("gs sum(x)       = {:.10e}", sol.iter().sum::<f64>());

    // ------------------------------------------------------------------
    // Simpson quadrature of a damped cosine plus 1/(1+t) on [0, 3].
    // ------------------------------------------------------------------
    let integrand = |t: f64| (-t * t).exp() * (3.0 * t).cos() + 1.0 / (1.0 + t);
    println!(
        "simpson         = {:.10e}",
        simpson(&integrand, 0.0, 3.0, INTERVALS)
    );

    // ------------------------------------------------------------------
    // Three-tap filter applied a few times; report the mean and the
    // largest magnitude of the result.
    // ------------------------------------------------------------------
    let mut smoothed = xs.clone();
    for _ in 0..SMOOTH_PASSES {
        smoothed = smooth3(&smoothed);
    }
    println!(
        "smoothed mean   = {:.10e}",
        smoothed.iter().sum::<f64>() / smoothed.len() as f64
    );
    println!(
        "smoothed max    = {:.10e}",
        smoothed.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
    );

    // ------------------------------------------------------------------
    // Damped oscillator, explicit Euler with a fixed step of 0.01 over
    // ten time units.
    // ------------------------------------------------------------------
    let mut osc = Oscillator {
        pos: 1.0,
        vel: 0.0,
        damping: 0.1,
    };
    for _ in 0..STEPS {
        osc.step(0.01);
    }
    println!("oscillator pos  = {:.10e}", osc.pos);
    println!("oscillator vel  = {:.10e}", osc.vel);
    println!("oscillator E    = {:.10e}", osc.energy());
}

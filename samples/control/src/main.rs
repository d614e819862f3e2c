//! A multi-input multi-output linear state-space controller run for `steps` sample periods, as in
//! section 6.2 of the PROMISE half-precision paper (an automotive controller of longitudinal
//! oscillations, 4 states, 5 inputs, 7 outputs, 100 iterations):
//!
//! ```text
//! x(k+1) = A x(k) + B u(k)
//! y(k)   = C x(k) + D u(k)
//! ```
//!
//! Usage: `control [steps]` (default 100). Every output of every step is checked, one
//! `fptune::check!` per output named after it (`acceleration[k]` is the acceleration at step k).
//!
//! # The system
//!
//! The paper's matrices are not published, so these describe the same kind of system: a car's
//! driveline with an active damping ("anti-jerk") controller, the closed loop discretised with a
//! zero-order hold at the sample time T = 10 ms. Every variable is a deviation from the operating
//! point (2nd gear, 54 km/h).
//!
//! The plant is the two-inertia model of the driveline's first torsional ("shuffle") mode:
//!
//! - engine, flywheel and gearbox input, inertia J_e = 0.25 kg m^2 at the crankshaft, speed ω_e;
//! - vehicle and wheels, J_w = 140 kg m^2 at the wheels (1500 kg at a wheel radius r = 0.3 m,
//!   plus the wheels), speed ω_w; a linearised driving resistance b = 1.053 N m s/rad
//!   (aerodynamic drag ρ c_d A = 0.78 kg/m at 15 m/s);
//! - between them the gear ratio i = 8 and the drive shafts, of stiffness k = 8000 N m/rad and
//!   damping c = 15 N m s/rad, twisted by θ, carrying the torque T_s = k θ + c (ω_e / i - ω_w);
//! - an engine whose torque T_e follows its command with a lag τ = 20 ms.
//!
//! ```text
//! θ'     = ω_e / i - ω_w
//! J_e ω_e' = T_e - T_ac + T_d - T_s / i
//! J_w ω_w' = T_s - b ω_w - T_grade - T_wind
//! τ T_e'   = T_cmd - T_e
//! ```
//!
//! The controller adds damping to the shuffle mode by feeding the shaft's speed difference back
//! into the engine torque command: T_cmd = T_req - K (ω_e / i - ω_w), K = 50 N m s/rad. Without it
//! the mode (3.8 Hz) has a damping ratio of 0.02; with it, 0.40 (5.1 Hz). The closed loop's state
//! is x = (θ, ω_e, ω_w, T_e); its continuous eigenvalues are -22.9, -14.1 ± 31.9i and -0.0067 (the
//! vehicle's speed, slowly settled by the driving resistance), so the eigenvalues of A lie strictly
//! inside the unit circle (spectral radius 0.99993). A and B are exp([[A_c, B_c], [0, 0]] T)'s
//! blocks, printed to 17 digits; the test derives them again from the parameters above and
//! checks the spectral radius.
//!
//! Inputs u(k) (N m; deterministic):
//!
//! 0. T_req, the driver's torque request at the crankshaft: a tip-in from 0 to 40 N m over the
//!    first 0.1 s, then held;
//! 1. T_ac, the air-conditioning compressor engaging at t = 0.3 s: a 6 N m load at the crankshaft;
//! 2. T_d, a torque disturbance at the crankshaft: 2 N m, a 4 Hz sine (close to the shuffle mode);
//! 3. T_grade, the road starting to climb 3 % at t = 0.5 s: 130 N m at the wheels;
//! 4. T_wind, a wind gust: 20 N m at the wheels, a 0.8 Hz sine.
//!
//! Outputs y(k): 0. the shaft twist θ (rad); 1. the engine speed ω_e and 2. the wheel speed ω_w
//! (rad/s); 3. the engine torque T_e and 4. the shaft torque T_s (N m); 5. the vehicle's
//! acceleration r ω_w' (m/s^2); 6. the controller's engine torque command T_cmd (N m).

#[fptune::tune]
pub mod controller {
    use std::f64::consts::TAU;

    /// Dimensions of the state, the inputs and the outputs.
    pub const STATES: usize = 4;
    pub const INPUTS: usize = 5;
    pub const OUTPUTS: usize = 7;

    /// Sample time (s).
    #[tune]
    pub const DT: f64 = 0.01;

    /// State transition over one sample time.
    #[tune]
    pub const A: [[f64; STATES]; STATES] = [
        [0.9726284967110156, 0.0012092849676463152, -0.009673910234242933, 2.09128019063137e-05],
        [-38.61365929085686, 0.9140841247871254, 0.6873082864410157, 0.03038330685966402],
        [0.5632273297563153, 0.0004804700601684156, 0.9960811384859168, 6.4135821881163096e-06],
        [58.2569340907368, -2.3696873595436783, 18.956712426275352, 0.5623146530262777],
    ];

    /// Inputs held over one sample time to the state.
    #[tune]
    pub const B: [[f64; INPUTS]; STATES] = [
        [
            3.6514312834793486e-06,
            -2.4564233189792573e-05,
            2.4564233189792573e-05,
            3.5090876238836034e-07,
            3.5090876238836034e-07,
        ],
        [
            0.008372538659999465,
            -0.038755845519662394,
            0.038755845519662394,
            -1.7773278600481478e-05,
            -1.7773278600481478e-05,
        ],
        [
            9.272371842176515e-07,
            -7.340819372333838e-06,
            7.340819372333838e-06,
            -7.132101864108414e-05,
            -7.132101864108414e-05,
        ],
        [
            0.38540334220798533,
            0.05228200476578574,
            -0.05228200476578574,
            -0.0007468661656190991,
            -0.0007468661656190991,
        ],
    ];

    /// State to outputs.
    #[tune]
    pub const C: [[f64; STATES]; OUTPUTS] = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [8000.0, 1.875, -15.0, 0.0],
        [17.142857142857142, 0.0040178571428571425, -0.034399285714285716, 0.0],
        [0.0, -6.25, 50.0, 0.0],
    ];

    /// Inputs straight to the outputs (the acceleration and the torque command).
    #[tune]
    pub const D: [[f64; INPUTS]; OUTPUTS] = [
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, -0.002142857142857143, -0.002142857142857143],
        [1.0, 0.0, 0.0, 0.0, 0.0],
    ];

    /// The driver's torque request after the tip-in (N m) and the tip-in's duration (s).
    const REQUEST: f64 = 40.0;
    const TIP_IN: f64 = 0.1;
    /// The compressor's load (N m) and the step it engages at.
    const COMPRESSOR: f64 = 6.0;
    const COMPRESSOR_ON: usize = 30;
    /// The torque disturbance's amplitude (N m) and frequency (Hz).
    const DISTURBANCE: f64 = 2.0;
    const DISTURBANCE_HZ: f64 = 4.0;
    /// The grade's load at the wheels (N m) and the step the climb starts at.
    const GRADE: f64 = 130.0;
    const CLIMB: usize = 50;
    /// The gust's amplitude (N m) and frequency (Hz).
    const GUST: f64 = 20.0;
    const GUST_HZ: f64 = 0.8;

    /// The inputs at step `k`: (T_req, T_ac, T_d, T_grade, T_wind).
    pub fn inputs(k: usize) -> [f64; INPUTS] {
        #[tune]
        let t: f64 = (k as f64) * DT;
        #[tune]
        let request: f64 = if t < TIP_IN { REQUEST * t / TIP_IN } else { REQUEST };
        #[tune]
        let disturbance: f64 = DISTURBANCE * (TAU * DISTURBANCE_HZ * t).sin();
        #[tune]
        let gust: f64 = GUST * (TAU * GUST_HZ * t).sin();
        let mut u: [f64; INPUTS] = [0.0; INPUTS];
        u[0] = request;
        u[1] = if k >= COMPRESSOR_ON { COMPRESSOR } else { 0.0 };
        u[2] = disturbance;
        u[3] = if k >= CLIMB { GRADE } else { 0.0 };
        u[4] = gust;
        u
    }

    /// The outputs of `steps` steps from the operating point (x(0) = 0).
    pub fn simulate(steps: usize) -> Vec<[f64; OUTPUTS]> {
        #[tune]
        let mut x: [f64; STATES] = [0.0; STATES];
        #[tune]
        let mut outputs: Vec<[f64; OUTPUTS]> = Vec::with_capacity(steps);
        for k in 0..steps {
            #[tune]
            let u: [f64; INPUTS] = inputs(k);
            #[tune]
            let mut y: [f64; OUTPUTS] = [0.0; OUTPUTS];
            for i in 0..OUTPUTS {
                #[tune]
                let mut cx: f64 = 0.0;
                for j in 0..STATES {
                    cx += C[i][j] * x[j];
                }
                #[tune]
                let mut du: f64 = 0.0;
                for j in 0..INPUTS {
                    du += D[i][j] * u[j];
                }
                y[i] = cx + du;
            }
            #[tune]
            let mut next: [f64; STATES] = [0.0; STATES];
            for i in 0..STATES {
                #[tune]
                let mut ax: f64 = 0.0;
                for j in 0..STATES {
                    ax += A[i][j] * x[j];
                }
                #[tune]
                let mut bu: f64 = 0.0;
                for j in 0..INPUTS {
                    bu += B[i][j] * u[j];
                }
                next[i] = ax + bu;
            }
            x = next;
            outputs.push(y);
        }
        outputs
    }
}

/// The outputs' names, in the order of y.
const NAMES: [&str; controller::OUTPUTS] =
    ["twist", "engine_speed", "wheel_speed", "engine_torque", "shaft_torque", "acceleration", "torque_command"];

fn main() {
    let steps: usize = match std::env::args().nth(1) {
        Some(a) => match a.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("usage: control [steps], with steps a positive number of sample periods (got `{a}`)");
                std::process::exit(2);
            }
        },
        None => 100,
    };
    let outputs = controller::simulate(steps);
    println!("{:>5} {}", "step", NAMES.map(|n| format!("{n:>15}")).join(" "));
    for (k, y) in outputs.iter().enumerate() {
        if k % 10 == 9 || k + 1 == steps {
            println!("{k:>5} {}", y.map(|v| format!("{v:>15.6e}")).join(" "));
        }
    }
    let channel = |i: usize| -> Vec<f64> { outputs.iter().map(|y| y[i]).collect() };
    fptune::check!("twist", channel(0));
    fptune::check!("engine_speed", channel(1));
    fptune::check!("wheel_speed", channel(2));
    fptune::check!("engine_torque", channel(3));
    fptune::check!("shaft_torque", channel(4));
    fptune::check!("acceleration", channel(5));
    fptune::check!("torque_command", channel(6));
}

#[cfg(test)]
mod tests {
    use super::controller::{simulate, A, B, C, D, DT, INPUTS, OUTPUTS, STATES};

    type Matrix = Vec<Vec<f64>>;

    // The physical parameters of the crate's documentation.
    const I_G: f64 = 8.0;
    const J_E: f64 = 0.25;
    const J_W: f64 = 140.0;
    const R_W: f64 = 0.3;
    const K_S: f64 = 8000.0;
    const C_S: f64 = 15.0;
    const B_W: f64 = 1.053;
    const LAG: f64 = 0.02;
    const GAIN: f64 = 50.0;

    fn mul(x: &Matrix, y: &Matrix) -> Matrix {
        (0..x.len())
            .map(|i| (0..y[0].len()).map(|j| (0..y.len()).map(|k| x[i][k] * y[k][j]).sum()).collect())
            .collect()
    }

    fn identity(n: usize) -> Matrix {
        (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect()
    }

    /// exp(m) by scaling (2^-12), a 20-term Taylor series, and squaring.
    fn expm(m: &Matrix) -> Matrix {
        let n = m.len();
        let scaled: Matrix = m.iter().map(|r| r.iter().map(|v| v / 4096.0).collect()).collect();
        let mut e = identity(n);
        let mut term = identity(n);
        for k in 1..=20 {
            term = mul(&term, &scaled).into_iter().map(|r| r.into_iter().map(|v| v / k as f64).collect()).collect();
            for i in 0..n {
                for j in 0..n {
                    e[i][j] += term[i][j];
                }
            }
        }
        for _ in 0..12 {
            e = mul(&e, &e);
        }
        e
    }

    /// The continuous closed loop (A_c, B_c) from the physical parameters.
    fn continuous() -> (Matrix, Matrix) {
        let ac = vec![
            vec![0.0, 1.0 / I_G, -1.0, 0.0],
            vec![-K_S / (I_G * J_E), -C_S / (I_G * I_G * J_E), C_S / (I_G * J_E), 1.0 / J_E],
            vec![K_S / J_W, C_S / (I_G * J_W), -(C_S + B_W) / J_W, 0.0],
            vec![0.0, -GAIN / (I_G * LAG), GAIN / LAG, -1.0 / LAG],
        ];
        let bc = vec![
            vec![0.0; 5],
            vec![0.0, -1.0 / J_E, 1.0 / J_E, 0.0, 0.0],
            vec![0.0, 0.0, 0.0, -1.0 / J_W, -1.0 / J_W],
            vec![1.0 / LAG, 0.0, 0.0, 0.0, 0.0],
        ];
        (ac, bc)
    }

    fn as_matrix<const R: usize, const K: usize>(m: &[[f64; K]; R]) -> Matrix {
        m.iter().map(|r| r.to_vec()).collect()
    }

    /// Entry by entry, relative to the largest entry of the entry's column.
    fn assert_close(name: &str, got: &Matrix, want: &Matrix, tolerance: f64) {
        for j in 0..want[0].len() {
            let scale = want.iter().map(|r| r[j].abs()).fold(0.0, f64::max);
            for i in 0..want.len() {
                let error = (got[i][j] - want[i][j]).abs();
                assert!(error <= tolerance * scale, "{name}[{i}][{j}] = {} but {}", got[i][j], want[i][j]);
            }
        }
    }

    #[test]
    fn a_and_b_are_the_zero_order_hold_of_the_driveline() {
        let (ac, bc) = continuous();
        let n = STATES + INPUTS;
        let mut augmented = vec![vec![0.0; n]; n];
        for i in 0..STATES {
            for j in 0..STATES {
                augmented[i][j] = ac[i][j] * DT;
            }
            for j in 0..INPUTS {
                augmented[i][STATES + j] = bc[i][j] * DT;
            }
        }
        let e = expm(&augmented);
        let ad: Matrix = e[..STATES].iter().map(|r| r[..STATES].to_vec()).collect();
        let bd: Matrix = e[..STATES].iter().map(|r| r[STATES..].to_vec()).collect();
        assert_close("A", &as_matrix(&A), &ad, 1e-12);
        assert_close("B", &as_matrix(&B), &bd, 1e-12);
    }

    #[test]
    fn c_and_d_are_the_outputs_of_the_documentation() {
        let mut c = vec![vec![0.0; STATES]; OUTPUTS];
        for (i, row) in c.iter_mut().enumerate().take(STATES) {
            row[i] = 1.0;
        }
        c[4] = vec![K_S, C_S / I_G, -C_S, 0.0];
        c[5] = vec![R_W * K_S / J_W, R_W * C_S / (I_G * J_W), -R_W * (C_S + B_W) / J_W, 0.0];
        c[6] = vec![0.0, -GAIN / I_G, GAIN, 0.0];
        let mut d = vec![vec![0.0; INPUTS]; OUTPUTS];
        d[5][3] = -R_W / J_W;
        d[5][4] = -R_W / J_W;
        d[6][0] = 1.0;
        assert_close("C", &as_matrix(&C), &c, 1e-15);
        assert_close("D", &as_matrix(&D), &d, 1e-15);
    }

    /// A complex number, enough for the roots of a quartic.
    #[derive(Clone, Copy, Debug)]
    struct Complex(f64, f64);

    impl Complex {
        fn add(self, o: Complex) -> Complex {
            Complex(self.0 + o.0, self.1 + o.1)
        }
        fn sub(self, o: Complex) -> Complex {
            Complex(self.0 - o.0, self.1 - o.1)
        }
        fn mul(self, o: Complex) -> Complex {
            Complex(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
        }
        fn div(self, o: Complex) -> Complex {
            let d = o.0 * o.0 + o.1 * o.1;
            Complex((self.0 * o.0 + self.1 * o.1) / d, (self.1 * o.0 - self.0 * o.1) / d)
        }
        fn abs(self) -> f64 {
            self.0.hypot(self.1)
        }
    }

    /// The characteristic polynomial det(zI - m), highest degree first (Faddeev-LeVerrier).
    fn characteristic(m: &Matrix) -> Vec<f64> {
        let n = m.len();
        let mut coefficients = vec![1.0];
        let mut adjugate = identity(n);
        for k in 1..=n {
            let am = mul(m, &adjugate);
            let c = -(0..n).map(|i| am[i][i]).sum::<f64>() / k as f64;
            coefficients.push(c);
            adjugate = am;
            for (i, row) in adjugate.iter_mut().enumerate() {
                row[i] += c;
            }
        }
        coefficients
    }

    /// The roots of a monic polynomial by Durand-Kerner's simultaneous iteration.
    fn roots(p: &[f64]) -> Vec<Complex> {
        let n = p.len() - 1;
        let eval = |z: Complex| p.iter().fold(Complex(0.0, 0.0), |acc, &c| acc.mul(z).add(Complex(c, 0.0)));
        let seed = Complex(0.4, 0.9);
        let mut z: Vec<Complex> = (0..n).scan(Complex(1.0, 0.0), |w, _| Some(std::mem::replace(w, w.mul(seed)))).collect();
        for _ in 0..1000 {
            let previous = z.clone();
            for i in 0..n {
                let denominator =
                    (0..n).filter(|&j| j != i).fold(Complex(1.0, 0.0), |acc, j| acc.mul(previous[i].sub(z[j])));
                z[i] = previous[i].sub(eval(previous[i]).div(denominator));
            }
        }
        z
    }

    /// Schur-Cohn: every root of `p` (highest degree first) lies strictly inside the unit circle.
    fn schur_stable(p: &[f64]) -> bool {
        let mut a: Vec<f64> = p.to_vec();
        while a.len() > 1 {
            let n = a.len() - 1;
            let reflection = a[n] / a[0];
            if reflection.abs() >= 1.0 {
                return false;
            }
            a = (0..n).map(|k| a[k] - reflection * a[n - k]).collect();
        }
        true
    }

    #[test]
    fn the_controller_is_stable() {
        let p = characteristic(&as_matrix(&A));
        assert!(schur_stable(&p), "{p:?}");
        let moduli: Vec<f64> = roots(&p).iter().map(|z| z.abs()).collect();
        let radius = moduli.iter().copied().fold(0.0, f64::max);
        // The vehicle's speed: exp(-b / (J_e i^2 + J_w) T) to first order, 0.99993.
        assert!(radius < 1.0 && (radius - 0.999_932_5).abs() < 1e-6, "{moduli:?}");
        // The damped shuffle mode exp(-14.06 T) and the lag's mode exp(-22.93 T).
        let mut sorted = moduli.clone();
        sorted.sort_by(f64::total_cmp);
        assert!((sorted[0] - (-22.934 * DT).exp()).abs() < 1e-4, "{moduli:?}");
        assert!((sorted[1] - (-14.0557 * DT).exp()).abs() < 1e-4, "{moduli:?}");
        assert!((sorted[2] - sorted[1]).abs() < 1e-9, "{moduli:?}");
    }

    #[test]
    fn the_f64_outputs_are_the_convolution_of_the_inputs() {
        let steps = 100;
        let outputs = simulate(steps);
        assert_eq!(outputs.len(), steps);
        let (a, b, c, d) = (as_matrix(&A), as_matrix(&B), as_matrix(&C), as_matrix(&D));
        // Markov parameters C A^(m-1) B, then y(k) = D u(k) + sum_{j<k} C A^(k-1-j) B u(j).
        let mut markov = Vec::with_capacity(steps);
        let mut power_b = b.clone();
        for _ in 1..steps {
            markov.push(mul(&c, &power_b));
            power_b = mul(&a, &power_b);
        }
        let u: Vec<Matrix> = (0..steps).map(|k| super::controller::inputs(k).iter().map(|&v| vec![v]).collect()).collect();
        let mut largest = [0.0f64; OUTPUTS];
        let mut expected = Vec::with_capacity(steps);
        for k in 0..steps {
            let mut y = mul(&d, &u[k]);
            for j in 0..k {
                let contribution = mul(&markov[k - 1 - j], &u[j]);
                for i in 0..OUTPUTS {
                    y[i][0] += contribution[i][0];
                }
            }
            for i in 0..OUTPUTS {
                largest[i] = largest[i].max(y[i][0].abs());
            }
            expected.push(y);
        }
        for k in 0..steps {
            for i in 0..OUTPUTS {
                let error = (outputs[k][i] - expected[k][i][0]).abs();
                assert!(error <= 1e-12 * largest[i], "y{i}({k}) = {} but {}", outputs[k][i], expected[k][i][0]);
            }
        }
        // Physics: after 1 s the shafts barely twist any faster, so the engine turns i times as
        // fast as the wheels; the tip-in accelerates the car, the climb slows it down.
        let last = outputs[steps - 1];
        assert!((last[1] / last[2] - 8.0).abs() < 0.1, "{last:?}");
        assert!(outputs[45][5] > 0.4 && last[5] > 0.1 && last[5] < 0.4, "{:?} {last:?}", outputs[45]);
    }

    #[test]
    fn the_inputs_are_the_documented_signals() {
        use super::controller::inputs;
        assert_eq!(inputs(0), [0.0; INPUTS]);
        assert!((inputs(5)[0] - 20.0).abs() < 1e-12);
        assert_eq!(inputs(29)[1], 0.0);
        assert_eq!(inputs(30)[1], 6.0);
        assert_eq!(inputs(49)[3], 0.0);
        assert_eq!(inputs(50)[3], 130.0);
        assert!((inputs(6)[2] - 2.0 * (2.0 * std::f64::consts::PI * 4.0 * 0.06).sin()).abs() < 1e-12);
        assert!((inputs(60)[4] - 20.0 * (2.0 * std::f64::consts::PI * 0.8 * 0.6).sin()).abs() < 1e-12);
    }
}

//! The CG kernel of the NAS Parallel Benchmarks (serial NPB 3.3): the smallest eigenvalue of a
//! random sparse symmetric positive definite matrix by inverse power iteration, each step solving
//! a linear system with 25 iterations of the conjugate gradient method. Section 6.3 of the PROMISE
//! half-precision paper tunes its 25 floating-point variables for class W.
//!
//! `makea` builds the matrix as NPB does: row i is the sum of the outer products of `nonzer + 1`
//! random sparse vectors (`sprnvc`, `vecset`) scaled by a geometric series from 1 down to `rcond`,
//! summed into compressed rows by `sparse`, with `rcond - shift` added to the diagonal. The random
//! numbers come from NPB's `randlc` (see `randlc.rs`), which is not tuned: the sparsity pattern
//! depends on it. The benchmark then runs one untimed iteration, resets x, and runs `niter`
//! iterations of zeta = shift + 1 / (x . z), with z the CG solution of A z = x and x = z / ||z||.
//!
//! Usage: `cg [S|W|A]` (default S). Prints NPB's table and verifies zeta to 1e-10 as NPB does.

mod randlc;

use std::time::Instant;

#[fptune::tune]
pub mod kernel {
    use crate::randlc::Randlc;

    /// The condition number NPB gives every class: the scale of the last outer product.
    pub const RCOND: f64 = 0.1;

    /// A matrix in compressed rows: row j holds `a[rowstr[j]..rowstr[j + 1]]` at the columns
    /// `colidx[...]`, in increasing order.
    #[derive(Debug)]
    pub struct Matrix {
        pub rowstr: Vec<usize>,
        pub colidx: Vec<usize>,
        #[tune]
        pub a: Vec<f64>,
    }

    /// A sparse vector `(v, iv)` with `nzv` nonzeros: `v[k]` at the position `iv[k]` (1-based).
    #[derive(Debug)]
    pub struct SparseVector {
        #[tune]
        pub v: Vec<f64>,
        pub iv: Vec<usize>,
        pub nzv: usize,
    }

    impl SparseVector {
        /// Room for `capacity` nonzeros.
        pub fn new(capacity: usize) -> SparseVector {
            SparseVector { v: vec![0.0; capacity], iv: vec![0; capacity], nzv: 0 }
        }

        /// NPB's `sprnvc`: `nz` nonzeros with random values at distinct random positions in
        /// 1..=n, the positions drawn in 1..=nn1 (a power of two) and redrawn when above n.
        pub fn sprnvc(&mut self, n: usize, nz: usize, nn1: usize, rng: &mut Randlc) {
            self.nzv = 0;
            while self.nzv < nz {
                let vecelt = rng.randlc();
                let i = rng.next_index(nn1) + 1;
                if i > n || self.iv[..self.nzv].contains(&i) {
                    continue;
                }
                self.v[self.nzv] = vecelt;
                self.iv[self.nzv] = i;
                self.nzv += 1;
            }
        }

        /// NPB's `vecset`: sets the element at position i to `val`, appending it if absent.
        pub fn vecset(&mut self, i: usize, #[tune] val: f64) {
            let mut set = false;
            for k in 0..self.nzv {
                if self.iv[k] == i {
                    self.v[k] = val;
                    set = true;
                }
            }
            if !set {
                self.v[self.nzv] = val;
                self.iv[self.nzv] = i;
                self.nzv += 1;
            }
        }
    }

    /// The outer products' vectors, one per row i of the construction: `arow[i]` elements,
    /// at 0-based columns `acol[i * stride + ..]` with values `aelt[i * stride + ..]`.
    #[derive(Debug)]
    pub struct Elements {
        pub stride: usize,
        pub arow: Vec<usize>,
        pub acol: Vec<usize>,
        #[tune]
        pub aelt: Vec<f64>,
    }

    /// NPB's `makea`: the n x n matrix from `nonzer` random nonzeros per outer product.
    pub fn makea(n: usize, nonzer: usize, shift: f64, rng: &mut Randlc) -> Matrix {
        // nn1: the smallest power of two not less than n (at least 2, as NPB's do-while).
        let mut nn1 = 1;
        loop {
            nn1 *= 2;
            if nn1 >= n {
                break;
            }
        }
        let stride = nonzer + 1;
        let mut el = Elements {
            stride,
            arow: vec![0; n],
            acol: vec![0; n * stride],
            aelt: vec![0.0; n * stride],
        };
        let mut vc = SparseVector::new(stride);
        for iouter in 0..n {
            vc.sprnvc(n, nonzer, nn1, rng);
            vc.vecset(iouter + 1, 0.5);
            el.arow[iouter] = vc.nzv;
            for ivelt in 0..vc.nzv {
                el.acol[iouter * stride + ivelt] = vc.iv[ivelt] - 1;
                el.aelt[iouter * stride + ivelt] = vc.v[ivelt];
            }
        }
        sparse(&el, n, RCOND, shift)
    }

    /// NPB's `sparse`: sums the scaled outer products `size * aelt[i] aelt[i]^T` (size going
    /// from 1 down to rcond geometrically) into compressed rows, duplicates added together, and
    /// `rcond - shift` onto the diagonal.
    pub fn sparse(el: &Elements, n: usize, #[tune] rcond: f64, #[tune] shift: f64) -> Matrix {
        let nrows = n;
        // Count the triples in each row, then the rows' starts.
        let mut rowstr = vec![0usize; nrows + 1];
        for i in 0..n {
            for nza in 0..el.arow[i] {
                let j = el.acol[i * el.stride + nza] + 1;
                rowstr[j] += el.arow[i];
            }
        }
        for j in 1..nrows + 1 {
            rowstr[j] += rowstr[j - 1];
        }
        let nz = rowstr[nrows];
        // Column -1 marks a free slot; a row's used slots stay sorted by column.
        let mut colidx = vec![-1isize; nz];
        let mut m = Matrix { rowstr, colidx: Vec::new(), a: vec![0.0; nz] };
        let mut nzloc = vec![0usize; nrows];

        #[tune]
        let mut size: f64 = 1.0;
        #[tune]
        let ratio: f64 = rcond.powf(1.0 / (n as f64));
        for i in 0..n {
            let row = i * el.stride;
            for nza in 0..el.arow[i] {
                let j = el.acol[row + nza];
                #[tune]
                let scale: f64 = size * el.aelt[row + nza];
                for nzrow in 0..el.arow[i] {
                    let jcol = el.acol[row + nzrow];
                    #[tune]
                    let mut va: f64 = el.aelt[row + nzrow] * scale;
                    // Add the identity * rcond to bound the smallest eigenvalue from below.
                    if jcol == j && j == i {
                        va = va + rcond - shift;
                    }
                    let (start, end) = (m.rowstr[j], m.rowstr[j + 1]);
                    let jc = jcol as isize;
                    let mut k = start;
                    loop {
                        assert!(k < end, "internal error in sparse: i = {i}");
                        let c = colidx[k];
                        if c > jc {
                            // Insert jcol here, shifting the used slots after it.
                            for kk in (k..end - 1).rev() {
                                if colidx[kk] > -1 {
                                    m.a[kk + 1] = m.a[kk];
                                    colidx[kk + 1] = colidx[kk];
                                }
                            }
                            colidx[k] = jc;
                            m.a[k] = 0.0;
                            break;
                        } else if c == -1 {
                            colidx[k] = jc;
                            break;
                        } else if c == jc {
                            // A duplicate: counted, to be squeezed out below.
                            nzloc[j] += 1;
                            break;
                        }
                        k += 1;
                    }
                    m.a[k] = m.a[k] + va;
                }
            }
            size = size * ratio;
        }

        // Remove the empty slots left by duplicates.
        for j in 1..nrows {
            nzloc[j] += nzloc[j - 1];
        }
        for j in 0..nrows {
            let j1 = if j > 0 { m.rowstr[j] - nzloc[j - 1] } else { 0 };
            let j2 = m.rowstr[j + 1] - nzloc[j];
            let mut nza = m.rowstr[j];
            for k in j1..j2 {
                m.a[k] = m.a[nza];
                colidx[k] = colidx[nza];
                nza += 1;
            }
        }
        for j in 1..nrows + 1 {
            m.rowstr[j] -= nzloc[j - 1];
        }
        let nnz = m.rowstr[nrows];
        m.a.truncate(nnz);
        m.colidx = colidx[..nnz].iter().map(|&c| c as usize).collect();
        m
    }

    /// The vectors of the inverse power iteration and of CG (NPB's names).
    #[derive(Debug)]
    pub struct Vectors {
        #[tune]
        pub x: Vec<f64>,
        #[tune]
        pub z: Vec<f64>,
        #[tune]
        pub p: Vec<f64>,
        #[tune]
        pub q: Vec<f64>,
        #[tune]
        pub r: Vec<f64>,
    }

    /// NPB's `conj_grad`: z ~ A^-1 x by 25 CG iterations from z = 0; returns the residual norm
    /// ||x - A z||.
    pub fn conj_grad(m: &Matrix, w: &mut Vectors) -> f64 {
        let n = w.x.len();
        let cgitmax = 25;
        #[tune]
        let mut rho: f64 = 0.0;
        #[tune]
        let mut d: f64;
        #[tune]
        let mut sum: f64;

        for j in 0..n {
            w.q[j] = 0.0;
            w.z[j] = 0.0;
            w.r[j] = w.x[j];
            w.p[j] = w.r[j];
        }
        // rho = r.r
        for j in 0..n {
            rho = rho + w.r[j] * w.r[j];
        }

        for _cgit in 1..=cgitmax {
            // q = A.p
            for j in 0..n {
                sum = 0.0;
                for k in m.rowstr[j]..m.rowstr[j + 1] {
                    sum = sum + m.a[k] * w.p[m.colidx[k]];
                }
                w.q[j] = sum;
            }
            // alpha = rho / (p.q)
            d = 0.0;
            for j in 0..n {
                d = d + w.p[j] * w.q[j];
            }
            #[tune]
            let alpha: f64 = rho / d;
            #[tune]
            let rho0: f64 = rho;
            // z = z + alpha p, r = r - alpha q
            rho = 0.0;
            for j in 0..n {
                w.z[j] = w.z[j] + alpha * w.p[j];
                w.r[j] = w.r[j] - alpha * w.q[j];
            }
            // rho = r.r, beta = rho / rho0
            for j in 0..n {
                rho = rho + w.r[j] * w.r[j];
            }
            #[tune]
            let beta: f64 = rho / rho0;
            // p = r + beta p
            for j in 0..n {
                w.p[j] = w.r[j] + beta * w.p[j];
            }
        }

        // The residual norm explicitly: r = A.z, then ||x - r||.
        sum = 0.0;
        for j in 0..n {
            d = 0.0;
            for k in m.rowstr[j]..m.rowstr[j + 1] {
                d = d + m.a[k] * w.z[m.colidx[k]];
            }
            w.r[j] = d;
        }
        for j in 0..n {
            d = w.x[j] - w.r[j];
            sum = sum + d * d;
        }
        sum.sqrt()
    }

    /// The benchmark after `makea`: one untimed iteration, then `niter` iterations of the
    /// inverse power method, printing ||r|| and zeta. Returns the last zeta and the last x.
    pub fn iterate(m: &Matrix, niter: usize, shift: f64) -> (f64, Vec<f64>) {
        let n = m.rowstr.len() - 1;
        let mut w = Vectors {
            x: vec![1.0; n],
            z: vec![0.0; n],
            p: vec![0.0; n],
            q: vec![0.0; n],
            r: vec![0.0; n],
        };
        #[tune]
        let mut zeta: f64 = 0.0;
        #[tune]
        let mut rnorm: f64;
        #[tune]
        let mut norm_temp1: f64;
        #[tune]
        let mut norm_temp2: f64;

        // One iteration untimed (NPB: "to init all code and data page tables"), then x = 1.
        for _it in 1..=1 {
            let _ = conj_grad(m, &mut w); // its ||r|| is not printed
            norm_temp1 = 0.0;
            norm_temp2 = 0.0;
            for j in 0..n {
                norm_temp1 = norm_temp1 + w.x[j] * w.z[j];
                norm_temp2 = norm_temp2 + w.z[j] * w.z[j];
            }
            norm_temp2 = 1.0 / norm_temp2.sqrt();
            for j in 0..n {
                w.x[j] = norm_temp2 * w.z[j];
            }
        }
        for j in 0..n {
            w.x[j] = 1.0;
        }

        for it in 1..=niter {
            rnorm = conj_grad(m, &mut w);
            // zeta = shift + 1 / (x.z), and ||z|| to normalise.
            norm_temp1 = 0.0;
            norm_temp2 = 0.0;
            for j in 0..n {
                norm_temp1 = norm_temp1 + w.x[j] * w.z[j];
                norm_temp2 = norm_temp2 + w.z[j] * w.z[j];
            }
            norm_temp2 = 1.0 / norm_temp2.sqrt();
            zeta = shift + 1.0 / norm_temp1;
            if it == 1 {
                println!("\n   iteration           ||r||                 zeta");
            }
            println!("    {it:5}       {rnorm:20.14e}{zeta:20.13}");
            // x = z / ||z||
            for j in 0..n {
                w.x[j] = norm_temp2 * w.z[j];
            }
        }
        (zeta, w.x)
    }
}

/// A problem class of NPB CG.
#[derive(Debug)]
pub struct Class {
    pub name: char,
    pub na: usize,
    pub nonzer: usize,
    pub niter: usize,
    pub shift: f64,
    /// NPB's verification value of zeta.
    pub zeta_verify: f64,
}

impl Class {
    pub fn named(name: &str) -> Option<Class> {
        match name {
            "S" | "s" => Some(Class { name: 'S', na: 1400, nonzer: 7, niter: 15, shift: 10.0, zeta_verify: 8.5971775078648 }),
            "W" | "w" => Some(Class { name: 'W', na: 7000, nonzer: 8, niter: 15, shift: 12.0, zeta_verify: 10.362595087124 }),
            "A" | "a" => Some(Class { name: 'A', na: 14000, nonzer: 11, niter: 15, shift: 20.0, zeta_verify: 17.130235054029 }),
            _ => None,
        }
    }
}

/// NPB's sequence: one draw to start the generator, `makea`, then the iterations. Returns the
/// matrix (for its size), zeta and x.
pub fn run(class: &Class) -> (kernel::Matrix, f64, Vec<f64>) {
    let mut rng = randlc::Randlc::new(randlc::SEED);
    let _ = rng.randlc(); // NPB: zeta = randlc(&tran, amult)
    let matrix = kernel::makea(class.na, class.nonzer, class.shift, &mut rng);
    let (zeta, x) = kernel::iterate(&matrix, class.niter, class.shift);
    (matrix, zeta, x)
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "S".to_string());
    let Some(class) = Class::named(&arg) else {
        eprintln!("usage: cg [S|W|A], a problem class of NPB CG (got `{arg}`)");
        std::process::exit(2);
    };
    println!("\n\n NAS Parallel Benchmarks (NPB3.3-SER, Rust port for fptune) - CG Benchmark\n");
    println!(" Size: {:11}", class.na);
    println!(" Iterations: {:5}", class.niter);
    println!(" Class: {}", class.name);

    let start = Instant::now();
    let (matrix, zeta, x) = run(&class);
    let seconds = start.elapsed().as_secs_f64();
    println!(" Benchmark completed ({} nonzeros) in {seconds:.3} s (makea included)", matrix.a.len());

    let err = ((zeta - class.zeta_verify) / class.zeta_verify).abs();
    if err <= 1.0e-10 {
        println!(" VERIFICATION SUCCESSFUL");
        println!(" Zeta is    {zeta:20.13e}");
        println!(" Error is   {err:20.13e}");
    } else {
        println!(" VERIFICATION FAILED");
        println!(" Zeta                {zeta:20.13e}");
        println!(" The correct zeta is {:20.13e}", class.zeta_verify);
    }
    fptune::check!("zeta", zeta);
    let _ = x;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relative_error(class: &str) -> (f64, f64) {
        let class = Class::named(class).expect("a class");
        let (_, zeta, _) = run(&class);
        (zeta, ((zeta - class.zeta_verify) / class.zeta_verify).abs())
    }

    #[test]
    fn class_s_verifies_as_npb_does() {
        let (zeta, err) = relative_error("S");
        assert!(err <= 1e-10, "zeta = {zeta:.15}, relative error {err:e}");
    }

    #[test]
    fn class_w_verifies_as_npb_does() {
        let (zeta, err) = relative_error("W");
        assert!(err <= 1e-10, "zeta = {zeta:.15}, relative error {err:e}");
    }
}

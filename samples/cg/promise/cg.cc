// The CG kernel of the NAS Parallel Benchmarks (serial NPB 3.3), a C++ port of fptune's Rust
// sample (samples/cg/src/main.rs and randlc.rs) for PROMISE (cadnaPromise 0.4.1).
//
// The smallest eigenvalue of a random sparse symmetric positive definite matrix by inverse power
// iteration, each step solving a linear system with 25 iterations of the conjugate gradient
// method. The 25 floating-point variables marked for tuning in the Rust sample are declared here
// with PROMISE types, one named PROMISE type per variable (PR_name between double underscores),
// so that each variable is one knob wherever it appears (declaration, function parameter,
// allocation, cast), as in the Rust sample. The checked result is zeta after the last iteration.
//
// The random numbers come from NPB's randlc, computed with integers (as randlc.rs does): it is not
// tuned, the sparsity pattern depends on it.
//
// Usage: cg [S|W|A] (default S). Prints NPB's table and verifies zeta to 1e-10 as NPB does.
//
// Coding notes, for PROMISE: no C++ template takes a tuned type as argument and no tuned
// variable is copy-initialised (half_float::half has an explicit constructor from float), so the
// file compiles whatever type each knob gets (half, float, double, or CADNA's double_st, which
// the cadnaizer substitutes for every double word followed by a blank, star, bracket or
// parenthesis). Numbers are printed through casts to double so that printf stays valid.

#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <chrono>

// ---------------------------------------------------------------------------------------------
// randlc.rs: the linear congruential generator x_{k+1} = a x_k mod 2^46, a = 5^13, returning
// x_{k+1} / 2^46 in (0, 1). NPB computes it in double arithmetic with exact intermediates; the
// integer version gives the same doubles bit for bit.

// The multiplier a = 5^13 (NPB's amult).
static const uint64_t AMULT = 1220703125ULL;
// The seed of CG (NPB's tran).
static const uint64_t SEED = 314159265ULL;
static const uint64_t MASK46 = (1ULL << 46) - 1;

struct Randlc {
    uint64_t x;
};

Randlc randlc_new(uint64_t seed) {
    Randlc g;
    g.x = seed & MASK46;
    return g;
}

// Advances the state: x = a x mod 2^46 (a product mod 2^64 keeps its low 46 bits exact).
uint64_t next_state(Randlc &g) {
    g.x = (g.x * AMULT) & MASK46;
    return g.x;
}

// NPB's randlc(&tran, amult): the next number, x / 2^46 (exact).
double randlc(Randlc &g) {
    double r;
    r = next_state(g);
    return r * 0x1p-46;
}

// NPB's icnvrt(randlc(&tran, amult), nn1) for a power of two nn1 <= 2^46: the integer part of
// nn1 x / 2^46, computed without floating point.
long next_index(Randlc &g, long nn1) {
    int tz = 0;
    while ((1L << tz) < nn1) {
        tz++;
    }
    uint64_t x = next_state(g);
    return (long)(x >> (46 - tz));
}

// ---------------------------------------------------------------------------------------------
// The kernel.

// The condition number NPB gives every class: the scale of the last outer product.
static const double RCOND = 0.1;

// A matrix in compressed rows: row j holds a[rowstr[j]..rowstr[j + 1]] at the columns
// colidx[...], in increasing order.
struct Matrix {
    long n;
    long *rowstr;
    long *colidx;
    __PR_a__ *a;
    long nnz;
};

// A sparse vector (v, iv) with nzv nonzeros: v[k] at the position iv[k] (1-based).
struct SparseVector {
    __PR_v__ *v;
    long *iv;
    long nzv;
};

// Room for capacity nonzeros.
SparseVector sparse_vector_new(long capacity) {
    SparseVector s;
    s.v = new __PR_v__[capacity];
    s.iv = new long[capacity];
    for (long k = 0; k < capacity; k++) {
        s.v[k] = 0.0;
        s.iv[k] = 0;
    }
    s.nzv = 0;
    return s;
}

// NPB's sprnvc: nz nonzeros with random values at distinct random positions in 1..=n, the
// positions drawn in 1..=nn1 (a power of two) and redrawn when above n.
void sprnvc(SparseVector &s, long n, long nz, long nn1, Randlc &rng) {
    s.nzv = 0;
    while (s.nzv < nz) {
        double vecelt = randlc(rng);
        long i = next_index(rng, nn1) + 1;
        bool seen = false;
        for (long k = 0; k < s.nzv; k++) {
            if (s.iv[k] == i) {
                seen = true;
            }
        }
        if (i > n || seen) {
            continue;
        }
        s.v[s.nzv] = vecelt;
        s.iv[s.nzv] = i;
        s.nzv += 1;
    }
}

// NPB's vecset: sets the element at position i to val, appending it if absent.
void vecset(SparseVector &s, long i, __PR_val__ val) {
    bool set = false;
    for (long k = 0; k < s.nzv; k++) {
        if (s.iv[k] == i) {
            s.v[k] = val;
            set = true;
        }
    }
    if (!set) {
        s.v[s.nzv] = val;
        s.iv[s.nzv] = i;
        s.nzv += 1;
    }
}

// The outer products' vectors, one per row i of the construction: arow[i] elements, at 0-based
// columns acol[i * stride + ..] with values aelt[i * stride + ..].
struct Elements {
    long stride;
    long *arow;
    long *acol;
    __PR_aelt__ *aelt;
};

// NPB's sparse: sums the scaled outer products size * aelt[i] aelt[i]^T (size going from 1 down
// to rcond geometrically) into compressed rows, duplicates added together, and rcond - shift onto
// the diagonal.
Matrix sparse(const Elements &el, long n, __PR_rcond__ rcond, __PR_shift__ shift) {
    long nrows = n;
    // Count the triples in each row, then the rows' starts.
    Matrix m;
    m.n = n;
    m.rowstr = new long[nrows + 1];
    for (long j = 0; j < nrows + 1; j++) {
        m.rowstr[j] = 0;
    }
    for (long i = 0; i < n; i++) {
        for (long nza = 0; nza < el.arow[i]; nza++) {
            long j = el.acol[i * el.stride + nza] + 1;
            m.rowstr[j] += el.arow[i];
        }
    }
    for (long j = 1; j < nrows + 1; j++) {
        m.rowstr[j] += m.rowstr[j - 1];
    }
    long nz = m.rowstr[nrows];
    // Column -1 marks a free slot; a row's used slots stay sorted by column.
    long *colidx = new long[nz];
    for (long k = 0; k < nz; k++) {
        colidx[k] = -1;
    }
    m.a = new __PR_a__[nz];
    for (long k = 0; k < nz; k++) {
        m.a[k] = 0.0;
    }
    long *nzloc = new long[nrows];
    for (long j = 0; j < nrows; j++) {
        nzloc[j] = 0;
    }

    __PR_size__ size;
    size = 1.0;
    __PR_ratio__ ratio;
    ratio = pow(rcond, (__PR_rcond__)(1.0 / (double)n));
    for (long i = 0; i < n; i++) {
        long row = i * el.stride;
        for (long nza = 0; nza < el.arow[i]; nza++) {
            long j = el.acol[row + nza];
            __PR_scale__ scale;
            scale = size * el.aelt[row + nza];
            for (long nzrow = 0; nzrow < el.arow[i]; nzrow++) {
                long jcol = el.acol[row + nzrow];
                __PR_va__ va;
                va = el.aelt[row + nzrow] * scale;
                // Add the identity * rcond to bound the smallest eigenvalue from below.
                if (jcol == j && j == i) {
                    va = va + rcond - shift;
                }
                long start = m.rowstr[j];
                long end = m.rowstr[j + 1];
                long jc = jcol;
                long k = start;
                for (;;) {
                    if (!(k < end)) {
                        fprintf(stderr, "internal error in sparse: i = %ld\n", i);
                        exit(1);
                    }
                    long c = colidx[k];
                    if (c > jc) {
                        // Insert jcol here, shifting the used slots after it.
                        for (long kk = end - 2; kk >= k; kk--) {
                            if (colidx[kk] > -1) {
                                m.a[kk + 1] = m.a[kk];
                                colidx[kk + 1] = colidx[kk];
                            }
                        }
                        colidx[k] = jc;
                        m.a[k] = 0.0;
                        break;
                    } else if (c == -1) {
                        colidx[k] = jc;
                        break;
                    } else if (c == jc) {
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
    for (long j = 1; j < nrows; j++) {
        nzloc[j] += nzloc[j - 1];
    }
    for (long j = 0; j < nrows; j++) {
        long j1 = j > 0 ? m.rowstr[j] - nzloc[j - 1] : 0;
        long j2 = m.rowstr[j + 1] - nzloc[j];
        long nza = m.rowstr[j];
        for (long k = j1; k < j2; k++) {
            m.a[k] = m.a[nza];
            colidx[k] = colidx[nza];
            nza += 1;
        }
    }
    for (long j = 1; j < nrows + 1; j++) {
        m.rowstr[j] -= nzloc[j - 1];
    }
    m.nnz = m.rowstr[nrows];
    m.colidx = colidx; // the first nnz entries are used
    delete[] nzloc;
    return m;
}

// NPB's makea: the n x n matrix from nonzer random nonzeros per outer product.
Matrix makea(long n, long nonzer, double shift, Randlc &rng) {
    // nn1: the smallest power of two not less than n (at least 2, as NPB's do-while).
    long nn1 = 1;
    do {
        nn1 *= 2;
    } while (nn1 < n);
    long stride = nonzer + 1;
    Elements el;
    el.stride = stride;
    el.arow = new long[n];
    el.acol = new long[n * stride];
    el.aelt = new __PR_aelt__[n * stride];
    for (long k = 0; k < n; k++) {
        el.arow[k] = 0;
    }
    for (long k = 0; k < n * stride; k++) {
        el.acol[k] = 0;
        el.aelt[k] = 0.0;
    }
    SparseVector vc = sparse_vector_new(stride);
    for (long iouter = 0; iouter < n; iouter++) {
        sprnvc(vc, n, nonzer, nn1, rng);
        vecset(vc, iouter + 1, (__PR_val__)0.5);
        el.arow[iouter] = vc.nzv;
        for (long ivelt = 0; ivelt < vc.nzv; ivelt++) {
            el.acol[iouter * stride + ivelt] = vc.iv[ivelt] - 1;
            el.aelt[iouter * stride + ivelt] = vc.v[ivelt];
        }
    }
    Matrix m = sparse(el, n, (__PR_rcond__)RCOND, (__PR_shift__)shift);
    delete[] el.arow;
    delete[] el.acol;
    delete[] el.aelt;
    delete[] vc.v;
    delete[] vc.iv;
    return m;
}

// The vectors of the inverse power iteration and of CG (NPB's names).
struct Vectors {
    long n;
    __PR_x__ *x;
    __PR_z__ *z;
    __PR_p__ *p;
    __PR_q__ *q;
    __PR_r__ *r;
};

// NPB's conj_grad: z ~ A^-1 x by 25 CG iterations from z = 0; returns the residual norm
// ||x - A z||.
double conj_grad(const Matrix &m, Vectors &w) {
    long n = w.n;
    int cgitmax = 25;
    __PR_rho__ rho;
    rho = 0.0;
    __PR_d__ d;
    __PR_sum__ sum;

    for (long j = 0; j < n; j++) {
        w.q[j] = 0.0;
        w.z[j] = 0.0;
        w.r[j] = w.x[j];
        w.p[j] = w.r[j];
    }
    // rho = r.r
    for (long j = 0; j < n; j++) {
        rho = rho + w.r[j] * w.r[j];
    }

    for (int cgit = 1; cgit <= cgitmax; cgit++) {
        // q = A.p
        for (long j = 0; j < n; j++) {
            sum = 0.0;
            for (long k = m.rowstr[j]; k < m.rowstr[j + 1]; k++) {
                sum = sum + m.a[k] * w.p[m.colidx[k]];
            }
            w.q[j] = sum;
        }
        // alpha = rho / (p.q)
        d = 0.0;
        for (long j = 0; j < n; j++) {
            d = d + w.p[j] * w.q[j];
        }
        __PR_alpha__ alpha;
        alpha = rho / d;
        __PR_rho0__ rho0;
        rho0 = rho;
        // z = z + alpha p, r = r - alpha q
        rho = 0.0;
        for (long j = 0; j < n; j++) {
            w.z[j] = w.z[j] + alpha * w.p[j];
            w.r[j] = w.r[j] - alpha * w.q[j];
        }
        // rho = r.r, beta = rho / rho0
        for (long j = 0; j < n; j++) {
            rho = rho + w.r[j] * w.r[j];
        }
        __PR_beta__ beta;
        beta = rho / rho0;
        // p = r + beta p
        for (long j = 0; j < n; j++) {
            w.p[j] = w.r[j] + beta * w.p[j];
        }
    }

    // The residual norm explicitly: r = A.z, then ||x - r||.
    sum = 0.0;
    for (long j = 0; j < n; j++) {
        d = 0.0;
        for (long k = m.rowstr[j]; k < m.rowstr[j + 1]; k++) {
            d = d + m.a[k] * w.z[m.colidx[k]];
        }
        w.r[j] = d;
    }
    for (long j = 0; j < n; j++) {
        d = w.x[j] - w.r[j];
        sum = sum + d * d;
    }
    return sqrt(sum);
}

// The benchmark after makea: one untimed iteration, then niter iterations of the inverse power
// method, printing ||r|| and zeta. Returns the last zeta.
double iterate(const Matrix &m, long niter, double shift) {
    long n = m.n;
    Vectors w;
    w.n = n;
    w.x = new __PR_x__[n];
    w.z = new __PR_z__[n];
    w.p = new __PR_p__[n];
    w.q = new __PR_q__[n];
    w.r = new __PR_r__[n];
    for (long j = 0; j < n; j++) {
        w.x[j] = 1.0;
        w.z[j] = 0.0;
        w.p[j] = 0.0;
        w.q[j] = 0.0;
        w.r[j] = 0.0;
    }
    __PR_zeta__ zeta;
    zeta = 0.0;
    __PR_rnorm__ rnorm;
    __PR_normtemp1__ norm_temp1;
    __PR_normtemp2__ norm_temp2;

    // One iteration untimed (NPB: "to init all code and data page tables"), then x = 1.
    for (int it = 1; it <= 1; it++) {
        conj_grad(m, w); // its ||r|| is not printed
        norm_temp1 = 0.0;
        norm_temp2 = 0.0;
        for (long j = 0; j < n; j++) {
            norm_temp1 = norm_temp1 + w.x[j] * w.z[j];
            norm_temp2 = norm_temp2 + w.z[j] * w.z[j];
        }
        norm_temp2 = 1.0 / sqrt(norm_temp2);
        for (long j = 0; j < n; j++) {
            w.x[j] = norm_temp2 * w.z[j];
        }
    }
    for (long j = 0; j < n; j++) {
        w.x[j] = 1.0;
    }

    for (long it = 1; it <= niter; it++) {
        rnorm = conj_grad(m, w);
        // zeta = shift + 1 / (x.z), and ||z|| to normalise.
        norm_temp1 = 0.0;
        norm_temp2 = 0.0;
        for (long j = 0; j < n; j++) {
            norm_temp1 = norm_temp1 + w.x[j] * w.z[j];
            norm_temp2 = norm_temp2 + w.z[j] * w.z[j];
        }
        norm_temp2 = 1.0 / sqrt(norm_temp2);
        zeta = shift + 1.0 / norm_temp1;
        if (it == 1) {
            printf("\n   iteration           ||r||                 zeta\n");
        }
        printf("    %5ld       %20.14e%20.13f\n", it, (double)rnorm, (double)zeta);
        // x = z / ||z||
        for (long j = 0; j < n; j++) {
            w.x[j] = norm_temp2 * w.z[j];
        }
    }
    delete[] w.x;
    delete[] w.z;
    delete[] w.p;
    delete[] w.q;
    delete[] w.r;
    return zeta;
}

// ---------------------------------------------------------------------------------------------
// A problem class of NPB CG.
struct Class {
    char name;
    long na;
    long nonzer;
    long niter;
    double shift;
    // NPB's verification value of zeta.
    double zeta_verify;
};

int main(int argc, char **argv) {
    const char *arg = argc > 1 ? argv[1] : "S";
    Class cls;
    if (strcmp(arg, "S") == 0 || strcmp(arg, "s") == 0) {
        cls.name = 'S'; cls.na = 1400; cls.nonzer = 7; cls.niter = 15;
        cls.shift = 10.0; cls.zeta_verify = 8.5971775078648;
    } else if (strcmp(arg, "W") == 0 || strcmp(arg, "w") == 0) {
        cls.name = 'W'; cls.na = 7000; cls.nonzer = 8; cls.niter = 15;
        cls.shift = 12.0; cls.zeta_verify = 10.362595087124;
    } else if (strcmp(arg, "A") == 0 || strcmp(arg, "a") == 0) {
        cls.name = 'A'; cls.na = 14000; cls.nonzer = 11; cls.niter = 15;
        cls.shift = 20.0; cls.zeta_verify = 17.130235054029;
    } else {
        fprintf(stderr, "usage: cg [S|W|A], a problem class of NPB CG (got `%s`)\n", arg);
        exit(2);
    }
    printf("\n\n NAS Parallel Benchmarks (NPB3.3-SER, C++ port of fptune's Rust port, for PROMISE) - CG Benchmark\n\n");
    printf(" Size: %11ld\n", cls.na);
    printf(" Iterations: %5ld\n", cls.niter);
    printf(" Class: %c\n", cls.name);

    auto start = std::chrono::steady_clock::now();
    // NPB's sequence: one draw to start the generator, makea, then the iterations.
    Randlc rng = randlc_new(SEED);
    randlc(rng); // NPB: zeta = randlc(&tran, amult)
    Matrix matrix = makea(cls.na, cls.nonzer, cls.shift, rng);
    double zeta;
    zeta = iterate(matrix, cls.niter, cls.shift);
    double seconds;
    seconds = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start).count() * 1e-9;
    printf(" Benchmark completed (%ld nonzeros) in %.3f s (makea included)\n", matrix.nnz, (double)seconds);

    double err;
    err = fabs((zeta - cls.zeta_verify) / cls.zeta_verify);
    if (err <= 1.0e-10) {
        printf(" VERIFICATION SUCCESSFUL\n");
        printf(" Zeta is    %20.13e\n", (double)zeta);
        printf(" Error is   %20.13e\n", (double)err);
    } else {
        printf(" VERIFICATION FAILED\n");
        printf(" Zeta                %20.13e\n", (double)zeta);
        printf(" The correct zeta is %20.13e\n", (double)cls.zeta_verify);
    }
    PROMISE_CHECK_VAR(zeta);
    delete[] matrix.rowstr;
    delete[] matrix.colidx;
    delete[] matrix.a;
}

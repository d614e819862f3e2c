// The matmul bench of ../matmul.rs against CADNA (C++ library, built separately; see build.sh):
// the classic i-j-k triple loop, row-major storage, accumulator in a local, inputs random in
// [0, 1) from a fixed seed, minimum thread CPU time of a few runs. Prints a Markdown table of times and
// overhead ratios (double_st / double, float_st / float, half_st / float and half_st / half).
//
// Usage: matmul [n ...]   (default 300 500); env CADNA_BENCH_REPS (default 3; 2 for the
// stochastic types).
#include <cadna.h>

#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

using half_float::half;

static uint64_t seed_state;

static double next_unit() {
  uint64_t z = (seed_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

// Thread CPU time, as ../matmul.rs measures on Linux (robust to a loaded machine).
static double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

template <class T>
__attribute__((noinline)) void matmul(const T* a, const T* b, T* c, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      T s = T(0.0f);
      for (int k = 0; k < n; k++) s = s + a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

template <class T>
double best_time(int n, int reps) {
  seed_state = 0x5EED0FF970Eull;
  std::vector<T> a(n * n), b(n * n), c(n * n);
  for (auto& x : a) x = T(next_unit());
  for (auto& x : b) x = T(next_unit());
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    double t0 = cpu_seconds();
    matmul(a.data(), b.data(), c.data(), n);
    asm volatile("" : : "r"(c.data()) : "memory");
    double e = cpu_seconds() - t0;
    if (e < best) best = e;
  }
  return best;
}

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; i++) sizes.push_back(atoi(argv[i]));
  if (sizes.empty()) sizes = {300, 500};
  int reps = getenv("CADNA_BENCH_REPS") ? atoi(getenv("CADNA_BENCH_REPS")) : 3;
  int slow = reps < 2 ? reps : 2;
  for (int n : sizes) {
    double td = best_time<double>(n, reps), tf = best_time<float>(n, reps);
    double th = best_time<half>(n, slow);
    double st[2][3];
    for (int off = 0; off < 2; off++) {
      // cadna_init(-1): every instability detected; the tag CADNA_ALL turns them all off.
      cadna_init(-1, off ? CADNA_ALL : 0);
      st[off][0] = best_time<double_st>(n, slow);
      st[off][1] = best_time<float_st>(n, slow);
      st[off][2] = best_time<half_st>(n, slow);
      cadna_end();
    }
    double ops = (double)n * n * n;
    printf("\nCADNA, n = %d\n\n| type | detection | time (s) | ns / multiply-add | overhead |\n"
           "|---|---|---:|---:|---|\n", n);
    printf("| double | - | %.3f | %.2f | 1x |\n", td, td * 1e9 / ops);
    printf("| float | - | %.3f | %.2f | 1x |\n", tf, tf * 1e9 / ops);
    printf("| half (emulated, RN) | - | %.3f | %.2f | half/float = %.1fx |\n", th, th * 1e9 / ops,
           th / tf);
    for (int off = 0; off < 2; off++) {
      const char* d = off ? "off" : "all";
      printf("| double_st | %s | %.3f | %.2f | double_st/double = %.1fx |\n", d, st[off][0],
             st[off][0] * 1e9 / ops, st[off][0] / td);
      printf("| float_st | %s | %.3f | %.2f | float_st/float = %.1fx |\n", d, st[off][1],
             st[off][1] * 1e9 / ops, st[off][1] / tf);
      printf("| half_st | %s | %.3f | %.2f | half_st/float = %.1fx, half_st/half = %.1fx |\n", d,
             st[off][2], st[off][2] * 1e9 / ops, st[off][2] / tf, st[off][2] / th);
    }
    fflush(stdout);
  }
  return 0;
}

// The matmul bench of ../matmul.rs against CADNA (C++ library, built separately; see build.sh):
// the classic i-j-k triple loop, row-major storage, accumulator in a local, inputs random in
// [0, 1) from a fixed seed, minimum thread CPU time of a few runs. Prints a Markdown table of times and
// overhead ratios (double_st / double, float_st / float, half_st / float and half_st / half).
//
// Usage: matmul [n ...]   (default 300 500); env CADNA_BENCH_REPS (default 3, 2 for the
// stochastic types; when set, for every type).
#include <cadna.h>

#include <array>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#include "product.h"

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


// Each run has matrices of its own, allocated and filled before the clock starts (as ../matmul.rs
// does: the physical pages they get move the n = 500 column walk's cache misses).
template <class T>
double best_time(int n, int reps) {
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    seed_state = 0x5EED0FF970Eull;
    std::vector<T> a(n * n), b(n * n), c(n * n);
    for (auto& x : a) x = T(next_unit());
    for (auto& x : b) x = T(next_unit());
    double t0 = cpu_seconds();
    matmul_rows(a.data(), b.data(), c.data(), n, 0, n);
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
  // As ../matmul.rs: with CADNA_BENCH_REPS set, every type runs that many times.
  int reps = getenv("CADNA_BENCH_REPS") ? atoi(getenv("CADNA_BENCH_REPS")) : 3;
  int slow = getenv("CADNA_BENCH_REPS") ? reps : (reps < 2 ? reps : 2);
  size_t m = sizes.size();
  std::vector<double> td(m), tf(m), th(m);
  std::vector<std::array<double, 3>> st[2] = {std::vector<std::array<double, 3>>(m),
                                               std::vector<std::array<double, 3>>(m)};
  for (size_t i = 0; i < m; i++) {
    td[i] = best_time<double>(sizes[i], reps);
    tf[i] = best_time<float>(sizes[i], reps);
    th[i] = best_time<half>(sizes[i], slow);
  }
  // Every size with detection on, then every size with it off: cadna_init's tag only clears
  // detection flags (it never sets them back), so "on" must come before the first "off".
  for (int off = 0; off < 2; off++) {
    // cadna_init(-1): every instability detected; the tag CADNA_ALL turns them all off.
    cadna_init(-1, off ? CADNA_ALL : 0);
    for (size_t i = 0; i < m; i++) {
      st[off][i][0] = best_time<double_st>(sizes[i], slow);
      st[off][i][1] = best_time<float_st>(sizes[i], slow);
      st[off][i][2] = best_time<half_st>(sizes[i], slow);
    }
    cadna_end();
  }
  for (size_t i = 0; i < m; i++) {
    int n = sizes[i];
    double ops = (double)n * n * n;
    printf("\nCADNA, n = %d\n\n| type | detection | time (s) | ns / multiply-add | overhead |\n"
           "|---|---|---:|---:|---|\n", n);
    printf("| double | - | %.3f | %.2f | 1x |\n", td[i], td[i] * 1e9 / ops);
    printf("| float | - | %.3f | %.2f | 1x |\n", tf[i], tf[i] * 1e9 / ops);
    printf("| half (emulated, RN) | - | %.3f | %.2f | half/float = %.1fx |\n", th[i],
           th[i] * 1e9 / ops, th[i] / tf[i]);
    for (int off = 0; off < 2; off++) {
      const char* d = off ? "off" : "all";
      const auto& t = st[off][i];
      printf("| double_st | %s | %.3f | %.2f | double_st/double = %.1fx |\n", d, t[0],
             t[0] * 1e9 / ops, t[0] / td[i]);
      printf("| float_st | %s | %.3f | %.2f | float_st/float = %.1fx |\n", d, t[1],
             t[1] * 1e9 / ops, t[1] / tf[i]);
      printf("| half_st | %s | %.3f | %.2f | half_st/float = %.1fx, half_st/half = %.1fx |\n", d,
             t[2], t[2] * 1e9 / ops, t[2] / tf[i], t[2] / th[i]);
    }
  }
  return 0;
}

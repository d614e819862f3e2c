// CADNA's side of the paired timing against fptune (paired.sh builds it; paired.rs calls it): the
// i-j-k product of product.h over blocks of rows, on double_st, float_st or half_st matrices
// built from the inputs fptune gets, with CADNA's detection switched on or off per block.
//
// CADNA computes with the FPU rounding toward +inf (cadna_init sets it; its operators round each
// sample up or, negated, down). fptune and Rust's native loops assume round-to-nearest, so each
// block sets the rounding mode on entry and restores round-to-nearest on exit.
// CADNA's half.hpp uses F16C intrinsics when the target has them (-march=native here) without
// including their header.
#include <immintrin.h>

#include <cadna.h>

#include <cfenv>
#include <cstddef>
#include <iostream>
#include <vector>

#include "product.h"

using half_float::half;

namespace {

struct Base {
  virtual ~Base() {}
  virtual void rows(int lo, int hi) = 0;
  virtual void sample(size_t idx, double out[3]) = 0;
};

template <class T>
struct Mats : Base {
  int n;
  std::vector<T> a, b, c;
  Mats(int n, const double* av, const double* bv) : n(n), a(av, av + n * n), b(bv, bv + n * n), c(n * n) {}
  void rows(int lo, int hi) override { matmul_rows(a.data(), b.data(), c.data(), n, lo, hi); }
  void sample(size_t idx, double out[3]) override {
    out[0] = (double)c[idx].getx();
    out[1] = (double)c[idx].gety();
    out[2] = (double)c[idx].getz();
  }
};

// Every detection tag of this CADNA build, on or off (cadna_init's tags only ever clear them).
void set_detection(unsigned on) {
  _cadna_div_tag = _cadna_mul_tag = _cadna_power_tag = on;
  _cadna_branching_tag = _cadna_cancel_tag = _cadna_intrinsic_tag = _cadna_math_tag = on;
#if defined(CADNA_HALF_EMULATION) || defined(CADNA_HALF_NATIVE)
  _cadna_half_overflow_tag = _cadna_half_underflow_tag = on;
#endif
}

}  // namespace

extern "C" {

// cadna_init(-1) with its banner silenced, then back to round-to-nearest for the Rust side.
void cadna_paired_init() {
  std::cout.setstate(std::ios::failbit);
  cadna_init(-1);
  std::cout.clear();
  fesetround(FE_TONEAREST);
}

// Matrices of `kind` (0 double_st, 1 float_st, 2 half_st) with A's and B's entries converted from
// `a` and `b` (n x n each) under round-to-nearest, as fptune's `From<f64>` rounds them.
void* cadna_paired_new(int kind, int n, const double* a, const double* b) {
  switch (kind) {
    case 0: return new Mats<double_st>(n, a, b);
    case 1: return new Mats<float_st>(n, a, b);
    default: return new Mats<half_st>(n, a, b);
  }
}

// Rows [lo, hi) of the product, every instability detected when `detect` is nonzero, none
// otherwise.
void cadna_paired_rows(void* m, int lo, int hi, int detect) {
  set_detection(detect != 0);
  fesetround(FE_UPWARD);
  static_cast<Base*>(m)->rows(lo, hi);
  fesetround(FE_TONEAREST);
}

// The samples of C's entry `idx`.
void cadna_paired_sample(void* m, size_t idx, double out[3]) {
  static_cast<Base*>(m)->sample(idx, out);
}

// Instabilities CADNA counted so far, every kind (the half-precision overflows and underflows
// included, as fptune's report counts them).
unsigned long long cadna_paired_instabilities() {
  unsigned long long n = (unsigned long long)_cadna_div_count + _cadna_mul_count + _cadna_power_count +
                         _cadna_branching_count + _cadna_cancel_count + _cadna_intrinsic_count +
                         _cadna_math_count;
#if defined(CADNA_HALF_EMULATION) || defined(CADNA_HALF_NATIVE)
  n += _cadna_half_overflow_count + _cadna_half_underflow_count;
#endif
  return n;
}

void cadna_paired_free(void* m) { delete static_cast<Base*>(m); }
}

// The i-j-k matrix product of ../common/product.rs for CADNA's types, shared by matmul.cc (whole
// products) and paired.cc (blocks of rows, timed against fptune in one process).
#pragma once

// Rows [lo, hi) of C = A B for n x n row-major matrices: the classic triple loop, the
// accumulator in a local.
template <class T>
__attribute__((noinline)) void matmul_rows(const T* a, const T* b, T* c, int n, int lo, int hi) {
  for (int i = lo; i < hi; i++)
    for (int j = 0; j < n; j++) {
      T s = T(0.0f);
      for (int k = 0; k < n; k++) s = s + a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

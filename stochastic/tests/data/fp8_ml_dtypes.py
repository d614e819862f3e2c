"""Writes fp8_ml_dtypes.txt: the OCP FP8 tables of an independent implementation (ml_dtypes,
the NumPy types of JAX), against which tests/formats_exact.rs checks fptune's formats.

    pip install ml_dtypes==0.6.0 && python3 fp8_ml_dtypes.py > fp8_ml_dtypes.txt

Lines: `decode FORMAT CODE F64BITS` (every code; NaN as `nan`), then `encode FORMAT F32BITS CODE`
for binary32 inputs converted to nearest (midpoints, neighbours of every value, the overflow
boundary, subnormals, random values).
"""
import ml_dtypes
import numpy as np

FORMATS = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
print(f"# ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__}")
for name, t in FORMATS.items():
    values = np.arange(256, dtype=np.uint8).view(t).astype(np.float64)
    for code, v in enumerate(values):
        bits = "nan" if np.isnan(v) else f"{np.float64(v).view(np.uint64):016x}"
        print(f"decode {name} {code} {bits}")
rng = np.random.default_rng(27)
for name, t in FORMATS.items():
    values = np.arange(256, dtype=np.uint8).view(t).astype(np.float64)
    finite = np.sort(values[np.isfinite(values)])
    inputs = list(finite)
    inputs += list((finite[1:] + finite[:-1]) / 2)  # midpoints: ties
    for v in finite:
        f = np.float32(v)
        inputs += [np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
    mx = finite.max()
    inputs += [mx * 1.0625, mx * 1.125, mx * 1.0624, mx * 1.1, mx * 2, np.inf, -np.inf, 1e30, -1e30]
    inputs += list(rng.standard_normal(2000) * 10.0 ** rng.uniform(-8, 6, 2000))
    for x in np.array(inputs, dtype=np.float32):
        code = np.array([x], dtype=np.float32).astype(t).view(np.uint8)[0]
        print(f"encode {name} {np.float32(x).view(np.uint32):08x} {code}")

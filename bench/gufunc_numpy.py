#!/usr/bin/env python3
"""NumPy beside bench/gufunc_bench.cpp (issue 20): np.matmul on a stack of 10^6 (3x3)@(3x3),
np.vecdot of (10^6, 16) rows, and a moving average over (10^5, 256) rows with a window of 8
(cumulative sums, as a NumPy user writes it), each writing into an existing output where NumPy
allows. Prints CSV: case,dtype,impl,target,seconds (median of repeated calls)."""
import numpy as np

from gufunc_data import median_seconds, operands

def move_mean(a, w, out):
    c = np.cumsum(a, axis=1, dtype=a.dtype)
    out[:, :w] = c[:, :w] / np.arange(1, w + 1, dtype=a.dtype)
    out[:, w:] = (c[:, w:] - c[:, :-w]) / a.dtype.type(w)

print("case,dtype,impl,target,seconds")
for name, dt in (("f32", np.float32), ("f64", np.float64)):
    o = operands(dt)
    print(f"matmul_3x3,{name},numpy,cpu,{median_seconds(lambda: np.matmul(o.a, o.b, out=o.c)):.9g}")
    print(f"vecdot_16,{name},numpy,cpu,{median_seconds(lambda: np.vecdot(o.x, o.y, out=o.d)):.9g}")
    print(f"move_mean_256,{name},numpy,cpu,{median_seconds(lambda: move_mean(o.m, 8, o.mm)):.9g}")

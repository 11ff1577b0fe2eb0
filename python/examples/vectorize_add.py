"""Numba's @vectorize Add, as ufunc.add on the cpu, parallel and cuda targets.

The Numba original (Numba's CUDA tutorial; target='cpu' or 'parallel' runs it on the CPU)::

    @vectorize(['float32(float32, float32)'], target='cuda')
    def Add(a, b):
        return a + b

    N = 100000
    A = np.ones(N, dtype=np.float32)
    B = np.ones(A.shape, dtype=A.dtype)
    C = Add(A, B)

ufunc.add already has that loop (float32 + float32 -> float32, 'ff->f'); target= chooses where it
runs. Host arrays go in and a NumPy array comes out on every target: on cuda the call copies the
operands to the GPU and the result back.
"""

import numpy as np

import ufunc

Add = ufunc.add
assert "ff->f" in Add.types  # Numba's 'float32(float32, float32)'

N = 100000
A = np.ones(N, dtype=np.float32)
B = np.ones(A.shape, dtype=A.dtype)

targets = ["cpu"]
if "parallel" in ufunc.available_targets():
    targets.append("parallel")
if ufunc.cuda_available():
    targets.append("cuda")

for target in targets:
    C = np.asarray(Add(A, B, target=target))
    if C.dtype != np.float32 or C.shape != (N,) or not np.all(C == 2.0):
        raise SystemExit(f"vectorize_add: wrong result on target {target}: {C[:4]} ...")
    print(f"target {target:8}: C = Add(A, B) -> {C.dtype}{list(C.shape)}, C[:3] = {C[:3]}")

if not ufunc.cuda_available():
    print("target cuda    : skipped (this module has no CUDA target or sees no GPU)")
print(f"vectorize_add: OK, {N} float32 ones added on {', '.join(targets)}")

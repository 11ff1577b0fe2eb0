"""CuPy's cp.sin on a million random doubles, checked against NumPy.

The CuPy original::

    arr = np.random.rand(1_000_000)
    arr_gpu = cp.asarray(arr)
    result_gpu = cp.sin(arr_gpu)
    result = cp.asnumpy(result_gpu)
    print(np.allclose(result, np.sin(arr)))

ufunc.sin takes the CuPy array as it is (DLPack, no copy) and runs on the GPU; its result is a
ufunc.device_array that CuPy takes back without a copy (cp.from_dlpack). Without CuPy or a GPU
the same call runs on the host with NumPy arrays.
"""

import numpy as np

import ufunc

arr = np.random.default_rng(0).random(1_000_000)

result = ufunc.sin(arr)  # host: a NumPy array
ok = np.allclose(result, np.sin(arr))
print(f"host ({ufunc.get_target()}): np.allclose(ufunc.sin(arr), np.sin(arr)) = {ok}")

try:
    import cupy as cp
except ImportError:
    cp = None

if ufunc.cuda_available() and cp is not None:
    arr_gpu = cp.asarray(arr)
    result_gpu = cp.from_dlpack(ufunc.sin(arr_gpu))  # on the GPU, stays there
    gpu_ok = np.allclose(cp.asnumpy(result_gpu), np.sin(arr))
    print(f"cuda, CuPy arrays: np.allclose(cp.asnumpy(result_gpu), np.sin(arr)) = {gpu_ok}")
    ok = ok and gpu_ok
elif ufunc.cuda_available():
    result_gpu = ufunc.sin(ufunc.to_device(arr))  # no CuPy: ufunc's own device arrays
    gpu_ok = np.allclose(ufunc.to_host(result_gpu), np.sin(arr))
    print(f"cuda, ufunc.device_array (CuPy is not installed): allclose = {gpu_ok}")
    ok = ok and gpu_ok
else:
    print("cuda: skipped (this module has no CUDA target or sees no GPU)")

if not ok:
    raise SystemExit("sin: results differ from np.sin")
print("sin: OK, 1,000,000 doubles agree with np.sin")

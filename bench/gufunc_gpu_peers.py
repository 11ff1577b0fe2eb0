"""Peers of bench/gufunc_cuda_bench.cu on the GPU: CuPy and PyTorch on the same data (a stack
of 10^6 (3x3)@(3x3), vecdot of (10^6, 16) rows, a moving average over (10^5, 256) rows with a
window of 8 written with cumulative sums, as their users write it), writing into existing
outputs where the library allows. CSV columns as the bench: case,dtype,impl,target,seconds
(median of synchronized calls, the first call untimed).

    python3 bench/gufunc_gpu_peers.py
"""
import cupy

from gpu_timing import median_time

try:
    import torch
except ImportError:
    torch = None


def filled(xp, shape, dt):
    n = 1
    for s in shape:
        n *= s
    return ((xp.arange(n, dtype=xp.int64) * 7919) % 1000).astype(dt).reshape(shape) / 1000


def move_mean(xp, a, w, counts, out):
    c = xp.cumsum(a, 1)
    out[:, :w] = c[:, :w] / counts
    out[:, w:] = (c[:, w:] - c[:, :-w]) / w


print("case,dtype,impl,target,seconds")
cupy_sync = cupy.cuda.Device().synchronize
for name, dt in (("f32", "float32"), ("f64", "float64")):
    a, b = filled(cupy, (1000000, 3, 3), dt), filled(cupy, (1000000, 3, 3), dt)
    c = cupy.empty_like(a)
    x, y = filled(cupy, (1000000, 16), dt), filled(cupy, (1000000, 16), dt)
    m = filled(cupy, (100000, 256), dt)
    mm = cupy.empty_like(m)
    counts = cupy.arange(1, 9, dtype=dt)
    print(f"matmul_3x3,{name},cupy_matmul,cuda,{median_time(lambda: cupy.matmul(a, b, out=c), cupy_sync):.9g}")
    print(f"vecdot_16,{name},cupy_sum_of_products,cuda,{median_time(lambda: (x * y).sum(axis=1), cupy_sync):.9g}")
    print(f"vecdot_16,{name},cupy_einsum,cuda,{median_time(lambda: cupy.einsum('ij,ij->i', x, y), cupy_sync):.9g}")
    print(f"move_mean_256,{name},cupy_cumsum,cuda,{median_time(lambda: move_mean(cupy, m, 8, counts, mm), cupy_sync):.9g}")
    # One product of 512 x 512 matrices: cuBLAS for CuPy and PyTorch.
    big_a, big_b = filled(cupy, (512, 512), dt), filled(cupy, (512, 512), dt)
    big_c = cupy.empty_like(big_a)
    print(f"matmul_512,{name},cupy_matmul,cuda,{median_time(lambda: cupy.matmul(big_a, big_b, out=big_c), cupy_sync):.9g}")
    if torch is not None:
        tdt = getattr(torch, dt)
        ta, tb = torch.from_dlpack(a), torch.from_dlpack(b)
        tc = torch.empty_like(ta)
        tx, ty = torch.from_dlpack(x), torch.from_dlpack(y)
        td = torch.empty(1000000, dtype=tdt, device="cuda")
        tm = torch.from_dlpack(m)
        tmm = torch.empty_like(tm)
        tcounts = torch.from_dlpack(counts)
        sync = torch.cuda.synchronize
        print(f"matmul_3x3,{name},torch_bmm,cuda,{median_time(lambda: torch.bmm(ta, tb, out=tc), sync):.9g}")
        print(f"vecdot_16,{name},torch_linalg_vecdot,cuda,"
              f"{median_time(lambda: torch.linalg.vecdot(tx, ty, out=td), sync):.9g}")
        print(f"move_mean_256,{name},torch_cumsum,cuda,{median_time(lambda: move_mean(torch, tm, 8, tcounts, tmm), sync):.9g}")
        tba, tbb, tbc = torch.from_dlpack(big_a), torch.from_dlpack(big_b), torch.from_dlpack(big_c)
        print(f"matmul_512,{name},torch_matmul,cuda,{median_time(lambda: torch.matmul(tba, tbb, out=tbc), sync):.9g}")

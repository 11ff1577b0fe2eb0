"""Peers of bench/fuse_cuda_bench.cpp on the GPU: cupy.fuse, a hand-written CuPy
ElementwiseKernel and PyTorch eager on sqrt(a*a + b*b) and the Black-Scholes formula, float32
and float64, same sizes and CSV columns (expr,dtype,n,impl,seconds: median of synchronized
calls, the first call untimed).

    python3 bench/fuse_gpu_peers.py [log2 sizes...]      (default 20 24 28)
"""
import sys

import cupy

from gpu_timing import median_time

try:
    import torch
except ImportError:
    torch = None

A1, A2, A3, A4, A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
RSQRT2PI = 0.39894228040143267794
R, V = 0.02, 0.30



def cnd(xp, d):
    k = 1.0 / (1.0 + 0.2316419 * xp.abs(d))
    ret = RSQRT2PI * xp.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
    return xp.where(d > 0, 1.0 - ret, ret)


def black_scholes(xp, s, x, t, r, v):
    sqrt_t = xp.sqrt(t)
    d1 = (xp.log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    discount = xp.exp(-r * t)
    return s * cnd(xp, d1) - x * discount * cnd(xp, d2), x * discount * (1.0 - cnd(xp, d2)) - s * (1.0 - cnd(xp, d1))


@cupy.fuse()
def hyp_fused(a, b):
    return cupy.sqrt(a * a + b * b)


@cupy.fuse()
def bs_fused(s, x, t, r, v):
    return black_scholes(cupy, s, x, t, r, v)


hyp_kernel = cupy.ElementwiseKernel("T a, T b", "T z", "z = sqrt(a * a + b * b)", "hyp_kernel")
bs_kernel = cupy.ElementwiseKernel(
    "T s, T x, T t, T r, T v", "T call, T put",
    f"""
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + (T)0.5 * v * v) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;
    const T discount = exp(-r * t);
    T c[2]; const T d[2] = {{d1, d2}};
    for (int j = 0; j < 2; ++j) {{
      const T k = (T)1 / ((T)1 + (T)0.2316419 * fabs(d[j]));
      const T ret = (T){RSQRT2PI} * exp((T)-0.5 * d[j] * d[j]) *
                    (k * ((T){A1} + k * ((T){A2} + k * ((T){A3} + k * ((T){A4} + k * (T){A5})))));
      c[j] = d[j] > 0 ? (T)1 - ret : ret;
    }}
    call = s * c[0] - x * discount * c[1];
    put = x * discount * ((T)1 - c[1]) - s * ((T)1 - c[0]);
    """, "bs_kernel")


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [20, 24, 28]
    print("expr,dtype,n,impl,seconds")
    csync = cupy.cuda.Device().synchronize
    for log2 in sizes:
        n = 1 << log2
        reps = 11 if n >= 1 << 26 else 51
        for dt, name in ((cupy.float32, "f32"), (cupy.float64, "f64")):
            a = cupy.full(n, 1.25, dtype=dt)
            b = cupy.full(n, 2.5, dtype=dt)
            z = cupy.empty(n, dtype=dt)
            print(f"hyp,{name},{n},cupy_fuse,{median_time(lambda: hyp_fused(a, b), csync, reps):.9g}", flush=True)
            print(f"hyp,{name},{n},cupy_elementwise_kernel,{median_time(lambda: hyp_kernel(a, b, z), csync, reps):.9g}",
                  flush=True)
            del a, b, z
            s = cupy.full(n, 20.0, dtype=dt)
            x = cupy.full(n, 40.0, dtype=dt)
            t = cupy.full(n, 2.0, dtype=dt)
            c = cupy.empty(n, dtype=dt)
            p = cupy.empty(n, dtype=dt)
            r, v = dt(R), dt(V)
            print(f"black_scholes,{name},{n},cupy_fuse,"
                  f"{median_time(lambda: bs_fused(s, x, t, r, v), csync, reps):.9g}", flush=True)
            print(f"black_scholes,{name},{n},cupy_elementwise_kernel,"
                  f"{median_time(lambda: bs_kernel(s, x, t, r, v, c, p), csync, reps):.9g}", flush=True)
            del s, x, t, c, p
            cupy.get_default_memory_pool().free_all_blocks()
            if torch is None:
                continue
            tdt = torch.float32 if dt == cupy.float32 else torch.float64
            tsync = torch.cuda.synchronize
            ta = torch.full((n,), 1.25, dtype=tdt, device="cuda")
            tb = torch.full((n,), 2.5, dtype=tdt, device="cuda")
            print(f"hyp,{name},{n},torch_eager,{median_time(lambda: torch.sqrt(ta * ta + tb * tb), tsync, reps):.9g}",
                  flush=True)
            del ta, tb
            ts = torch.full((n,), 20.0, dtype=tdt, device="cuda")
            tx = torch.full((n,), 40.0, dtype=tdt, device="cuda")
            tt = torch.full((n,), 2.0, dtype=tdt, device="cuda")
            print(f"black_scholes,{name},{n},torch_eager,"
                  f"{median_time(lambda: black_scholes(torch, ts, tx, tt, R, V), tsync, reps):.9g}", flush=True)
            del ts, tx, tt
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

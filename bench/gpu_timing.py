"""Wall time of GPU calls as the peers' scripts measure them (fuse_gpu_peers.py,
gufunc_gpu_peers.py; bench/cuda_timing.hpp on the C++ side): each call followed by a
synchronize, the median of `reps`, the first call untimed."""
import time


def median_time(f, sync, reps=21):
    f()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        sync()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]

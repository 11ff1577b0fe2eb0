"""Writes the CUDA sources that ufunc's run-time kernels generate for bench/rtc_generated_probe.cu.

The generated code does not depend on the GPU, so this runs wherever the Python module is built
(no GPU needed); the probe then compiles it with nvcc on the GPU machine:

    python3 bench/rtc_generated_sources.py build/generated
    nvcc -O2 -std=c++20 -arch=sm_90 -Ibuild/generated bench/rtc_generated_probe.cu -lcuda -o probe

Each source is wrapped in its own namespace (and its extern "C" kernels made C++ ones) so that
one program holds all three: eadd (elementwise_kernel "z = x + y", float32), isum and fsum
(reduction_kernel "sum of x", int32 and float32).
"""
import pathlib
import sys

import numpy as np
import ufunc


def wrapped(namespace, source):
    return "namespace %s {\n%s\n}  // namespace %s\n" % (namespace, source.replace('extern "C" ', ""), namespace)


def main():
    folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/generated")
    folder.mkdir(parents=True, exist_ok=True)
    add = ufunc.elementwise_kernel("T x, T y", "T z", "z = x + y", "rtc_add")
    total = ufunc.reduction_kernel("T x", "T y", "x", "a + b", "y = a", "0", "rtc_sum")
    (folder / "gen_add.inc").write_text(wrapped("eadd", add.source([np.float32, np.float32])))
    (folder / "gen_isum.inc").write_text(wrapped("isum", total.source([np.int32])))
    (folder / "gen_fsum.inc").write_text(wrapped("fsum", total.source([np.float32])))
    print("wrote", folder / "gen_add.inc", folder / "gen_isum.inc", folder / "gen_fsum.inc")


if __name__ == "__main__":
    main()

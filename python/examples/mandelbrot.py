"""The Mandelbrot set of NVIDIA's Numba blog post, from ufuncs: a 1024x1536 uint8 image, 20 iterations.

The Numba original (one scalar function, called for every pixel)::

    @jit
    def mandel(x, y, max_iters):
        c = complex(x, y)
        z = 0.0j
        for i in range(max_iters):
            z = z*z + c
            if (z.real*z.real + z.imag*z.imag) >= 4:
                return i
        return 255

    image = np.zeros((1024, 1536), dtype=np.uint8)
    create_fractal(-2.0, 1.0, -1.0, 1.0, image, 20)

Here every pixel moves at once: c = x + 1j*y broadcasts a row of x against a column of y, and each
iteration is three calls whose where= mask freezes the points that have escaped. The same function
runs with NumPy (the check) and with ufunc, on the GPU too where there is one. The image is written
as a PGM file: python mandelbrot.py [path.pgm] (default: mandelbrot.pgm in the temp folder).
"""

import os
import sys
import tempfile
import time

import numpy as np

import ufunc


def mandel(x, y, max_iters):  # the blog's scalar function, for a few pixels
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return 255


def create_fractal(xp, x, y, iters, place=lambda a: a):
    """The image for a row x and a column y, with the ufuncs of module xp (numpy or ufunc).

    place moves the work arrays where x and y are (ufunc.to_device for the GPU)."""
    c = xp.add(x, xp.multiply(1j, y))  # (1, W) + (H, 1) -> (H, W) complex128
    z = place(np.zeros(c.shape, np.complex128))
    inside = place(np.ones(c.shape, bool))  # not escaped yet
    count = place(np.zeros(c.shape, np.uint8))  # iterations survived
    for _ in range(iters):
        xp.multiply(z, z, out=z, where=inside)  # z = z*z + c, where not escaped
        xp.add(z, c, out=z, where=inside)
        xp.logical_and(inside, xp.less(xp.absolute(z), 2.0), out=inside)
        xp.add(count, 1, out=count, where=inside)
    image = np.asarray(count)  # a copy to the host for device arrays
    image[np.asarray(inside)] = 255  # never escaped: in the set
    return image


height, width, iters = 1024, 1536, 20
min_x, max_x, min_y, max_y = -2.0, 1.0, -1.0, 1.0
x = min_x + np.arange(width)[np.newaxis, :] * ((max_x - min_x) / width)  # a row
y = min_y + np.arange(height)[:, np.newaxis] * ((max_y - min_y) / height)  # a column

start = time.perf_counter()
image = create_fractal(ufunc, x, y, iters)
elapsed = time.perf_counter() - start
print(f"ufunc ({ufunc.get_target()}): {image.dtype}{list(image.shape)} in {elapsed * 1e3:.0f} ms")

start = time.perf_counter()
reference = create_fractal(np, x, y, iters)
print(f"NumPy: the same function in {(time.perf_counter() - start) * 1e3:.0f} ms")
ok = np.array_equal(image, reference)

# A few pixels against the blog's scalar mandel: the corner escapes at once, (-1, 0) is in the set.
for i, j in [(0, 0), (height // 2, width // 3), (300, 700), (700, 1000), (height - 1, width - 1)]:
    ok = ok and image[i, j] == mandel(x[0, j], y[i, 0], iters)

if ufunc.cuda_available():
    start = time.perf_counter()
    gpu = create_fractal(ufunc, ufunc.to_device(x), ufunc.to_device(y), iters, place=ufunc.to_device)
    print(f"ufunc (cuda, device arrays): {(time.perf_counter() - start) * 1e3:.0f} ms, same image: "
          f"{np.array_equal(gpu, reference)}")
    ok = ok and np.array_equal(gpu, reference)
else:
    print("cuda: skipped (this module has no CUDA target or sees no GPU)")

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.gettempdir(), "mandelbrot.pgm")
with open(path, "wb") as f:
    f.write(b"P5\n%d %d\n255\n" % (width, height))
    f.write(image.tobytes())

if not ok:
    raise SystemExit("mandelbrot: the image differs from NumPy's or from mandel()")
print(f"mandelbrot: OK, {height}x{width} image written to {path}; it equals NumPy's and mandel()'s pixels")

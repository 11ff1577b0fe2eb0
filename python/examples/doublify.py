"""PyCUDA's doublify: a[idx] *= 2 on a 4x4 float32 array, in place.

The PyCUDA original::

    a = numpy.random.randn(4, 4).astype(numpy.float32)
    mod = SourceModule('''
      __global__ void doublify(float *a)
      {
        int idx = threadIdx.x + threadIdx.y*4;
        a[idx] *= 2;
      }''')
    func = mod.get_function("doublify")
    func(cuda.InOut(a), block=(4, 4, 1))

    a_gpu = gpuarray.to_gpu(a)           # or with gpuarray
    a_doubled = (2 * a_gpu).get()

On the host it is one in-place call, multiply(a, 2, out=a) (2 is a weak Python scalar, so the loop
stays float32). On the GPU: the same call on a device array, or the kernel body as a string with
ufunc.elementwise_kernel (CuPy's ElementwiseKernel), sized by the library instead of block=(4, 4, 1).
"""

import numpy as np

import ufunc

np.set_printoptions(precision=4, suppress=True)
a = np.random.default_rng(7).standard_normal((4, 4)).astype(np.float32)
before = a.copy()

ufunc.multiply(a, 2, out=a)  # in place, no new array
print("a after multiply(a, 2, out=a):")
print(a)
ok = a.dtype == np.float32 and np.array_equal(a, 2 * before)

if ufunc.cuda_available():
    # gpuarray.to_gpu(a); (2 * a_gpu).get()
    a_gpu = ufunc.to_device(before)
    a_doubled = ufunc.multiply(2, a_gpu).get()
    # SourceModule's doublify, in place on the device array
    doublify = ufunc.elementwise_kernel("float32 a", "float32 b", "b = a * 2", "doublify")
    doublify(a_gpu, a_gpu)
    a_gpu_doubled = ufunc.to_host(a_gpu)
    gpu_ok = np.array_equal(a_doubled, 2 * before) and np.array_equal(a_gpu_doubled, 2 * before)
    print(f"cuda: (2 * a_gpu).get() and doublify(a_gpu, a_gpu) in place agree with the host: {gpu_ok}")
    ok = ok and gpu_ok
else:
    print("cuda: skipped (this module has no CUDA target or sees no GPU)")

if not ok:
    raise SystemExit("doublify: a is not 2 * a")
print("doublify: OK, every element doubled in place")

"""ufunc: NumPy's universal functions on SIMD, multicore (TBB) and CUDA targets, from Python.

Every built-in ufunc is a module attribute with NumPy's name and call signature; arrays come in
without copies (NumPy arrays through their memory, CuPy/PyTorch/JAX arrays through DLPack or
``__cuda_array_interface__``), and results on the host are NumPy arrays over the library's buffer::

    import numpy as np, ufunc
    x = np.linspace(0, 1, 1_000_000, dtype=np.float32)
    y = ufunc.sin(x)                              # as np.sin(x), SIMD loops
    ufunc.add(x, y, out=x, target="parallel")     # every core
    ufunc.add.reduce(x)                           # NumPy's methods: reduce, accumulate, reduceat, outer, at
    with ufunc.errstate(divide="raise"):
        ufunc.divide(x, 0.0)                      # FloatingPointError

On the GPU (a CUDA build), device arrays stay on the device and results export DLPack::

    import cupy as cp
    r = ufunc.sin(cp.arange(10, dtype=cp.float32))   # runs on the GPU: a ufunc.device_array
    c = cp.from_dlpack(r)                            # no copy
"""

import contextlib as _contextlib

from . import _core
from ._core import (
    CacheError,
    CompileError,
    TargetError,
    UFuncCastingError,
    UFuncNoLoopError,
    as_numpy_ufunc,
    available_targets,
    cuda_available,
    device_array,
    elementwise_kernel,
    from_c_function,
    from_c_gufunc,
    fused,
    fusion_expr,
    get_target,
    geterr,
    geterrcall,
    gufunc,
    reduction_kernel,
    seterr,
    seterrcall,
    set_target,
    simd_arch,
    to_device,
    to_host,
    ufunc,
)

__version__ = "0.1.0"

# NumPy's aliases of the built-ins, as numpy has them.
_ALIASES = {
    "abs": "absolute",
    "conj": "conjugate",
    "mod": "remainder",
    "true_divide": "divide",
    "bitwise_not": "invert",
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atanh": "arctanh",
    "atan2": "arctan2",
    "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
    "pow": "power",
    "bitwise_invert": "invert",
}

_builtins = {name: _core.builtin(name) for name in _core.builtin_names()}
_builtins.update(_core.builtin_gufuncs())
for _alias, _name in _ALIASES.items():
    if _name in _builtins and _alias not in _builtins:
        _builtins[_alias] = _builtins[_name]
globals().update(_builtins)

#: The names of every built-in ufunc and gufunc (aliases included).
ufunc_names = sorted(_builtins)


def fuse(function=None, *, kernel_name=None):
    """A chain of ufunc calls as one ufunc run in one pass, as ``cupy.fuse``::

        @ufunc.fuse
        def hyp(x, y):
            return ufunc.sqrt(x * x + y * y)

        hyp(a, b)                                 # traced once per input dtypes; out=, where=, target= as any call
        hyp.explain([np.float32, np.float32])     # the nodes and their loops

    Inside, the arguments are symbolic: ufuncs, the operators and Python scalars (weak, as in a call) make the
    graph; a ``ufunc.add.reduce(...)`` may end it. Results equal the calls made one by one (``call_unfused``).
    """
    import inspect

    def make(f):
        params = inspect.signature(f).parameters.values()
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in params):
            raise TypeError("ufunc.fuse: the function takes positional arguments only (one per input)")
        nin = len(params)
        return fused(f, nin, kernel_name or getattr(f, "__name__", "fused"))

    return make if function is None else make(function)


def from_cfunc(cfunc, name=None, identity=None):
    """A ufunc over a Numba ``@cfunc`` (cpu and parallel targets), as Numba's ``@vectorize`` makes one::

        @numba.cfunc("float64(float64, float64)")
        def rel_diff(x, y):
            return 2 * (x - y) / (x + y)

        f = ufunc.from_cfunc(rel_diff)
        f(a, b, target="parallel")                    # broadcasting, out=, where=, reduce, ... as any ufunc
    """
    sig = cfunc._sig
    signature = f"{sig.return_type}({', '.join(str(a) for a in sig.args)})"
    return from_c_function(cfunc.address, signature, name or cfunc.__name__, identity, cfunc)


@_contextlib.contextmanager
def errstate(*, call=None, all=None, divide=None, over=None, under=None, invalid=None):
    """Floating-point error policies for a block, as numpy.errstate (the calling thread's)::

    with ufunc.errstate(divide="ignore", invalid="raise"):
        ...
    """
    old = seterr(all=all, divide=divide, over=over, under=under, invalid=invalid)
    old_call = seterrcall(call) if call is not None else None
    try:
        yield
    finally:
        seterr(**old)
        if call is not None:
            seterrcall(old_call)


__all__ = [
    "CacheError",
    "CompileError",
    "TargetError",
    "UFuncCastingError",
    "UFuncNoLoopError",
    "as_numpy_ufunc",
    "available_targets",
    "cuda_available",
    "device_array",
    "elementwise_kernel",
    "errstate",
    "from_c_function",
    "from_c_gufunc",
    "fuse",
    "fused",
    "fusion_expr",
    "from_cfunc",
    "get_target",
    "geterr",
    "geterrcall",
    "gufunc",
    "reduction_kernel",
    "seterr",
    "seterrcall",
    "set_target",
    "simd_arch",
    "to_device",
    "to_host",
    "ufunc",
    *ufunc_names,
]

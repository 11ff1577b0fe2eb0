"""Targets: 'parallel' gives NumPy's results where the build has it and raises ufunc.TargetError where
not; 'cuda' raises TargetError without a GPU; set_target/get_target/available_targets; the module's
attributes as NumPy's."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ufunc
from numpy_oracle import CANONICAL, assert_reduction_close, np_ufunc

HAS_PARALLEL = "parallel" in ufunc.available_targets()
LARGE = 1 << 18


def _large_calls(target):
    """Results of calls large enough to be split among threads, on `target`."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-4, 4, LARGE)
    y = rng.uniform(0.5, 2, LARGE)
    m = x.reshape(512, 512)
    i = rng.integers(-1000, 1000, LARGE)
    acc = np.zeros(1000)
    ufunc.add.at(acc, np.abs(i) % 1000, 1.0, target=target)
    return {
        "sin": ufunc.sin(x, target=target),
        "divide": ufunc.divide(x, y, target=target),
        "power": ufunc.power(y, x, target=target),
        "strided": ufunc.multiply(m.T, m[::-1], target=target),
        "int": ufunc.bitwise_xor(i, i[::-1], target=target),
        "where": ufunc.add(x, 1.0, out=np.zeros(LARGE), where=x > 0, target=target),
        "maximum.reduce": ufunc.maximum.reduce(m, axis=0, target=target),
        "add.reduce": ufunc.add.reduce(m, axis=1, target=target),
        "add.reduce all": ufunc.add.reduce(x, target=target),
        "accumulate": ufunc.add.accumulate(i, target=target),
        "outer": ufunc.multiply.outer(x[:512], y[:512], target=target),
        "at": acc,
    }


def _numpy_large():
    rng = np.random.default_rng(11)
    x = rng.uniform(-4, 4, LARGE)
    y = rng.uniform(0.5, 2, LARGE)
    m = x.reshape(512, 512)
    i = rng.integers(-1000, 1000, LARGE)
    acc = np.zeros(1000)
    np.add.at(acc, np.abs(i) % 1000, 1.0)
    out = np.zeros(LARGE)
    np.add(x, 1.0, out=out, where=x > 0)
    return {
        "sin": np.sin(x), "divide": np.divide(x, y), "power": np.power(y, x), "strided": np.multiply(m.T, m[::-1]),
        "int": np.bitwise_xor(i, i[::-1]), "where": out, "maximum.reduce": np.maximum.reduce(m, axis=0),
        "add.reduce": np.add.reduce(m, axis=1), "add.reduce all": np.add.reduce(x),
        "accumulate": np.add.accumulate(i), "outer": np.multiply.outer(x[:512], y[:512]), "at": acc,
    }, x, m


def _check_large(results):
    want, x, m = _numpy_large()
    for key, w in want.items():
        g = results[key]
        if key == "add.reduce":
            assert_reduction_close(g, w, "d", 512, np.add.reduce(np.abs(m), axis=1), key)
        elif key == "add.reduce all":
            assert_reduction_close(g, w, "d", LARGE, np.add.reduce(np.abs(x)), key)
        elif key in ("sin", "power"):
            np.testing.assert_array_max_ulp(g, w, maxulp=4)
        else:
            np.testing.assert_array_equal(g, w, err_msg=key)


def test_cpu_target_against_numpy():
    assert "cpu" in ufunc.available_targets()
    _check_large(_large_calls("cpu"))


def test_parallel_target():
    if HAS_PARALLEL:
        results = _large_calls("parallel")
        _check_large(results)
        # The same loops as cpu: elementwise results bit for bit.
        cpu = _large_calls("cpu")
        for key in ("sin", "divide", "power", "strided", "int", "where", "maximum.reduce", "accumulate", "outer",
                    "at"):
            np.testing.assert_array_equal(results[key], cpu[key], err_msg=key)
    else:
        with pytest.raises(ufunc.TargetError, match="parallel"):
            ufunc.add(np.ones(3), 1, target="parallel")
        with pytest.raises(ufunc.TargetError, match="parallel"):
            ufunc.add.reduce(np.ones(3), target="parallel")
        with pytest.raises(ufunc.TargetError, match="parallel"):
            ufunc.set_target("parallel")


def test_cuda_target_without_a_gpu():
    if ufunc.cuda_available():
        assert "cuda" in ufunc.available_targets()
        return  # test_gpu.py
    assert "cuda" not in ufunc.available_targets()
    with pytest.raises(ufunc.TargetError, match="cuda"):
        ufunc.sin(np.ones(3), target="cuda")
    with pytest.raises(ufunc.TargetError, match="cuda"):
        ufunc.add.reduce(np.ones(3), target="cuda")
    with pytest.raises(ufunc.TargetError):
        ufunc.set_target("cuda")
    with pytest.raises(ufunc.TargetError):
        ufunc.to_device(np.ones(3))
    kernel = ufunc.elementwise_kernel("T x, T y", "T z", "z = x + y", "add_kernel")
    assert (kernel.nin, kernel.nout) == (2, 1)
    assert "x + y" in kernel.source([np.float32, np.float32])  # made and printed without a GPU
    with pytest.raises(ufunc.TargetError):
        kernel(np.ones(3, np.float32), np.ones(3, np.float32))
    # Raw parameters are arguments too: nin and nout count them, as CuPy's do.
    scatter = ufunc.elementwise_kernel("T x, raw T table", "raw T y", "y[i] = x + table[0]", "scatter")
    assert (scatter.nin, scatter.nout) == (2, 1)
    with pytest.raises(ValueError, match="output y is raw; pass every output with out="):
        scatter(np.ones(3, np.float32), np.ones(1, np.float32))
    with pytest.raises(ufunc.TargetError):
        scatter(np.ones(3, np.float32), np.ones(1, np.float32), np.zeros(3, np.float32))
    reduction = ufunc.reduction_kernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2")
    assert "a + b" in reduction.source([np.float32])
    with pytest.raises(ufunc.TargetError):
        reduction(np.ones(3, np.float32))


def test_set_and_get_target():
    targets = ufunc.available_targets()
    assert ufunc.get_target() in targets + ["automatic"]
    previous = ufunc.set_target("cpu")
    assert ufunc.get_target() == "cpu"
    assert ufunc.set_target(previous) == "cpu"
    for t in targets:
        ufunc.set_target(t)
        assert ufunc.get_target() == t
        np.testing.assert_array_equal(ufunc.add(np.arange(5), 1), np.arange(1, 6))
    ufunc.set_target("automatic")
    assert ufunc.get_target() == "automatic"
    np.testing.assert_array_equal(ufunc.add(np.arange(5.0), 1), np.arange(1.0, 6.0))
    assert ufunc.set_target(None) == "automatic"
    with pytest.raises(ufunc.TargetError, match="unknown target"):
        ufunc.set_target("gpu")
    with pytest.raises(ufunc.TargetError, match="unknown target"):
        ufunc.add(np.ones(2), 1, target="gpu")


def test_default_target_from_the_environment():
    """UFUNC_TARGET sets the default of a process (the build's UFUNC_DEFAULT_TARGET otherwise)."""
    code = "import ufunc; print(ufunc.get_target())"
    env = dict(os.environ, UFUNC_TARGET="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "cpu"


def test_module_attributes_as_numpy():
    for name in CANONICAL:
        f, g = getattr(ufunc, name), np_ufunc(name)
        for attribute in ("nin", "nout", "nargs", "identity", "signature", "__name__"):
            mine, theirs = getattr(f, attribute), getattr(g, attribute)
            assert mine == theirs or (mine != mine and theirs != theirs), (name, attribute, mine, theirs)
            assert type(mine) is type(theirs), (name, attribute)
        assert f.ntypes == len(f.types) > 0
        assert repr(f) == repr(g)
        assert f.__doc__.startswith(name + "(")
        # Every loop is NumPy's (its char codes, with int64 as 'l'), bfloat16's aside.
        numpy_types = {t.replace("q", "l").replace("Q", "L") for t in g.types}
        extra = [t for t in f.types if t not in numpy_types and "E" not in t]
        assert extra == [], (name, extra)


def test_aliases_are_numpys():
    aliases = {n for n in ufunc.ufunc_names if getattr(ufunc, n).__name__ != n}
    assert aliases == {"abs", "conj", "mod", "true_divide", "bitwise_not", "acos", "acosh", "asin", "asinh", "atan",
                       "atan2", "atanh", "bitwise_left_shift", "bitwise_right_shift", "pow", "bitwise_invert"}
    for alias in aliases:
        assert getattr(ufunc, alias) is getattr(ufunc, getattr(np, alias).__name__)
        assert getattr(ufunc, alias).__name__ == getattr(np, alias).__name__
    assert set(ufunc.ufunc_names) <= set(ufunc.__all__)


def test_resolve_dtypes_as_numpy():
    d = np.dtype
    for name, dtypes in (("add", (d("f4"), d("i8"), None)), ("add", (d("i1"), d("i1"), None)),
                         ("sin", (d("i2"), None)), ("divmod", (d("f4"), d("f4"), None, None)),
                         ("equal", (d("i8"), d("u8"), None)), ("ldexp", (d("f2"), d("i4"), None)),
                         ("absolute", (d("c8"), None))):
        assert getattr(ufunc, name).resolve_dtypes(dtypes) == np_ufunc(name).resolve_dtypes(dtypes), name


def test_to_host_of_a_host_array():
    a = np.arange(5.0)
    r = ufunc.to_host(a)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, a)


def test_both_calling_conventions():
    """A ufunc is called through vectorcall (Python's calls) and through tp_call (``__call__`` looked up on the
    type, or the C API's PyObject_Call): the same arguments, the same results."""
    x = np.arange(6.0).reshape(2, 3)
    out_v, out_t = np.empty((2, 3)), np.empty((2, 3))
    assert ufunc.add(x, 1.5, out=out_v) is out_v
    assert type(ufunc.add).__call__(ufunc.add, x, 1.5, out=out_t) is out_t
    np.testing.assert_array_equal(out_v, out_t)
    np.testing.assert_array_equal(type(ufunc.divmod).__call__(ufunc.divmod, np.arange(5), 2)[1], np.arange(5) % 2)
    with pytest.raises(TypeError, match="invalid keyword"):
        type(ufunc.add).__call__(ufunc.add, x, x, bogus=1)

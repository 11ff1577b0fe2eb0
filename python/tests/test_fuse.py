"""ufunc.fuse: Python functions of ufunc calls traced and run as one pass, equal to the same calls one by one
(bit for bit on the host) and to NumPy's."""

import numpy as np
import pytest

import ufunc


@ufunc.fuse
def hyp(x, y):
    return ufunc.sqrt(x * x + y * y)


@ufunc.fuse(kernel_name="black_scholes_like")
def black_scholes_like(s, k, t):
    d1 = (ufunc.log(s / k) + (0.02 + 0.5 * 0.3 * 0.3) * t) / (0.3 * ufunc.sqrt(t))
    return s * ufunc.exp(-d1 * d1 / 2) - k * ufunc.exp(-0.02 * t)


def test_fused_equals_the_calls_one_by_one_and_numpy(rng):
    for dtype in (np.float32, np.float64):
        a = rng.standard_normal(1000).astype(dtype)
        b = rng.standard_normal((3, 1)).astype(dtype)[:, :1]
        r = hyp(a, b)
        assert r.dtype == dtype and r.shape == (3, 1000)
        np.testing.assert_array_equal(r, hyp.call_unfused(a, b))
        np.testing.assert_allclose(r, np.sqrt(a * a + b * b), rtol=4 * np.finfo(dtype).eps)
    s, k, t = (rng.uniform(1, 2, 500) for _ in range(3))
    np.testing.assert_array_equal(black_scholes_like(s, k, t), black_scholes_like.call_unfused(s, k, t))
    d1 = (np.log(s / k) + (0.02 + 0.5 * 0.3 * 0.3) * t) / (0.3 * np.sqrt(t))
    # a difference of two terms near 1: bounded in absolute terms
    np.testing.assert_allclose(black_scholes_like(s, k, t), s * np.exp(-d1 * d1 / 2) - k * np.exp(-0.02 * t),
                               rtol=1e-13, atol=1e-14)


def test_traced_once_per_input_dtypes():
    @ufunc.fuse
    def axpy(a, x, y):
        return a * x + y

    x = np.arange(10, dtype=np.float32)
    axpy(2.5, x, x)
    axpy(3.5, x, x)  # another value of the same kind: no new trace
    assert axpy.traces == 1
    assert axpy(2.5, x, x).dtype == np.float32  # the Python scalar is weak, as in a call
    axpy(2.5, x.astype(np.float64), x)
    assert axpy.traces == 2
    np.testing.assert_array_equal(axpy(2, np.arange(5), np.arange(5)), 2 * np.arange(5) + np.arange(5))


def test_scalar_arithmetic_of_weak_arguments_stays_weak(rng):
    # r * 2.0 on a Python float is a Python float in NumPy, weak beside float32; an integer
    # stays int64 (NumPy checks a Python int's value against the array's dtype: a trace knows no value).
    scale = ufunc.fuse(lambda a, r: a * (r * 2.0))
    a = rng.standard_normal(100).astype(np.float32)
    got = scale(a, 0.5)
    assert got.dtype == np.float32 == (a * (0.5 * 2.0)).dtype
    np.testing.assert_array_equal(got, scale.call_unfused(a, 0.5))
    np.testing.assert_array_equal(got, a * np.float32(1.0))

    @ufunc.fuse
    def drift(r, v, t):
        return (r + 0.5 * v * v) * t

    t = rng.uniform(0.25, 5, 1000).astype(np.float32)
    assert drift(0.02, 0.3, t).dtype == np.float32
    np.testing.assert_array_equal(drift(0.02, 0.3, t), drift.call_unfused(0.02, 0.3, t))
    np.testing.assert_allclose(drift(0.02, 0.3, t), (0.02 + 0.5 * 0.3 * 0.3) * t, rtol=np.finfo(np.float32).eps)
    assert scale(a, 1j).dtype == np.complex64
    i8 = np.arange(10, dtype=np.int8)
    assert ufunc.fuse(lambda n, x: (n + 3) * x)(2, i8).dtype == np.int64


def test_several_outputs_and_operators():
    @ufunc.fuse
    def parts(x, y):
        return x // y, x % y, -x, abs(x - y), (x < y) | (x == y), ~(x & 3) ^ 1

    x = np.arange(-6, 6)
    y = np.array([3, 4, 5] * 4)
    got = parts(x, y)
    want = (x // y, x % y, -x, np.abs(x - y), (x < y) | (x == y), ~(x & 3) ^ 1)
    assert len(got) == 6
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_a_reduction_ends_the_function(rng):
    @ufunc.fuse
    def dot(x, y):
        return ufunc.add.reduce(x * y)

    @ufunc.fuse
    def row_max(x):
        return ufunc.maximum.reduce(x + 1, axis=1, keepdims=True)

    a, b = rng.standard_normal(1000), rng.standard_normal(1000)
    assert dot(a, b) == ufunc.add.reduce(ufunc.multiply(a, b))
    m = rng.standard_normal((4, 5))
    np.testing.assert_array_equal(row_max(m), np.maximum.reduce(m + 1, axis=1, keepdims=True))


def test_out_where_and_target(rng):
    a, b = rng.standard_normal(100), rng.standard_normal(100)
    out = np.full(100, -1.0)
    mask = a > 0
    assert hyp(a, b, out=out, where=mask) is out
    np.testing.assert_array_equal(out, np.where(mask, np.sqrt(a * a + b * b), -1.0))
    big = rng.standard_normal(1 << 16)
    if "parallel" in ufunc.available_targets():
        np.testing.assert_array_equal(hyp(big, big, target="parallel"), hyp(big, big))
    else:
        with pytest.raises(ufunc.TargetError):
            hyp(big, big, target="parallel")


def test_explain_names_the_nodes():
    text = hyp.explain([np.float32, np.float32])
    assert "multiply" in text and "add" in text and "sqrt" in text and "ff->f" in text


def test_what_cannot_be_traced():
    with pytest.raises(TypeError):  # NumPy's own functions compute; inside a fused function only ufunc's trace

        @ufunc.fuse
        def uses_numpy(x):
            return np.sin(x)

    with pytest.raises(ValueError, match="constant"):

        @ufunc.fuse
        def constant(x):
            return 1.0

    with pytest.raises(ValueError, match="keywords"):

        @ufunc.fuse
        def with_keywords(x):
            return ufunc.add(x, 1, dtype=np.float32)

    with pytest.raises(TypeError, match="truth value"):

        @ufunc.fuse
        def branches(x):
            return x if x > 0 else -x

    with pytest.raises(TypeError, match="positional"):
        ufunc.fuse(lambda *xs: xs[0])

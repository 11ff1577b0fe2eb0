"""Python threads calling ufuncs at once on large arrays (2^17 elements: the calls release the GIL)
get the right results, and floating-point error state is per thread."""

import threading

import numpy as np

import ufunc

N = 1 << 17
THREADS = 4


def _run_threads(worker, n=THREADS):
    errors = []

    def guarded(i):
        try:
            worker(i)
        except BaseException as e:  # reported in the main thread
            errors.append((i, e))

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0][1]


def test_concurrent_calls_give_the_right_results():
    rng = np.random.default_rng(5)
    inputs = [rng.uniform(-5, 5, N) for _ in range(THREADS)]
    # References from the calling thread alone (the same loops: bit for bit), checked against NumPy.
    expected = []
    for x in inputs:
        e = (ufunc.sin(x), ufunc.add(x, x[::-1]), ufunc.multiply.reduce(x.reshape(256, -1), axis=1),
             ufunc.add.accumulate(x[: 1 << 16]), ufunc.exp(x.astype(np.float32)))
        np.testing.assert_array_max_ulp(e[0], np.sin(x), maxulp=4)
        np.testing.assert_array_equal(e[1], x + x[::-1])
        expected.append(e)
    barrier = threading.Barrier(THREADS)

    def worker(i):
        x = inputs[i]
        out = np.empty(N)
        barrier.wait()
        for _ in range(5):
            np.testing.assert_array_equal(ufunc.sin(x), expected[i][0])
            assert ufunc.add(x, x[::-1], out=out) is out
            np.testing.assert_array_equal(out, expected[i][1])
            np.testing.assert_array_equal(ufunc.multiply.reduce(x.reshape(256, -1), axis=1), expected[i][2])
            np.testing.assert_array_equal(ufunc.add.accumulate(x[: 1 << 16]), expected[i][3])
            np.testing.assert_array_equal(ufunc.exp(x.astype(np.float32)), expected[i][4])

    _run_threads(worker)


def test_shared_input_distinct_outputs():
    x = np.linspace(0, 1, N)
    outs = [np.empty(N) for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)

    def worker(i):
        barrier.wait()
        for _ in range(10):
            ufunc.multiply(x, float(i + 1), out=outs[i])
            ufunc.add.at(outs[i], np.arange(0, N, 7), 1.0)

    _run_threads(worker)
    for i, out in enumerate(outs):
        expected = x * (i + 1)
        expected[::7] += 1.0
        np.testing.assert_array_equal(out, expected)


def test_concurrent_targets():
    """Threads on every host target at once (parallel where the build has it)."""
    targets = [t for t in ufunc.available_targets() if t != "cuda"]
    x = np.linspace(-1, 1, N)
    expected = ufunc.tanh(x, target="cpu")

    def worker(i):
        target = targets[i % len(targets)]
        for _ in range(5):
            np.testing.assert_array_equal(ufunc.tanh(x, target=target), expected)
            assert ufunc.add.reduce(np.ones(N), target=target) == N

    _run_threads(worker)


def test_errstate_is_per_thread():
    barrier = threading.Barrier(2)
    seen = {}

    def raising(_):
        with ufunc.errstate(divide="raise"):
            barrier.wait()  # both threads have set their state
            try:
                ufunc.divide(np.ones(N), 0.0)
                seen["raising"] = "no error"
            except FloatingPointError:
                seen["raising"] = "raised"
            barrier.wait()
            seen["raising state"] = ufunc.geterr()["divide"]

    def ignoring(_):
        with ufunc.errstate(divide="ignore"):
            barrier.wait()
            r = ufunc.divide(np.ones(N), 0.0)
            seen["ignoring"] = "inf" if np.isinf(r).all() else "wrong"
            barrier.wait()
            seen["ignoring state"] = ufunc.geterr()["divide"]

    _run_threads(lambda i: (raising, ignoring)[i](i), n=2)
    assert seen == {"raising": "raised", "ignoring": "inf", "raising state": "raise", "ignoring state": "ignore"}
    assert ufunc.geterr()["divide"] == "warn"  # the main thread's, untouched


def test_new_threads_start_with_numpys_defaults():
    ufunc.seterr(all="raise")
    got = []
    t = threading.Thread(target=lambda: got.append(ufunc.geterr()))
    t.start()
    t.join()
    assert got == [{"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}]
    assert ufunc.geterr() == dict.fromkeys(["divide", "over", "under", "invalid"], "raise")


def test_errcall_is_per_thread():
    calls = {0: [], 1: []}
    barrier = threading.Barrier(2)

    def worker(i):
        with ufunc.errstate(all="call", call=lambda kind, flag: calls[i].append(kind)):
            barrier.wait()
            if i == 0:
                ufunc.divide(np.ones(N), 0.0)
            else:
                ufunc.sqrt(-np.ones(N))
            barrier.wait()

    _run_threads(worker, n=2)
    assert calls == {0: ["divide by zero"], 1: ["invalid value"]}

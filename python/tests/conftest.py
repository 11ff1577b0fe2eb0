"""The ufunc module's tests: NumPy (and ml_dtypes for bfloat16) as the oracle.

Run as the ctest test numpy_differential.python:
    python -m pytest -q -p no:cacheprovider python/tests      (PYTHONPATH=<build>/python)
"""

import zlib

import numpy as np
import pytest

import ufunc


@pytest.fixture(autouse=True)
def _restore_module_state():
    """Every test starts and ends with the module's defaults: error policies, callback, target."""
    errors = ufunc.geterr()
    call = ufunc.geterrcall()
    target = ufunc.set_target(None)
    ufunc.set_target(target)
    np_errors = np.geterr()
    yield
    ufunc.seterr(**errors)
    ufunc.seterrcall(call)
    ufunc.set_target(target)
    np.seterr(**np_errors)


@pytest.fixture
def rng(request):
    """A generator seeded by the test's name: each test draws the same inputs on every run."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def pytest_report_header(config):
    return (
        f"ufunc {ufunc.__version__}: targets {ufunc.available_targets()}, default {ufunc.get_target()}, "
        f"SIMD {ufunc.simd_arch()}, CUDA {ufunc.cuda_available()}; NumPy {np.__version__}"
    )

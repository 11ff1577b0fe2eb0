#!/usr/bin/env python3
"""ufunc::float16 and ufunc::bfloat16 against their oracles, bit for bit: NumPy's float16 and
ml_dtypes' bfloat16. Every one of the 65,536 patterns of each to float32 (and float16 to
float64); float32 and float64 values to each: every float32 sign, exponent and top fraction
bits with the dropped bits at and around each rounding tie, the subnormal binary16 range
densely, specials (zeros, subnormals, the largest finite values, infinities, NaN payloads),
and random patterns.

    check_half_conversions.py <half_conversions executable> [--every-float]

--every-float also converts all 2^32 float32 patterns to float16 and bfloat16 (in chunks; a
minute or two, not part of the suite).

Exits 0 when everything agrees, 1 with the first differences listed, 77 (skipped) never:
the oracle is required (NumPy >= 2 and ml_dtypes in the tests' Python)."""
import subprocess
import sys

import ml_dtypes
import numpy as np


def float_samples(rng):
    top = np.arange(1 << 19, dtype=np.uint32) << 13                 # sign, exponent, 10 fraction bits
    low = np.array([0, 1, 0x0FFF, 0x1000, 0x1001, 0x1FFF], dtype=np.uint32)
    ties16 = (np.arange(1 << 16, dtype=np.uint32) << 16)[:, None] | np.array(
        [0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)  # bfloat16's ties
    # The binary16 subnormal range (float exponents 101..113), every fraction of 1 in 31.
    sub = []
    for e in range(101, 114):
        for sign in (0, 1):
            sub.append((np.uint32(sign << 31) | np.uint32(e << 23)) | np.arange(0, 1 << 23, 31, dtype=np.uint32))
    special = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7F800001,
                        0x7FC00000, 0xFFC00000, 0x7F802000, 0x7F801FFF, 0x7FFFFFFF, 0xFF800001, 0x477FE000,
                        0x477FEFFF, 0x477FF000, 0x477FF001, 0x38800000, 0x387FFFFF, 0x33000000, 0x33000001,
                        0x32FFFFFF, 0x33800000], dtype=np.uint32)
    rand = rng.integers(0, 1 << 32, size=1 << 22, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([(top[:, None] | low).ravel(), ties16.ravel(), *sub, special, rand])


def double_samples(rng):
    # Sign, exponents around binary16's range (990..1040) and 10 fraction bits, the 42 dropped
    # bits at and around the tie; then the same below the binary16 normals (other shifts).
    top = ((np.arange(2, dtype=np.uint64)[:, None, None] << 63) | (np.arange(990, 1041, dtype=np.uint64)[None, :, None] << 52)
           | (np.arange(1 << 10, dtype=np.uint64)[None, None, :] << 42)).ravel()
    tie = np.uint64(1 << 41)
    low = np.array([0, 1, tie - np.uint64(1), tie, tie + np.uint64(1), (1 << 42) - 1], dtype=np.uint64)
    special = np.array([0, 1 << 63, 1, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000,
                        0x7FF0000000000001, 0x7FF8000000000000, 0x7FF0040000000000, 0x7FF003FFFFFFFFFF,
                        0x40EFFC0000000000, 0x40EFFDFFFFFFFFFF, 0x40EFFE0000000000, 0x3E60000000000000,
                        0x3E60000000000001, 0x3E5FFFFFFFFFFFFF, 0x3F10000000000000, 0x3F0FFFFFFFFFFFFF,
                        0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x3FD5555555555555], dtype=np.uint64)
    rand = rng.integers(0, np.iinfo(np.uint64).max, size=1 << 21, dtype=np.uint64, endpoint=True)
    # Doubles that are bfloat16 ties after rounding to float (ml_dtypes goes through float).
    with np.errstate(invalid="ignore"):
        near = (rng.integers(0, 1 << 32, size=1 << 18, dtype=np.uint64).astype(np.uint32).view(np.float32)
                .astype(np.float64).view(np.uint64) ^ rng.integers(0, 1 << 29, size=1 << 18, dtype=np.uint64))
    return np.concatenate([(top[:, None] | low).ravel(), special, rand, near])


def compare(name, ours, theirs, inputs, width):
    bad = np.nonzero(ours != theirs)[0]
    if bad.size == 0:
        print(f"{name}: {ours.size} values, all equal")
        return True
    print(f"{name}: {bad.size} of {ours.size} differ; first ones (input -> ours, oracle):")
    for i in bad[:10]:
        print(f"  0x{int(inputs[i]):0{width}x} -> 0x{int(ours[i]):x}, 0x{int(theirs[i]):x}")
    return False


def main():
    rng = np.random.default_rng(20261127)
    floats, doubles = float_samples(rng), double_samples(rng)
    payload = np.array([floats.size, doubles.size], dtype=np.uint64).tobytes() + floats.tobytes() + doubles.tobytes()
    out = subprocess.run([sys.argv[1]], input=payload, stdout=subprocess.PIPE, check=True).stdout
    pos = 0

    def take(dtype, n):
        nonlocal pos
        a = np.frombuffer(out, dtype=dtype, count=n, offset=pos)
        pos += a.nbytes
        return a

    h2f, h2d, b2f = take(np.uint32, 65536), take(np.uint64, 65536), take(np.uint32, 65536)
    f2h, f2b = take(np.uint16, floats.size), take(np.uint16, floats.size)
    d2h, d2b = take(np.uint16, doubles.size), take(np.uint16, doubles.size)
    if pos != len(out):
        print(f"half_conversions wrote {len(out)} bytes, expected {pos}")
        return 1
    every = np.arange(65536, dtype=np.uint16)
    with np.errstate(all="ignore"):
        ok = all([
            compare("float16 -> float32 (NumPy)", h2f, every.view(np.float16).astype(np.float32).view(np.uint32), every, 4),
            compare("float16 -> float64 (NumPy)", h2d, every.view(np.float16).astype(np.float64).view(np.uint64), every, 4),
            compare("bfloat16 -> float32 (ml_dtypes)", b2f,
                    every.view(ml_dtypes.bfloat16).astype(np.float32).view(np.uint32), every, 4),
            compare("float32 -> float16 (NumPy)", f2h, floats.view(np.float32).astype(np.float16).view(np.uint16), floats, 8),
            compare("float32 -> bfloat16 (ml_dtypes)", f2b,
                    floats.view(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16), floats, 8),
            compare("float64 -> float16 (NumPy)", d2h, doubles.view(np.float64).astype(np.float16).view(np.uint16),
                    doubles, 16),
            compare("float64 -> bfloat16 (ml_dtypes)", d2b,
                    doubles.view(np.float64).astype(ml_dtypes.bfloat16).view(np.uint16), doubles, 16),
        ])
    if ok and "--every-float" in sys.argv:
        for start in range(0, 1 << 32, 1 << 25):
            chunk = np.arange(start, start + (1 << 25), dtype=np.uint64).astype(np.uint32)
            head = np.array([chunk.size, 0], dtype=np.uint64).tobytes()
            res = subprocess.run([sys.argv[1]], input=head + chunk.tobytes(), stdout=subprocess.PIPE, check=True).stdout
            skip = 65536 * (4 + 8 + 4)
            ours_h = np.frombuffer(res, dtype=np.uint16, count=chunk.size, offset=skip)
            ours_b = np.frombuffer(res, dtype=np.uint16, count=chunk.size, offset=skip + 2 * chunk.size)
            with np.errstate(all="ignore"):
                f = chunk.view(np.float32)
                ok &= compare(f"every float32 from 0x{start:08x} -> float16", ours_h, f.astype(np.float16).view(np.uint16),
                              chunk, 8)
                ok &= compare(f"every float32 from 0x{start:08x} -> bfloat16", ours_b,
                              f.astype(ml_dtypes.bfloat16).view(np.uint16), chunk, 8)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

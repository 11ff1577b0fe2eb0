#!/usr/bin/env python3
"""The float16 and bfloat16 loops of the built-in ufuncs, and the casts to and from both types,
against their oracles: NumPy's float16 and ml_dtypes' bfloat16. half_ufuncs (half_ufuncs.cpp)
runs every built-in loop with a 16-bit first input, the unary ones over all 65,536 patterns
and the binary ones over 2^20 pairs (a quarter of them for all but add, subtract, multiply,
divide, copysign, nextafter and ldexp), on every host target, and casts all patterns of
each type to every dtype and every dtype's samples to both; this script runs it once per
instruction set and compares.

    check_half_ufuncs.py <half_ufuncs executable> [--archs baseline,sse4_2,avx2,avx512bw]

What must agree:
* casts: bit for bit;
* the sign operations and selections (NAN_BITS below: negative, positive, absolute, fabs,
  conjugate, copysign, maximum, minimum, fmax, fmin): bit for bit, NaNs too;
* the other exact ufuncs (EXACT below: rounding and classification functions, sign, frexp,
  modf, spacing, nextafter, the comparisons, and the operations that computed in float32
  and rounded once are correctly rounded: add, subtract, multiply, divide, square, sqrt,
  reciprocal, fmod, ldexp, heaviside): bit for bit, and any NaN for a NaN;
* the other ufuncs: within 1 unit in the last place of the 16-bit format (patterns' distance
  in the order of the values, so the largest finite value and infinity are 1 apart), and
  any NaN for a NaN; bool and integer outputs exactly.
bfloat16 to integer casts of NaN, infinities and values out of the integer's range are not
compared (ml_dtypes' answer depends on the array's length there); their counts are reported.
Where both give a NaN and they differ only in the quiet bit, for a signaling NaN input (the
hardware quiets it in one and the other keeps it), they agree; the counts are reported.

Exits 0 when everything agrees, 1 with the first differences of each case listed. The
oracle is required: a missing NumPy >= 2 or ml_dtypes fails (the import below raises)."""
import os
import subprocess
import sys
import time
import warnings

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPE = {c: np.dtype(c) for c in "?bBhHiIlLefdFD"}
DTYPE["E"] = BF16

EXACT = set("""floor ceil trunc rint sign isnan isinf isfinite signbit logical_not frexp modf spacing square sqrt
reciprocal add subtract multiply divide nextafter greater greater_equal less less_equal equal not_equal logical_and
logical_or logical_xor heaviside fmod ldexp""".split())
# Sign operations and selections, which IEEE 754 (negate, abs, copySign) and both oracles
# define on the bits: their NaNs must agree bit for bit too (but for quieting, as above).
SIGNALING_RESULTS = {"power", "hypot"}
NUMPY_VERSION = tuple(int(v) for v in np.__version__.split(".")[:2])
NAN_BITS = set("negative positive absolute fabs conjugate copysign maximum minimum fmax fmin".split())

# Per floating format: (unsigned view, quiet bit, exponent mask, fraction mask).
FORMATS = {
    np.dtype(np.float16): (np.uint16, 0x0200, 0x7C00, 0x03FF),
    BF16: (np.uint16, 0x0040, 0x7F80, 0x007F),
    np.dtype(np.float32): (np.uint32, 0x00400000, 0x7F800000, 0x007FFFFF),
    np.dtype(np.float64): (np.uint64, 0x0008000000000000, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF),
}
MAX_LISTED = 8


def parse(out):
    """The records of half_ufuncs' output: (arch, inputs {id: array}, ufunc records, cast
    records, errors)."""
    pos = 0
    arch, inputs, ufuncs, casts, errors = None, {}, [], [], []

    def text():
        nonlocal pos
        end = out.index(b"\n", pos)
        s = out[pos:end].decode()
        pos = end + 1
        return s

    def blob():
        nonlocal pos
        code, count = text().split()
        a = np.frombuffer(out, dtype=DTYPE[code], count=int(count), offset=pos)
        pos += a.nbytes
        return a

    while True:
        words = text().split(" ")
        if words[0] == "done":
            break
        if words[0] == "arch":
            arch = words[1]
        elif words[0] == "input":
            ident, code, count = words[1:]
            a = np.frombuffer(out, dtype=DTYPE[code], count=int(count), offset=pos)
            pos += a.nbytes
            inputs[ident] = a
        elif words[0] == "ufunc":
            name, target, sig, ids, count, nout = words[1:]
            ufuncs.append((name, target, sig, ids.split(","), int(count), [blob() for _ in range(int(nout))]))
        elif words[0] == "cast":
            casts.append((words[1], words[2], words[3], blob()))
        elif words[0] == "error":
            errors.append(" ".join(words[1:]))
        else:
            raise ValueError("half_ufuncs: unknown record " + " ".join(words))
    if pos != len(out):
        raise ValueError(f"half_ufuncs: {len(out) - pos} bytes after 'done'")
    return arch, inputs, ufuncs, casts, errors


def float_parts(a):
    """A floating or complex array as its real format's array (complex: real and imaginary
    interleaved), else None."""
    if a.dtype.kind == "c":
        return a.view(np.float32 if a.dtype.itemsize == 8 else np.float64)
    return a if a.dtype in FORMATS else None


def is_nan_bits(bits, fmt):
    _, _, exp, frac = fmt
    return ((bits & exp) == exp) & ((bits & frac) != 0)


def signaling(a):
    """Per element of a (any dtype): whether it holds a signaling NaN (a complex: in either part)."""
    parts = float_parts(a)
    if parts is None:
        return np.zeros(a.shape, bool)
    fmt = FORMATS[parts.dtype]
    bits = parts.view(fmt[0])
    s = is_nan_bits(bits, fmt) & ((bits & fmt[1]) == 0)
    return s.reshape(a.shape[0], -1).any(axis=1) if a.dtype.kind == "c" else s


def ordered(bits):
    """16-bit patterns as integers in the order of their values (both zeros are 0)."""
    b = bits.astype(np.int32)
    return np.where(b & 0x8000, -(b & 0x7FFF), b)


class Report:
    def __init__(self):
        self.failed = []
        self.quieted = {}
        self.undefined = {}

    def compare(self, what, ours, theirs, ins, mode):
        """ours against theirs elementwise: mode "bits", "exact" (any NaN for a NaN) or "ulp"
        (that, or 1 ulp apart); ins: the input arrays, for listing and for the signaling-NaN
        allowance."""
        if ours.dtype != theirs.dtype or ours.shape != theirs.shape:
            self.failed.append(f"{what}: ours is {ours.dtype}{ours.shape}, the oracle's {theirs.dtype}{theirs.shape}")
            return
        parts = float_parts(ours)
        if parts is None:
            bad = ours != theirs
            quiet = np.zeros(0, bool)
        else:
            fmt = FORMATS[parts.dtype]
            o, t = parts.view(fmt[0]), float_parts(theirs).view(fmt[0])
            diff = o != t
            nan_o, nan_t = is_nan_bits(o, fmt), is_nan_bits(t, fmt)
            snan_in = np.zeros(ours.shape, bool)
            for a in ins:
                snan_in |= signaling(a)
            if ours.dtype.kind == "c":
                snan_in = np.repeat(snan_in, 2)
            quiet = diff & nan_o & nan_t & ((o ^ t) == fmt[1]) & snan_in
            bad = diff & ~quiet
            if mode != "bits":
                bad &= ~(nan_o & nan_t)
            if mode == "ulp":
                if ours.dtype.itemsize == 2:
                    near = (np.abs(ordered(o) - ordered(t)) <= 1) & ~nan_o & ~nan_t
                else:
                    near = np.zeros_like(diff)
                bad &= ~near
            if ours.dtype.kind == "c":
                bad = bad.reshape(-1, 2).any(axis=1)
        if quiet.any():
            ours_quiet = int((quiet & ((o & fmt[1]) != 0)).sum())
            self.quieted[what] = (ours_quiet, int(quiet.sum()) - ours_quiet)
        if bad.any():
            idx = np.nonzero(bad)[0]
            lines = [f"{what}: {idx.size} of {ours.size} differ; first ones (inputs -> ours, oracle):"]
            for i in idx[:MAX_LISTED]:
                args = ", ".join(f"{shown(a[i])}" for a in ins)
                lines.append(f"  {args} -> {shown(ours[i])}, {shown(theirs[i])}")
            self.failed.append("\n".join(lines))


def shown(x):
    """A value with its bit pattern where it is floating."""
    dt = np.asarray(x).dtype
    parts = float_parts(np.asarray([x]))
    if parts is None:
        return repr(x.item() if hasattr(x, "item") else x)
    bits = parts.view(FORMATS[parts.dtype][0])
    width = 2 * parts.dtype.itemsize
    hexes = "/".join(f"0x{int(b):0{width}x}" for b in bits)
    name = "bfloat16" if dt == BF16 else dt.name
    return f"{name}({float(parts[0]) if parts.size == 1 else complex(x)!r} {hexes})"


def oracle_ufunc(name, ins):
    res = getattr(np, name)(*ins)
    return list(res) if isinstance(res, tuple) else [res]


def check(exe, arch, report, cache):
    env = dict(os.environ, UFUNC_SIMD_ARCH=arch, UFUNC_PARALLEL_GRAIN="37", UFUNC_PARALLEL_THRESHOLD="100")
    out = subprocess.run([exe], stdout=subprocess.PIPE, check=True, env=env).stdout
    ran, inputs, ufuncs, casts, errors = parse(out)
    if ran in cache.setdefault("archs checked", set()):
        return ran, len(ufuncs), len(casts)  # the same loops as an earlier run (UFUNC_SIMD_ARCH caps the choice)
    cache["archs checked"].add(ran)
    for e in errors:
        report.failed.append(f"[{ran}] threw: {e}")
    for name, target, sig, ids, count, outs in ufuncs:
        ins = [inputs[i][:count] for i in ids]
        key = (name, sig)
        if key not in cache:
            cache[key] = oracle_ufunc(name, ins)
        theirs = cache[key]
        if len(theirs) != len(outs):
            report.failed.append(f"[{ran}] {name} {sig}: {len(outs)} outputs, the oracle {len(theirs)}")
            continue
        keep = np.ones(count, bool)
        if name in SIGNALING_RESULTS:
            # pow(1, x), pow(x, 0) and hypot(inf, x) are 1 or inf for a quiet NaN x but NaN for a
            # signaling one (C99 F.10): the result depends on which side quiets the 16-bit NaN
            # first (F16C's conversion does; NumPy's software conversion does not). Not compared.
            for x in ins:
                keep &= ~signaling(x)
            if not keep.all():
                report.undefined[f"[{ran}] {name} {sig} on {target} (a signaling NaN input)"] = int((~keep).sum())
        if name == "nextafter" and NUMPY_VERSION < (2, 5):
            # NumPy 2.5's npy_half_nextafter returns y for x == y (C's nextafter), as the library
            # does; 2.4's returned x (numpy#31472): nextafter(0.0, -0.0) differs. Not compared there.
            a, b = (x.view(np.uint16) for x in ins)
            keep &= ~(((a & 0x7FFF) == 0) & ((b & 0x7FFF) == 0) & (a != b))
        for k, (o, t) in enumerate(zip(outs, theirs)):
            mode = ("bits" if name in NAN_BITS or (o.dtype not in FORMATS and o.dtype.kind != "c") else
                    "exact" if name in EXACT else "ulp")
            report.compare(f"[{ran}] {name} {sig} on {target}" + (f" output {k}" if len(outs) > 1 else ""), o[keep],
                           t[keep], [x[keep] for x in ins], mode)
    for ident, code, where, ours in casts:
        src = inputs[ident]
        key = ("astype", ident, code)
        if key not in cache:
            cache[key] = src.astype(DTYPE[code])
        what = (f"[{ran}] {ident} ({src.dtype if src.dtype != BF16 else 'bfloat16'}) astype "
                f"{'bfloat16' if code == 'E' else DTYPE[code].name} on {where}")
        theirs = cache[key]
        if src.dtype == BF16 and DTYPE[code].kind in "iu":
            # ml_dtypes converts NaN, infinities and out-of-range values to integers as the C++
            # conversion (undefined) happens to: its answer depends on the array's length (its
            # vector loop and its scalar tail differ), so those are left out, and counted.
            x = np.trunc(src.astype(np.float64))
            info = np.iinfo(DTYPE[code])
            keep = np.isfinite(x) & (x >= info.min) & (x <= info.max)
            report.undefined[what] = int((~keep).sum())
            ours, theirs, src = ours[keep], theirs[keep], src[keep]
        report.compare(what, ours, theirs, [src], "bits")
    return ran, len(ufuncs), len(casts)


def main():
    exe = sys.argv[1]
    archs = ["native"]
    if "--archs" in sys.argv:
        archs = sys.argv[sys.argv.index("--archs") + 1].split(",")
    report, cache, seen = Report(), {}, set()
    start = time.monotonic()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexWarning: complex to real casts drop the imaginary part
        for arch in archs:
            ran, nufunc, ncast = check(exe, arch, report, cache)
            again = " (already checked)" if ran in seen else ""
            seen.add(ran)
            print(f"UFUNC_SIMD_ARCH={arch}: loops of {ran}{again}: {nufunc} ufunc calls, {ncast} casts")
    for what, (ours, theirs) in sorted(report.quieted.items()):
        print(f"signaling NaNs quieted by one side only (counted as agreeing): {what}: "
              f"{ours} by the library, {theirs} by the oracle")
    for what, n in sorted(report.undefined.items()):
        print(f"not compared (undefined: see check_half_ufuncs.py): {what}: {n}")
    print(f"{time.monotonic() - start:.1f} s")
    if report.failed:
        print(f"FAILED: {len(report.failed)} cases differ")
        for f in report.failed:
            print(f)
        return 1
    print("all equal (exact cases bit for bit, the others within 1 ulp)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

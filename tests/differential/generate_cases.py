#!/usr/bin/env python3
"""Differential test cases for ufunc, with NumPy 2 as the oracle.

Writes a binary file of cases that `ufunc_differential` (tests/differential/runner.cpp)
replays on every target of the library. Each case names a ufunc, its inputs (dtype,
base shape, element bytes and the view transforms that turn the base array into the
operand: slices with steps, a transpose, broadcast_to), the options (out=, where=,
dtype=, signature=, casting=, and for the methods axis=, keepdims=, initial=, indices),
and NumPy's outcome: the output dtypes, shapes and bytes, or the exception, mapped to
the library's exception class.

    generate_cases.py --seed S --count N --out cases.bin        # N random (fuzz) cases
    generate_cases.py --seed S --exhaustive --out cases.bin     # every loop of every ufunc
    generate_cases.py --seed S --exhaustive --count N --out ... # both, in one file
    generate_cases.py --seed S --half-count N --out cases.bin   # N random float16/bfloat16 cases
    generate_cases.py --seed S --index r17 --show               # one case, printed
    generate_cases.py --seed S --index e17 --index r3 --out one.bin

Case ids are `e<i>` (exhaustive), `r<i>` (random), `g<i>` (gufuncs) and `h<i>` (random float16
and bfloat16); case `r<i>` depends only on the
seed, i, the ufunc list and the NumPy version, so `--index` regenerates exactly the
case a failure names (the runner prints that command line).

float16 and bfloat16: NumPy is float16's oracle and ml_dtypes bfloat16's ('E' is no NumPy
code: npdt() maps it to ml_dtypes' dtype, and the case file names both dtypes, enc_dtype).
Their loops (half_loops: NumPy's 'e' loops and ml_dtypes' bfloat16 loop) get exhaustive cases
after all the others (half_tasks: per-loop variants, NaN, empty reductions, folds and the
promotions through them), and `--half-count N` adds N random cases `h<i>` of those loops (calls
mixing other dtypes and weak scalars, out=, where=, dtype=, signature=, casting=, and the methods).

The ufuncs: `--runner EXE` asks the library (`EXE --list`) which ufuncs and loops it
has; `--ufunc NAME` (repeatable) restricts further; without either, NumPy's whole set
of element-wise ufuncs. Loops are NumPy's `ufunc.types` restricted to the 13 dtypes of
ufunc other than float16 and bfloat16 ("?bBhHiIlLfdFD", 'q'/'Q' folded onto 'l'/'L', duplicates
dropped); random cases r<i> draw those, and keep NumPy's results of float16 (np.sin of int8). The runner's
own user-defined ufuncs (diff_*) are always included, their NumPy equivalents computed
with NumPy expressions.

Exceptions map to the library's classes as documented in docs/testing.md (see
map_exception below). NumPy runs under np.errstate(all='call') with a function that
records the floating-point flags of the call (FpFlags); each case carries them, and the
kinds the runner must not compare for it (flags_free: docs/testing.md, "Floating-point
flags").

Without NumPy >= 2 and ml_dtypes the script fails (exit code 2): it cannot generate. The build checks
for NumPy when it is configured and registers a test that reports the reason instead.
"""

import argparse
import math
import os
import struct
import sys
import warnings

CODES = "?bBhHiIlLfdFD"  # the dtypes by their index in the case file
HALF_CODES = "eE"  # float16 (NumPy's) and bfloat16 (ml_dtypes'), named in the case file (enc_dtype)
ALL_CODES = CODES + HALF_CODES
HALF_NAMES = {"e": "float16", "E": "bfloat16"}
TRACE = bool(os.environ.get("UFUNC_DIFF_TRACE"))  # print each case before NumPy runs it
FILE_MAGIC = b"UFDIFF02"  # 02: every case records NumPy's floating-point flags (T_FLAGS)


def cannot_generate(reason):
    """No cases without the oracle: fail, so that no test downstream passes on nothing.
    (The build checks for NumPy at configure time and registers a skip with the reason
    instead of this generator when it is absent.)"""
    print("generate_cases.py: cannot generate: " + reason, file=sys.stderr)
    sys.exit(2)


# ----------------------------------------------------------------------------------
# NumPy facts
# ----------------------------------------------------------------------------------

np = None  # imported in main(), so that a missing NumPy becomes a skip file
ml_dtypes = None  # imported in main(): bfloat16's oracle
BF16 = None  # np.dtype(ml_dtypes.bfloat16)


def npdt(c):
    """np.dtype(c), where c may also be 'E': bfloat16 is ml_dtypes', and 'E' is no NumPy code
    (np.dtype('E') raises)."""
    if isinstance(c, str) and c == "E":
        return BF16
    return np.dtype(c)


def finfo(c):
    """np.finfo for every float dtype, bfloat16 (ml_dtypes.finfo) included."""
    d = npdt(c)
    return ml_dtypes.finfo(d) if d == BF16 else np.finfo(d)


def np_signature(sig):
    """A signature as NumPy takes it: a string of codes, or where it names bfloat16 (no NumPy
    code) a tuple of dtypes."""
    if sig is None or "E" not in sig:
        return sig
    return tuple(npdt(c) for c in sig.replace("->", ""))


def fold(c):
    return {"q": "l", "Q": "L"}.get(c, c)


def restricted_loops(uf):
    """ufunc.types limited to our dtypes, 'q'/'Q' folded, duplicates dropped, in order."""
    seen, out = set(), []
    for t in uf.types:
        ins, outs = t.split("->")
        if not all(c in CODES + "qQ" for c in ins + outs):
            continue
        t = "".join(fold(c) for c in ins) + "->" + "".join(fold(c) for c in outs)
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def bfloat16_loop(uf):
    """ml_dtypes' bfloat16 loop of uf, folded ('EE->E', 'Ei->E'), or None: ml_dtypes registers
    its loops outside ufunc.types, so this is the loop NumPy resolves for bfloat16 inputs
    (ldexp's takes an int32 exponent), where that loop is one (as ufuncs/tools/generate_registry.py)."""
    if isinstance(uf, UserUfunc) or uf.signature is not None:
        return None
    trials = [(BF16,) * uf.nin] + ([(BF16, np.dtype("i"))] if uf.nin == 2 else [])
    for ins in trials:
        try:
            r = uf.resolve_dtypes(ins + (None,) * uf.nout)
        except TypeError:
            continue
        if r[0] == BF16:
            codes = [fold(d.char) for d in r]
            if all(c in ALL_CODES for c in codes):
                return "".join(codes[:uf.nin]) + "->" + "".join(codes[uf.nin:])
    return None


def half_loops(uf):
    """The float16 loops of ufunc.types ('q'/'Q' folded, in order) and ml_dtypes' bfloat16 loop."""
    if isinstance(uf, UserUfunc):
        return []
    out = []
    for t in uf.types:
        t = "".join(fold(c) for c in t)
        if "e" in t and all(c in ALL_CODES for c in t.replace("->", "")) and t not in out:
            out.append(t)
    b = bfloat16_loop(uf)
    if b is not None and b not in out:
        out.append(b)
    return out


def numpy_ufuncs():
    """Canonical name -> ufunc for NumPy's element-wise ufuncs with a loop in our dtypes,
    and alias name -> canonical name."""
    table, aliases = {}, {}
    for n in dir(np):
        uf = getattr(np, n)
        if not isinstance(uf, np.ufunc) or uf.signature is not None:
            continue
        if not restricted_loops(uf):
            continue
        table[uf.__name__] = uf
        if n != uf.__name__:
            aliases[n] = uf.__name__
    return table, aliases


def is_int_code(c):
    return c in "bBhHiIlL"


def is_float_code(c):
    return c in "eEfd"


def is_complex_code(c):
    return c in "FD"


def is_inexact_code(c):
    return c in "eEfdFD"


# ----------------------------------------------------------------------------------
# User-defined ufuncs that the runner registers through ufunc::vectorize
# ----------------------------------------------------------------------------------


def _user_fma(ins, loop):
    t = npdt(loop[-1])
    a, b, c = (np.asarray(x).astype(t) for x in ins)
    return [np.add(np.multiply(a, b, dtype=t), c, dtype=t)]


def _user_relu(ins, loop):
    t = npdt(loop[-1])
    x, s = np.broadcast_arrays(*(np.asarray(v).astype(t) for v in ins))
    # The functor multiplies only where x > 0: so does this, or the flags would be those of every product.
    return [np.multiply(x, s, dtype=t, out=np.zeros(x.shape, t), where=x > 0)]


def _user_split(ins, loop):
    t = npdt(loop[-1])
    x = np.asarray(ins[0]).astype(t)
    frac, whole = np.modf(x)
    return [frac.astype(t), whole.astype(t)]


# name: (nin, nout, loops, numpy function, value range for integer inputs)
USER_UFUNCS = {
    "diff_fma": (3, 1, ["fff->f", "ddd->d"], _user_fma, None),
    "diff_relu": (2, 1, ["ii->i", "dd->d"], _user_relu, (-1000, 1000)),
    "diff_split": (1, 2, ["f->ff", "d->dd"], _user_split, None),
}


class UserUfunc:
    """Enough of np.ufunc's interface for the generator."""

    def __init__(self, name):
        self.__name__ = name
        self.nin, self.nout, self.loops, self.fn, self.int_range = USER_UFUNCS[name]
        self.nargs = self.nin + self.nout
        self.identity = None


def legacy_search(loops, in_codes):
    """The first loop that every input casts to safely (NumPy's legacy search, which
    vectorize'd ufuncs use), or None."""
    for t in loops:
        ins = t.split("->")[0]
        if all(np.can_cast(npdt(a), npdt(b), "safe") for a, b in zip(in_codes, ins)):
            return t
    return None


# ----------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------


def int_pool(c):
    info = np.iinfo(npdt(c))
    vals = [0, 1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100, 127, 128, 255, 256,
            info.max, info.max - 1, info.max // 2, info.min, info.min + 1, info.min // 2]
    if info.min < 0:
        vals += [-1, -2, -3, -7, -8, -16, -31, -32, -64, -100, -128, -129]
    out = []
    for v in vals:
        if info.min <= v <= info.max and v not in out:
            out.append(v)
    return np.array(out, dtype=c)


def float_pool(c):
    fi = finfo(c)
    big = {"f": 1e30, "d": 1e300, "e": 3e4, "E": 1e30}[c]
    exp_edge = {"f": 88.72, "d": 709.78, "e": 11.09, "E": 88.72}[c]
    mant_edge = 2.0 ** 24 + 1 if c in "fd" else 2.0 ** (int(fi.nmant) + 1) + 1  # the first odd integer it lacks
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.5, -1.5, 2.5, -2.5, 0.1, -0.1,
            10.0, 100.0, 1e10, -1e10, big, -big, float(fi.max), -float(fi.max), float(fi.tiny), -float(fi.tiny),
            float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.tiny) / 2,
            float(fi.eps), 1 + float(fi.eps), 1 - float(fi.eps) / 2, math.pi, -math.pi, math.pi / 2, math.e,
            exp_edge, -exp_edge, mant_edge, 0.75, 4.0, 7.0, math.inf, -math.inf, math.nan]
    with np.errstate(all="ignore"):
        return np.array(vals, dtype=npdt(c))


def complex_pool(c):
    t = npdt(c)
    real = float_pool("f" if c == "F" else "d")
    parts = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, math.inf, -math.inf, math.nan, float(real[24]), 1e-3, 10.0]
    vals = [complex(a, b) for a in parts for b in parts]
    return np.array(vals, dtype=t)


def pool(c):
    if c == "?":
        return np.array([False, True])
    if is_int_code(c):
        return int_pool(c)
    if is_float_code(c):
        return float_pool(c)
    return complex_pool(c)


def random_values(rng, c, n, int_range=None):
    """n random values of dtype c: edge values mixed with small and wide random ones."""
    dt = npdt(c)
    if n == 0:
        return np.zeros(0, dt)
    if c == "?":
        return rng.integers(0, 2, n).astype(bool)
    p = pool(c)
    pick = p[rng.integers(0, len(p), n)]
    if is_int_code(c):
        info = np.iinfo(dt)
        if int_range is not None:
            lo, hi = max(info.min, int_range[0]), min(info.max, int_range[1])
            return rng.integers(lo, hi, n, endpoint=True).astype(dt)
        small = rng.integers(max(info.min, -20), min(info.max, 40), n, endpoint=True).astype(dt)
        wide = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64 if info.min < 0 or info.bits < 64
                            else np.uint64).astype(dt)
        which = rng.random(n)
        return np.where(which < 0.45, small, np.where(which < 0.75, wide, pick)).astype(dt)
    if is_float_code(c):
        return _random_real(rng, c, n, pick)
    real_c = "f" if c == "F" else "d"
    re = _random_real(rng, real_c, n, pool(real_c)[rng.integers(0, len(pool(real_c)), n)])
    im = _random_real(rng, real_c, n, pool(real_c)[rng.integers(0, len(pool(real_c)), n)])
    out = np.empty(n, dt)
    out.real, out.imag = re, im
    # Some purely real and purely imaginary values, and some from the complex pool.
    which = rng.random(n)
    out = np.where(which < 0.1, out.real.astype(dt), out)
    out = np.where((which >= 0.1) & (which < 0.25), pick, out)
    return out.astype(dt)


def _random_real(rng, c, n, pick):
    dt = npdt(c)
    maxexp = {"f": 37, "d": 300, "e": 4, "E": 37}[c]
    with np.errstate(all="ignore"):
        normal = (rng.standard_normal(n) * 10).astype(dt)
        wide = (np.where(rng.random(n) < 0.5, -1.0, 1.0) * 10.0 ** rng.uniform(-maxexp, maxexp, n)).astype(dt)
        unit = rng.uniform(-1, 1, n).astype(dt)
    which = rng.random(n)
    return np.where(which < 0.35, normal, np.where(which < 0.55, wide, np.where(which < 0.7, unit, pick))).astype(dt)


def python_scalar(rng, kind, fit_code=None):
    """A Python scalar (weak under NEP 50) of kind 'b', 'i', 'f' or 'c'. With fit_code,
    an integer is drawn so that it fits that dtype (mostly)."""
    if kind == "b":
        return bool(rng.integers(0, 2))
    if kind == "i":
        choices = [0, 1, -1, 2, 3, 7, 100, 127, 128, 255, 256, -129, 300, 2 ** 31 - 1, 2 ** 31, 2 ** 32,
                   2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, -2 ** 63, -2 ** 31]
        if fit_code is not None and is_int_code(fit_code) and rng.random() < 0.8:
            info = np.iinfo(npdt(fit_code))
            ok = [v for v in choices if info.min <= v <= info.max]
            return int(ok[rng.integers(0, len(ok))])
        if rng.random() < 0.3:
            return int(rng.integers(-50, 50))
        return int(choices[rng.integers(0, len(choices))])
    if kind == "f":
        p = float_pool("d")
        if rng.random() < 0.5:
            return float(p[rng.integers(0, len(p))])
        return float(rng.standard_normal() * 10)
    p = complex_pool("D")
    if rng.random() < 0.5:
        return complex(p[rng.integers(0, len(p))])
    return complex(rng.standard_normal() * 3, rng.standard_normal() * 3)


def scalar_kind_of_code(c):
    return "b" if c == "?" else "i" if is_int_code(c) else "f" if is_float_code(c) else "c"


# ----------------------------------------------------------------------------------
# Operands: a base array and the view transforms that make the operand of it
# ----------------------------------------------------------------------------------


class Arr:
    """An array operand: base (C-ordered, of dtype code) and transforms, applied in
    order: slices (one (start, stop, step) per axis; None for a missing bound), then a
    transpose (a permutation), then broadcast_to (a shape; makes it read-only)."""

    def __init__(self, code, base, slices=None, perm=None, bshape=None):
        self.code = code
        self.base = np.array(base, dtype=npdt(code), order="C")  # (ascontiguousarray makes 0-d 1-d)
        self.slices = slices
        self.perm = perm
        self.bshape = bshape

    def make(self):
        """A fresh (base copy, view of it)."""
        b = self.base.copy()
        v = b
        if self.slices is not None:
            v = v[tuple(slice(*s) for s in self.slices)]
        if self.perm is not None:
            v = v.transpose(self.perm)
        if self.bshape is not None:
            v = np.broadcast_to(v, self.bshape)
        return b, v

    def shape(self):
        return self.make()[1].shape

    def describe(self):
        s = "%s%s" % (npdt(self.code).name, shape_str(self.shape()))
        parts = []
        if self.slices is not None or self.perm is not None or self.bshape is not None:
            parts.append("base%s" % shape_str(self.base.shape))
        if self.slices is not None:
            parts.append("[%s]" % ",".join(slice_str(x) for x in self.slices))
        if self.perm is not None:
            parts.append(".transpose(%s)" % ",".join(str(p) for p in self.perm))
        if self.bshape is not None:
            parts.append(".broadcast_to%s" % shape_str(self.bshape))
        return s + (" = " + "".join(parts) if parts else "")


def shape_str(shape):
    shape = tuple(int(x) for x in shape)
    return "(" + ", ".join(str(x) for x in shape) + ("," if len(shape) == 1 else "") + ")"


def slice_str(s):
    a, b, c = s
    return "%s:%s%s" % ("" if a is None else a, "" if b is None else b, "" if c == 1 else ":%d" % c)


def make_operand(rng, code, shape, values, p_slice=0.4, p_transpose=0.3, p_broadcast=0.2, readonly_ok=True):
    """An Arr of final shape `shape`; `values(n)` gives n base elements."""
    shape = tuple(int(x) for x in shape)
    target = shape
    bshape = None
    if readonly_ok and len(shape) > 0 and rng.random() < p_broadcast:
        # Broadcast from a shape with some axes 1 and maybe fewer dimensions.
        nd = len(shape) - int(rng.integers(0, len(shape) + 1)) if rng.random() < 0.3 else len(shape)
        small = list(shape[len(shape) - nd:])
        for i in range(nd):
            if rng.random() < 0.5:
                small[i] = 1
        if tuple(small) != shape:
            bshape = shape
            target = tuple(small)
    perm = None
    pre = target
    if len(target) >= 2 and rng.random() < p_transpose:
        perm = [int(x) for x in rng.permutation(len(target))]
        pre_l = [0] * len(target)
        for i, p in enumerate(perm):
            pre_l[p] = target[i]
        pre = tuple(pre_l)
        if perm == sorted(perm):
            perm = None
            pre = target
    slices = None
    base_shape = pre
    if len(pre) > 0 and rng.random() < p_slice:
        slices, base_l = [], []
        steps = [int(rng.choice([1, 1, -1, -1, 2, -2, 3, -3])) for _ in pre]
        extras = [int(rng.integers(0, 3)) for _ in pre]

        def base_size():
            return int(np.prod([((n - 1) * abs(st) + 1 if n > 0 else 0) + ex
                                for n, st, ex in zip(pre, steps, extras)]))
        # Keep the base small (the case file holds it): steps, then margins, shrink first.
        cap = max(1024, 2 * int(np.prod(pre)))
        for k in sorted(range(len(pre)), key=lambda k: -abs(steps[k])):
            if base_size() <= cap:
                break
            steps[k] = 1 if steps[k] > 0 else -1
        for k in range(len(pre)):
            if base_size() <= cap:
                break
            extras[k] = 0
        for n, step, extra in zip(pre, steps, extras):
            a = abs(step)
            span = (n - 1) * a + 1 if n > 0 else 0
            m = span + extra
            base_l.append(m)
            if n == 0:
                slices.append((0, 0, step) if step > 0 else (0, 0, step))
                continue
            if step > 0:
                start = int(rng.integers(0, m - span + 1))
                stop = start + span
                sl = [start, stop, step]
                if start == 0 and rng.random() < 0.3:
                    sl[0] = None
                if stop >= m and rng.random() < 0.5:
                    sl[1] = None
            else:
                start = int(rng.integers(span - 1, m))
                stop = start - span
                sl = [start, stop if stop >= 0 else None, step]
                if start == m - 1 and rng.random() < 0.3:
                    sl[0] = None
            slices.append(tuple(sl))
        base_shape = tuple(base_l)
    n = int(np.prod(base_shape)) if len(base_shape) else 1
    base = np.asarray(values(n), dtype=npdt(code)).reshape(base_shape)
    arr = Arr(code, base, slices, perm, bshape)
    assert arr.shape() == shape, (arr.describe(), shape)
    return arr


def contiguous(code, data):
    return Arr(code, np.asarray(data, dtype=npdt(code)))


# ----------------------------------------------------------------------------------
# A case and its NumPy outcome
# ----------------------------------------------------------------------------------


class Case:
    def __init__(self, cid, ufunc_name, uf, method="call"):
        self.cid = cid  # "e12" / "r5"
        self.name = ufunc_name  # as called (may be an alias)
        self.uf = uf  # np.ufunc or UserUfunc
        self.method = method
        self.inputs = []  # Arr or Python scalar
        self.out = None  # list of Arr or ("alias", k)
        self.where = None  # Arr (bool)
        self.dtype = None  # code
        self.signature = None  # "ff->f"
        self.casting = None  # str
        self.axis = "absent"  # method cases: None, int or tuple
        self.keepdims = None
        self.initial = None  # Python scalar
        self.indices = None  # Arr (int64) for reduceat / at
        self.tol_ulps = None  # reductions: ulps allowed (the runner's table otherwise)
        self.tol_abs = None  # reductions by add, power chains: absolute tolerance per result element
        self.loop = None  # calls: the loop NumPy ran ("ff->f"), for the runner's ulps at its precision
        self.note = ""
        self.fp = FpFlags()  # the floating-point flags NumPy's call raised
        self.flags_free = 0  # FpFlags bits NumPy raises, or not, for reasons other than the operation

    # The NumPy side ------------------------------------------------------------

    def run_numpy(self):
        """(outcome, payload): ('ok', [(code, shape, bytes, mask)]) or ('error', (numpy class, ours, message)).
        Raises Unrepresentable when NumPy runs a loop whose dtypes the library lacks."""
        self.fp = FpFlags()
        self.flags_free = 0
        bases_in, views_in = [], []
        for x in self.inputs:
            if isinstance(x, Arr):
                b, v = x.make()
                bases_in.append(b)
                views_in.append(v)
            else:
                bases_in.append(None)
                views_in.append(x)
        outs = None
        if self.out is not None:
            outs = []
            for o in self.out:
                if isinstance(o, tuple):
                    outs.append(views_in[o[1]])
                else:
                    outs.append(o.make()[1])
        if self.numpy_would_crash():
            raise NumpyQuirk("NumPy 2.4 crashes on a comparison with an out-of-bounds Python int and where=")
        kw = {}
        if outs is not None:
            kw["out"] = tuple(outs) if self.method == "call" else outs[0]
        if self.where is not None:
            kw["where"] = self.where.make()[1]
        if self.dtype is not None:
            kw["dtype"] = npdt(self.dtype)
        if self.signature is not None:
            kw["signature"] = np_signature(self.signature)
        if self.casting is not None:
            kw["casting"] = self.casting
        if self.axis != "absent":
            kw["axis"] = self.axis
        if self.keepdims is not None:
            kw["keepdims"] = self.keepdims
        if self.initial is not None:
            kw["initial"] = self.initial
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                if isinstance(self.uf, UserUfunc):
                    results = self._run_user(views_in, outs)
                elif self.uf.signature is not None:
                    results = self._run_numpy_gufunc(views_in, outs)
                else:
                    try:
                        results = self._run_numpy_ufunc(views_in, outs, kw)
                    except TypeError as e:
                        # NumPy registers the mixed int64/uint64 comparison loops as 'qQ->?' and
                        # 'Qq->?' (long long), which signature='lL->?' does not name.
                        sig = kw.get("signature")
                        if not (sig and ("No loop matching" in str(e) or "did not contain a loop" in str(e))
                                and ("lL" in sig or "Ll" in sig)):
                            raise
                        kw["signature"] = sig.replace("l", "q").replace("L", "Q")
                        results = self._run_numpy_ufunc(views_in, outs, kw)
            except Unrepresentable:
                raise
            except Exception as e:  # noqa: BLE001 - every NumPy exception is an outcome
                return "error", map_exception(e)
        return "ok", results

    COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}

    def numpy_would_crash(self):
        """np.equal(np.zeros(3, 'B'), -1, where=np.ones(3, bool)) is a segmentation fault in
        NumPy 2.4: a comparison with a Python int out of an integer array's bounds and where=."""
        if isinstance(self.uf, UserUfunc) or self.uf.__name__ not in self.COMPARISONS or self.where is None:
            return False
        ints = [x for x in self.inputs if isinstance(x, int) and not isinstance(x, bool)]
        codes = [x.code for x in self.inputs if isinstance(x, Arr) and is_int_code(x.code)]
        return any(not (np.iinfo(npdt(c)).min <= v <= np.iinfo(npdt(c)).max) for v in ints for c in codes)

    def _run_user(self, views_in, outs):
        uf = self.uf
        codes = [x.code for x in self.inputs]
        loop = legacy_search(uf.loops, codes)
        if loop is None:
            raise NoLoop()
        if outs is not None:
            for j, o in enumerate(outs):
                if not np.can_cast(npdt(loop_outputs(loop)[j]), o.dtype, "same_kind"):
                    raise TypeError("Cannot cast ufunc '%s' output from %s to %s with casting rule 'same_kind'"
                                    % (uf.__name__, npdt(loop_outputs(loop)[j]), o.dtype))
        shape = np.broadcast_shapes(*[np.shape(v) for v in views_in],
                                    *([np.shape(self.where.make()[1])] if self.where is not None else []))
        if outs is not None:
            for o in outs:
                if np.broadcast_shapes(shape, o.shape) != o.shape:
                    raise ValueError("non-broadcastable output operand with shape %s doesn't match the broadcast "
                                     "shape %s" % (o.shape, shape))
                shape = o.shape
        # The functor runs on the elements where= selects, and nowhere else: so does the
        # NumPy expression, or its flags would be those of every element.
        sel = np.ones(shape, bool) if self.where is None else np.broadcast_to(self.where.make()[1], shape)
        picked = [np.broadcast_to(np.asarray(v), shape)[sel] for v in views_in]
        with self.fp.recording():
            part = uf.fn(picked, loop)
        vals = []
        for r in part:
            full = np.zeros(shape, np.asarray(r).dtype)
            full[sel] = r
            vals.append(full)
        if uf.__name__ == "diff_relu" and is_float_code(loop[0]) and np.any(np.isnan(picked[0])):
            # The functor's `x > 0` is C++'s relational operator: a signaling comparison,
            # which raises invalid for a NaN x on the host (x86 comisd) but not on the device,
            # nor in NumPy's expression.
            self.flags_free |= FpFlags.INVALID
        res = []
        mask = None
        if self.where is not None:
            mask = np.broadcast_to(self.where.make()[1], shape)
        for j, r in enumerate(vals):
            r = np.broadcast_to(r, shape)
            if outs is not None:
                o = outs[j]
                with self.fp.recording():  # the cast into out= raises flags as the library's does
                    if mask is not None:
                        np.copyto(o, r, where=mask)
                    else:
                        o[...] = r
                res.append(result_tuple(o, None))
            else:
                res.append(result_tuple(r, mask))
        return res

    def _run_numpy_gufunc(self, views_in, outs):
        """A gufunc call (matmul, vecdot, matvec, vecmat). NumPy's float and complex loops may run
        a BLAS, which sums in its own order: each element of the result gets an absolute tolerance
        of (k + 2) eps sum_k |a||b| (the bound of a k-term dot product), and the flags are left out."""
        r = self.uf(*views_in, out=tuple(outs)) if outs is not None else self.uf(*views_in)
        if outs is not None:
            r = outs[0]
            # NumPy 2.4's complex vecmat writes other values into a strided out= than it returns
            # without one (docs/testing.md): such draws are drawn again.
            fresh = self.uf(*views_in)
            if not np.allclose(np.asarray(r), fresh, rtol=1e-5, atol=1e-5, equal_nan=True):
                raise NumpyQuirk("NumPy's %s into this out= differs from its result without out=" % self.name)
        r = np.asarray(r)
        self.flags_free = FpFlags.DIVIDE | FpFlags.OVERFLOW | FpFlags.UNDERFLOW | FpFlags.INVALID
        code = fold(r.dtype.char)
        if code in "fdFD":
            mags = [np.abs(np.asarray(v)).astype(np.float64) for v in views_in]
            k = np.asarray(views_in[0]).shape[-1] if np.asarray(views_in[0]).ndim else 1
            with np.errstate(all="ignore"):
                bound = self.uf(*mags) * (k + 2) * finfo(r.dtype).eps
            self.tol_abs = np.broadcast_to(bound, r.shape)
        return [result_tuple(r, None)]

    def _run_numpy_ufunc(self, views_in, outs, kw):
        uf = self.uf
        m = self.method
        loop = self.numpy_loop(views_in)
        self.loop = loop
        bfloat16_loop = ("E" in loop_inputs(loop) if loop is not None else
                         m != "call" and np.asarray(views_in[0]).dtype == npdt("E"))
        if bfloat16_loop and uf.__name__ in ML_DTYPES_COMPILED_COMPARISONS:
            # ml_dtypes compares bfloat16 as floats with C++'s relational operators, whose invalid
            # flag at a NaN is the wheel's compiler's choice (one build raises it, another does not);
            # the library's comparisons are quiet, as NumPy's.
            self.flags_free |= FpFlags.INVALID
        if m == "call":
            # Contiguous copies of the inputs, taken before out= may overwrite one of them.
            snapshot = [np.array(v, order="C") if isinstance(x, Arr) else v for x, v in zip(self.inputs, views_in)]
            if loop is not None:
                self.flags_free |= self.input_cast_flags(views_in, loop_inputs(loop))
            if self.where is not None and outs is not None and loop is not None:
                self.flags_free |= self.stale_out_flags(outs, loop_outputs(loop))
            with self.fp.recording():
                r = uf(*views_in, **kw)
            rs = list(r) if uf.nout > 1 else [r]
            if outs is not None:
                rs = outs
            mask = None
            if self.where is not None and outs is None:
                shape = np.shape(rs[0])
                mask = np.broadcast_to(np.asarray(kw["where"]), shape)
            cast_mask = self.cast_mask(views_in, loop, np.shape(rs[0]))
            if cast_mask is not None:
                mask = cast_mask if mask is None else (mask & cast_mask)
                if not np.all(cast_mask):
                    self.flags_free |= FpFlags.INVALID  # the platform's conversion, as its values
            self.check_numpy_layout(snapshot, rs, kw, cast_mask)
            self.flags_free |= self.layout_flags(snapshot, outs, kw, loop)
            return [result_tuple(x, mask) for x in rs]
        a = views_in[0]
        if m in ("reduce", "accumulate", "reduceat"):
            dt = kw.get("dtype") if kw.get("dtype") is not None else (outs[0].dtype if outs is not None else None)
            if dt is not None:
                self.flags_free |= self.input_cast_flags([a], [npdt(dt).char])
        if m == "reduce":
            with self.fp.recording():
                r = uf.reduce(a, **kw)
        elif m == "accumulate":
            if outs is not None and "dtype" in kw:
                self.flags_free |= self.stale_out_flags(outs, [kw["dtype"]])
            with self.fp.recording():
                r = uf.accumulate(a, **kw)
        elif m == "reduceat":
            idx = self.indices.make()[1]
            if outs is not None and "dtype" in kw:
                self.flags_free |= self.stale_out_flags(outs, [kw["dtype"]])
            with self.fp.recording():
                r = uf.reduceat(a, idx, **kw)
        elif m == "outer":
            if loop is not None:
                self.flags_free |= self.input_cast_flags(views_in, loop_inputs(loop))
            if self.where is not None and outs is not None and loop is not None:
                self.flags_free |= self.stale_out_flags(outs, loop_outputs(loop))
            with self.fp.recording():
                r = uf.outer(views_in[0], views_in[1], **kw)
            if uf.nout > 1:  # divmod.outer: both outputs
                return [result_tuple(x, None) for x in r]
        elif m == "at":
            idx = self.indices.make()[1]
            before = np.array(a)
            try:
                at_loop = uf.resolve_dtypes(tuple(np.asarray(x).dtype for x in views_in) + (None,) * uf.nout)
                self.flags_free |= self.input_cast_flags(views_in, [d.char for d in at_loop[:uf.nin]])
            except Exception:  # noqa: BLE001 - at itself raises and says what
                at_loop = None
            if at_loop is not None and not all(fold(d.char) in ALL_CODES for d in at_loop):
                # The array keeps its dtype, but NumPy computes in one the library lacks
                # (expm1.at of int8 and ldexp.at of bool run float16 loops): other values, other flags.
                raise Unrepresentable("NumPy's at runs loop %s" % "".join(d.char for d in at_loop))
            with self.fp.recording():
                if len(views_in) > 1:
                    uf.at(a, idx, views_in[1])
                else:
                    uf.at(a, idx)
            r = a
            if len(views_in) > 1:
                self.tol_abs = power_at_tolerance(uf, before, idx, views_in[1], np.asarray(r))
            if is_int_code(fold(a.dtype.char)) or a.dtype.char == "?":
                # Results are cast back to a's dtype unsafely: from a float or complex loop,
                # values out of range are the platform's; the indexed elements are not compared.
                try:
                    loop = uf.resolve_dtypes(tuple(np.asarray(x).dtype for x in views_in) + (None,) * uf.nout)
                except Exception:  # noqa: BLE001
                    loop = None
                if loop is not None and loop[-1].char in "eEfdgFDG" and a.dtype.char != "?":
                    self.flags_free |= FpFlags.INVALID  # the platform's conversion, as its values
                    mask = np.ones(a.shape, dtype=bool)
                    mask[idx] = False
                    return [result_tuple(r, mask)]
        else:
            raise AssertionError(m)
        if outs is not None:
            r = outs[0]
        r = self.left_fold(np.asarray(a), np.asarray(r), kw)
        self.flags_free |= self.order_dependent_flags(np.asarray(a), np.asarray(r), kw)
        mask = self.reduction_tolerance(np.asarray(a), np.asarray(r), kw)
        dt = kw.get("dtype")
        if dt is not None and (is_int_code(fold(npdt(dt).char))) and np.asarray(a).dtype.char in "eEfdgFDG" \
                and not np.all(representable(np.asarray(a), fold(npdt(dt).char))):
            # dtype= casts the input to integers: values out of range are the platform's, and so is invalid.
            mask = np.zeros(np.shape(r), dtype=bool)
            self.flags_free |= FpFlags.INVALID
        if m == "outer" and self.where is not None and outs is None:
            mask = np.broadcast_to(np.asarray(kw["where"]), np.shape(r))  # NumPy leaves the rest uninitialized
        return [result_tuple(r, mask)]

    @staticmethod
    def input_cast_flags(views, codes):
        """The flags of casting the array inputs to the loop's dtypes (float64 to float32
        overflows, a float to an integer is invalid out of range). NumPy's are not a
        property of the operation: some of its loops (negative, signbit, the comparisons)
        clear the status word, erasing the flags of the cast that filled their buffer,
        depending on the iteration path (np.negative(float64 1e300, signature='f->f')
        raises overflow, and nothing with where=); which float-to-integer conversions
        signal depends on NumPy's cast loop (vectorized or not). Left out where the cast
        raises any. Weak Python scalars are not casts (NumPy checks their conversion
        for overflow only) and stay compared."""
        fp = FpFlags()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for v, c in zip(views, codes):
                if not isinstance(v, np.ndarray) or v.dtype == npdt(c):
                    continue
                try:
                    with fp.recording():
                        v.astype(npdt(c))
                except (TypeError, ValueError):
                    pass
        return fp.bits

    @staticmethod
    def stale_out_flags(outs, codes):
        """NumPy's buffered iteration reads an out= array of another dtype than the
        loop's into its buffers, cast to the loop's dtype, wherever it has to keep
        elements it does not compute: calls and outer with where=, accumulate and
        reduceat (np.add(x, y, out=float64 array of 1e300, where=w, dtype='f') raises
        overflow). Those flags come from what out= held before, not from the operation,
        and the library does not read out= there: they are left out of the comparison."""
        fp = FpFlags()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for o, c in zip(outs, codes):
                o = np.asarray(o)
                if npdt(c) == o.dtype:
                    continue
                try:
                    with fp.recording():
                        o.astype(npdt(c))
                except (TypeError, ValueError):
                    pass
        return fp.bits

    def check_numpy_layout(self, ins, rs, kw, cast_mask):
        """NumPy 2.4 has loops whose result depends on the memory layout (np.signbit of
        33 float32 into a bool view with step 3 writes 9 of them). The call is run again
        on contiguous copies without out= and where=; where the two disagree beyond
        rounding, NumPy's answer is not used (NumpyQuirk)."""
        if not any(isinstance(x, Arr) for x in self.inputs) and self.out is None:
            return
        kw2 = {k: v for k, v in kw.items() if k in ("dtype", "signature", "casting")}
        try:
            ref = self.uf(*ins, **kw2)
        except Exception:  # noqa: BLE001 - out= may change the outcome (casting); not checked
            return
        refs = list(ref) if self.uf.nout > 1 else [ref]
        sel = None
        if self.where is not None:
            sel = np.asarray(kw["where"])
        for got, want in zip(rs, refs):
            got = np.asarray(got)
            try:
                want = np.broadcast_to(np.asarray(want).astype(got.dtype), got.shape)
                m = np.ones(got.shape, bool)
                if sel is not None:
                    m &= np.broadcast_to(sel, got.shape)
                if cast_mask is not None:
                    m &= np.broadcast_to(cast_mask, got.shape)
            except (ValueError, TypeError):
                return
            if got.dtype.char in "eE":  # compared in float64 (np.isclose has no bfloat16 loops)
                ok = np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=0, equal_nan=True)
            elif got.dtype.char in "eEfdgFDG":
                ok = np.isclose(got, want, rtol=1e-5, atol=0, equal_nan=True)
            else:
                ok = got == want
            if not np.all(ok | ~m):
                raise NumpyQuirk("NumPy's np.%s gives another result on contiguous copies" % self.uf.__name__)

    # NumPy loops that clear the floating-point status word on their SIMD path but not on
    # their scalar one (complex absolute: loops_unary_complex), with the loops concerned.
    STATUS_CLEARING = {"absolute": ("F->f", "D->d")}

    def layout_flags(self, ins, outs, kw, loop):
        """The kinds that NumPy raises, or not, depending on the memory layout: its complex
        absolute computes in SIMD lanes and then clears the status word, for every layout
        but those its iterator hands to the scalar fallback (npy_hypot: a 1-d operand with
        a negative step, among others), which raises overflow where |z| is beyond the
        largest finite number (np.abs(z) raises nothing, np.abs(z[::-1]) overflow, for
        z = np.full(8, 3.4e38 + 3.4e38j, 'F')). The call is run again on contiguous copies
        (out= and where= too); the kinds where the two differ are left out. The library
        raises none of these (ops::absolute), as the SIMD path."""
        if isinstance(self.uf, UserUfunc) or loop not in self.STATUS_CLEARING.get(self.uf.__name__, ()):
            return 0
        kw2 = dict(kw)
        if outs is not None:
            fresh = tuple(np.zeros(np.shape(o), np.asarray(o).dtype) for o in outs)
            kw2["out"] = fresh if self.method == "call" else fresh[0]
        if "where" in kw2:
            kw2["where"] = np.array(kw2["where"], order="C")
        ins2 = [np.array(v, order="C") if isinstance(v, np.ndarray) else v for v in ins]
        fp = FpFlags()
        try:
            with fp.recording():
                self.uf(*ins2, **kw2)
        except Exception:  # noqa: BLE001 - NumPy refuses the contiguous call: nothing to compare with
            return 0
        return (self.fp.bits ^ fp.bits) & (FpFlags.OVERFLOW | FpFlags.UNDERFLOW | FpFlags.INVALID | FpFlags.DIVIDE)

    REORDERABLE = {"add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
                   "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "logaddexp",
                   "logaddexp2", "hypot"}

    def left_fold(self, a, r, kw):
        """reduce and reduceat of an order-dependent ufunc (not REORDERABLE) on a float or
        complex loop are left folds: x0 op x1, then op x2, and so on (docs/design.md).
        NumPy 2.4's are not always: its SIMD power and arctan2 loops, and its AVX-512F ldexp
        loops with an int32 exponent (fi->f, di->d: ldexp.reduce of int16, int32, bool), run
        over the fold as if it were elementwise, keep one element per block of lanes
        (f(first, last) for a single block: np.power.reduce([2., 3., 1., 2.]) is 4.0, not
        64.0; np.ldexp.reduce(np.array([1, 2, 3], 'h')) is 8.0, not 32.0). So the
        generator folds itself, one NumPy scalar call per step, through an object ufunc
        whose reduce and reduceat take the same axis, keepdims, initial, where and
        indices, so that each element's chain follows NumPy's order; the steps round in
        the loop's dtype (a T(T, U) loop's second operand in U: fold_second_input). Where
        NumPy's result is not this fold (beyond a few ulps: arctan2 near pi/2), the fold is
        the expected result. The flags are always the fold's:
        those of its steps, of the input's cast to the loop's dtype and of the result's
        cast into out=. Returns the result to record."""
        uf = self.uf
        if self.method not in ("reduce", "reduceat") or isinstance(uf, UserUfunc) or uf.__name__ in self.REORDERABLE:
            return r
        dt = npdt(kw["dtype"]) if kw.get("dtype") is not None else r.dtype  # out='s dtype when given, as NumPy
        if dt.char not in "eEfdFD" or a.ndim == 0:
            return r
        second = self.fold_second_input(dt, a.dtype)
        fp = FpFlags()
        try:
            with fp.recording():
                x = a.astype(dt)
                init = dt.type(kw["initial"]) if kw.get("initial") is not None else None
            cells = np.empty(x.shape, dtype=object)
            src = x if second is None else a
            for i in np.ndindex(x.shape):
                cells[i] = src[i]
            if second is None:
                step = np.frompyfunc(lambda p, q: uf(p, q, dtype=dt), 2, 1)
            else:
                # A T(T, U) loop (ldexp's fi->f, dl->d...): the accumulator is the first element
                # (or initial) cast to T, each next element is cast to U.
                step = np.frompyfunc(lambda p, q: uf(dt.type(p), second.type(q)), 2, 1)
            kw2 = {k: v for k, v in kw.items() if k in ("axis", "keepdims", "where")}
            if init is not None:
                kw2["initial"] = init
            with fp.recording():
                if self.method == "reduce":
                    folded = step.reduce(cells, **kw2)
                else:
                    folded = step.reduceat(cells, self.indices.make()[1], **kw2)
                ref = np.array(folded, dtype=object).astype(dt).astype(r.dtype)
        except Exception:  # noqa: BLE001 - NumPy returned where the fold cannot: NumPy's answer stands
            return r
        if ref.shape != r.shape:
            return r
        self.fp = fp
        if np.all(self.fold_agrees(r, ref)):
            return r
        self.note = (self.note + "; " if self.note else "") + "left fold by the generator: NumPy's is not"
        return ref

    def fold_second_input(self, dt, src):
        """The second input's dtype U of the loop T(T, U) -> T that NumPy's reduce runs where
        the ufunc has no T(T, T) loop (ldexp: reduce of int16 runs fi->f, of int64 dl->d), as
        NumPy picks it: the loop whose U is the input's dtype, else the first in order that
        the input casts to safely. None where a T(T, T) loop exists."""
        loops = [t.split("->") for t in self.uf.types]
        loops = [i for i, o in loops if len(i) == 2 and o == dt.char and i[0] == dt.char]
        if any(i[1] == dt.char for i in loops):
            return None
        for i in loops:
            if i[1] == src.char:
                return npdt(i[1])
        for i in loops:
            if np.can_cast(src, npdt(i[1]), "safe"):
                return npdt(i[1])
        return None

    def order_dependent_flags(self, a, r, kw):
        """The flags that reduce and reduceat of a REORDERABLE ufunc on floats may or may
        not raise depending on the order it combines the elements in (NumPy sums
        pairwise; the library in SIMD lanes and parallel pieces): a partial result that
        overflows in one order and not in another, inf - inf or an underflowing product
        met in one order only. Unless every order is safe (finite values whose sum of
        magnitudes, or for multiply whose products of the magnitudes above and below 1,
        stay well inside the normal range), overflow, underflow and invalid are left out.
        maximum, minimum, fmax and fmin do not round, and must be quiet in any order."""
        name = self.uf.__name__
        if self.method not in ("reduce", "reduceat") or name not in self.REORDERABLE or \
                name in ("maximum", "minimum", "fmax", "fmin") or r.dtype.char not in "eEfdFD":
            return 0
        dt = npdt(kw["dtype"]) if kw.get("dtype") is not None else r.dtype
        order = FpFlags.OVERFLOW | FpFlags.UNDERFLOW | FpFlags.INVALID
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                x = a.astype(dt).ravel()
                if kw.get("initial") is not None:
                    x = np.append(x, np.asarray(kw["initial"]).astype(dt))
            except (TypeError, ValueError):
                return order
            mags = (np.abs(x.real) + np.abs(x.imag) if dt.kind == "c" else np.abs(x)).astype(np.float64)
            if not np.all(np.isfinite(mags)):
                return order
            fi = finfo(dt)
            if name == "multiply":
                logs = np.log2(mags[mags > 0])
                safe = np.sum(logs[logs > 0]) < np.log2(float(fi.max)) - 4 and \
                    np.sum(logs[logs < 0]) > np.log2(float(fi.tiny)) + 4
            else:
                safe = np.sum(mags) < float(fi.max) / 4
        return 0 if safe else order

    @staticmethod
    def fold_agrees(got, ref):
        if got.dtype.char not in "eEfdFD":
            return got == ref
        rtol = 8 * float(finfo(got.dtype).eps)
        if got.dtype.char in "eE":
            got, ref = got.astype(np.float64), ref.astype(np.float64)
        return np.isclose(got, ref, rtol=rtol, atol=0, equal_nan=True)

    def reduction_tolerance(self, a, r, kw):
        """Sets self.tol_ulps / self.tol_abs for float reductions, whose order of
        operations the library may choose (NumPy sums pairwise); returns a mask of the
        result elements worth comparing, or None."""
        name = self.uf.__name__
        if self.method not in ("reduce", "accumulate", "reduceat") or r.dtype.char not in "eEfdFD":
            return None
        if name in POWER_CHAINS:
            kw2 = {k: v for k, v in kw.items() if k in ("axis", "keepdims", "where", "initial")}
            self.tol_abs = power_chain_tolerance(self.uf, self.method, a, r, kw2,
                                                 self.indices.make()[1] if self.method == "reduceat" else None)
            return None
        n = max(int(a.size), 1)
        eps = float(finfo(r.dtype).eps)
        kw2 = {k: v for k, v in kw.items() if k in ("axis", "keepdims", "where")}
        if "initial" in kw:
            kw2["initial"] = abs(complex(kw["initial"]))
        # Magnitudes bound the rounding of any summation order; NaN parts leave the
        # other part's bound standing ((nan-5.89j): the imaginary sum still rounds).
        if a.dtype.char in "FD":
            parts = [np.abs(p).astype(np.float64) for p in (a.real, a.imag)]
            absa = sum(np.where(np.isnan(p), 0.0, p) for p in parts)
        else:
            absa = np.abs(a).astype(np.float64)
        args = (absa, self.indices.make()[1]) if self.method == "reduceat" else (absa,)
        if name in ("add", "subtract", "multiply", "logaddexp", "logaddexp2", "hypot"):
            fold = np.multiply if name == "multiply" else np.add
            try:
                s = np.asarray(getattr(fold, self.method)(*args, **kw2))
            except Exception:  # noqa: BLE001
                return None
            if s.shape != r.shape:
                return None
            fi = finfo(r.dtype)
            if name in ("add", "subtract"):
                self.tol_abs = (n + 2) * eps * s
                ok = np.isfinite(s) & (s <= float(fi.max))
            else:
                self.tol_ulps = 4 * (n + 1)
                # Order-dependent overflow and underflow: products beyond the range.
                ok = (np.isfinite(s) & (s <= float(fi.max)) & ((s >= float(fi.tiny)) | (s == 0))
                      if name == "multiply" else np.isfinite(r) | np.isnan(r))
            nan = np.isnan(r) if r.dtype.char in "eEfd" else (np.isnan(r.real) | np.isnan(r.imag))
            return ok | nan
        return None

    def numpy_loop(self, views_in):
        """The loop NumPy runs for a call (as codes, e.g. 'ff->f'), or None when NumPy
        cannot resolve one. Raises Unrepresentable for a loop on dtypes we lack."""
        if self.method not in ("call", "outer"):
            dts = [np.asarray(views_in[0]).dtype]
            return None if dts[0].char not in CODES + "qQ" else None
        dts = []
        for x in views_in:
            if isinstance(x, bool):
                dts.append(npdt(bool))
            elif isinstance(x, int):
                dts.append(int)
            elif isinstance(x, float):
                dts.append(float)
            elif isinstance(x, complex):
                dts.append(complex)
            else:
                dts.append(np.asarray(x).dtype)
        sig = None
        if self.signature is not None:
            ins, outs = self.signature.split("->")
            sig = tuple(npdt(c) for c in ins + outs)
        elif self.dtype is not None:
            sig = (None,) * self.uf.nin + (npdt(self.dtype),) * self.uf.nout
        kwargs = {}
        if sig is not None:
            kwargs["signature"] = sig
        # casting= does not change the loop (the call checks it afterwards): "unsafe" here
        # (NumPy 2.4's resolve_dtypes crashes on a weak int with casting="equiv").
        try:
            res = self.uf.resolve_dtypes(tuple(dts) + (None,) * self.uf.nout, casting="unsafe", **kwargs)
        except Exception:  # noqa: BLE001 - the call itself will raise and say what
            return None
        codes = [fold(d.char) for d in res]
        if not all(c in ALL_CODES for c in codes):
            raise Unrepresentable("NumPy runs loop %s" % "".join(d.char for d in res))
        return "".join(codes[: self.uf.nin]) + "->" + "".join(codes[self.uf.nin:])

    def cast_mask(self, views_in, loop, shape):
        """Elements whose value passes through a float -> integer conversion that C
        leaves undefined (NaN, inf, out of range): NumPy's bytes there are the
        platform's, so they are not compared."""
        if loop is None:
            return None
        ins, outs = loop.split("->")
        mask = np.ones(shape, dtype=bool)
        changed = False
        for x, c in zip(views_in, ins):
            if not is_int_code(c):
                continue
            if isinstance(x, (bool, int)):
                continue
            if isinstance(x, (float, complex)):
                if not representable(np.asarray(x), c):
                    mask[...] = False
                    changed = True
                continue
            if np.asarray(x).dtype.char in "eEfdFD":
                ok = representable(np.asarray(x), c)
                mask &= np.broadcast_to(ok, shape)
                changed = True
        if self.out is not None:
            for j, oc in enumerate(outs):
                o = self.out[j]
                out_code = self.inputs[o[1]].code if isinstance(o, tuple) else o.code
                if is_int_code(out_code) and oc in "eEfdFD":
                    # The loop's result before the cast to the output.
                    try:
                        r = self.uf(*views_in, signature=np_signature(loop), casting="unsafe")
                    except Exception:  # noqa: BLE001
                        return None
                    r = r[j] if self.uf.nout > 1 else r
                    mask &= np.broadcast_to(representable(np.asarray(r), out_code), shape)
                    mask &= np.broadcast_to(~near_truncation_edge(np.asarray(r)), shape)
                    changed = True
        return mask if changed else None

    # Description -------------------------------------------------------------

    def describe(self):
        args = []
        for i, x in enumerate(self.inputs):
            args.append(("a%d" % i) if isinstance(x, Arr) else repr(x))
        kws = []
        if self.indices is not None:
            args.insert(1, "idx")
        if self.out is not None:
            kws.append("out=(%s)" % ", ".join("a%d" % o[1] if isinstance(o, tuple) else "o%d" % j
                                              for j, o in enumerate(self.out)))
        if self.where is not None:
            kws.append("where=w")
        for k in ("dtype", "signature", "casting"):
            v = getattr(self, k)
            if v is not None:
                kws.append("%s=%r" % (k, npdt(v).name if k == "dtype" else v))
        if self.axis != "absent":
            kws.append("axis=%r" % (self.axis,))
        if self.keepdims is not None:
            kws.append("keepdims=%r" % self.keepdims)
        if self.initial is not None:
            kws.append("initial=%r" % (self.initial,))
        fn = "np.%s" % self.name if not isinstance(self.uf, UserUfunc) else self.name
        if self.method != "call":
            fn += "." + self.method
        s = "%s(%s)" % (fn, ", ".join(args + kws))
        ops = ["a%d: %s" % (i, x.describe()) for i, x in enumerate(self.inputs) if isinstance(x, Arr)]
        if self.out is not None:
            ops += ["o%d: %s" % (j, o.describe()) for j, o in enumerate(self.out) if not isinstance(o, tuple)]
        if self.where is not None:
            ops.append("w: " + self.where.describe())
        if self.indices is not None:
            ops.append("idx: " + self.indices.describe())
        return s + ("  where " + "; ".join(ops) if ops else "") + (("  [" + self.note + "]") if self.note else "")


class FpFlags:
    """The floating-point flags of NumPy calls, recorded under np.errstate(all='call'):
    NumPy calls the errcall function once per kind it reports (divide, overflow,
    underflow, invalid), each time with the call's whole status as NPY_FPE_* bits
    (divide 1, overflow 2, underflow 4, invalid 8: the library's fp_flag values), so
    the bits are ORed."""

    DIVIDE, OVERFLOW, UNDERFLOW, INVALID = 1, 2, 4, 8

    def __init__(self):
        self.bits = 0

    def _record(self, _kind, flag):
        self.bits |= int(flag)

    def recording(self):
        return np.errstate(all="call", call=self._record)


def flag_names(bits):
    names = [n for b, n in ((1, "divide"), (2, "overflow"), (4, "underflow"), (8, "invalid")) if bits & b]
    return "{" + ",".join(names) + "}"


class Unrepresentable(Exception):
    """NumPy computes the case with a dtype the library does not have (float128...)."""


class NumpyQuirk(Unrepresentable):
    """NumPy raises where it should not (a NumPy bug); the case is drawn again."""


class NoLoop(TypeError):
    """No loop of a user-defined ufunc accepts the inputs (as NumPy's UFuncNoLoopError)."""


def representable(x, c):
    """Elementwise: x (float or complex) converts to integer dtype c without undefined behaviour."""
    info = np.iinfo(npdt(c))
    with np.errstate(all="ignore"):
        r = np.real(x).astype(np.float64)
        t = np.trunc(r)
        return np.isfinite(r) & (t >= float(info.min)) & (t < float(info.max) + 1.0)


def near_truncation_edge(r, ulps=4):
    """Elements whose truncation to an integer changes within `ulps` ulp: a float result
    within the library's tolerance (tanh's 0.99999994 against 1.0) casts to another
    integer there, so a float loop's result cast to an integer out= is not compared."""
    r = np.real(np.asarray(r))
    if r.dtype.char not in "eEfd":
        return np.zeros(r.shape, dtype=bool)
    with np.errstate(all="ignore"):
        lo, hi = r, r
        for _ in range(ulps):
            lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
        return np.isfinite(r) & (np.trunc(lo) != np.trunc(hi))


def map_exception(e):
    """(NumPy's class name, the library's exception class name, message)."""
    name = type(e).__name__
    msg = str(e).splitlines()[0] if str(e) else ""
    if isinstance(e, NoLoop):
        return "UFuncNoLoopError", "no_loop_error", "no loop of the user ufunc accepts the inputs"
    if isinstance(e, (IndexError, np.exceptions.AxisError)):
        ours = "index_error"
    elif isinstance(e, OverflowError):
        if "too large to convert to C long" in msg:
            # NumPy 2.4 converts some weak uint64-range Python ints through C long
            # (np.logical_or(uint64_array, 2**63 + 1)); not a behaviour to copy.
            raise NumpyQuirk(msg)
        ours = "overflow_error"
    elif isinstance(e, TypeError):
        if msg == "expected number, got int":
            # ml_dtypes 0.6 converts a weak Python int to bfloat16 through a C long long: one
            # outside the int64 range raises this TypeError (np.add(bfloat16 array, 2**63)).
            raise NumpyQuirk(msg)
        if msg.startswith("int() argument must be") or msg.startswith("float() argument must be"):
            # NumPy 2.4 converts a weak complex scalar for a real signature with int() or float():
            # a Python-level TypeError rather than its casting error.
            raise NumpyQuirk(msg)
        # _UFuncInputCastingError / _UFuncOutputCastingError, and the UFuncTypeError or
        # TypeError that NumPy raises with the same message on other paths ("Cannot cast
        # ufunc 'sin' input from ...", "cannot cast Python int to float32 under the casting
        # rule 'equiv'"); everything else (_UFuncNoLoopError, "No loop matching the
        # specified signature", boolean subtract) is a missing loop.
        ours = "casting_error" if "CastingError" in name or "cannot cast" in msg.lower() else "no_loop_error"
    elif isinstance(e, ValueError):
        if msg.startswith("cannot convert float"):
            # NumPy 2.4 converts a weak float NaN or inf for an integer signature with int().
            raise NumpyQuirk(msg)
        if "broadcast" in msg:
            ours = "broadcast_error"
        elif "read-only" in msg:
            ours = "overlap_error"
        else:
            ours = "value_error"
    elif isinstance(e, MemoryError):
        ours = "memory_error"
    else:
        raise e
    return name, ours, msg


# Power chains: reduce, accumulate, reduceat and at of power and float_power compute
# x_k = x_{k-1} ** y_k, and an error of d_{k-1} (relative) in x_{k-1} comes out as
# |y_k| d_{k-1} in x_k, on top of the step's own rounding: eps for a real power (libm's
# pow is good to about an ulp) and eps (1 + |y log x|) for a complex one (exp(y log x),
# the runner's condition-aware bound for calls). NumPy's result and ours each carry such
# an error, so each element of the result gets CHAIN_EPS * d |result| as its absolute
# tolerance (per part, complex), with d propagated along the element's own chain (in
# eps units) by the same method run on (value, d) pairs through an object ufunc: axis,
# where, initial and reduceat's segments come out exactly as NumPy applies them. A step
# whose exponent is 0 gives exactly 1 (d = 0); NaN d (an infinite value on the way) is
# infinite. A zero result has tolerance 0, which still accepts either sign of zero. An
# infinite result has no finite tolerance: infinite where its direction is lost
# (CHAIN_EPS eps d >= pi: the signs of its parts are noise, and the runner compares
# infinite parts by magnitude), NaN (none: exact) otherwise.
POWER_CHAINS = ("power", "float_power")
CHAIN_EPS = 4


class _Chain:
    __slots__ = ("x", "d")

    def __init__(self, x, d):
        self.x, self.d = x, d


def _chain_step(uf, dtype):
    cplx = dtype.kind == "c"

    def step(p, q):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = dtype.type(uf(p.x, q.x))
            y = complex(q.x)
            if y == 0:
                return _Chain(x, 0.0)
            local = 1.0 + abs(y * complex(np.log(np.complex128(p.x)))) if cplx else 1.0
            d = abs(y) * p.d + local
        return _Chain(x, math.inf if math.isnan(d) else d)

    return np.frompyfunc(step, 2, 1)


def _chain_tolerance(d, r):
    eps = float(finfo(r.dtype).eps)
    with np.errstate(all="ignore"):
        rel = CHAIN_EPS * eps * d
        mag = np.abs(r).astype(np.float64)
        tol = np.where(np.isinf(mag), np.where(rel >= math.pi, np.inf, np.nan), rel * mag)
    return np.where(mag == 0, 0.0, tol)


def power_chain_tolerance(uf, method, a, r, kw, indices):
    """Per-element absolute tolerance of a power reduce/accumulate/reduceat (see POWER_CHAINS), or None."""
    if uf.__name__ not in POWER_CHAINS or r.dtype.char not in "eEfdFD":
        return None
    with np.errstate(all="ignore"):
        values = np.asarray(a).astype(r.dtype)
    pairs = np.empty(values.shape, dtype=object)
    for i in np.ndindex(values.shape):
        pairs[i] = _Chain(values[i], 0.0)
    kw = dict(kw)
    if "initial" in kw:
        with np.errstate(all="ignore"):
            kw["initial"] = _Chain(np.asarray(kw["initial"]).astype(r.dtype)[()], 0.0)
    fold = getattr(_chain_step(uf, r.dtype), method)
    try:
        out = np.asarray(fold(pairs, indices, **kw) if method == "reduceat" else fold(pairs, **kw))
    except Exception:  # noqa: BLE001 - no chain to follow: the runner's ulp bound stands
        return None
    if out.shape != r.shape:
        return None
    d = np.array([p.d if isinstance(p, _Chain) else 0.0 for p in out.ravel()], dtype=np.float64).reshape(r.shape)
    return _chain_tolerance(d, r)


def power_at_tolerance(uf, a, idx, b, r):
    """Per-element absolute tolerance of power.at(a, idx, b) on a (see POWER_CHAINS), or None."""
    if uf.__name__ not in POWER_CHAINS or r.dtype.char not in "eEfdFD" or a.ndim == 0:
        return None
    idx = np.asarray(idx)
    bb = np.broadcast_to(np.asarray(b), idx.shape + a.shape[1:])
    x = a.astype(r.dtype)
    d = np.zeros(a.shape, dtype=np.float64)
    step = _chain_step(uf, r.dtype)
    try:
        for pos in np.ndindex(idx.shape):
            row = int(idx[pos]) % a.shape[0]
            for sub in np.ndindex(a.shape[1:]):
                e = (row,) + sub
                c = step(_Chain(x[e], d[e]), _Chain(bb[pos + sub], 0.0))
                x[e], d[e] = c.x, c.d
    except Exception:  # noqa: BLE001 - no chain to follow: the runner's ulp bound stands
        return None
    return _chain_tolerance(d, r)


def chain_self_check():
    """--self-check: the power chains' tolerance on hand-computed chains. Returns failures."""
    failed = []

    def expect(what, got, want):
        if not np.allclose(np.asarray(got, dtype=np.float64), want, rtol=1e-12, atol=0, equal_nan=True):
            failed.append("%s: %s, expected %s" % (what, got, want))

    eps = float(finfo(np.float64).eps)
    a = np.array([2.0, 3.0, 2.0])  # 2, 2**3 = 8 (d = 1), 8**2 = 64 (d = 2 * 1 + 1 = 3)
    r = np.power.accumulate(a)
    expect("power.accumulate d", power_chain_tolerance(np.power, "accumulate", a, r, {}, None),
           [0.0, 4 * eps * 1 * 8, 4 * eps * 3 * 64])
    expect("power.reduce, initial 0.5, where", power_chain_tolerance(
        np.power, "reduce", a, np.power.reduce(a, initial=0.5, where=[True, False, True]),
        {"initial": 0.5, "where": np.array([True, False, True])}, None), 4 * eps * 3 * 0.0625)
    expect("power.reduceat", power_chain_tolerance(np.power, "reduceat", a, np.power.reduceat(a, [0, 2]), {}, [0, 2]),
           [4 * eps * 1 * 8, 0.0])
    expect("exponent 0 is exact", power_chain_tolerance(np.power, "reduce", np.array([5.0, 7.0, 0.0]),
                                                        np.array(1.0), {}, None), 0.0)
    z = np.array([1 + 1j, 2 - 1j])
    local = 1 + abs((2 - 1j) * np.log(1 + 1j))
    expect("complex power.reduce", power_chain_tolerance(np.power, "reduce", z, np.power.reduce(z), {}, None),
           4 * eps * local * abs(np.power.reduce(z)))
    b = np.array([3.0, 2.0])
    expect("power.at, repeated index", power_at_tolerance(np.power, np.array([2.0, 5.0]), [0, 0], b,
                                                          np.array([64.0, 5.0])), [4 * eps * 3 * 64, 0.0])
    big = np.array([0.26 + 9.4j, 6.2e129 + 1j])  # overflows with an angle known to no digit
    with np.errstate(all="ignore"):
        expect("direction lost", power_chain_tolerance(np.power, "reduce", big, np.power.reduce(big), {}, None),
               np.inf)
        huge = np.array([np.e, 710.0])  # overflows, angle 0: exact
        expect("direction kept", power_chain_tolerance(np.power, "reduce", huge.astype(complex),
                                                       np.power.reduce(huge.astype(complex)), {}, None), np.nan)
    return failed


def _fold_outcome(name, method, values, code="d", **opts):
    """The expected result (as an array) and flags that the generator records for NumPy's
    `name`.`method` of `values` (float64 unless `code` says otherwise)."""
    c = Case("e0", name, getattr(np, name), method)
    c.inputs = [contiguous(code, values)]
    for k, v in opts.items():
        setattr(c, k, contiguous("?", v) if k == "where" else contiguous("l", v) if k == "indices" else v)
    kind, payload = c.run_numpy()
    if kind != "ok":
        return None, c.fp.bits
    code, shape, data, _ = payload[0]
    return np.frombuffer(data, dtype=npdt(code)).reshape(shape), c.fp.bits


def fold_self_check():
    """--self-check: reduce and reduceat of order-dependent ufuncs are checked against the
    generator's left fold, whatever NumPy's SIMD loops return (np.power.reduce([2., 3., 1.,
    2.]) is 4.0 on AVX-512 machines). Returns failures."""
    failed = []

    def expect(what, got, want):
        if got is None or not np.allclose(np.asarray(got, dtype=np.float64), want, rtol=1e-15, atol=0):
            failed.append("%s: %s, expected %s" % (what, got, want))

    expect("power.reduce left fold", _fold_outcome("power", "reduce", [2.0, 3.0, 1.0, 2.0])[0], 64.0)
    expect("arctan2.reduce left fold", _fold_outcome("arctan2", "reduce", [-9.0, 0.5, -3.0])[0],
           math.atan2(math.atan2(-9.0, 0.5), -3.0))
    expect("power.reduceat left folds", _fold_outcome("power", "reduceat", [2.0, 3.0, 2.0, 2.0, 3.0],
                                                      indices=[0, 3])[0], [64.0, 8.0])
    expect("power.reduce, initial 0.5, where", _fold_outcome("power", "reduce", [2.0, 3.0, 2.0], initial=0.5,
                                                             where=[True, False, True])[0], 0.0625)
    chains = [[2.0, 3.0, 2.0, 1.0], [1.5, 2.0, 0.5, 3.0]]  # per row: ((x0 ** x1) ** x2) ** x3
    c = Case("e0", "power", np.power, "reduce")
    c.inputs, c.axis, c.keepdims = [contiguous("d", np.array(chains).T)], 0, True
    kind, payload = c.run_numpy()
    expect("power.reduce axis 0, keepdims", np.frombuffer(payload[0][2], dtype=np.float64) if kind == "ok" else None,
           [((2.0 ** 3.0) ** 2.0) ** 1.0, ((1.5 ** 2.0) ** 0.5) ** 3.0])
    # 0 ** -1 (divide) comes first in the fold; NumPy's f(first, last) would compute 0 ** 2.
    r, bits = _fold_outcome("power", "reduce", [0.0, -1.0, 2.0])
    expect("power.reduce of a pole", r, math.inf)
    if bits != FpFlags.DIVIDE:
        failed.append("power.reduce([0., -1., 2.]) flags %s, expected the fold's {divide}" % flag_names(bits))
    # ldexp.reduce of integers runs a T(T, U) loop: the exponents stay integers (fi->f for int16,
    # di->d for int32, dl->d for int64); NumPy's AVX-512F fi->f and di->d give ldexp(first, last).
    for code, want in (("h", 32.0), ("i", 32.0), ("l", 32.0)):
        expect("ldexp.reduce of %s left fold" % npdt(code).name, _fold_outcome("ldexp", "reduce", [1, 2, 3],
                                                                                     code=code)[0], want)
    expect("ldexp.reduce, dtype=float64", _fold_outcome("ldexp", "reduce", [1, 200, -200], code="h", dtype="d")[0],
           1.0)
    expect("ldexp.reduce, initial 3", _fold_outcome("ldexp", "reduce", [2, -1, 4], code="h", initial=3.0)[0], 96.0)
    r, bits = _fold_outcome("ldexp", "reduce", [1, 200, -200], code="h")  # 2^200 overflows float32 first
    expect("ldexp.reduce of int16 through an overflow", r, math.inf)
    if bits != FpFlags.OVERFLOW:
        failed.append("ldexp.reduce(int16 [1, 200, -200]) flags %s, expected the fold's {overflow}" % flag_names(bits))
    return failed


def cast_edge_self_check():
    """--self-check: which float results are too near an integer edge to compare after a cast."""
    failed = []
    # 1e30: every ulp there is another integer, so a result within tolerance is too.
    r = np.array([0.99999994, 1.0, 0.5, 2.5, -0.9999999, np.inf, np.nan, 1e30], dtype=np.float32)
    want = [True, True, False, False, True, False, False, True]
    got = near_truncation_edge(r).tolist()
    if got != want:
        failed.append("near_truncation_edge(%s) = %s, expected %s" % (r.tolist(), got, want))
    return failed


def flags_self_check():
    """--self-check: the flags recorded for a case, and those each rule leaves out. Returns failures."""
    failed = []

    def expect(what, got, want):
        if got != want:
            failed.append("%s: %s, expected %s" % (what, flag_names(got), flag_names(want)))

    def flags_of(name, *values, **opts):
        c = Case("e0", name, getattr(np, name), opts.pop("method", "call"))
        c.inputs = [contiguous(x.dtype.char, x) if isinstance(x, np.ndarray) else x for x in values]
        for k, v in opts.items():
            setattr(c, k, v)
        c.run_numpy()
        return c.fp.bits, c.flags_free

    f = FpFlags
    expect("divide by 0, 0 / 0", flags_of("divide", np.array([1.0, 0.0]), np.array([0.0, 0.0]))[0],
           f.DIVIDE | f.INVALID)
    expect("float less with NaN", flags_of("less", np.array([math.nan]), np.array([1.0]))[0], 0)
    expect("complex less with NaN", flags_of("less", np.array([complex(math.nan, 0)]), np.array([1 + 0j]))[0],
           f.INVALID)
    expect("exp overflow", flags_of("exp", np.array([1000.0]))[0], f.OVERFLOW)
    # Order-dependent reductions: 1e308 + 1e308 overflows first in one order only.
    expect("add.reduce, order-dependent", flags_of("add", np.array([1e308, 1e308, -1e308]), method="reduce")[1],
           f.OVERFLOW | f.UNDERFLOW | f.INVALID)
    expect("add.reduce, safe in any order", flags_of("add", np.array([1.0, 2.0, 3.0]), method="reduce")[1], 0)
    # The input cast float64 -> float32 overflows: left out; the loop's own divide stays.
    bits, free = flags_of("divide", np.array([1e300, 1.0]), np.array([1.0, 0.0]), signature="ff->f")
    expect("cast into a float32 loop", free, f.OVERFLOW)
    expect("... the loop's divide", bits & ~free, f.DIVIDE)
    # where= with out= of another dtype: NumPy casts out='s old contents into its buffer.
    o = Arr("d", np.full(2, 1e300))
    expect("stale out=", flags_of("add", np.array([1.0, 2.0], "f"), np.array([1.0, 2.0], "f"), out=[o],
                                  where=contiguous("?", [True, False]), signature="ff->f")[1], f.OVERFLOW)
    # Complex absolute: NumPy's SIMD path clears the status word, its scalar path (a 1-d
    # operand with a negative step) raises overflow for |z| beyond FLT_MAX: left out there only.
    big = np.full(8, complex(3.4e38, 3.4e38), "F")
    expect("absolute F->f, contiguous", sum(flags_of("absolute", big)), 0)
    rev = Arr("F", big, slices=[(None, None, -1)])
    expect("absolute F->f, reversed: raised", flags_of("absolute", rev)[0], f.OVERFLOW)
    expect("absolute F->f, reversed: left out", flags_of("absolute", rev)[1], f.OVERFLOW)
    # The cast of D->d's finite 4.8e38 into a float32 out= is the cast's overflow: compared.
    o = Arr("f", np.zeros(8, "f"), slices=[(None, None, -1)])
    expect("absolute D->d into float32", flags_of("absolute", Arr("D", big.astype("D"), slices=[(None, None, -1)]),
                                                  out=[o], casting="unsafe"), (f.OVERFLOW, 0))
    return failed


def result_tuple(x, mask):
    a = np.asarray(x)
    code = fold(a.dtype.char)
    if code not in ALL_CODES:
        raise Unrepresentable("NumPy's result is " + a.dtype.name)
    m = None if mask is None else np.array(np.broadcast_to(mask, a.shape), dtype=bool, order="C")
    if m is not None:  # elements not compared: NumPy leaves them uninitialized; keep the file deterministic
        a = np.where(m, a, np.zeros((), a.dtype))
    return code, a.shape, np.array(a, order="C").tobytes(), m


# ----------------------------------------------------------------------------------
# Case generation
# ----------------------------------------------------------------------------------


# ml_dtypes' bfloat16 loops that compare floats in C++ (see _run_numpy_ufunc).
ML_DTYPES_COMPILED_COMPARISONS = {"less", "less_equal", "greater", "greater_equal", "maximum", "minimum", "fmax",
                                  "fmin"}


def loop_inputs(loop):
    return loop.split("->")[0]


def loop_outputs(loop):
    return loop.split("->")[1]


def int_range_for(uf, pos):
    """Input value ranges that keep a case meaningful (most calls would raise)."""
    if isinstance(uf, UserUfunc):
        return uf.int_range
    if uf.__name__ == "power" and pos == 1:
        return (0, 6)
    return None


def values_fn(rng, uf, code, pos, pool_share=0.3):
    rng_ = int_range_for(uf, pos)

    def f(n):
        return random_values(rng, code, n, rng_)
    return f


# The case classes below are appended after the per-loop variants, so that adding one
# keeps the ids of the others.
# NaN and inf among the inputs of the comparisons and of the ufuncs that compare
# (NumPy raises no flag for a NaN in a float comparison, invalid in a complex ordered
# one): lengths around the SIMD widths (4 to 16 lanes), so that the NaN falls in a
# vector body or in a tail.
NAN_FAMILY = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "maximum", "minimum", "fmax",
              "fmin")
NAN_LENGTHS = (1, 7, 16, 19, 67)
NAN_WHICH = ("a", "b", "inf")  # a NaN in the first input (its last element), in the second (anywhere), none but +-inf
# Reductions over zero-length axes of multi-dimensional empties: NumPy raises ValueError
# ("zero-size array to reduction operation X which has no identity") when a reduced axis
# has length 0 and there is neither an identity nor initial=, and returns the identity
# or initial otherwise.
EMPTY_SHAPES = ((0, 0), (0, 3), (3, 0), (2, 0, 4))
EMPTY_AXES = {2: (None, 0, 1, -1, -2, (0, 1), (1, -2), ()), 3: (None, 1, -2, (0, 2), (1,), (-1, 0), (0, 1, 2), ())}
EMPTY_CASES = 20  # per ufunc: 16 reduce (4 shapes x 8 axes), 2 accumulate, 2 reduceat
# Order-dependent float reductions that NumPy 2.4 gets wrong (Case.left_fold): chains of
# tame values (a chain of random values overflows or vanishes within a few steps).
FOLD_UFUNCS = ("power", "float_power", "arctan2")
FOLD_VARIANTS = ("reduce:3", "reduce:4", "reduce:9", "reduce:17", "reduce:33", "reduce2d", "reduceat", "accumulate")
# Complex absolute near the top of the range ('huge:<layout>'): |z| beyond the largest finite
# number, which NumPy's SIMD path returns as inf without a flag (Case.layout_flags), in the layouts
# of its SIMD path and of its scalar fallback, into out= views and wider or narrower out=, and at.
# Random complex values almost never have both parts that large.
HUGE_LAYOUTS = ("contiguous", "reversed", "strided", "out2d", "other-out", "at")
# ldexp.reduce of integers ('ldexp:<input code>:<dtype= or ->:<variant>'): the T(T, U) loops NumPy's
# reduce runs (fi->f for int16, di->d for int32...), whose AVX-512F versions get chains of three or
# more wrong (Case.left_fold); (input code, dtype=, the loop, variants). The exhaustive set has no
# other reduce of ldexp (it has no T(T, T) loop).
LDEXP_CHAINS = ("reduce:3", "reduce:17", "reduce:33", "reduce2d", "initial")
LDEXP_FOLDS = (("h", None, "fi->f", LDEXP_CHAINS), ("H", None, "fi->f", LDEXP_CHAINS),
               ("i", None, "di->d", LDEXP_CHAINS), ("?", "f", "fi->f", LDEXP_CHAINS),
               ("h", "d", "di->d", LDEXP_CHAINS), ("i", "f", "fi->f", LDEXP_CHAINS),
               ("l", None, "dl->d", ("reduce:17", "initial")), ("I", None, "dl->d", ("reduce:17", "initial")),
               ("l", "f", "fl->f", ("reduce:17", "initial")))


def exhaustive_tasks(ufs):
    """(name, loop, variant) in a fixed order; variant is one of
    'edges' (the edge-value pool, every pair for binary ufuncs, contiguous),
    'outer' (pool x pool by broadcasting, negative steps and transposes),
    'strided' (random values, up to 4-d, views), 'out' (out= views, where=, in place),
    'scalar' (a weak Python scalar operand), 'alias' (the ufunc called by an alias name),
    'reduce' and 'accumulate' (the methods, dtype= the loop's, for loops of one dtype)."""
    tasks = []
    for name in sorted(ufs):
        uf, aliases = ufs[name]
        loops = uf.loops if isinstance(uf, UserUfunc) else restricted_loops(uf)
        for loop in loops:
            variants = ["edges", "strided", "out"]
            if uf.nin == 2:
                variants.insert(1, "outer")
            if uf.nin >= 2 and not isinstance(uf, UserUfunc):
                variants.append("scalar")
            if uf.nin == 2 and uf.nout == 1 and not isinstance(uf, UserUfunc) and len(set(loop.replace("->", ""))) == 1:
                variants += ["reduce", "accumulate"]
            for v in variants:
                tasks.append((name, loop, v))
        for alias in aliases:
            tasks.append((name, loops[0], "alias:" + alias))
    # The classes the flags comparison added: NaN in comparisons ('nan:<length>:<which>'),
    # empty reductions ('empty:<k>'), left folds ('fold:<method>').
    for name in sorted(ufs):
        uf, _ = ufs[name]
        if isinstance(uf, UserUfunc):
            continue
        loops = restricted_loops(uf)
        if name in NAN_FAMILY:
            for loop in loops:
                if all(is_inexact_code(x) for x in loop_inputs(loop)):
                    tasks += [(name, loop, "nan:%d:%s" % (n, w)) for n in NAN_LENGTHS for w in NAN_WHICH]
                    tasks.append((name, loop, "nan:19:scalar"))
                    if len(set(loop.replace("->", ""))) == 1:  # maximum and the like: their reduce too
                        tasks += [(name, loop, "nan:%d:reduce" % n) for n in NAN_LENGTHS]
        single = [t for t in loops if len(set(t.replace("->", ""))) == 1]
        if uf.nin == 2 and uf.nout == 1 and single:
            inexact = [t for t in single if is_inexact_code(t[0])]
            loop = (inexact or single)[0]
            tasks += [(name, loop, "empty:%d" % k) for k in range(EMPTY_CASES)]
        if name in FOLD_UFUNCS:
            for loop in single:
                if is_inexact_code(loop[0]):
                    tasks += [(name, loop, "fold:" + v) for v in FOLD_VARIANTS]
    # The classes added for seed 7's mismatches, after all the others (whose ids stay).
    if "absolute" in ufs and not isinstance(ufs["absolute"][0], UserUfunc):
        for loop in restricted_loops(ufs["absolute"][0]):
            if loop in Case.STATUS_CLEARING["absolute"]:
                tasks += [("absolute", loop, "huge:" + v) for v in HUGE_LAYOUTS]
    if "ldexp" in ufs and not isinstance(ufs["ldexp"][0], UserUfunc):
        loops = restricted_loops(ufs["ldexp"][0])
        for code, dt, loop, variants in LDEXP_FOLDS:
            if loop in loops:
                tasks += [("ldexp", loop, "ldexp:%s:%s:%s" % (code, dt or "-", v)) for v in variants]
    return tasks + half_tasks(ufs)


# float16 and bfloat16 (half_loops), after all the other classes (whose ids stay): each loop's
# variants as above; NaN in the comparisons (HALF_NAN); empty reductions (HALF_EMPTY of
# EMPTY_CASES); left folds (HALF_FOLDS); and 'promote:<x>', a half array with an array of dtype x
# or a weak Python scalar of kind x ('py<kind>'), for the ufuncs of HALF_PROMOTE: the
# promotions through float16 and bfloat16 (bfloat16 with int16 runs float32's loop...).
HALF_NAN = ("nan:7:a", "nan:19:b", "nan:67:inf", "nan:19:scalar", "nan:16:reduce")
HALF_EMPTY = (0, 5, 10, 15, 16, 18)
HALF_FOLDS = ("reduce:4", "reduce:17", "reduce2d", "reduceat", "accumulate")
HALF_PROMOTE = ("add", "divide", "less", "maximum", "arctan2", "copysign")
HALF_PROMOTE_WITH = tuple(ALL_CODES) + ("pyb", "pyi", "pyf", "pyc")


def half_tasks(ufs):
    tasks = []
    for name in sorted(ufs):
        uf, _ = ufs[name]
        loops = half_loops(uf)
        for loop in loops:
            single = len(set(loop.replace("->", ""))) == 1
            variants = ["edges", "strided", "out"]
            if uf.nin == 2:
                variants.insert(1, "outer")
                variants.append("scalar")
                if uf.nout == 1 and single:
                    variants += ["reduce", "accumulate"]
            tasks += [(name, loop, v) for v in variants]
            if name in NAN_FAMILY and all(is_inexact_code(x) for x in loop_inputs(loop)):
                tasks += [(name, loop, v) for v in HALF_NAN if single or not v.endswith("reduce")]
            if uf.nin == 2 and uf.nout == 1 and single:
                tasks += [(name, loop, "empty:%d" % k) for k in HALF_EMPTY]
                if name in FOLD_UFUNCS:
                    tasks += [(name, loop, "fold:" + v) for v in HALF_FOLDS]
            if name in HALF_PROMOTE and single:
                tasks += [(name, loop, "promote:" + x) for x in HALF_PROMOTE_WITH]
    return tasks


def promote_case(rng, c, half, other):
    """'promote:<other>': a half array with an array of dtype other (either order), or a weak
    Python scalar of kind other[2:]; NumPy resolves the loop."""
    c.signature = None
    uf = c.uf
    shape = random_shape(rng, int(rng.integers(1, 3)))
    shapes = operand_shapes(rng, shape, 2)
    shapes[0] = shape
    a = make_operand(rng, half, shapes[0], values_fn(rng, uf, half, 0))
    if other.startswith("py"):
        b = python_scalar(rng, other[2], None)
    else:
        b = make_operand(rng, other, shapes[1], values_fn(rng, uf, other, 1))
    c.inputs = [a, b] if rng.random() < 0.6 else [b, a]
    return c


def pairs_of_pools(rng, pools, cap=3000):
    """Arrays (one per input) whose rows together hold every combination of the pools'
    values, or `cap` random combinations (each value appearing) when there are more."""
    total = 1
    for p in pools:
        total *= len(p)
    if total <= cap:
        grids = np.meshgrid(*[np.arange(len(p)) for p in pools], indexing="ij")
        idx = [g.ravel() for g in grids]
    else:
        idx = [rng.integers(0, len(p), cap) for p in pools]
        for k, p in enumerate(pools):  # every value of every pool at least once
            m = min(len(p), cap)
            idx[k][:m] = np.arange(m)
    return [p[i] for p, i in zip(pools, idx)]


def random_shape(rng, ndim, max_size=240):
    while True:
        shape = [int(rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 9, 16, 17, 33])) for _ in range(ndim)]
        if rng.random() < 0.04 and ndim > 0:
            shape[int(rng.integers(0, ndim))] = 0
        if int(np.prod(shape)) <= max_size:
            return tuple(shape)


def operand_shapes(rng, shape, n, p_drop=0.25, p_one=0.25):
    """n shapes that broadcast to `shape` (each maybe with fewer axes or extents of 1)."""
    out = []
    for _ in range(n):
        s = list(shape)
        if len(s) and rng.random() < p_drop:
            s = s[int(rng.integers(0, len(s) + 1)):]
        for i in range(len(s)):
            if rng.random() < p_one:
                s[i] = 1
        out.append(tuple(s))
    return out


def exhaustive_case(seed, index, task, ufs):
    name, loop, variant = task
    uf, _ = ufs[name]
    rng = np.random.default_rng([seed, 0, index])
    ins = loop_inputs(loop)
    outs = loop_outputs(loop)
    c = Case("e%d" % index, name, uf)
    c.note = "loop %s, %s" % (loop, variant)
    if not isinstance(uf, UserUfunc):
        # Ask for the loop by signature when the input dtypes alone select another one.
        try:
            res = uf.resolve_dtypes(tuple(npdt(x) for x in ins) + (None,) * uf.nout)
            chosen = "".join(fold(d.char) for d in res[: uf.nin]) + "->" + "".join(fold(d.char) for d in res[uf.nin:])
        except Exception:  # noqa: BLE001
            chosen = None
        if chosen != loop:
            c.signature = loop
    if variant.startswith("alias:"):
        c.name = variant.split(":", 1)[1]
        c.signature = None
        n = 17
        c.inputs = [contiguous(x, random_values(rng, x, n, int_range_for(uf, k))) for k, x in enumerate(ins)]
        return c
    if variant == "edges":
        pools = [pool(x) for x in ins]
        if uf.nin == 1:
            vals = [np.concatenate([pools[0], random_values(rng, ins[0], 37, int_range_for(uf, 0))])]
        else:
            vals = pairs_of_pools(rng, pools)
            if int_range_for(uf, 1) is not None and is_int_code(ins[1]):
                lo, hi = int_range_for(uf, 1)
                vals[1] = np.clip(vals[1], lo, hi).astype(vals[1].dtype)
            if isinstance(uf, UserUfunc) and uf.int_range is not None:
                vals = [np.clip(v, *uf.int_range).astype(v.dtype) if is_int_code(v.dtype.char) else v for v in vals]
        c.inputs = [contiguous(x, v) for x, v in zip(ins, vals)]
        return c
    if variant == "outer":
        pa, pb = pool(ins[0]), pool(ins[1])
        if int_range_for(uf, 1) is not None and is_int_code(ins[1]):
            pb = np.unique(np.clip(pb, *int_range_for(uf, 1))).astype(pb.dtype)
        if isinstance(uf, UserUfunc) and uf.int_range is not None:
            pa = np.clip(pa, *uf.int_range).astype(pa.dtype) if is_int_code(ins[0]) else pa
            pb = np.clip(pb, *uf.int_range).astype(pb.dtype) if is_int_code(ins[1]) else pb
        if len(pa) * len(pb) > 3000:
            pa = pa[np.sort(rng.choice(len(pa), 60, replace=False))] if len(pa) > 60 else pa
            pb = pb[np.sort(rng.choice(len(pb), 50, replace=False))] if len(pb) > 50 else pb
        # a: a column (len(pa), 1) read backwards (step -2) from a wider base; b: a row through a transpose.
        n = len(pa)
        base_a = random_values(rng, ins[0], (2 * n + 1) * 2).reshape(2 * n + 1, 2)
        if n:
            base_a[2 * n - 1::-2, 1] = pa
        a = Arr(ins[0], base_a, slices=[(2 * n - 1, None, -2), (1, 2, 1)])
        b = Arr(ins[1], pb.reshape(len(pb), 1), perm=[1, 0])
        assert a.shape() == (n, 1) and np.array_equal(a.make()[1][:, 0], pa, equal_nan=True)
        c.inputs = [a, b]
        return c
    if variant == "strided":
        shape = random_shape(rng, int(rng.integers(1, 5)))
        shapes = operand_shapes(rng, shape, uf.nin)
        shapes[int(rng.integers(0, uf.nin))] = shape
        c.inputs = [make_operand(rng, x, s, values_fn(rng, uf, x, k), p_slice=0.7, p_transpose=0.5)
                    for k, (x, s) in enumerate(zip(ins, shapes))]
        return c
    if variant == "out":
        shape = random_shape(rng, int(rng.integers(1, 4)))
        shapes = operand_shapes(rng, shape, uf.nin)
        shapes[0] = shape
        c.inputs = [make_operand(rng, x, s, values_fn(rng, uf, x, k), p_slice=0.5, p_transpose=0.3)
                    for k, (x, s) in enumerate(zip(ins, shapes))]
        c.out = []
        for j, oc in enumerate(outs):
            if j == 0 and uf.nout == 1 and ins[0] == oc and rng.random() < 0.4 and c.inputs[0].bshape is None:
                c.out.append(("alias", 0))
            else:
                c.out.append(make_operand(rng, oc, shape, lambda n, oc=oc: random_values(rng, oc, n),
                                          p_slice=0.7, p_transpose=0.4, readonly_ok=False))
        if rng.random() < 0.7:
            c.where = make_operand(rng, "?", operand_shapes(rng, shape, 1)[0], lambda n: rng.random(n) < 0.6,
                                   p_slice=0.3, p_transpose=0.2)
        return c
    if variant in ("reduce", "accumulate"):
        c.method = variant
        c.signature = None
        code = ins[0]
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, max_size=150)
        c.inputs = [make_operand(rng, code, shape, values_fn(rng, uf, code, 0), p_slice=0.6, p_transpose=0.4)]
        c.dtype = code
        r = rng.random()
        if variant == "reduce":
            if r < 0.2:
                c.axis = None
            elif r < 0.4 and ndim >= 2:
                c.axis = tuple(int(x) for x in rng.choice(ndim, int(rng.integers(1, ndim + 1)), replace=False))
            else:
                c.axis = int(rng.integers(-ndim, ndim))
            c.keepdims = bool(rng.integers(0, 2))
            if rng.random() < 0.4:
                c.initial = pool(code)[int(rng.integers(0, len(pool(code))))].item()
            if rng.random() < 0.3 and (uf.identity is not None or c.initial is not None):
                c.where = make_operand(rng, "?", operand_shapes(rng, shape, 1)[0], lambda n: rng.random(n) < 0.6)
        else:
            c.axis = int(rng.integers(-ndim, ndim))
        return c
    if variant.startswith("nan:"):
        return nan_case(rng, c, ins, variant)
    if variant.startswith("empty:"):
        return empty_case(rng, c, ins[0], int(variant.split(":")[1]))
    if variant.startswith("fold:"):
        return fold_case(rng, c, ins[0], variant.split(":", 1)[1])
    if variant.startswith("huge:"):
        return huge_case(rng, c, ins[0], outs[0], variant.split(":", 1)[1])
    if variant.startswith("ldexp:"):
        return ldexp_case(rng, c, *variant.split(":", 3)[1:])
    if variant.startswith("promote:"):
        return promote_case(rng, c, ins[0], variant.split(":", 1)[1])
    if variant == "scalar":
        shape = random_shape(rng, int(rng.integers(0, 4)))
        k = int(rng.integers(0, uf.nin))
        c.inputs = []
        for i, x in enumerate(ins):
            if i == k:
                v = random_values(rng, x, 1, int_range_for(uf, i))[0]
                c.inputs.append(v.item() if x != "?" else bool(v))
            else:
                c.inputs.append(make_operand(rng, x, shape, values_fn(rng, uf, x, i)))
        return c
    raise AssertionError(variant)


def without_nan(code, v):
    """v with its NaNs (either part) replaced by finite values."""
    v = np.array(v)
    bad = np.isnan(v.real) | np.isnan(v.imag) if is_complex_code(code) else np.isnan(v)
    v[bad] = 1.5
    return v


def nan_value(rng, code):
    if not is_complex_code(code):
        return math.nan
    return [complex(math.nan, 0.0), complex(0.5, math.nan), complex(math.nan, math.nan)][int(rng.integers(0, 3))]


def nan_case(rng, c, ins, variant):
    """'nan:<length>:<which>': contiguous inputs of that length, NaN-free but for
    which = 'a' (the first input's last element: a tail for most SIMD widths), 'b' (the
    second input, anywhere), 'inf' (infinities of both signs, no NaN), 'scalar' (a
    weak NaN Python scalar as the second input) or 'reduce' (reduce of one input with
    a NaN anywhere)."""
    _, n, which = variant.split(":")
    n = int(n)
    if which == "reduce":
        v = without_nan(ins[0], random_values(rng, ins[0], n))
        v[int(rng.integers(0, n))] = nan_value(rng, ins[0])
        c.method, c.signature = "reduce", None
        c.inputs = [contiguous(ins[0], v)]
        return c
    vals = [without_nan(x, random_values(rng, x, n)) for x in ins]
    if which == "a":
        vals[0][n - 1] = nan_value(rng, ins[0])
    elif which == "b":
        vals[1][int(rng.integers(0, n))] = nan_value(rng, ins[1])
    elif which == "inf":
        for v in vals:
            for _ in range(max(1, n // 8)):
                v[int(rng.integers(0, n))] = math.inf if rng.random() < 0.5 else -math.inf
    c.inputs = [contiguous(x, v) for x, v in zip(ins, vals)]
    if which == "scalar":
        c.inputs[1] = complex(nan_value(rng, ins[1])) if is_complex_code(ins[1]) else math.nan
    return c


def empty_case(rng, c, code, k):
    """'empty:<k>': a reduction over a multi-dimensional empty (EMPTY_SHAPES): k < 16
    reduce (every shape with every axis of EMPTY_AXES over k), keepdims and initial
    drawn; 16, 17 accumulate; 18, 19 reduceat."""
    c.signature = None
    if k < 16:
        shape = EMPTY_SHAPES[k % 4]
        axes = EMPTY_AXES[len(shape)]
        c.method = "reduce"
        c.axis = axes[(k // 4) * 2 + int(rng.integers(0, 2))]
        c.keepdims = bool(rng.integers(0, 2))
        if rng.random() < 0.4:
            c.initial = pool(code)[int(rng.integers(0, len(pool(code))))].item()
        if rng.random() < 0.5:
            c.dtype = code
    elif k < 18:
        shape, c.axis = [((0, 3), 0), ((3, 0), 1), ((2, 0, 4), -2), ((3, 0), 0)][(k - 16) * 2 + int(rng.integers(0, 2))]
        c.method = "accumulate"
    else:
        shape, c.axis, idx = [((3, 0), 0, [0, 2]), ((0, 3), 1, [0, 1]), ((2, 0, 4), 2, [1, 3, 0]),
                              ((0, 3), 0, [0])][(k - 18) * 2 + int(rng.integers(0, 2))]
        c.method = "reduceat"
        c.indices = contiguous("l", idx)
    c.inputs = [make_operand(rng, code, shape, lambda n: random_values(rng, code, n), p_slice=0.5, p_transpose=0.4,
                             p_broadcast=0.0)]
    return c


def tame_values(rng, name, code, n):
    """Values whose power or arctan2 chains stay finite for a few dozen steps, with now
    and then one special value (which raises flags: NaN from a negative base, 0 ** -x)."""
    real = "f" if code in "fF" else "d"
    if name == "arctan2":
        v = rng.uniform(-10.0, 10.0, n)
    else:
        v = rng.uniform(0.6, 1.6, n)
    v = v.astype(real)
    if is_complex_code(code):
        v = v + 1j * rng.uniform(-0.4, 0.4, n).astype(real)
    v = np.asarray(v, dtype=npdt(code))
    if n and rng.random() < 0.3:
        specials = [0.0, -0.0, -1.5, math.inf, -math.inf, math.nan, 1e30]  # 1e30: inf in float16
        with np.errstate(all="ignore"):
            v[int(rng.integers(0, n))] = specials[int(rng.integers(0, len(specials)))]
    return v


def fold_case(rng, c, code, variant):
    """'fold:<variant>' of FOLD_VARIANTS: reduce of 1-d chains of several lengths, of a
    2-d array along either axis, reduceat with a repeated and a decreasing index, and
    accumulate (NumPy's is right: the same chains)."""
    c.signature = None
    name = c.uf.__name__
    c.method = "reduce" if variant.startswith("reduce") and variant != "reduceat" else variant
    if variant.startswith("reduce:"):
        shape = (int(variant.split(":")[1]),)
    elif variant == "reduce2d":
        shape, c.axis = ((5, 17), -1) if rng.random() < 0.5 else ((17, 5), 0)
        c.keepdims = bool(rng.integers(0, 2))
    elif variant == "reduceat":
        shape = (33,)
        c.indices = contiguous("l", [0, 5, 5, 20, 12, 30])
    else:
        shape = (17,)
    c.inputs = [make_operand(rng, code, shape, lambda n: tame_values(rng, name, code, n), p_slice=0.3,
                             p_transpose=0.3, p_broadcast=0.0)]
    return c


def huge_values(rng, code, n):
    """n complex values of dtype code, most with both parts near the largest finite number
    (|z| beyond it, or below it), some tiny, infinite, NaN or ordinary. No |z| within a few
    percent of the largest number: there NumPy's SIMD formula (larger * sqrt(1 + ratio^2))
    rounds to inf where the correctly rounded hypot (NumPy's scalar fallback, the library's) is
    finite, a difference of rounding, not of flags."""
    real = npdt("f" if code == "F" else "d")
    fi = finfo(real)
    mx = float(fi.max)
    with np.errstate(all="ignore"):
        # |z| of two of them: 1.41, 1.25, 1.17, 1.12, 1.06 or 0.96, 0.90, 0.85, 0.78, 0.71 times max
        # (max itself with 1e30 or 1e300, which is below half an ulp of it).
        huge = [mx, -mx, 0.75 * mx, -0.5 * mx, 0.6 * mx, 1e30 if code == "F" else 1e300]
        other = [0.0, -0.0, 1.0, -3.0, float(fi.tiny), float(fi.smallest_subnormal), math.inf, -math.inf, math.nan]
        re = np.where(rng.random(n) < 0.8, rng.choice(huge, n), rng.choice(other, n)).astype(real)
        im = np.where(rng.random(n) < 0.8, rng.choice(huge, n), rng.choice(other, n)).astype(real)
    v = np.empty(n, npdt(code))
    v.real, v.imag = re, im
    return v


def huge_case(rng, c, code, out_code, layout):
    """'huge:<layout>' of HUGE_LAYOUTS for absolute's complex loops."""
    c.signature = None
    n = 37  # a SIMD body and a tail on every instruction set
    if layout == "contiguous":
        c.inputs = [contiguous(code, huge_values(rng, code, n))]
    elif layout == "reversed":  # NumPy's scalar fallback: it raises overflow (left out, layout_flags)
        c.inputs = [Arr(code, huge_values(rng, code, 2 * n), slices=[(None, None, -2)])]
    elif layout == "strided":
        c.inputs = [make_operand(rng, code, (5, 9), lambda k: huge_values(rng, code, k), p_slice=1.0,
                                 p_transpose=0.5, p_broadcast=0.0)]
    elif layout == "out2d":  # seed 7's r9241: out= a view with negative steps
        c.inputs = [contiguous(code, huge_values(rng, code, 64).reshape(4, 16))]
        c.out = [Arr(out_code, np.zeros((8, 48), out_code), slices=[(7, 0, -2), (47, 1, -3)])]
        c.casting = "safe"
    elif layout == "other-out":  # F->f into float64 (inf stays inf); D->d into float32 (the cast overflows)
        other = "d" if out_code == "f" else "f"
        c.inputs = [contiguous(code, huge_values(rng, code, n))]
        c.out = [make_operand(rng, other, (n,), lambda k: np.zeros(k, other), p_slice=0.5, p_broadcast=0.0,
                              readonly_ok=False)]
        c.casting = "unsafe"
    elif layout == "at":
        c.method = "at"
        c.inputs = [contiguous(code, huge_values(rng, code, n))]
        c.indices = contiguous("l", rng.integers(0, n, 12))
    else:
        raise AssertionError(layout)
    return c


def ldexp_chain_values(rng, code, n):
    """n values of integer (or bool) dtype code for ldexp.reduce chains: small exponents that
    keep a chain finite for a few dozen steps, and now and then one far outside the float
    range (overflow to inf, underflow to zero, from where the chain stays)."""
    if code == "?":
        return rng.random(n) < 0.6
    info = np.iinfo(npdt(code))
    v = rng.integers(-6, 7, n)
    if n and rng.random() < 0.5:
        v[int(rng.integers(0, n))] = int(rng.choice([150, -160, 1100, -1200, 30000, -30000, int(info.max)]))
    return np.clip(v, info.min, info.max).astype(npdt(code))


def ldexp_case(rng, c, code, dtype, variant):
    """'ldexp:<code>:<dtype or ->:<variant>' of LDEXP_FOLDS: reduce of integer chains of several
    lengths (strided or not), of a 2-d array along either axis, and with initial= and where=."""
    c.signature = None
    c.method = "reduce"
    c.dtype = None if dtype == "-" else dtype
    values = lambda k: ldexp_chain_values(rng, code, k)  # noqa: E731
    if variant.startswith("reduce:"):
        shape = (int(variant.split(":")[1]),)
    elif variant == "reduce2d":
        shape, c.axis = ((5, 17), -1) if rng.random() < 0.5 else ((17, 5), 0)
        c.keepdims = bool(rng.integers(0, 2))
    elif variant == "initial":
        shape = (17,)
        c.initial = float(rng.choice([1.0, 3.0, -0.5, 2.5]))
        c.where = make_operand(rng, "?", shape, lambda k: rng.random(k) < 0.7, p_slice=0.3)
    else:
        raise AssertionError(variant)
    c.inputs = [make_operand(rng, code, shape, values, p_slice=0.3, p_transpose=0.3, p_broadcast=0.0)]
    return c


# Weights of the random cases' methods (only those NumPy has for the ufunc).
METHODS = [("call", 0.8), ("reduce", 0.08), ("accumulate", 0.04), ("reduceat", 0.03), ("outer", 0.03),
           ("at", 0.02)]


def random_case(seed, index, names, ufs, methods=True, half=False):
    """Case r<index>, or with half h<index>: a ufunc with a float16 or bfloat16 loop
    (half_names), its inputs mostly of those loops, mixed with any dtype (fill_random_call).
    Draws until NumPy's answer is representable; the draws depend only on (seed, index, names)."""
    rng = np.random.default_rng([seed, 4 if half else 1, index])
    cid = ("h%d" if half else "r%d") % index
    for _attempt in range(50):
        name = names[int(rng.integers(0, len(names)))]
        uf, aliases = ufs[name]
        if aliases and rng.random() < 0.05:
            name = aliases[int(rng.integers(0, len(aliases)))]
        method = "call"
        if methods and not isinstance(uf, UserUfunc):
            r = rng.random()
            acc = 0.0
            for m, w in METHODS:
                acc += w
                if r < acc:
                    method = m
                    break
        if method in ("reduce", "accumulate", "reduceat", "outer") and (uf.nin != 2 or uf.nout != 1) \
                and rng.random() < 0.9:
            method = "call"  # NumPy raises ValueError: a few of those are enough
        c = Case(cid, name, uf, method)
        if method == "call":
            fill_random_call(rng, c, half)
        else:
            fill_random_method(rng, c, half)
        if TRACE:
            print("trace: " + c.describe(), file=sys.stderr, flush=True)
        try:
            outcome = c.run_numpy()
        except Unrepresentable:
            continue
        return c, outcome
    raise RuntimeError("could not draw a representable case " + cid)


def half_names(ufs):
    """The ufuncs of ufs with a float16 or bfloat16 loop, sorted."""
    return sorted(n for n, (uf, _) in ufs.items() if half_loops(uf))


GUFUNCS = ("matmul", "vecdot", "matvec", "vecmat")


def gufunc_core_shapes(rng, name, n, k, m):
    """The core shapes of the two operands (matmul: 1-d operands now and then, as NumPy allows)."""
    if name == "matmul":
        a = (k,) if rng.random() < 0.15 else (n, k)
        b = (k,) if rng.random() < 0.15 else (k, m)
        return a, b
    return {"vecdot": ((k,), (k,)), "matvec": ((n, k), (k,)), "vecmat": ((k,), (k, m))}[name]


def gufunc_case(seed, index):
    """Case g<index> and NumPy's outcome: a built-in gufunc on two operands of one of its loops'
    dtypes, loop dimensions that broadcast (sizes 0 to 3), core sizes 0 to 5, views of every
    kind, out= now and then, and a core-size mismatch in 5% of the cases (NumPy's ValueError).
    Draws again where NumPy's answer is a quirk (the draws depend only on seed and index)."""
    rng = np.random.default_rng([seed, 3, index])
    for _attempt in range(50):
        c = draw_gufunc_case(rng, index)
        try:
            return c, c.run_numpy()
        except Unrepresentable:
            continue
    raise RuntimeError("could not draw a representable case g%d" % index)


def draw_gufunc_case(rng, index):
    name = GUFUNCS[int(rng.integers(0, len(GUFUNCS)))]
    uf = getattr(np, name)
    loops = [t for t in uf.types if all(fold(ch) in CODES for ch in t.replace("->", ""))]
    code = fold(loops[int(rng.integers(0, len(loops)))][0])
    c = Case("g%d" % index, name, uf)
    n, k, m = (int(rng.integers(0, 6)) for _ in range(3))
    core_a, core_b = gufunc_core_shapes(rng, name, n, k, m)
    if rng.random() < 0.05:  # the second operand's k (its first core axis in all four) off by one
        core_b = (core_b[0] + 1,) + core_b[1:]
    loop = [int(x) for x in rng.integers(0, 4, int(rng.integers(0, 3)))]
    shapes = []
    for core in (core_a, core_b):
        mine = [1 if rng.random() < 0.3 else d for d in loop]
        if mine and rng.random() < 0.3:
            mine = mine[int(rng.integers(0, len(mine) + 1)):]
        shapes.append(tuple(mine) + core)

    def values(n_):
        if code in "fdFD":  # tame: sums of products in any order stay finite
            v = rng.standard_normal(n_) * 4
            if code in "FD":
                v = v + 1j * rng.standard_normal(n_) * 4
            return v.astype(npdt(code))
        return random_values(rng, code, n_)

    c.inputs = [make_operand(rng, code, sh, values) for sh in shapes]
    if rng.random() < 0.15:
        try:
            want = uf(*[np.zeros(sh, npdt(code)) for sh in shapes])
            c.out = [make_operand(rng, code, np.shape(want), values, p_broadcast=0, readonly_ok=False)]
        except ValueError:
            pass
    return c


def random_dtype(rng, uf, k, half=False):
    codes = ALL_CODES if half else CODES
    if isinstance(uf, UserUfunc):
        loops = uf.loops
        if rng.random() < 0.8:
            return loop_inputs(loops[int(rng.integers(0, len(loops)))])[k]
        return CODES[int(rng.integers(0, len(CODES)))]
    loops = half_loops(uf) if half else restricted_loops(uf)
    if rng.random() < 0.6:
        return loop_inputs(loops[int(rng.integers(0, len(loops)))])[k]
    return codes[int(rng.integers(0, len(codes)))]


def fill_random_call(rng, c, half=False):
    """The inputs and options of a random call; half: of a float16 or bfloat16 loop (h cases),
    with the other inputs, out= and dtype= of any dtype."""
    loops_of, codes = (half_loops, ALL_CODES) if half else (restricted_loops, CODES)
    uf = c.uf
    user = isinstance(uf, UserUfunc)
    ndim = int(rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6]))
    shape = random_shape(rng, ndim)
    shapes = operand_shapes(rng, shape, uf.nin)
    if uf.nin:
        shapes[int(rng.integers(0, uf.nin))] = shape
    if rng.random() < 0.03 and ndim > 0:  # shapes that do not broadcast
        k = int(rng.integers(0, uf.nin))
        s = list(shapes[k]) or [1]
        s[-1] = s[-1] + 2
        shapes[k] = tuple(s)
    c.inputs = []
    # A shared dtype for all inputs half of the time: mostly a loop's own dtypes.
    loop_codes = None
    if rng.random() < 0.5:
        loops = uf.loops if user else loops_of(uf)
        loop_codes = loop_inputs(loops[int(rng.integers(0, len(loops)))])
    for k in range(uf.nin):
        code = loop_codes[k] if loop_codes else random_dtype(rng, uf, k, half)
        r = rng.random()
        if not user and r < 0.15:
            kind = "bifc"[int(rng.choice(4, p=[0.1, 0.45, 0.3, 0.15]))]
            if rng.random() < 0.6:
                kind = scalar_kind_of_code(code)
            v = python_scalar(rng, kind, code)
            if uf.__name__ == "power" and k == 1 and isinstance(v, int) and not isinstance(v, bool):
                v = abs(v) % 7 if rng.random() < 0.9 else v
            c.inputs.append(v)
        elif not user and r < 0.2:
            c.inputs.append(Arr(code, random_values(rng, code, 1, int_range_for(uf, k)).reshape(())))
        else:
            c.inputs.append(make_operand(rng, code, shapes[k], values_fn(rng, uf, code, k)))
    if uf.__name__ in NAN_FAMILY and rng.random() < 0.5:
        # The pools put a NaN in about one element in 150: here the inputs are either
        # NaN-free or hold one NaN, so that the flags of both are compared (NumPy's float
        # comparisons are quiet; its complex ordered ones raise invalid).
        arrays = [x for x in c.inputs if isinstance(x, Arr) and is_inexact_code(x.code)]
        for x in arrays:
            x.base[...] = without_nan(x.code, x.base)
        arrays = [x for x in arrays if x.base.size]
        if arrays and rng.random() < 0.5:
            x = arrays[int(rng.integers(0, len(arrays)))]
            x.base.flat[int(rng.integers(0, x.base.size))] = nan_value(rng, x.code)
    if all(not isinstance(x, Arr) for x in c.inputs):
        full = shape
    else:
        try:
            full = np.broadcast_shapes(*[x.shape() for x in c.inputs if isinstance(x, Arr)])
        except ValueError:
            full = shape
    # Options.
    if rng.random() < 0.25:
        c.out = []
        out_shape = full
        if rng.random() < 0.1:
            out_shape = (int(rng.integers(1, 3)),) + tuple(full)  # out larger than the inputs' shape
        for j in range(uf.nout):
            alias_ok = [k for k, x in enumerate(c.inputs)
                        if isinstance(x, Arr) and x.bshape is None and x.shape() == tuple(out_shape)]
            if alias_ok and rng.random() < 0.3 and not any(isinstance(o, tuple) and o[1] in alias_ok for o in c.out):
                c.out.append(("alias", alias_ok[int(rng.integers(0, len(alias_ok)))]))
                continue
            oc = codes[int(rng.integers(0, len(codes)))]
            if user:
                # vectorize'd ufuncs: the loop's own output dtype (the generator does not model
                # output casting for them).
                loop = legacy_search(uf.loops, [x.code for x in c.inputs])
                oc = loop_outputs(loop)[j] if loop else oc
            elif rng.random() < 0.6:
                try:
                    loop = c.numpy_loop([x.make()[1] if isinstance(x, Arr) else x for x in c.inputs])
                except Unrepresentable:
                    loop = None
                if loop is not None:
                    oc = loop_outputs(loop)[j]
            s = out_shape
            if rng.random() < 0.03 and len(s):
                s = tuple(s[:-1]) + (s[-1] + 1,)  # an output of the wrong shape
            c.out.append(make_operand(rng, oc, s, lambda n, oc=oc: random_values(rng, oc, n), p_slice=0.5,
                                      p_transpose=0.3, readonly_ok=False))
            if rng.random() < 0.01:  # a read-only output
                o = c.out[-1]
                c.out[-1] = Arr(o.code, o.base, o.slices, o.perm, o.shape())
    if rng.random() < 0.2:
        ws = operand_shapes(rng, full, 1)[0]
        if rng.random() < 0.05:
            ws = (2,) + tuple(ws)  # a mask that widens the result
        c.where = make_operand(rng, "?", ws, lambda n: rng.random(n) < 0.5)
    if not user:
        loops = loops_of(uf)
        r = rng.random()
        if r < 0.05 and uf.nout == 1:
            c.dtype = codes[int(rng.integers(0, len(codes)))]
        elif r < 0.1:
            c.signature = loops[int(rng.integers(0, len(loops)))] if rng.random() < 0.8 else \
                "".join(codes[int(rng.integers(0, len(codes)))] for _ in range(uf.nin)) + "->" + \
                "".join(codes[int(rng.integers(0, len(codes)))] for _ in range(uf.nout))
        if rng.random() < 0.12:
            c.casting = ["no", "equiv", "safe", "same_kind", "unsafe"][int(rng.integers(0, 5))]


def fill_random_method(rng, c, half=False):
    loops_of, codes = (half_loops, ALL_CODES) if half else (restricted_loops, CODES)
    uf = c.uf
    m = c.method
    ndim = int(rng.choice([1, 1, 2, 2, 3, 4]))
    shape = random_shape(rng, ndim, max_size=120)
    zeros = []
    if m in ("reduce", "accumulate", "reduceat") and ndim >= 2 and rng.random() < 0.1:
        # Multi-dimensional empties with one or more zero-length axes (random_shape zeroes
        # at most one, so a reduction over it never had an empty result as well).
        zeros = [int(x) for x in rng.choice(ndim, int(rng.integers(1, ndim + 1)), replace=False)]
        shape = tuple(0 if i in zeros else x for i, x in enumerate(shape))
    loops = loops_of(uf)
    code = loop_inputs(loops[int(rng.integers(0, len(loops)))])[0]
    if rng.random() < 0.2:
        code = codes[int(rng.integers(0, len(codes)))]
    vals = values_fn(rng, uf, code, 0)
    if m == "outer":
        s2 = random_shape(rng, int(rng.integers(0, 3)), max_size=30)
        shape = random_shape(rng, int(rng.integers(0, 3)), max_size=30)
        code2 = loop_inputs(loops[int(rng.integers(0, len(loops)))])[1 % max(uf.nin, 1)] if uf.nin > 1 else code
        c.inputs = [make_operand(rng, code, shape, vals), make_operand(rng, code2, s2, values_fn(rng, uf, code2, 1))]
        if rng.random() < 0.15:
            c.where = make_operand(rng, "?", operand_shapes(rng, tuple(shape) + tuple(s2), 1)[0],
                                   lambda n: rng.random(n) < 0.5)
        return
    a = make_operand(rng, code, shape, vals, readonly_ok=(m != "at"))
    c.inputs = [a]
    if m in ("reduce", "accumulate", "reduceat"):
        r = rng.random()
        if m == "reduce":
            if r < 0.2:
                c.axis = None
            elif r < 0.4 and ndim >= 2:
                k = int(rng.integers(1, ndim + 1))
                c.axis = tuple(int(x) - (ndim if rng.random() < 0.3 else 0)
                               for x in rng.choice(ndim, k, replace=False))
            elif r < 0.9:
                c.axis = int(rng.integers(-ndim, ndim))
            elif r < 0.95:
                c.axis = ndim + int(rng.integers(0, 2))  # out of bounds
        else:
            if r < 0.85:
                c.axis = int(rng.integers(-ndim, ndim))
            elif r < 0.95:
                c.axis = ndim  # out of bounds
        if zeros and rng.random() < 0.5:
            c.axis = zeros[0] - (ndim if rng.random() < 0.5 else 0)  # over a zero-length axis
        if m == "reduce":
            if rng.random() < 0.3:
                c.keepdims = bool(rng.integers(0, 2))
            if rng.random() < 0.25:
                c.initial = python_scalar(rng, scalar_kind_of_code(code), code)
            if rng.random() < 0.15:
                c.where = make_operand(rng, "?", operand_shapes(rng, shape, 1)[0], lambda n: rng.random(n) < 0.6)
        if rng.random() < 0.1:
            c.dtype = codes[int(rng.integers(0, len(codes)))]
        if m == "reduceat":
            ax = c.axis if c.axis != "absent" else 0
            n = shape[ax] if isinstance(ax, int) and -ndim <= ax < ndim else 1
            k = int(rng.integers(1, 6))
            idx = rng.integers(0, max(n, 1) + (1 if rng.random() < 0.05 else 0), k)
            c.indices = contiguous("l", idx)
        if rng.random() < 0.15:
            # out= of the shape NumPy gives (computed by a dry run).
            c2 = Case(c.cid, c.name, uf, m)
            c2.inputs, c2.axis, c2.keepdims, c2.initial, c2.where, c2.dtype, c2.indices = \
                c.inputs, c.axis, c.keepdims, c.initial, c.where, c.dtype, c.indices
            try:
                kind, res = c2.run_numpy()
            except Unrepresentable:
                kind = "error"
            if kind == "ok":
                oc, oshape = res[0][0], res[0][1]
                c.out = [make_operand(rng, oc, oshape, lambda n: random_values(rng, oc, n), readonly_ok=False)]
        return
    if m == "at":
        n = shape[0]
        k = int(rng.integers(0, 8))
        idx = rng.integers(-n if n else 0, max(n, 1) + (1 if rng.random() < 0.05 else 0), k)
        if n == 0:
            idx = np.zeros(0, dtype=np.int64)
        elif uf.nin == 1:
            # A repeated index applies a unary ufunc twice, f(f(x)): a last-bit difference in
            # the first result can grow without bound in the second (log10 near 1), so
            # unary cases keep the first occurrence of each element (binary ones keep their
            # repeats: they test that repeated indices accumulate).
            seen, kept = set(), []
            for i in idx:
                element = int(i) % n if -n <= i < n else int(i)  # out-of-range ones stay: error cases
                if element not in seen:
                    seen.add(element)
                    kept.append(i)
            idx = np.array(kept, dtype=np.int64)
        c.indices = contiguous("l", idx)
        if uf.nin == 2:
            bshape = (k,) + tuple(shape[1:])
            bshape = operand_shapes(rng, bshape, 1)[0]
            code2 = loop_inputs(loops[int(rng.integers(0, len(loops)))])[1]
            c.inputs.append(make_operand(rng, code2, bshape, values_fn(rng, uf, code2, 1)))
        return
    raise AssertionError(m)


# ----------------------------------------------------------------------------------
# Binary output
# ----------------------------------------------------------------------------------

T_ID, T_UFUNC, T_METHOD, T_IN_ARRAY, T_IN_SCALAR, T_OUT_ARRAY, T_OUT_ALIAS, T_WHERE = 1, 2, 3, 4, 5, 6, 7, 8
T_DTYPE, T_SIGNATURE, T_CASTING, T_AXIS, T_KEEPDIMS, T_INITIAL, T_INDICES = 9, 10, 11, 12, 13, 14, 15
T_EXPECT_RESULT, T_EXPECT_ERROR, T_DESC, T_CANONICAL, T_TOL, T_LOOP = 16, 17, 18, 19, 20, 21
T_FLAGS = 22


def field(tag, payload):
    return struct.pack("<BI", tag, len(payload)) + payload


# A dtype in the case file: its index in CODES (one byte), or DTYPE_BY_NAME and its name
# (a length byte, then the name that ufunc::dtype::from_string parses): float16, bfloat16.
DTYPE_BY_NAME = 255


def enc_dtype(code):
    if code in CODES:
        return struct.pack("<B", CODES.index(code))
    name = HALF_NAMES[code].encode()
    return struct.pack("<BB", DTYPE_BY_NAME, len(name)) + name


def enc_array(a):
    out = [enc_dtype(a.code), struct.pack("<B", a.base.ndim)]
    out += [struct.pack("<q", int(x)) for x in a.base.shape]
    transforms = []
    if a.slices is not None:
        t = struct.pack("<BB", 1, len(a.slices))
        for s in a.slices:
            flags = (1 if s[0] is not None else 0) | (2 if s[1] is not None else 0)
            t += struct.pack("<Bqqq", flags, s[0] or 0, s[1] or 0, s[2])
        transforms.append(t)
    if a.perm is not None:
        transforms.append(struct.pack("<BB", 2, len(a.perm)) + b"".join(struct.pack("<q", p) for p in a.perm))
    if a.bshape is not None:
        transforms.append(struct.pack("<BB", 3, len(a.bshape)) + b"".join(struct.pack("<q", p) for p in a.bshape))
    out.append(struct.pack("<B", len(transforms)))
    out += transforms
    data = a.base.tobytes()
    out.append(struct.pack("<Q", len(data)))
    out.append(data)
    return b"".join(out)


def enc_scalar(v):
    if isinstance(v, bool):
        return struct.pack("<cB", b"b", int(v))
    if isinstance(v, int):
        if -2 ** 63 <= v < 2 ** 63:
            return struct.pack("<cq", b"i", v)
        return struct.pack("<cQ", b"u", v)
    if isinstance(v, float):
        return struct.pack("<cd", b"f", v)
    return struct.pack("<cdd", b"c", v.real, v.imag)


def enc_case(c, outcome):
    out = [field(T_ID, struct.pack("<cQ", c.cid[0].encode(), int(c.cid[1:]))),
           field(T_UFUNC, c.name.encode()), field(T_METHOD, c.method.encode())]
    if c.name != c.uf.__name__:  # called by an alias: the runner checks that the alias resolves
        out.append(field(T_CANONICAL, c.uf.__name__.encode()))
    for x in c.inputs:
        out.append(field(T_IN_ARRAY, enc_array(x)) if isinstance(x, Arr) else field(T_IN_SCALAR, enc_scalar(x)))
    if c.indices is not None:
        out.append(field(T_INDICES, enc_array(c.indices)))
    if c.out is not None:
        for o in c.out:
            out.append(field(T_OUT_ALIAS, struct.pack("<B", o[1])) if isinstance(o, tuple)
                       else field(T_OUT_ARRAY, enc_array(o)))
    if c.where is not None:
        out.append(field(T_WHERE, enc_array(c.where)))
    if c.dtype is not None:
        out.append(field(T_DTYPE, enc_dtype(c.dtype)))
    if c.signature is not None:
        out.append(field(T_SIGNATURE, c.signature.encode()))
    if c.casting is not None:
        out.append(field(T_CASTING, c.casting.encode()))
    if c.axis != "absent":
        if c.axis is None:
            out.append(field(T_AXIS, struct.pack("<B", 255)))
        else:
            ax = (c.axis,) if isinstance(c.axis, int) else tuple(c.axis)
            out.append(field(T_AXIS, struct.pack("<BB", len(ax), 1 if isinstance(c.axis, int) else 0) +
                             b"".join(struct.pack("<q", x) for x in ax)))
    if c.keepdims is not None:
        out.append(field(T_KEEPDIMS, struct.pack("<B", int(c.keepdims))))
    if c.initial is not None:
        out.append(field(T_INITIAL, enc_scalar(c.initial)))
    kind, payload = outcome
    if kind == "ok":
        for code, shape, data, mask in payload:
            p = enc_dtype(code) + struct.pack("<B", len(shape)) + b"".join(struct.pack("<q", x) for x in shape)
            p += struct.pack("<Q", len(data)) + data
            p += struct.pack("<B", 0 if mask is None else 1)
            if mask is not None:
                p += mask.tobytes()
            out.append(field(T_EXPECT_RESULT, p))
    else:
        np_name, ours, msg = payload
        out.append(field(T_EXPECT_ERROR, b"\0".join(s.encode() for s in (np_name, ours, msg))))
    if c.tol_ulps is not None or c.tol_abs is not None:
        t = np.zeros(0) if c.tol_abs is None else np.ascontiguousarray(c.tol_abs, dtype=np.float64).ravel()
        out.append(field(T_TOL, struct.pack("<iQ", -1 if c.tol_ulps is None else c.tol_ulps, t.size) + t.tobytes()))
    if c.loop is not None:
        out.append(field(T_LOOP, c.loop.encode()))
    out.append(field(T_FLAGS, struct.pack("<BB", c.fp.bits, c.flags_free)))
    out.append(field(T_DESC, c.describe().encode()))
    body = b"".join(out)
    return struct.pack("<I", len(body)) + body


def describe_outcome(outcome):
    kind, payload = outcome
    if kind == "error":
        return "raises %s (ours: %s): %s" % payload
    parts = []
    for code, shape, data, mask in payload:
        flat = np.frombuffer(data, dtype=npdt(code))
        vals = ", ".join(repr(x) for x in flat[:12].tolist()) + (", ..." if flat.size > 12 else "")
        parts.append("%s%s [%s]%s" % (npdt(code).name, shape_str(shape), vals,
                                      "" if mask is None else " (compared where the mask is true)"))
    return "returns " + "; ".join(parts)


# ----------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------


def library_list(runner):
    """Names the library has, from `runner --list` (lines 'name nin nout types...')."""
    import subprocess
    out = subprocess.run([runner, "--list"], check=True, capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        parts = line.split()
        if parts and not parts[0].startswith("#"):
            names.append(parts[0])
    return names


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=0, help="random cases")
    p.add_argument("--exhaustive", action="store_true", help="every loop of every ufunc")
    p.add_argument("--out", help="the case file to write")
    p.add_argument("--ufunc", action="append", default=[], help="only these ufuncs (repeatable)")
    p.add_argument("--runner", help="ufunc_differential executable: take the ufunc list from the library")
    p.add_argument("--index", action="append", default=[], help="only case e<i> or r<i> (repeatable)")
    p.add_argument("--no-methods", action="store_true", help="random cases call the ufunc only")
    p.add_argument("--half-count", type=int, default=0,
                   help="random cases of the float16 and bfloat16 loops (and promotions through them)")
    p.add_argument("--gufunc-count", type=int, default=0,
                   help="random cases of the built-in gufuncs (matmul, vecdot, matvec, vecmat)")
    p.add_argument("--show", action="store_true", help="print the cases and NumPy's outcomes")
    p.add_argument("--self-check", action="store_true",
                   help="check the power chains' tolerance, the left folds and the flags rules, then exit")
    args = p.parse_args(argv)

    global np
    try:
        import numpy
        np = numpy
    except ImportError:
        cannot_generate("NumPy is not installed for %s (pip install 'numpy>=2')" % sys.executable)
    if int(np.__version__.split(".")[0]) < 2:
        cannot_generate("NumPy >= 2 is required (NEP 50 promotion); found %s" % np.__version__)
    global ml_dtypes, BF16
    try:
        import ml_dtypes as mld
        ml_dtypes = mld
    except ImportError:
        cannot_generate("ml_dtypes (the bfloat16 oracle) is not installed for %s (pip install ml_dtypes)"
                        % sys.executable)
    BF16 = np.dtype(ml_dtypes.bfloat16)
    if args.self_check:
        failed = chain_self_check() + fold_self_check() + flags_self_check() + cast_edge_self_check()
        for f in failed:
            print("FAIL generate_cases.py --self-check: " + f)
        print("generate_cases.py --self-check: " + ("FAILED" if failed else "ok"))
        sys.exit(1 if failed else 0)

    table, aliases = numpy_ufuncs()
    names = sorted(table)
    if args.runner:
        lib = library_list(args.runner)
        missing = [n for n in lib if n not in table and n not in USER_UFUNCS]
        if missing:
            print("generate_cases.py: NumPy has no element-wise ufunc named %s; not tested" % ", ".join(missing),
                  file=sys.stderr)
        names = sorted(n for n in set(lib) if n in table)
    if args.ufunc:
        canon = [aliases.get(n, n) for n in args.ufunc]
        names = [n for n in names if n in canon]
    ufs = {}
    for n in names:
        ufs[n] = (table[n], sorted(a for a, c in aliases.items() if c == n))
    for n in USER_UFUNCS:
        if not args.ufunc or n in args.ufunc:
            ufs[n] = (UserUfunc(n), [])
    all_names = sorted(ufs)

    # The arguments that regenerate any case of this file, with --index added. Relative to the working
    # directory, so that a reproducer pasted into a log or an issue names no path of the machine it ran on.
    repro = [os.path.relpath(__file__), "--seed", str(args.seed)]
    if args.runner:
        repro += ["--runner", os.path.relpath(args.runner)]
    for n in args.ufunc:
        repro += ["--ufunc", n]
    if args.no_methods:
        repro += ["--no-methods"]

    ids = []
    if args.index:
        ids = args.index
    else:
        if args.exhaustive:
            ids += ["e%d" % i for i in range(len(exhaustive_tasks(ufs)))]
        ids += ["r%d" % i for i in range(args.count)]
        ids += ["g%d" % i for i in range(args.gufunc_count)]
        ids += ["h%d" % i for i in range(args.half_count)]
    tasks = exhaustive_tasks(ufs) if any(i.startswith("e") for i in ids) else []

    records, counts = [], {"ok": 0, "error": 0, "dropped": 0}
    for cid in ids:
        kind, i = cid[0], int(cid[1:])
        if kind == "e":
            if i >= len(tasks):
                sys.exit("no case %s: the exhaustive mode has %d cases for this ufunc list" % (cid, len(tasks)))
            c = exhaustive_case(args.seed, i, tasks[i], ufs)
            try:
                outcome = c.run_numpy()
            except Unrepresentable as e:
                counts["dropped"] += 1
                if args.show:
                    print("%s: %s\n  dropped: %s" % (cid, c.describe(), e))
                continue
        elif kind == "r":
            c, outcome = random_case(args.seed, i, all_names, ufs, methods=not args.no_methods)
        elif kind == "g":
            c, outcome = gufunc_case(args.seed, i)
        elif kind == "h":
            c, outcome = random_case(args.seed, i, half_names(ufs), ufs, methods=not args.no_methods, half=True)
        else:
            sys.exit("--index takes e<i>, r<i>, g<i> or h<i>, not " + cid)
        counts[outcome[0]] += 1
        if args.show:
            free = "; not compared: " + flag_names(c.flags_free) if c.flags_free else ""
            print("%s: %s\n  NumPy %s\n  flags %s%s"
                  % (cid, c.describe(), describe_outcome(outcome), flag_names(c.fp.bits), free))
        if args.out:
            records.append(enc_case(c, outcome))

    if args.out:
        header = "numpy=%s\nseed=%d\nrepro=%s\n" % (np.__version__, args.seed, "\x1f".join(repro))
        with open(args.out, "wb") as f:
            f.write(FILE_MAGIC)
            f.write(struct.pack("<I", len(header.encode())) + header.encode())
            f.write(struct.pack("<I", len(records)))
            for r in records:
                f.write(r)
        print("generate_cases.py: wrote %d cases (%d results, %d NumPy errors; %d dropped: NumPy needs a dtype "
              "ufunc lacks) for %d ufuncs to %s" % (len(records), counts["ok"], counts["error"], counts["dropped"],
                                                    len(all_names), args.out), file=sys.stderr)


if __name__ == "__main__":
    main()

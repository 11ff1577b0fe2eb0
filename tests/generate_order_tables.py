#!/usr/bin/env python3
"""Writes tests/data/order_tables.inc: the byte strides NumPy 2 gives the arrays that
ufunc calls, ufunc methods, astype and the factories allocate (order='K' by default,
order= C, F, A), as calls that tests/unit/test_order.cpp makes and checks. Each
row carries the NumPy one-liner it was measured with.

Regenerate (from anywhere; the output path is relative to this script) with

    python3 tests/generate_order_tables.py

and commit the result. Operands are built from small expressions that render both as
NumPy code (np.ones: the strides do not depend on the values) and as the C++ helpers
of test_order.cpp (seq: arange values, so that the test also checks the values):

    ("seq", shape, dtype)   a new C-ordered array        np.ones(shape, dtype)
    ("mask", shape)         a new C-ordered bool array   np.ones(shape, bool)
    ("T", x)                x.T
    ("P", x, axes)          x.transpose(axes)
    ("S", x, steps)         x[::s0, ::s1, ...]
    ("scalar", value)       a Python scalar (a weak C++ scalar)
"""

import os
import random
import sys
import warnings

import numpy as np

if int(np.__version__.split(".")[0]) < 2:
    sys.exit("NumPy 2 is required; found " + np.__version__)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "order_tables.inc")

CPP_DTYPE = {"f4": "ufunc::float32", "f8": "ufunc::float64", "i2": "ufunc::int16", "i8": "ufunc::int64",
             "u1": "ufunc::uint8", "c8": "ufunc::complex64"}


def seq(shape, dt="f4"):
    return ("seq", tuple(shape), dt)


def mask(shape):
    return ("mask", tuple(shape))


def T(x):
    return ("T", x)


def P(x, *axes):
    return ("P", x, tuple(axes))


def S(x, *steps):
    return ("S", x, tuple(steps))


def scalar(v):
    return ("scalar", v)


def tup(t):
    return "(" + ", ".join(str(v) for v in t) + ("," if len(t) == 1 else "") + ")"


def braces(t):
    return "{" + ", ".join(str(v) for v in t) + "}"


def build(e):
    kind = e[0]
    if kind == "seq":
        return np.ones(e[1], e[2])
    if kind == "mask":
        return np.ones(e[1], bool)
    if kind == "T":
        return build(e[1]).T
    if kind == "P":
        return build(e[1]).transpose(e[2])
    if kind == "S":
        return build(e[1])[tuple(slice(None, None, s) for s in e[2])]
    if kind == "scalar":
        return e[1]
    raise ValueError(kind)


def numpy_src(e):
    kind = e[0]
    if kind == "seq":
        return f"np.ones({tup(e[1])}, '{e[2]}')"
    if kind == "mask":
        return f"np.ones({tup(e[1])}, bool)"
    if kind == "T":
        return numpy_src(e[1]) + ".T"
    if kind == "P":
        return numpy_src(e[1]) + f".transpose{tup(e[2])}"
    if kind == "S":
        return numpy_src(e[1]) + "[" + ", ".join(f"::{s}" for s in e[2]) + "]"
    if kind == "scalar":
        return repr(e[1])
    raise ValueError(kind)


def cpp_src(e):
    kind = e[0]
    if kind == "seq":
        return f"seq({braces(e[1])}, {CPP_DTYPE[e[2]]})"
    if kind == "mask":
        return f"mask({braces(e[1])})"
    if kind == "T":
        return f"T({cpp_src(e[1])})"
    if kind == "P":
        return f"P({cpp_src(e[1])}, {braces(e[2])})"
    if kind == "S":
        return f"S({cpp_src(e[1])}, {braces(e[2])})"
    if kind == "scalar":
        v = e[1]
        return repr(v) if isinstance(v, int) else f"{v!r}"
    raise ValueError(kind)


ORDER = {"K": "ufunc::order::K", "A": "ufunc::order::A", "C": "ufunc::order::C", "F": "ufunc::order::F"}

rows = []


def strides_of(results):
    return "{" + ", ".join(braces(np.asarray(r).strides) for r in results) + "}"


def call(ufunc, args, order="K", where=None):
    kw = {}
    src_kw = ""
    if order != "K":
        kw["order"] = order
        src_kw += f", order='{order}'"
    if where is not None:
        kw["where"] = build(where)
        src_kw += f", where={numpy_src(where)}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # where= without out= leaves the output uninitialized
        r = getattr(np, ufunc)(*[build(a) for a in args], **kw)
    results = r if isinstance(r, tuple) else (r,)
    src = f"np.{ufunc}(" + ", ".join(numpy_src(a) for a in args) + src_kw + ")"
    shown = src + (".strides" if len(results) == 1 else "  # strides of each output")
    where_cpp = cpp_src(where) if where is not None else "ufunc::array()"
    rows.append(f"// {shown}\n"
                f"check_call(__LINE__, \"{ufunc}\", {{{', '.join(cpp_src(a) for a in args)}}}, {ORDER[order]}, "
                f"{where_cpp}, {strides_of(results)});")


def method(kind, x, *, axis=None, keepdims=False, where=None, indices=None, other=None):
    a = build(x)
    if kind == "reduce":
        kw = {"axis": axis, "keepdims": keepdims}
        src_kw = f", axis={axis!r}" + (", keepdims=True" if keepdims else "")
        if where is not None:
            kw["where"] = build(where)
            src_kw += f", where={numpy_src(where)}"
        r = np.add.reduce(a, **kw)
        src = f"np.add.reduce({numpy_src(x)}{src_kw})"
        axes = "ufunc::all_axes" if axis is None else (
            f"ufunc::axes{braces(axis)}" if isinstance(axis, tuple) else f"ufunc::axes({axis})")
        where_cpp = cpp_src(where) if where is not None else "ufunc::array()"
        cpp = f"check_reduce(__LINE__, {cpp_src(x)}, {axes}, {str(keepdims).lower()}, {where_cpp}"
    elif kind == "accumulate":
        r = np.add.accumulate(a, axis=axis)
        src = f"np.add.accumulate({numpy_src(x)}, axis={axis})"
        cpp = f"check_accumulate(__LINE__, {cpp_src(x)}, {axis}"
    elif kind == "reduceat":
        r = np.add.reduceat(a, list(indices), axis=axis)
        src = f"np.add.reduceat({numpy_src(x)}, {list(indices)}, axis={axis})"
        cpp = f"check_reduceat(__LINE__, {cpp_src(x)}, {braces(indices)}, {axis}"
    elif kind == "outer":
        r = np.add.outer(a, build(other))
        src = f"np.add.outer({numpy_src(x)}, {numpy_src(other)})"
        cpp = f"check_outer(__LINE__, {cpp_src(x)}, {cpp_src(other)}"
    else:
        raise ValueError(kind)
    rows.append(f"// {src}.strides\n{cpp}, {braces(np.asarray(r).strides)});")


def astype(x, dt, order=None):
    a = build(x)
    if order is None:
        r = a.astype(dt)
        src = f"{numpy_src(x)}.astype('{dt}')"
        cpp = f"check_astype(__LINE__, {cpp_src(x)}, {CPP_DTYPE[dt]}, ufunc::order::K"
    else:
        r = a.astype(dt, order=order)
        src = f"{numpy_src(x)}.astype('{dt}', order='{order}')"
        cpp = f"check_astype(__LINE__, {cpp_src(x)}, {CPP_DTYPE[dt]}, {ORDER[order]}"
    rows.append(f"// {src}.strides\n{cpp}, {braces(r.strides)});")


def copy(x, order=None):
    a = build(x)
    r = a.copy() if order is None else a.copy(order=order)
    src = f"{numpy_src(x)}.copy(" + ("" if order is None else f"order='{order}'") + ")"
    rows.append(f"// {src}.strides\ncheck_copy(__LINE__, {cpp_src(x)}, {ORDER[order or 'C']}, {braces(r.strides)});")


def factory(shape, dt, order):
    r = np.empty(shape, dt, order=order)
    rows.append(f"// np.empty({tup(shape)}, '{dt}', order='{order}').strides\n"
                f"check_empty(__LINE__, {braces(shape)}, {CPP_DTYPE[dt]}, {ORDER[order]}, {braces(r.strides)});")


def section(title):
    rows.append(f"\n// {title}")


# --- ufunc calls, order='K' -------------------------------------------------------------
section("Calls, order='K': the inputs' axis order")
c34 = seq((3, 4))
call("add", [T(c34), T(c34)])
call("add", [T(c34), scalar(1)])
call("add", [scalar(1.5), T(c34)])
call("negative", [T(c34)])
call("add", [c34, c34])
call("add", [T(c34), seq((4, 3))])          # F and C disagree: C wins
call("add", [seq((4, 3)), T(c34)])
call("add", [T(seq((3, 4), "i2")), T(seq((3, 4), "i2"))])
call("add", [T(seq((3, 4), "i2")), T(c34)])  # an int16 input cast to float32
call("add", [T(seq((3, 4), "f8")), scalar(1)])
call("less", [T(c34), T(c34)])               # a bool output
call("sqrt", [T(seq((3, 4), "f8"))])
section("Steps and negative steps (outputs have positive strides)")
c56 = seq((5, 6))
call("add", [S(c56, 2, 3), scalar(1)])
call("add", [S(c56, -1, -2), scalar(1)])
call("add", [T(S(c56, -1, -2)), scalar(1)])
call("add", [S(T(c56), 2, -1), scalar(1)])
call("negative", [S(seq((10,)), 3)])
call("negative", [S(seq((10,)), -2)])
call("add", [S(seq((6, 8)), 2, 4), T(S(seq((8, 6)), 4, 2))])
section("Broadcasting: stride-0 axes compare with nothing")
call("add", [T(c34), seq((4, 1))])
call("add", [T(c34), seq((3,))])
call("add", [seq((4, 1)), seq((3,))])
call("add", [T(seq((3, 1))), seq((4, 1))])
call("add", [P(seq((3, 1, 5)), 2, 1, 0), seq((4, 1))])
call("add", [T(seq((5, 1))), T(seq((1, 1, 4)))])
section("0-d and 1-d")
call("add", [seq(()), seq(())])
call("add", [seq(()), scalar(2)])
call("add", [seq((7,)), seq(())])
call("add", [S(seq((9,)), -3), seq((3,))])
section("Length-1 axes")
call("add", [T(seq((3, 1))), scalar(1)])
call("add", [T(seq((1, 3))), scalar(1)])
call("add", [P(seq((3, 1, 4)), 2, 1, 0), scalar(1)])
call("add", [P(seq((3, 1, 4)), 2, 1, 0), P(seq((3, 1, 4)), 2, 1, 0)])
call("add", [P(seq((3, 1, 4)), 2, 1, 0), scalar(1)], where=mask(()))
call("add", [P(seq((2, 1, 3, 1)), 3, 2, 1, 0), seq((1, 3, 1, 1))])
call("add", [seq((1, 1)), T(seq((1, 1)))])
section("3-d permutations and mixed orders")
c234 = seq((2, 3, 4))
for axes in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]:
    call("add", [P(c234, *axes), scalar(1)])
call("add", [P(c234, 2, 1, 0), P(seq((4, 2, 3)), 0, 2, 1)])
call("add", [P(c234, 1, 2, 0), P(seq((2, 4, 3)), 2, 1, 0)])
call("add", [P(seq((4, 5, 6)), 2, 1, 0), P(seq((6, 4, 5)), 0, 2, 1)])
call("add", [P(seq((2, 3, 4, 5)), 3, 1, 0, 2), scalar(1)])
call("add", [S(P(seq((4, 6, 5)), 2, 0, 1), -1, 2, 1), scalar(1)])
section("where= takes part in the order (and no single-loop path)")
call("add", [T(c34), T(c34)], where=mask((4, 3)))
call("add", [T(c34), T(c34)], where=T(mask((3, 4))))
call("add", [T(c34), scalar(1)], where=mask((4, 1)))
call("add", [c34, c34], where=T(mask((4, 3))))
section("Several outputs (no single-loop path)")
call("divmod", [T(c34), T(c34)])
call("divmod", [T(c34), seq((4, 3))])
call("modf", [P(c234, 1, 2, 0)])
call("frexp", [T(seq((3, 4)))])
call("frexp", [T(seq((3, 4), "f8"))])
section("Empty results: every stride 0")
call("add", [seq((3, 0)), scalar(1)])
call("add", [T(seq((3, 0))), seq((0, 3))])
call("add", [P(seq((2, 0, 3)), 2, 1, 0), scalar(1)])
call("add", [seq((0,)), scalar(1)])

# --- order= ---------------------------------------------------------------------------
section("order= C, F, A")
for order in ["C", "F", "A"]:
    call("add", [T(c34), T(c34)], order=order)
    call("add", [c34, c34], order=order)
    call("add", [T(c34), seq((4, 3))], order=order)
    call("add", [P(c234, 1, 2, 0), scalar(1)], order=order)
    call("add", [T(c34), T(c34)], order=order, where=mask(()))
call("add", [T(seq((3, 1))), T(seq((3, 1)))], order="A")
call("add", [T(seq((3, 1))), T(seq((3, 1)))], order="A", where=mask(()))
call("add", [T(seq((1, 5))), S(seq((5,), "i2"), -1)], order="A")
call("add", [T(seq((3, 4))), S(seq((3,), "i2"), -1)], order="A", where=mask(()))
call("add", [S(seq((3,), "i2"), -1), T(seq((3, 4)))], order="A")
call("add", [T(seq((2, 3))), seq((), "f8")], order="A")
call("add", [S(seq((3, 0)), 1, 1), seq((3, 0))], order="F")

# --- methods ------------------------------------------------------------------------------
section("reduce: the result in the input's order='K' order")
c432 = P(c234, 2, 1, 0)
method("reduce", c432, axis=1)
method("reduce", c432, axis=0)
method("reduce", c432, axis=2)
method("reduce", c432, axis=1, keepdims=True)
method("reduce", c432, axis=(0, 2), keepdims=True)
method("reduce", c432, axis=None)
method("reduce", c432, axis=None, keepdims=True)
method("reduce", P(seq((2, 3, 4, 5)), 3, 1, 0, 2), axis=1)
method("reduce", S(T(c56), -1, 2), axis=0)
method("reduce", c432, axis=1, where=mask((4, 3, 2)))
method("reduce", c34, axis=0, where=T(mask((4, 3))))
method("reduce", seq((3, 0, 2)), axis=0)
section("accumulate")
method("accumulate", c432, axis=1)
method("accumulate", T(c34), axis=0)
method("accumulate", S(P(seq((4, 6, 5)), 2, 0, 1), -1, 2, 1), axis=2)
method("accumulate", seq((4,)), axis=0)
section("reduceat: the indices' axis compares with none")
method("reduceat", T(c34), indices=(0, 2), axis=0)
method("reduceat", T(c34), indices=(0, 2), axis=1)
method("reduceat", c432, indices=(0, 1), axis=1)
method("reduceat", c432, indices=(0, 1, 2), axis=0)
method("reduceat", P(seq((2, 3, 4, 5)), 3, 1, 0, 2), indices=(0, 1), axis=2)
section("outer: a call on a[..., newaxis, ...] and b")
method("outer", T(c34), other=seq((2,)))
method("outer", seq((2,)), other=T(c34))
method("outer", T(c34), other=T(c34))
method("outer", T(c34), other=seq(()))

# --- astype, copy, factories ------------------------------------------------------------
section("astype: NumPy's empty_like rule (K: C, F, or the axes by stride)")
astype(T(c34), "f8")
astype(c34, "f8")
astype(S(c56, -1, -2), "f8")
astype(T(S(c56, -1, -2)), "f8")
astype(P(c234, 1, 2, 0), "i8")
astype(P(seq((2, 1, 3)), 2, 1, 0), "f8")
astype(S(P(seq((4, 6, 5)), 2, 0, 1), -1, 2, 1), "u1")
astype(T(seq((3, 0))), "f8")
for order in ["C", "F", "A", "K"]:
    astype(T(c34), "f8", order=order)
    astype(P(c234, 1, 2, 0), "f8", order=order)
copy(T(c34))
copy(T(c34), order="K")
copy(T(c34), order="A")
copy(P(c234, 1, 2, 0), order="F")
section("np.empty(shape, order=)")
factory((3, 4), "f4", "C")
factory((3, 4), "f4", "F")
factory((2, 3, 4), "f8", "F")
factory((3, 1), "c8", "F")
factory((3, 0, 2), "f4", "F")
factory((), "f4", "F")

# --- random calls (a fixed seed: the same rows every run) ---------------------------------
section("Random calls: views of 1 to 4 dimensions, broadcasting, casts, masks, orders, two outputs")
rng = random.Random(16)


def random_view(shape, dt):
    """A view of `shape`: a new array of some axis order, sliced with steps (some negative)."""
    nd = len(shape)
    steps = [rng.choice([1, 1, 2, -1, -2]) for _ in range(nd)]
    axes = list(range(nd))
    rng.shuffle(axes)
    base_shape = [shape[a] * abs(steps[a]) for a in axes]  # base axis i becomes view axis axes[i]
    x = mask(base_shape) if dt == "bool" else seq(base_shape, dt)
    inverse = [axes.index(d) for d in range(nd)]
    if inverse != list(range(nd)):
        x = P(x, *inverse)
    if any(st != 1 for st in steps):
        x = S(x, *steps)
    return x


def random_operand(shape, dt):
    sh = list(shape)
    if sh and rng.random() < 0.3:
        sh = sh[rng.randrange(len(sh) + 1):]  # fewer dimensions
    sh = [1 if rng.random() < 0.15 else e for e in sh]
    if not sh:
        return mask(()) if dt == "bool" else seq((), dt)
    return random_view(sh, dt)


random_calls = 0
while random_calls < 150:
    nd = rng.choice([1, 2, 2, 3, 3, 4])
    if nd == 4:
        shape = [rng.choice([1, 2, 3]) for _ in range(nd)]
    else:
        shape = [rng.choice([1, 2, 3, 4, 5]) for _ in range(nd)]
    name = rng.choice(["add", "add", "add", "multiply", "divmod", "negative", "modf"])
    nin = 1 if name in ("negative", "modf") else 2
    args = []
    for _ in range(nin):
        if rng.random() < 0.15:
            args.append(scalar(rng.choice([2, 1.5])))
        else:
            args.append(random_operand(shape, rng.choice(["f4", "f4", "f8", "i2"])))
    if all(a[0] == "scalar" for a in args):
        continue
    where = None
    if rng.random() < 0.2:
        where = random_operand(shape, "bool")
    order = rng.choice(["K", "K", "K", "C", "F", "A"])
    try:
        call(name, args, order=order, where=where)
    except ValueError:  # shapes that do not broadcast
        continue
    random_calls += 1

# A few checks per function: one function of ~300 checks took GCC minutes to compile
# (5 min under ASan at -O2 -g), its time growing faster than the function's size.
CHECKS_PER_FUNCTION = 16
with open(OUT, "w") as f:
    f.write(f"// Generated by tests/generate_order_tables.py with NumPy {np.__version__}; do not edit.\n")
    f.write("// Included by tests/unit/test_order.cpp at namespace scope: each line is a check of\n")
    f.write("// the strides NumPy gives the array that the one-liner above it allocates; the checks\n")
    f.write("// are split over functions that order_checks lists.\n")
    parts, checks = [[]], 0
    for r in rows:
        if "check_" in r:
            if checks == CHECKS_PER_FUNCTION:
                parts.append([])
                checks = 0
            checks += 1
        parts[-1].append(r)
    for k, part in enumerate(parts):
        f.write(f"\nvoid order_checks_{k}() {{\n" + "\n".join(part) + "\n}\n")
    f.write("\nconstexpr void (*order_checks[])() = {" + ", ".join(f"order_checks_{k}" for k in range(len(parts))) + "};\n")
print(f"wrote {OUT}: {sum(r.count('check_') for r in rows)} checks")

#!/usr/bin/env python3
"""Writes tests/data/numpy_tables.inc: NumPy 2's answers on dtypes, casting, promotion
and ufunc loop resolution for the 15 dtypes of ufunc (bfloat16 is ml_dtypes', which
registers its casts and loops with NumPy), as C++ initializer data that
tests/unit/test_numpy_tables.cpp checks the library against.

Regenerate (from anywhere; the output path is relative to this script) with

    python3 tests/generate_numpy_tables.py

and commit the result. The output depends only on the NumPy and ml_dtypes versions (recorded in
the file's header), so rerunning it with the same versions gives the same bytes.

NumPy has loops for dtypes ufunc lacks (longdouble 'g'/'G', object 'O', datetimes
'm'/'M'), and its search can land on them. For each ufunc case the table therefore holds
NumPy's own answer and, as the expected value, the answer of NumPy's loop search run here
over only the loops ufunc has, or NumPy's own answer where that needs none of the missing
dtypes and the search here does not reproduce it (each such case is listed on stderr:
there the library, which searches as this script does, differs from NumPy).

ml_dtypes' bfloat16 ('E' here and in the library; NumPy has no character code for it)
has loops that ufunc.types omits: each ufunc's is found with ufunc.resolve_dtypes and
listed before the ufunc's first float32 (or wider) loop, where the library lists it.
"""

import os
import sys

import ml_dtypes
import numpy as np

if int(np.__version__.split(".")[0]) < 2:
    sys.exit("NumPy 2 is required (NEP 50 promotion); found " + np.__version__)

# ufunc's dtypes in its type-number order. 'l'/'L' are int64/uint64 on LP64, as in
# ufunc's dtype table; NumPy's 'q'/'Q' loops duplicate those and are dropped below.
BF16 = np.dtype(ml_dtypes.bfloat16)
CODES = "?bBhHiIlLeEfdFD"


def dtype_of(c):
    return BF16 if c == "E" else np.dtype(c)


DTYPES = [dtype_of(c) for c in CODES]
NAMES = {c: dtype_of(c).name for c in CODES}
OUR_NAMES = set(NAMES.values())
# The cases where NumPy's answer needs only ufunc's dtypes and the search here differs.
DISAGREEMENTS = []
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ufuncs", "tools"))
from generate_registry import GROUPS  # noqa: E402  (the built-in ufuncs, in the README's order)

BUILTINS = [getattr(np, name) for names in GROUPS.values() for name in names.split()]
# Several outputs are checked by the differential tests (tests/differential).
BINARY = [uf for uf in BUILTINS if uf.nin == 2 and uf.nout == 1]
UNARY = [uf for uf in BUILTINS if uf.nin == 1 and uf.nout == 1]
INTEGER_KINDS = "bui"
# NumPy refuses these boolean calls in its type resolvers, before any loop search.
BOOL_REFUSED = {"subtract", "negative", "positive", "sign", "gcd", "lcm"}
COMPARISONS = {"greater", "greater_equal", "less", "less_equal", "equal", "not_equal"}
LOGICAL = {"logical_and", "logical_or", "logical_xor"}
# Python scalars, weak under NEP 50, and the C++ spellings the test maps them to.
WEAK_SCALARS = [True, 1, -1, 300, 1.5, 1j]

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "numpy_tables.inc")


def q(s):
    """A C++ string literal. '?' is escaped because "??-" would be a trigraph to
    pre-C++17 compilers, and GCC warns about it even in C++20 ("\\?\\?->\\?" is "??->?")."""
    return '"' + s.replace("?", "\\?") + '"'


def code_of(dt):
    """NumPy's character code with the LP64 aliases folded onto ufunc's codes."""
    return {"q": "l", "Q": "L"}.get(dt.char, dt.char)


def ours(dt):
    return code_of(dt) in CODES


def bfloat16_loop(uf):
    """ml_dtypes' loop of uf (ufunc.types omits it): the loop NumPy resolves for bfloat16
    inputs (ldexp's takes an int32 exponent), where its first input is bfloat16."""
    trials = [(BF16,) * uf.nin] + ([(BF16, np.dtype("i"))] if uf.nin == 2 else [])
    for ins in trials:
        try:
            r = uf.resolve_dtypes(ins + (None,) * uf.nout)
        except TypeError:
            continue
        if r[0] == BF16:
            return "".join(map(code_of, r[: uf.nin])) + "->" + "".join(map(code_of, r[uf.nin :]))
    return None


def restricted_types(uf):
    """uf.types limited to loops whose every dtype ufunc has, in NumPy's search order
    (first occurrence; 'q' folded onto 'l' as in the library's registry), with ml_dtypes'
    bfloat16 loop before the first float32 (or wider) loop: NumPy searches it first for
    bfloat16 inputs, and there only bool, int8 and uint8 inputs, which find a loop
    before it, cast to bfloat16 safely."""
    out = []
    for t in uf.types:
        t = "".join(code_of(np.dtype(c)) if c.isalpha() or c == "?" else c for c in t)
        if all(c in CODES for c in t.replace("->", "")) and t not in out:
            out.append(t)
    e = bfloat16_loop(uf)
    if e:
        wide = [i for i, t in enumerate(out) if any(c in "fdFD" for c in t)]
        out.insert(wide[0] if wide else len(out), e)
    return out


def restricted_search(uf, inputs):
    """NumPy's legacy loop search (the first loop every input casts to safely) over the
    loops ufunc has. Returns the loop's signature, or None when there is none."""
    if uf.__name__ in BOOL_REFUSED and all(dt == np.bool_ for dt in inputs):
        # NumPy's type resolvers refuse bool - bool (and the like) before any search
        # (which would find 'bb->b'); ufunc must refuse them as well.
        return None
    kinds = [np.dtype(dt).kind for dt in inputs]
    if uf is np.divide and all(k in INTEGER_KINDS for k in kinds):
        return "dd->d"  # NumPy's true-division resolver: integers divide as float64
    if uf.__name__ in COMPARISONS and len(inputs) == 2:
        # NumPy 2 compares signed integers with uint64 exactly (its 'lL'/'Ll' loops).
        if kinds[0] == "i" and np.dtype(inputs[1]) == np.uint64:
            return "lL->?"
        if np.dtype(inputs[0]) == np.uint64 and kinds[1] == "i":
            return "Ll->?"
    if uf.__name__ in LOGICAL and np.dtype(inputs[0]) != np.dtype(inputs[1]):
        return "??->?"  # NumPy's logical resolver: mixed dtypes use the boolean loop
    for t in restricted_types(uf):
        ins = t.split("->")[0]
        if all(np.can_cast(dt, dtype_of(c), "safe") for dt, c in zip(inputs, ins)):
            return t
    return None


def outcome(fn):
    """The result dtype's name of fn(), or the name of the exception it raises."""
    try:
        return np.asarray(fn()).dtype.name
    except ValueError:
        return "ValueError"  # np.power(int8 array, -1): negative integer powers
    except (TypeError, OverflowError) as e:
        # UFuncNoLoopError and the bool-subtract refusal are TypeErrors.
        return "OverflowError" if isinstance(e, OverflowError) else "TypeError"


def numpy_loop(uf, inputs):
    try:
        res = uf.resolve_dtypes(tuple(inputs) + (None,) * uf.nout)
    except TypeError:
        return None
    codes = [code_of(d) for d in res]
    return "".join(codes[: uf.nin]) + "->" + "".join(codes[uf.nin :])


def ufunc_case(uf, inputs):
    """(NumPy's result, the expected loop or "", the expected result)."""
    numpy_result = outcome(lambda: uf(*[np.ones(2, dt) for dt in inputs]))
    loop = restricted_search(uf, inputs)
    expected = NAMES[loop[-1]] if loop else "TypeError"
    np_loop = numpy_loop(uf, inputs)
    if numpy_result == "TypeError" or numpy_result in OUR_NAMES:
        # Nothing ufunc lacks is involved: our search must reproduce NumPy exactly. Where
        # it does not, the library (which searches so) must give NumPy's answer instead.
        loop_ours = np_loop is None or all(c in CODES for c in np_loop.replace("->", ""))
        if expected != numpy_result or (loop_ours and loop != np_loop):
            DISAGREEMENTS.append("%s(%s): NumPy %s (loop %s), the search here %s (loop %s)" % (
                uf.__name__, ", ".join(dt.name for dt in inputs), numpy_result, np_loop, expected, loop))
            expected = numpy_result
            if loop_ours:
                loop = np_loop
    else:
        assert numpy_result in ("longdouble", "clongdouble"), (uf.__name__, inputs, numpy_result)
    return numpy_result, loop or "", expected


def weak_outcome(uf, args):
    """NumPy's answer, or None where it needs a dtype ufunc lacks (longdouble)."""
    result = outcome(lambda: uf(*args))
    if result in ("TypeError", "OverflowError", "ValueError") or result in OUR_NAMES:
        return result
    assert result in ("longdouble", "clongdouble"), (uf.__name__, args, result)
    return None


def promoted(a, b):
    try:
        return np.promote_types(a, b).name
    except np.exceptions.DTypePromotionError:
        return "DTypePromotionError"  # bfloat16 with float16 or an integer wider than a byte


def rows(name, struct, items):
    body = "".join("    {" + ", ".join(item) + "},\n" for item in items)
    return "inline constexpr %s %s[] = {\n%s};\n" % (struct, name, body)


def generate():
    out = []
    out.append(
        "// Generated by tests/generate_numpy_tables.py from NumPy %s and ml_dtypes %s; do not edit.\n"
        "// Regenerate with `python3 tests/generate_numpy_tables.py` and commit the result.\n"
        "//\n"
        "// String literals spell '?' as '\\?' so that no string holds a trigraph.\n"
        "// Dtypes are NumPy names; \"TypeError\" and \"OverflowError\" stand for the exception NumPy\n"
        "// raises. `numpy` is NumPy's own answer, `expected` the one ufunc must give: NumPy's loop\n"
        "// search over only the loops ufunc has (they differ where NumPy picks a longdouble loop).\n"
        "// bfloat16 is ml_dtypes' ('E' here and in the library; NumPy has no code for it).\n"
        "// \"DTypePromotionError\" is NumPy's answer where promote_types finds no common dtype.\n"
        "// Included by tests/unit/test_numpy_tables.cpp.\n" % (np.__version__, ml_dtypes.__version__)
    )
    out.append("namespace numpy_tables {\n\n")
    out.append('inline constexpr const char* numpy_version = "%s";\n\n' % np.__version__)

    out.append("struct dtype_case {\n  const char* name;\n  char char_code;\n  int itemsize;\n  char kind;\n};\n")
    out.append(
        rows("dtypes", "dtype_case",
             [(q(d.name), "'%s'" % d.char, str(d.itemsize), "'%s'" % d.kind) for d in DTYPES]))

    out.append("\n// Spellings that NumPy's np.dtype() accepts besides the names and codes above.\n")
    out.append("struct alias_case {\n  const char* text;\n  const char* name;\n};\n")
    out.append(rows("aliases", "alias_case", [(q(s), q(np.dtype(s).name)) for s in ["q", "Q", "bool_"]]))

    out.append("\n// np.promote_types(a, b)\n")
    out.append("struct promote_case {\n  const char* a;\n  const char* b;\n  const char* result;\n};\n")
    out.append(
        rows("promote_types", "promote_case",
             [(q(a.name), q(b.name), q(promoted(a, b))) for a in DTYPES for b in DTYPES]))

    out.append("\n// np.can_cast(from, to, casting)\n")
    out.append(
        "struct cast_case {\n  const char* from;\n  const char* to;\n  const char* casting;\n  bool result;\n};\n")
    out.append(
        rows("can_cast", "cast_case",
             [(q(a.name), q(b.name), q(c), "true" if np.can_cast(a, b, c) else "false")
              for c in CASTINGS for a in DTYPES for b in DTYPES]))

    out.append("\n// ufunc.types restricted to the loops ufunc has, in NumPy's order (space separated).\n")
    out.append("struct types_case {\n  const char* ufunc;\n  const char* types;\n};\n")
    out.append(
        rows("loop_types", "types_case",
             [(q(uf.__name__), q(" ".join(restricted_types(uf)))) for uf in BINARY + UNARY]))

    out.append("\n// uf(np.ones(2, a), np.ones(2, b)).dtype; `loop` is the restricted search's loop (\"\" for none).\n")
    out.append(
        "struct binary_case {\n  const char* ufunc;\n  const char* a;\n  const char* b;\n  const char* numpy;\n"
        "  const char* loop;\n  const char* expected;\n};\n")
    items = []
    for uf in BINARY:
        for a in DTYPES:
            for b in DTYPES:
                numpy_result, loop, expected = ufunc_case(uf, [a, b])
                items.append((q(uf.__name__), q(a.name), q(b.name), q(numpy_result), q(loop), q(expected)))
    out.append(rows("binary", "binary_case", items))

    out.append("\n// uf(np.ones(2, a)).dtype\n")
    out.append(
        "struct unary_case {\n  const char* ufunc;\n  const char* a;\n  const char* numpy;\n  const char* loop;\n"
        "  const char* expected;\n};\n")
    items = []
    for uf in UNARY:
        for a in DTYPES:
            numpy_result, loop, expected = ufunc_case(uf, [a])
            items.append((q(uf.__name__), q(a.name), q(numpy_result), q(loop), q(expected)))
    out.append(rows("unary", "unary_case", items))

    out.append(
        "\n// NEP 50: uf(np.ones(2, array), s).dtype, or uf(s, np.ones(2, array)).dtype when scalar_first, for a\n"
        "// Python scalar s (its repr). NumPy's answers here never need a dtype ufunc lacks.\n")
    out.append(
        "struct weak_case {\n  const char* ufunc;\n  const char* array;\n  const char* scalar;\n  bool scalar_first;\n"
        "  const char* result;\n};\n")
    items = []
    for uf in BINARY:
        for a in DTYPES:
            for s in WEAK_SCALARS:
                for first in (False, True):
                    args = (s, np.ones(2, a)) if first else (np.ones(2, a), s)
                    result = weak_outcome(uf, args)
                    if result is not None:
                        items.append((q(uf.__name__), q(a.name), q(repr(s)), "true" if first else "false", q(result)))
    out.append(rows("weak", "weak_case", items))

    out.append(
        "\n// Python scalars only, uf(s) or uf(s, t): each takes its default dtype (bool, int64, float64,\n"
        "// complex128). scalar_b is \"\" for unary ufuncs.\n")
    out.append(
        "struct scalar_case {\n  const char* ufunc;\n  const char* scalar_a;\n  const char* scalar_b;\n"
        "  const char* numpy;\n  const char* expected;\n};\n")
    items = []
    for uf in BINARY:
        for s in WEAK_SCALARS:
            for t in WEAK_SCALARS:
                result = weak_outcome(uf, (s, t))
                if result is not None:
                    items.append((q(uf.__name__), q(repr(s)), q(repr(t)), q(result), q(result)))
    for uf in UNARY:
        for s in WEAK_SCALARS:
            numpy_result = outcome(lambda: uf(s))
            # Alone, a Python scalar is its default dtype; the rest is the array search.
            loop = restricted_search(uf, [np.asarray(s).dtype])
            expected = NAMES[loop[-1]] if loop else "TypeError"
            if numpy_result == "TypeError" or numpy_result in OUR_NAMES:
                assert expected == numpy_result, (uf.__name__, s, numpy_result, expected)
            items.append((q(uf.__name__), q(repr(s)), q(""), q(numpy_result), q(expected)))
    out.append(rows("scalars", "scalar_case", items))

    out.append("\n}  // namespace numpy_tables\n")
    return "".join(out)


def main():
    text = generate()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", newline="\n") as f:
        f.write(text)
    print("wrote " + os.path.relpath(OUT))
    for d in DISAGREEMENTS:
        print("the search here differs from NumPy (expected is NumPy's): " + d, file=sys.stderr)


if __name__ == "__main__":
    main()

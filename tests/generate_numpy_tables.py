#!/usr/bin/env python3
"""Writes tests/data/numpy_tables.inc: NumPy 2's answers on dtypes, casting, promotion
and ufunc loop resolution for the 13 dtypes of ufunc, as C++ initializer data that
tests/unit/test_numpy_tables.cpp checks the library against.

Regenerate (from anywhere; the output path is relative to this script) with

    python3 tests/generate_numpy_tables.py

and commit the result. The output depends only on the NumPy version (recorded in the
file's header), so rerunning it with the same NumPy gives the same bytes.

NumPy has loops for dtypes ufunc lacks (float16 'e', longdouble 'g'/'G', object 'O',
datetimes 'm'/'M'), and its search can land on them: np.sin(int8) is float16 through
the 'e->e' loop. For each ufunc case the table therefore holds NumPy's own answer and,
as the expected value, the answer of NumPy's loop search run here over only the loops
ufunc has; the script asserts that the two agree wherever NumPy's answer needs none of
the missing dtypes.
"""

import os
import sys

import numpy as np

if int(np.__version__.split(".")[0]) < 2:
    sys.exit("NumPy 2 is required (NEP 50 promotion); found " + np.__version__)

# ufunc's dtypes in its type-number order. 'l'/'L' are int64/uint64 on LP64, as in
# ufunc's dtype table; NumPy's 'q'/'Q' loops duplicate those and are dropped below.
CODES = "?bBhHiIlLfdFD"
DTYPES = [np.dtype(c) for c in CODES]
NAMES = {c: np.dtype(c).name for c in CODES}
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


def restricted_types(uf):
    """uf.types limited to loops whose every dtype ufunc has, in NumPy's search order
    (first occurrence; 'q' folded onto 'l' as in the library's registry)."""
    out = []
    for t in uf.types:
        t = "".join(code_of(np.dtype(c)) if c.isalpha() or c == "?" else c for c in t)
        if all(c in CODES for c in t.replace("->", "")) and t not in out:
            out.append(t)
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
        if all(np.can_cast(dt, np.dtype(c), "safe") for dt, c in zip(inputs, ins)):
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
    """(NumPy's result, the restricted loop or "", the expected result)."""
    numpy_result = outcome(lambda: uf(*[np.ones(2, dt) for dt in inputs]))
    loop = restricted_search(uf, inputs)
    expected = NAMES[loop[-1]] if loop else "TypeError"
    np_loop = numpy_loop(uf, inputs)
    if numpy_result == "TypeError" or np.dtype(numpy_result).char in CODES:
        # Nothing ufunc lacks is involved: our search must reproduce NumPy exactly.
        assert expected == numpy_result, (uf.__name__, inputs, numpy_result, expected)
        if np_loop is None or all(c in CODES for c in np_loop.replace("->", "")):  # signbit(int8): e->?
            assert loop == np_loop, (uf.__name__, inputs, np_loop, loop)
    else:
        assert numpy_result in ("float16", "longdouble", "clongdouble"), (uf.__name__, inputs, numpy_result)
    return numpy_result, loop or "", expected


def weak_outcome(uf, args):
    """NumPy's answer, or None where it needs a dtype ufunc lacks (float16: np.arctan2(int8, 1))."""
    result = outcome(lambda: uf(*args))
    if result in ("TypeError", "OverflowError", "ValueError") or np.dtype(result).char in CODES:
        return result
    assert result in ("float16", "longdouble", "clongdouble"), (uf.__name__, args, result)
    return None


def rows(name, struct, items):
    body = "".join("    {" + ", ".join(item) + "},\n" for item in items)
    return "inline constexpr %s %s[] = {\n%s};\n" % (struct, name, body)


def generate():
    out = []
    out.append(
        "// Generated by tests/generate_numpy_tables.py from NumPy %s; do not edit.\n"
        "// Regenerate with `python3 tests/generate_numpy_tables.py` and commit the result.\n"
        "//\n"
        "// String literals spell '?' as '\\?' so that no string holds a trigraph.\n"
        "// Dtypes are NumPy names; \"TypeError\" and \"OverflowError\" stand for the exception NumPy\n"
        "// raises. `numpy` is NumPy's own answer, `expected` the one ufunc must give: NumPy's loop\n"
        "// search over only the loops ufunc has (they differ where NumPy picks a float16 loop).\n"
        "// Included by tests/unit/test_numpy_tables.cpp.\n" % np.__version__
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
             [(q(a.name), q(b.name), q(np.promote_types(a, b).name)) for a in DTYPES for b in DTYPES]))

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
            if numpy_result == "TypeError" or np.dtype(numpy_result).char in CODES:
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


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes tests/data/methods_tables.inc: NumPy 2's answers for ufunc.reduce,
accumulate, reduceat and outer over a matrix of ufuncs, dtypes, shapes, layouts and
options, for tests/unit/test_methods.cpp.

The inputs are made by one formula on both sides (value_at below and in the test):
element i (C order of the base array) is a small value whose sums, products and
quotients are exact in every order, so results compare exactly. Layout transforms
(transpose, reversed axis 0, every other element of the last axis) apply to the base.

    python3 tests/generate_methods_tables.py      # NumPy 2.x
"""
import os
import numpy as np

SIGNED = [-2, -1, 1, 2, 3, -3, 1]
UNSIGNED = [1, 2, 3, 1, 2, 1, 4]
FLOATS = [-2.0, -1.0, -0.5, 0.25, 0.5, 1.0, 2.0]


def value_at(i, dt):
    k = (i * 5 + 3) % 7
    dt = np.dtype(dt)
    if dt == np.bool_:
        return k % 3 != 0
    if dt.kind == 'i':
        return SIGNED[k]
    if dt.kind == 'u':
        return UNSIGNED[k]
    return FLOATS[k]


def make(shape, dt, transform):
    n = int(np.prod(shape))
    base = np.array([value_at(i, dt) for i in range(n)], dtype=dt).reshape(shape)
    if transform == 'T':
        return base.T
    if transform == 'rev0':
        return base[::-1]
    if transform == 'step':
        return base[..., ::2]
    return base


def where_mask(shape):
    n = int(np.prod(shape))
    return np.array([(i % 3) != 1 for i in range(n)], dtype=bool).reshape(shape)


ERRORS = {
    'AxisError': 'index_error',
    'ValueError': 'value_error',
    'TypeError': 'no_loop_error',
    'UFuncTypeError': 'no_loop_error',
    '_UFuncNoLoopError': 'no_loop_error',
    'OverflowError': 'overflow_error',
    'IndexError': 'index_error',
}


def error_name(e):
    if 'on a scalar' in str(e):  # "cannot accumulate on a scalar": a value_error here
        return 'value_error'
    return ERRORS.get(type(e).__name__, 'error:' + type(e).__name__)


def num(v):
    if isinstance(v, (bool, np.bool_)):
        return '1' if v else '0'
    f = float(v)
    if f != f:
        return 'nan'
    if f in (float('inf'), float('-inf')):
        return 'inf' if f > 0 else '-inf'
    if f == int(f) and abs(f) < 2**53:
        return str(int(f))
    return repr(f)


# Vectors are strings ("3 5"), parsed by the test: thousands of initializer lists
# would make the test slow to compile.
def vec(values):
    return '"' + ' '.join(num(v) for v in values) + '"'


def ivec(values):
    return '"' + ' '.join(str(int(v)) for v in values) + '"'


def cstr(s):
    return 'nullptr' if s is None else '"' + s + '"'


def axis_code(axis):
    if axis is None:
        return '2, ""'
    if isinstance(axis, tuple):
        return '1, ' + ivec(axis)
    return '0, "' + str(axis) + '"'


def result_fields(r):
    r = np.asarray(r)
    return '"%s", %s, %s' % (r.dtype.name, ivec(r.shape), vec(r.ravel()))


REDUCE_UFUNCS = ['add', 'multiply', 'subtract', 'maximum', 'minimum', 'logical_and', 'bitwise_or', 'divide']
DTYPES = ['bool', 'int8', 'uint8', 'int16', 'int32', 'uint32', 'int64', 'uint64', 'float32', 'float64']
LAYOUTS = [
    ((7,), 'none', 0, False),
    ((7,), 'rev0', -1, True),
    ((7,), 'none', None, False),
    ((3, 5), 'none', 0, False),
    ((3, 5), 'none', 1, True),
    ((3, 5), 'T', 1, False),
    ((3, 5), 'rev0', 0, False),
    ((3, 8), 'step', -1, False),
    ((3, 5), 'none', None, True),
    ((2, 3, 4), 'none', (0, 2), False),
    ((2, 3, 4), 'T', (0, 1), True),
    ((2, 3, 4), 'rev0', (2, 0), False),
    ((2, 3, 4), 'none', (), False),
    ((2, 3, 4), 'none', (0, 0), False),
    ((2, 3, 4), 'none', 3, False),
    ((2, 3, 4), 'none', -4, False),
    ((0, 3), 'none', 0, False),
    ((0, 3), 'none', 1, False),
    ((4, 1, 3), 'none', (1,), False),
    ((), 'none', None, False),
    ((), 'none', 0, False),
    ((), 'none', (0,), False),
    ((100, 70), 'none', 1, False),
    ((70, 100), 'none', 0, False),
    ((5000,), 'none', 0, False),
]
OPTIONS = [
    dict(),
    dict(keepdims=True),
    dict(initial=5),
    dict(initial=-1),
    dict(where=True),
    dict(where=True, initial=3),
    dict(dtype='int8'),
    dict(dtype='float64'),
    dict(out='float32'),
    dict(out='int16'),
]


def reduce_cases():
    lines = []
    for uf in REDUCE_UFUNCS:
        f = getattr(np, uf)
        for dt in DTYPES:
            for shape, tr, axis, keep in LAYOUTS:
                if shape in ((100, 70), (70, 100), (5000,)) and uf not in ('add', 'maximum', 'bitwise_or'):
                    continue
                if shape in ((100, 70), (70, 100), (5000,)) and dt not in ('int32', 'float64', 'uint8', 'bool'):
                    continue
                x = make(shape, dt, tr)
                opts_list = [dict(keepdims=keep)]
                if shape == (3, 5) and tr == 'none':
                    opts_list += [dict({'keepdims': keep}, **o) for o in OPTIONS[1:]]
                if shape == (0, 3):
                    opts_list += [dict(initial=5), dict(where=True, initial=5)]
                for opts in opts_list:
                    kw = {'axis': axis, 'keepdims': opts.get('keepdims', False)}
                    if 'initial' in opts:
                        kw['initial'] = opts['initial']
                    if opts.get('where'):
                        kw['where'] = where_mask(x.shape)
                    if 'dtype' in opts:
                        kw['dtype'] = opts['dtype']
                    if 'out' in opts:
                        try:
                            shape_r = f.reduce(x.astype(np.float64) if dt == 'bool' else x, axis=axis,
                                               keepdims=kw['keepdims']).shape
                        except Exception:
                            continue
                        kw['out'] = np.zeros(shape_r, opts['out'])
                    err = None
                    try:
                        with np.errstate(all='ignore'):
                            r = f.reduce(x, **kw)
                    except Exception as e:  # noqa: BLE001
                        err = error_name(e)
                    fields = '"%s", "%s", %s, "%s", %s, %s, %s, %s, %s, %s, %s, %s, ' % (
                        uf, dt, ivec(shape), tr, axis_code(axis), 'true' if kw['keepdims'] else 'false',
                        'true' if 'initial' in opts else 'false', opts.get('initial', 0),
                        'true' if opts.get('where') else 'false', cstr(opts.get('dtype')), cstr(opts.get('out')),
                        cstr(err))
                    if err is None:
                        fields += result_fields(r)
                    else:
                        fields += '"", "", ""'
                    lines.append('    {' + fields + '},')
    return lines


ACC_UFUNCS = ['add', 'multiply', 'subtract', 'maximum', 'divide']
ACC_LAYOUTS = [
    ((7,), 'none', 0),
    ((7,), 'rev0', 0),
    ((3, 5), 'none', 0),
    ((3, 5), 'none', 1),
    ((3, 5), 'T', -1),
    ((3, 8), 'step', 1),
    ((2, 3, 4), 'rev0', 1),
    ((2, 3, 4), 'none', 3),
    ((0, 3), 'none', 0),
    ((3, 0), 'none', 0),
    ((), 'none', 0),
]


def accumulate_cases():
    lines = []
    for uf in ACC_UFUNCS:
        f = getattr(np, uf)
        for dt in DTYPES:
            for shape, tr, axis in ACC_LAYOUTS:
                x = make(shape, dt, tr)
                for opts in [dict(), dict(dtype='float32'), dict(out='int64')] if shape == (3, 5) else [dict()]:
                    kw = {'axis': axis}
                    if 'dtype' in opts:
                        kw['dtype'] = opts['dtype']
                    if 'out' in opts:
                        kw['out'] = np.zeros(x.shape, opts['out'])
                    err = None
                    try:
                        with np.errstate(all='ignore'):
                            r = f.accumulate(x, **kw)
                    except Exception as e:  # noqa: BLE001
                        err = error_name(e)
                    fields = '"%s", "%s", %s, "%s", %d, %s, %s, %s, ' % (
                        uf, dt, ivec(shape), tr, axis, cstr(opts.get('dtype')), cstr(opts.get('out')), cstr(err))
                    fields += result_fields(r) if err is None else '"", "", ""'
                    lines.append('    {' + fields + '},')
    return lines


REDUCEAT = [
    ((8,), 'none', 0, [0, 4, 1, 5]),
    ((8,), 'none', 0, [0, 4, 4, 5]),
    ((8,), 'rev0', 0, [6, 2, 7]),
    ((8,), 'none', 0, []),
    ((8,), 'none', 0, [0, 8]),
    ((8,), 'none', 0, [0, -1]),
    ((3, 5), 'none', 1, [0, 2, 2, 4]),
    ((3, 5), 'T', 0, [1, 3]),
    ((3, 5), 'none', 0, [2, 0, 1]),
    ((2, 3, 4), 'none', 2, [0, 3, 1]),
]


def reduceat_cases():
    lines = []
    for uf in ['add', 'multiply', 'subtract', 'maximum']:
        f = getattr(np, uf)
        for dt in ['bool', 'int8', 'uint16', 'int64', 'float32', 'float64']:
            for shape, tr, axis, idx in REDUCEAT:
                x = make(shape, dt, tr)
                err = None
                try:
                    with np.errstate(all='ignore'):
                        r = f.reduceat(x, np.array(idx, dtype=np.int64), axis=axis)
                except Exception as e:  # noqa: BLE001
                    err = error_name(e)
                fields = '"%s", "%s", %s, "%s", %d, %s, %s, ' % (uf, dt, ivec(shape), tr, axis, ivec(idx), cstr(err))
                fields += result_fields(r) if err is None else '"", "", ""'
                lines.append('    {' + fields + '},')
    return lines


OUTER = [((3,), (4,)), ((2, 3), (2,)), ((), (3,)), ((2,), ()), ((0,), (3,))]


def outer_cases():
    lines = []
    for uf in ['add', 'subtract', 'multiply', 'maximum']:
        f = getattr(np, uf)
        for da, db in [('int8', 'int8'), ('uint8', 'int16'), ('float32', 'int32'), ('float64', 'float32'),
                       ('bool', 'bool')]:
            for sa, sb in OUTER:
                a = make(sa, da, 'none')
                b = make(sb, db, 'none')[::-1] if sb and sb[0] > 0 else make(sb, db, 'none')
                err = None
                try:
                    with np.errstate(all='ignore'):
                        r = f.outer(a, b)
                except Exception as e:  # noqa: BLE001
                    err = error_name(e)
                fields = '"%s", "%s", %s, "%s", %s, %s, ' % (uf, da, ivec(sa), db, ivec(sb), cstr(err))
                fields += result_fields(r) if err is None else '"", "", ""'
                lines.append('    {' + fields + '},')
    return lines


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'methods_tables.inc')
    with open(out, 'w') as fh:
        fh.write('// Generated by tests/generate_methods_tables.py from NumPy %s; do not edit.\n' % np.__version__)
        fh.write('// clang-format off\n')
        fh.write('const reduce_case reduce_cases[] = {\n' + '\n'.join(reduce_cases()) + '\n};\n')
        fh.write('const accumulate_case accumulate_cases[] = {\n' + '\n'.join(accumulate_cases()) + '\n};\n')
        fh.write('const reduceat_case reduceat_cases[] = {\n' + '\n'.join(reduceat_cases()) + '\n};\n')
        fh.write('const outer_case outer_cases[] = {\n' + '\n'.join(outer_cases()) + '\n};\n')
        fh.write('// clang-format on\n')


if __name__ == '__main__':
    main()

"""NumPy's indexing for ufunc.at: an index with slices, Ellipsis or boolean arrays as the integer
arrays, one per indexed axis, that select the same elements in the same order (the C++ at() takes
integer arrays that broadcast together)."""

import numpy as np


def at_index_arrays(shape, index):
    """The integer arrays, one per indexed leading axis of an array of `shape`, for `index` (anything
    NumPy's a[index] takes but newaxis): a[index] in C order of NumPy's result shape."""
    items = list(index) if isinstance(index, tuple) else [index]
    # Ellipsis: as many full slices as the axes no other item indexes.
    if any(item is Ellipsis for item in items):
        at = next(i for i, item in enumerate(items) if item is Ellipsis)
        if any(item is Ellipsis for item in items[at + 1:]):
            raise IndexError("an index can only have a single ellipsis ('...')")
        taken = sum(np.asarray(item).ndim if _is_bool(item) else 1 for item in items if item is not Ellipsis)
        items[at:at + 1] = [slice(None)] * (len(shape) - taken)
    # Boolean arrays: the integer arrays of their nonzero elements, one per axis they cover.
    expanded = []
    for item in items:
        if item is None:
            raise IndexError("ufunc.at: np.newaxis (None) in an index is not supported")
        if _is_bool(item):
            expanded.extend(np.nonzero(np.asarray(item)))
        else:
            expanded.append(item)
    if len(expanded) > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {len(expanded)} were indexed")
    advanced = [i for i, item in enumerate(expanded) if not isinstance(item, slice)]
    if len(advanced) == len(expanded):
        return tuple(np.asarray(item) for item in expanded)
    arrays = [np.asarray(expanded[i]) for i in advanced]
    block = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    # NumPy puts the advanced indices' dimensions where the first of them is when they are adjacent,
    # first otherwise.
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1)) if advanced else True
    slots = []  # per result dimension: ("slice", item index) or ("advanced", block dimension)
    for i, item in enumerate(expanded):
        if isinstance(item, slice):
            slots.append(("slice", i))
        elif adjacent and i == advanced[0]:
            slots.extend(("advanced", d) for d in range(len(block)))
    if not adjacent:
        slots = [("advanced", d) for d in range(len(block))] + slots
    ndim = len(slots)
    out = []
    for i, item in enumerate(expanded):
        if isinstance(item, slice):
            positions = np.arange(*item.indices(shape[i]))
            where = slots.index(("slice", i))
            out.append(positions.reshape([positions.size if d == where else 1 for d in range(ndim)]))
        else:
            a = np.broadcast_to(np.asarray(item), block)
            first = slots.index(("advanced", 0)) if block else 0
            out.append(a.reshape([1] * first + list(block) + [1] * (ndim - first - len(block))))
    return tuple(out)


def _is_bool(item):
    return not isinstance(item, slice) and item is not Ellipsis and item is not None and \
        np.asarray(item).dtype == np.bool_

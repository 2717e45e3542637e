# cython: language_level=3
"""Distinct orderings of a multiset of cards, a block at a time, in lexicographic order."""

cimport cython
from libc.stdint cimport uint8_t

import numpy as np


@cython.boundscheck(False)
@cython.wraparound(False)
def permutation_block(first, n):
    """Up to ``n`` rows: ``first`` and the orderings that follow it (fewer after the last).

    ``first`` is a non-empty 1-D uint8 array (a deal); ValueError for anything else.
    """
    if (not isinstance(first, np.ndarray) or first.dtype != np.uint8 or first.ndim != 1
            or not first.size):
        raise ValueError("first must be a non-empty 1-D uint8 array")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a whole number of at least 0, not {n!r}")
    cdef Py_ssize_t wanted = n
    cdef int width = first.shape[0]
    rows = np.empty((wanted, width), dtype=np.uint8)
    cdef uint8_t[:, ::1] rows_v = rows
    cdef uint8_t[::1] current = np.array(first, dtype=np.uint8)
    cdef Py_ssize_t made = 0
    if wanted == 0:
        return rows
    with nogil:
        rows_v[0, :] = current
        made = 1
        while made < wanted and next_permutation(&current[0], width):
            rows_v[made, :] = current
            made += 1
    return rows[:made]

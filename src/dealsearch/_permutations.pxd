# Stepping through the distinct orderings of a multiset in place: what others may cimport.
from libc.stdint cimport uint8_t


cdef inline bint next_permutation(uint8_t* a, int n) noexcept nogil:
    """Step ``a`` to the next distinct ordering; False (and ``a`` unchanged) after the last."""
    cdef int i = n - 2, j
    cdef uint8_t tmp
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while a[j] <= a[i]:
        j -= 1
    tmp = a[i]
    a[i] = a[j]
    a[j] = tmp
    i += 1
    j = n - 1
    while i < j:
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp
        i += 1
        j -= 1
    return True

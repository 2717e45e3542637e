# cython: language_level=3
"""The C-level game interface for compiled search loops; see ``_kernel.pxd``."""

import numpy as np

cimport numpy as cnp


cdef class Kernel:
    """A game under fixed options as a C function pointer (built by the game's engine)."""

    def play(self, row):
        """Play one row through the function pointer: ``(outcome, measures, entry, period)``.

        For tests and debugging; search loops call ``play_row`` directly, without the GIL.
        """
        if self.play_row == NULL:
            raise ValueError("this Kernel was not built by a game")
        array = np.asarray(row)
        if array.ndim != 1 or array.shape[0] != self.n_cards:
            raise ValueError(f"a row of this game is a 1-D array of {self.n_cards} cards, not "
                             f"shape {array.shape}")
        if array.size and (array.min() < 0 or array.max() > 255):
            raise ValueError("card codes must be 0 to 255")
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] cards = np.ascontiguousarray(array, dtype=np.uint8)
        cdef KernelResult result
        cdef int status
        with nogil:
            status = self.play_row(self.context, &cards[0], &result)
        if status != 0:
            raise MemoryError("the game's scratch memory could not be allocated")
        n = self.n_measures
        return (result.outcome, tuple(result.measure[i] for i in range(n)),
                tuple(result.entry[i] for i in range(n)),
                tuple(result.period[i] for i in range(n)))

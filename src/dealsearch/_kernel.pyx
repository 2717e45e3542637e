# cython: language_level=3
"""The C-level game interface for compiled search loops; see ``_kernel.pxd``."""

import numpy as np

cimport numpy as cnp


cdef class Kernel:
    """A game under fixed options as a C function pointer (built by the game's engine)."""

    def check_row(self, row):
        """``row`` as a contiguous uint8 array if it is a row of this game (ValueError if not).

        The shape and the byte range are checked here, the game's own rules on codes (BMN:
        classes of the payments; Durak: each card of the deck once) by its ``row_check``;
        e.g. ``kernel.check_row(layout.deck)`` before a search deals from that deck.
        """
        if self.play_row == NULL:
            raise ValueError("this Kernel was not built by a game")
        array = np.asarray(row)
        if array.ndim != 1 or array.shape[0] != self.n_cards:
            raise ValueError(f"a row of this game is a 1-D array of {self.n_cards} cards, not "
                             f"shape {array.shape}")
        if array.dtype.kind not in "biu":
            raise ValueError(f"card codes must be whole numbers, not {array.dtype}")
        if array.size and (array.min() < 0 or array.max() > 255):
            raise ValueError("card codes must be 0 to 255")
        cards = np.ascontiguousarray(array, dtype=np.uint8)
        if self.row_check is not None:
            self.row_check(cards)
        return cards

    def play(self, row):
        """Play one row through the function pointer: ``(outcome, measures, entry, period)``.

        For tests and debugging; search loops call ``play_row`` directly, without the GIL.
        """
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] cards = self.check_row(row)
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

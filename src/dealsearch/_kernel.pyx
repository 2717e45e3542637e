# cython: language_level=3
"""The C-level game interface for compiled search loops; see ``_kernel.pxd``."""

import sys

import numpy as np

cimport numpy as cnp
from libc.stdint cimport uint8_t


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

    def raise_failure(self):
        """Raise why ``play_row`` failed (returned -1): the exception a :class:`PythonKernel`'s
        game raised, else ``MemoryError`` (a compiled game's scratch memory was not had).

        Every loop that calls ``play_row`` calls this on a failure, so a plug-in's own error
        reaches the search as itself.
        """
        failure = getattr(self, "failure", None)  # a PythonKernel's game raised
        if failure is not None:
            self.failure = None   # raised once: the kernel may play on
            raise failure
        raise MemoryError("the game's scratch memory could not be allocated")

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
            self.raise_failure()
        n = self.n_measures
        return (result.outcome, tuple(result.measure[i] for i in range(n)),
                tuple(result.entry[i] for i in range(n)),
                tuple(result.period[i] for i in range(n)))


cdef int _play_python(void* context, const uint8_t* row,
                      KernelResult* result) noexcept nogil:
    # A game written in Python: the loop takes the GIL for each game it plays.
    with gil:
        kernel = <PythonKernel>context
        try:
            outcome, measures, entry, period = kernel.play_fn(
                np.frombuffer((<char*>row)[:kernel.n_cards], dtype=np.uint8))
            result.outcome = outcome
            for i in range(kernel.n_measures):
                result.measure[i] = measures[i]
                result.entry[i] = entry[i] if entry else 0
                result.period[i] = period[i] if period else 0
        except Exception:
            kernel.failure = sys.exc_info()[1]
            return -1
    return 0


cdef class PythonKernel(Kernel):
    """A :class:`Kernel` over a Python function, so a game can run in every search before it
    has a compiled engine (each game then costs a Python call: correct, not fast).

    ``play_fn(row)`` returns ``(outcome index, measures, entry, period)`` (entry and period
    empty unless the game cycles), as :meth:`Kernel.play` does.
    """

    cdef readonly object play_fn
    cdef public object failure

    def __init__(self, play_fn, n_cards, n_measures, row_check=None):
        if not 1 <= n_measures <= MAX_MEASURES:
            raise ValueError(f"a game has 1 to {MAX_MEASURES} measures, not {n_measures}")
        if not 1 <= n_cards <= 255:
            raise ValueError(f"a row has 1 to 255 cards, not {n_cards}")
        self.play_fn = play_fn
        self.n_cards = n_cards
        self.n_measures = n_measures
        self.row_check = row_check
        self.owner = self
        self.context = <void*>self
        self.play_row = _play_python
        self.failure = None

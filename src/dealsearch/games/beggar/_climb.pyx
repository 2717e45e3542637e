# cython: language_level=3
"""The climber's inner loop in compiled code: mutate, play, accept, thousands of times a call.

Python chooses the starting deals and keeps the log; this loop does the rest without the GIL:
one mutant per step (``kick`` random mutations, one by default, each of: swap two cards of
different classes, move a court card, swap cards between hands, rotate a hand), played by the
engine (bit-planes up to 64 cards, rings above), accepted if at least as long (plateaus are
crossed) or, when annealing, with probability exp(delta / T).
"""

cimport cython
from libc.math cimport exp
from libc.stdint cimport INT64_MAX, UINT64_MAX, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np

from dealsearch.games.beggar._engine cimport (
    MAX_CARDS,
    MAX_SEATS,
    RESULT_COLUMNS,
    Outcome,
    Tally,
    fill_table,
    play_cards,
    scratch_free,
    scratch_init,
    start_tally,
    store_result,
    tally,
)
from dealsearch._random cimport Rng, rng_below, rng_next, rng_seed

from dealsearch.games.beggar._engine import (
    _check_codes,
    _check_payments,
    _tally_args,
    _whole,
    _whole_list,
)

cdef enum:
    TRIES = 64          # attempts to find a card of another class before giving up a swap
    MAX_KICK = 16       # most mutations per mutant


cdef inline double uniform(Rng* rng) noexcept nogil:
    return (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


def _real(name, value, double low, double high):
    """``value`` as a float in [low, high]; ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be {low:g} to {high:g}, not {value}")
    return float(value)


def _counts_array(name, values, Py_ssize_t least):
    """A writable, contiguous 1-D int64 array of at least ``least`` entries."""
    if (not isinstance(values, np.ndarray) or values.dtype != np.int64 or values.ndim != 1
            or values.size < least or not values.flags.c_contiguous
            or not values.flags.writeable):
        raise ValueError(f"{name} must be a writable, contiguous 1-D int64 array of at least "
                         f"{least} entries")
    return values


cdef class Climber:
    """One climber: its current deal, its best, its temperature and its random stream."""

    def __cinit__(self, *args, **kwargs):
        self.has_scratch = self.has_row = False
        self.current = NULL

    def __init__(self, sizes, payments, seed, stream, max_cards=None, max_tricks=None,
                 by_tricks=False):
        # In __init__ (not __cinit__) so that Python sees the signature; a second call frees
        # the first call's memory.
        if self.has_scratch:
            scratch_free(&self.scratch)
            self.has_scratch = False
        free(self.current)
        self.current = NULL
        self.has_row = False
        paid = _check_payments(payments)
        self.n_classes = len(paid)
        hands = _whole_list("sizes", sizes, 1, MAX_CARDS, 2, MAX_SEATS)
        self.n_cards = sum(hands)
        fill_table(&self.table, self.sizes, hands, paid, self.n_cards, max_cards, max_tricks)
        self.starts[0] = 0
        for seat in range(self.table.seats):
            self.starts[seat + 1] = self.starts[seat] + self.sizes[seat]
        self.by_tricks = bool(by_tricks)
        self.n_kick = 1
        rng_seed(&self.rng, _whole("seed", seed, 0, UINT64_MAX),
                 _whole("stream", stream, 0, UINT64_MAX))
        self.current = <uint8_t*>malloc(4 * <size_t>self.n_cards)
        if self.current == NULL:
            raise MemoryError("no memory for the climber's deals")
        self.best = self.current + self.n_cards
        self.trial = self.best + self.n_cards
        self.spare = self.trial + self.n_cards
        if scratch_init(&self.scratch, self.n_cards, False) != 0:
            raise MemoryError("no memory for the cycle detector")
        self.has_scratch = True

    def __dealloc__(self):
        if self.has_scratch:
            scratch_free(&self.scratch)
        free(self.current)

    cdef int need_row(self) except -1:
        if not self.has_row:
            raise ValueError("the climber has no deal yet: call reset(row, ...) first")
        return 0

    def reset(self, row, score, temperature):
        """Start (again) from ``row`` (a uint8 array of the climber's cards), whose game
        scored ``score``, at ``temperature``."""
        if (not isinstance(row, np.ndarray) or row.dtype != np.uint8 or row.ndim != 1
                or row.shape[0] != self.n_cards):
            raise ValueError(f"row must be a 1-D uint8 array of {self.n_cards} cards")
        _check_codes("row", row, self.n_classes)
        score = _whole("score", score, 0)
        temperature = _real("temperature", temperature, 0, float("inf"))
        cdef const uint8_t[::1] cards = np.ascontiguousarray(row)
        memcpy(self.current, &cards[0], self.n_cards)
        memcpy(self.best, &cards[0], self.n_cards)
        self.score = self.best_score = score
        self.stall = 0
        self.temperature = temperature
        self.has_row = True

    def restore_best(self, const uint8_t[::1] row, int64_t score):
        """Set the best deal since the last restart and its score (after :meth:`reset`, to
        continue a climber exactly where a checkpoint left it)."""
        self.need_row()
        if row.shape[0] != self.n_cards:
            raise ValueError(f"a best deal of {row.shape[0]} cards for a climber of "
                             f"{self.n_cards}")
        _check_codes("row", np.asarray(row), self.n_classes)
        memcpy(self.best, &row[0], self.n_cards)
        self.best_score = score

    @property
    def current_row(self):
        """The current deal as a uint8 row."""
        self.need_row()
        return np.array(<uint8_t[:self.n_cards]>self.current, dtype=np.uint8)

    @property
    def best_row(self):
        """The best deal since the last reset."""
        self.need_row()
        return np.array(<uint8_t[:self.n_cards]>self.best, dtype=np.uint8)

    def perturb(self, mutations):
        """Apply ``mutations`` random mutations to the current deal (a restart near a deal)."""
        self.need_row()
        for _ in range(_whole("mutations", mutations, 0)):
            self.mutate(self.current)
        memcpy(self.best, self.current, self.n_cards)

    def play_current(self):
        """Play the current deal: (outcome, (cards, tricks), entry (cards, tricks), period
        (cards, tricks)), as the generic ``Climber``; the score and best are set from it."""
        cdef Outcome res
        self.need_row()
        if play_cards(&self.table, self.current, self.sizes, &self.scratch, &res) != 0:
            raise MemoryError("no memory for the cycle detector")
        self.score = self.best_score = res.tricks if self.by_tricks else res.cards
        return (res.outcome, (res.cards, res.tricks), (res.entry_cards, res.entry_tricks),
                (res.period_cards, res.period_tricks))

    @property
    def kick(self):
        """Mutations per mutant (1 to 16; default 1): more reach further from the current
        deal."""
        return self.n_kick

    @kick.setter
    def kick(self, value):
        self.n_kick = _whole("kick", value, 1, MAX_KICK)

    def random_state(self):
        """The PRNG state (four words), to checkpoint."""
        return [self.rng.s[i] for i in range(4)]

    def set_random_state(self, words):
        """Restore a state from :meth:`random_state`."""
        state = [_whole("random state word", word, 0, UINT64_MAX) for word in words]
        if len(state) != 4 or not any(state):
            raise ValueError("a random state is four 64-bit words, not all zero")
        for i in range(4):
            self.rng.s[i] = state[i]

    @cython.boundscheck(False)
    @cython.wraparound(False)
    def climb(self, games, stall_limit, cooling, anneal, counts, hists=(), widths=(),
              max_cycles=64):
        """Play up to ``games`` mutants, or fewer if the climber stalls or cycles fill up.

        Returns what the generic ``Climber.climb`` does: (played, totals (cards, tricks),
        cycle_rows, cycle_results): every mutant whose game never ends is kept (rows and
        outcome, measures, entry, period), never accepted. ``counts`` (per outcome) and
        ``hists`` (a card and a trick histogram, int64 arrays, of bin ``widths`` any and 1)
        are added to.
        """
        self.need_row()
        cdef Py_ssize_t wanted = _whole("games", games, 0)
        cdef int64_t stall_max = _whole("stall_limit", stall_limit, 1)
        cdef double cool = _real("cooling", cooling, 0, 1)
        cdef bint annealing = bool(anneal)
        cdef int64_t[::1] counts_v = _counts_array("counts", counts, 3)
        card_hist, trick_hist, card_bin = _tally_args(hists, widths)
        cdef int cycles_max = _whole("max_cycles", max_cycles, 1, 1 << 20)
        # best INT64_MAX: the tally's finds are the cycles alone
        cdef Tally t = start_tally(counts_v, card_hist, trick_hist, card_bin, INT64_MAX, False)
        cdef uint8_t* trial = self.trial
        cdef Outcome res
        cdef Py_ssize_t played = 0
        cdef int64_t score, delta
        cdef int status = 0, n_cycles = 0, _kick
        cycle_rows = np.empty((cycles_max, self.n_cards), dtype=np.uint8)
        cycle_results = np.empty((cycles_max, RESULT_COLUMNS), dtype=np.int64)
        cdef uint8_t[:, ::1] rows_v = cycle_rows
        cdef int64_t[:, ::1] results_v = cycle_results
        with nogil:
            while played < wanted and self.stall < stall_max and n_cycles < cycles_max:
                memcpy(trial, self.current, self.n_cards)
                for _kick in range(self.n_kick):
                    self.mutate(trial)
                status = play_cards(&self.table, trial, self.sizes, &self.scratch, &res)
                if status != 0:
                    break
                played += 1
                self.temperature *= cool
                self.stall += 1
                if tally(&t, &res):         # a cycle
                    memcpy(&rows_v[n_cycles, 0], trial, self.n_cards)
                    store_result(&res, &results_v[n_cycles, 0])
                    n_cycles += 1
                    continue
                score = res.tricks if self.by_tricks else res.cards
                delta = score - self.score
                if delta >= 0 or (annealing and self.temperature > 0 and
                                  uniform(&self.rng) < exp(delta / self.temperature)):
                    memcpy(self.current, trial, self.n_cards)
                    self.score = score
                    if score > self.best_score:
                        memcpy(self.best, trial, self.n_cards)
                        self.best_score = score
                        self.stall = 0
        if status != 0:
            raise MemoryError("no memory for the cycle detector")
        return (played, np.array([t.cards, t.tricks], dtype=np.int64), cycle_rows[:n_cycles],
                cycle_results[:n_cycles])

    cdef void mutate(self, uint8_t* row) noexcept nogil:
        cdef int n = self.n_cards, kind = rng_below(&self.rng, 4), i, j, _try, a, b, k
        cdef uint8_t card
        cdef uint8_t* rotated = self.spare
        if self.table.seats < 2 or kind == 0:          # swap two cards of different classes
            i = rng_below(&self.rng, n)
            for _try in range(TRIES):
                j = rng_below(&self.rng, n)
                if row[j] != row[i]:
                    row[i], row[j] = row[j], row[i]
                    return
        elif kind == 1:                                 # move a court card elsewhere
            for _try in range(TRIES):
                i = rng_below(&self.rng, n)
                if row[i]:
                    break
            else:
                return
            j = rng_below(&self.rng, n)
            card = row[i]
            if i < j:
                for k in range(i, j):
                    row[k] = row[k + 1]
            else:
                for k in range(i, j, -1):
                    row[k] = row[k - 1]
            row[j] = card
        elif kind == 2:                                 # swap cards between two hands
            a = rng_below(&self.rng, self.table.seats)
            b = rng_below(&self.rng, self.table.seats - 1)
            b += b >= a
            i = self.starts[a] + rng_below(&self.rng, self.sizes[a])
            j = self.starts[b] + rng_below(&self.rng, self.sizes[b])
            row[i], row[j] = row[j], row[i]
        else:                                           # rotate a hand
            a = rng_below(&self.rng, self.table.seats)
            if self.sizes[a] < 2:
                return
            k = 1 + rng_below(&self.rng, self.sizes[a] - 1)
            for i in range(self.sizes[a]):
                rotated[i] = row[self.starts[a] + (i + k) % self.sizes[a]]
            memcpy(&row[self.starts[a]], rotated, self.sizes[a])

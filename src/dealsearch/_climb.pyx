# cython: language_level=3
"""The climber's inner loop in compiled code: mutate, play, accept, thousands of times a call.

Python chooses the starting deals and keeps the log; this loop does the rest without the GIL:
one mutant per step (swap two cards of different classes, move a court card, swap cards
between hands, rotate a hand), played by the engine, accepted if at least as long (plateaus are
crossed) or, when annealing, with probability exp(delta / T).
"""

from libc.math cimport exp
from libc.stdint cimport INT64_MAX, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy, memset

import numpy as np

from dealsearch._engine cimport (
    MAX_SEATS,
    OUTCOME_CYCLE,
    Detector,
    Hand,
    Outcome,
    Table,
    deal_hands,
    detector_free,
    detector_init,
    play_game,
)
from dealsearch._random cimport Rng, rng_below, rng_next, rng_seed

cdef enum:
    MAX_CARDS = 64
    TRIES = 64          # attempts to find a card of another class before giving up a swap


cdef inline double uniform(Rng* rng) noexcept nogil:
    return (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef class Climber:
    """One climber: its current deal, its best, its temperature and its random stream."""

    cdef Rng rng
    cdef Table table
    cdef Detector det
    cdef int sizes[MAX_SEATS]
    cdef int starts[MAX_SEATS + 1]
    cdef int n_cards
    cdef bint by_tricks
    cdef uint8_t current[MAX_CARDS]
    cdef uint8_t best[MAX_CARDS]
    cdef public int64_t score
    cdef public int64_t best_score
    cdef public int64_t stall
    cdef public double temperature

    def __cinit__(self, sizes, payments, uint64_t seed, uint64_t stream, max_cards=None,
                  max_tricks=None, bint by_tricks=False):
        memset(&self.table, 0, sizeof(Table))
        for i, p in enumerate(payments):
            self.table.payment[i] = p
        self.table.seats = len(sizes)
        self.n_cards = sum(sizes)
        self.table.total = self.n_cards
        self.table.max_cards = INT64_MAX if max_cards is None else max_cards
        self.table.max_tricks = INT64_MAX if max_tricks is None else max_tricks
        self.starts[0] = 0
        for seat, size in enumerate(sizes):
            self.sizes[seat] = size
            self.starts[seat + 1] = self.starts[seat] + size
        self.by_tricks = by_tricks
        rng_seed(&self.rng, seed, stream)
        if detector_init(&self.det) != 0:
            raise MemoryError("no memory for the cycle detector")

    def __dealloc__(self):
        detector_free(&self.det)

    def reset(self, const uint8_t[::1] row, int64_t score, double temperature):
        """Start (again) from ``row``, whose game scored ``score``."""
        memcpy(self.current, &row[0], self.n_cards)
        memcpy(self.best, &row[0], self.n_cards)
        self.score = self.best_score = score
        self.stall = 0
        self.temperature = temperature

    def restore_best(self, const uint8_t[::1] row, int64_t score):
        """Set the best deal since the last restart and its score (after :meth:`reset`, to
        continue a climber exactly where a checkpoint left it)."""
        if row.shape[0] != self.n_cards:
            raise ValueError(f"a best deal of {row.shape[0]} cards for a climber of "
                             f"{self.n_cards}")
        memcpy(self.best, &row[0], self.n_cards)
        self.best_score = score

    @property
    def current_row(self):
        """The current deal as a uint8 row."""
        return np.array(<uint8_t[:self.n_cards]>self.current, dtype=np.uint8)

    @property
    def best_row(self):
        """The best deal since the last reset."""
        return np.array(<uint8_t[:self.n_cards]>self.best, dtype=np.uint8)

    def perturb(self, int mutations):
        """Apply ``mutations`` random mutations to the current deal (a restart near a deal)."""
        for _ in range(mutations):
            self.mutate(self.current)
        memcpy(self.best, self.current, self.n_cards)

    def play_current(self):
        """Play the current deal: (outcome, cards, tricks, entry_cards, entry_tricks,
        period_cards, period_tricks); the score and best are set from it."""
        cdef Hand hands[MAX_SEATS]
        cdef Outcome res
        deal_hands(self.current, self.sizes, self.table.seats, hands)
        if play_game(&self.table, hands, &self.det, &res) != 0:
            raise MemoryError("no memory for the cycle detector")
        self.score = self.best_score = res.tricks if self.by_tricks else res.cards
        return (res.outcome, res.cards, res.tricks, res.entry_cards, res.entry_tricks,
                res.period_cards, res.period_tricks)

    def random_state(self):
        """The PRNG state (four words), to checkpoint."""
        return [self.rng.s[i] for i in range(4)]

    def set_random_state(self, words):
        """Restore a state from :meth:`random_state`."""
        for i in range(4):
            self.rng.s[i] = words[i]

    def climb(self, Py_ssize_t games, int64_t stall_limit, double cooling, bint anneal,
              int64_t[::1] counts, int64_t[::1] card_hist, int64_t[::1] trick_hist,
              int card_bin, int max_cycles=64):
        """Play up to ``games`` mutants, or fewer if the climber stalls or cycles fill up.

        Returns (played, total_cards, cycle_rows, cycle_results): every mutant whose game
        never ends is kept (rows and outcome/cards/tricks/entry/period), never accepted.
        ``counts`` (per outcome) and the histograms are added to.
        """
        cdef uint8_t trial[MAX_CARDS]
        cdef Hand hands[MAX_SEATS]
        cdef Outcome res
        cdef Py_ssize_t played = 0
        cdef int64_t total_cards = 0, score, delta
        cdef int status = 0, n_cycles = 0
        cdef Py_ssize_t card_top = card_hist.shape[0] - 1, trick_top = trick_hist.shape[0] - 1
        cycle_rows = np.empty((max_cycles, self.n_cards), dtype=np.uint8)
        cycle_results = np.empty((max_cycles, 7), dtype=np.int64)
        cdef uint8_t[:, ::1] rows_v = cycle_rows
        cdef int64_t[:, ::1] results_v = cycle_results
        with nogil:
            while played < games and self.stall < stall_limit and n_cycles < max_cycles:
                memcpy(trial, self.current, self.n_cards)
                self.mutate(trial)
                deal_hands(trial, self.sizes, self.table.seats, hands)
                status = play_game(&self.table, hands, &self.det, &res)
                if status != 0:
                    break
                played += 1
                counts[res.outcome] += 1
                total_cards += res.cards
                card_hist[min(res.cards // card_bin, card_top)] += 1
                trick_hist[min(res.tricks, trick_top)] += 1
                self.temperature *= cooling
                self.stall += 1
                if res.outcome == OUTCOME_CYCLE:
                    memcpy(&rows_v[n_cycles, 0], trial, self.n_cards)
                    results_v[n_cycles, 0] = res.cards
                    results_v[n_cycles, 1] = res.tricks
                    results_v[n_cycles, 2] = res.entry_cards
                    results_v[n_cycles, 3] = res.entry_tricks
                    results_v[n_cycles, 4] = res.period_cards
                    results_v[n_cycles, 5] = res.period_tricks
                    results_v[n_cycles, 6] = res.outcome
                    n_cycles += 1
                    continue
                score = res.tricks if self.by_tricks else res.cards
                delta = score - self.score
                if delta >= 0 or (anneal and self.temperature > 0 and
                                  uniform(&self.rng) < exp(delta / self.temperature)):
                    memcpy(self.current, trial, self.n_cards)
                    self.score = score
                    if score > self.best_score:
                        memcpy(self.best, trial, self.n_cards)
                        self.best_score = score
                        self.stall = 0
        if status != 0:
            raise MemoryError("no memory for the cycle detector")
        return played, total_cards, cycle_rows[:n_cycles], cycle_results[:n_cycles]

    cdef void mutate(self, uint8_t* row) noexcept nogil:
        cdef int n = self.n_cards, kind = rng_below(&self.rng, 4), i, j, tries, a, b, k
        cdef uint8_t card
        cdef uint8_t rotated[MAX_CARDS]
        if self.table.seats < 2 or kind == 0:          # swap two cards of different classes
            i = rng_below(&self.rng, n)
            for tries in range(TRIES):
                j = rng_below(&self.rng, n)
                if row[j] != row[i]:
                    row[i], row[j] = row[j], row[i]
                    return
        elif kind == 1:                                 # move a court card elsewhere
            for tries in range(TRIES):
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

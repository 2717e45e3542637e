# cython: language_level=3
"""Random sampling and climbing for any game, through its Kernel's C function pointer.

A game that has no faster loop of its own is searched here: rows are dealt as uniformly random
multiset permutations (Fisher-Yates over the positions outside fixed segments, and inside each
fixed segment), and mutated as segmented rows (swap two unequal codes, move a card, swap cards
between segments, rotate a segment: never inside an unordered segment, never a card out of a
fixed segment). Every game is played by ``kernel.play_row`` without the GIL.
"""

from libc.math cimport exp
from libc.stdint cimport UINT64_MAX, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy, memset

import numpy as np

from dealsearch.checks import whole as _whole
from dealsearch.checks import whole_list

from dealsearch._kernel cimport MAX_MEASURES, Kernel, KernelResult
from dealsearch._random cimport Rng, rng_below, rng_next, rng_seed

cdef enum:
    TRIES = 64          # attempts to find a useful mutation before giving up the step
    N_KINDS = 4


def _words(name, values, int length, low, high):
    """A sequence of ``length`` whole numbers in [low, high]."""
    return whole_list(name, values, low, high, length, length)


cdef inline double uniform(Rng* rng) noexcept nogil:
    return (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef int fill_segments(Segments* seg, segments, unordered, fixed) except -1:
    """Check a layout's segments once (they come from Python) and index them."""
    cdef int i, p, n_cards = 0
    try:
        segments, unordered, fixed = list(segments), list(unordered), list(fixed)
    except TypeError:
        raise ValueError("segments, unordered and fixed must be sequences") from None
    if not 1 <= len(segments) <= MAX_SEGMENTS:
        raise ValueError(f"a row has 1 to {MAX_SEGMENTS} segments, not {len(segments)}")
    if len(unordered) != len(segments) or len(fixed) != len(segments):
        raise ValueError("unordered and fixed need one flag per segment")
    sizes = [_whole(f"segment {i + 1}'s size", size, 0, MAX_ROW)
             for i, size in enumerate(segments)]
    memset(seg, 0, sizeof(Segments))
    seg.n = len(segments)
    for i, size in enumerate(sizes):
        seg.start[i] = n_cards
        n_cards += size
        if n_cards > MAX_ROW:
            raise ValueError(f"a row holds at most {MAX_ROW} cards")
        seg.unordered[i] = bool(unordered[i])
        seg.fixed[i] = bool(fixed[i])
        if not seg.fixed[i]:
            seg.movable[seg.n_movable] = i
            seg.n_movable += 1
    seg.start[seg.n] = n_cards
    seg.n_cards = n_cards
    for i in range(seg.n):
        for p in range(seg.start[i], seg.start[i + 1]):
            seg.segment_of[p] = i
            if not seg.fixed[i]:
                seg.free[seg.n_free] = p
                seg.n_free += 1
    return 0


cdef inline void shuffle(Rng* rng, const Segments* seg, uint8_t* row) noexcept nogil:
    # Fisher-Yates over the free positions, then inside each fixed segment: every arrangement
    # that keeps each fixed segment's multiset is equally likely.
    cdef int i, j, s, a, b, n
    cdef uint8_t card
    for i in range(seg.n_free - 1, 0, -1):
        j = rng_below(rng, i + 1)
        a = seg.free[i]
        b = seg.free[j]
        card = row[a]
        row[a] = row[b]
        row[b] = card
    for s in range(seg.n):
        if not seg.fixed[s]:
            continue
        n = seg.start[s + 1] - seg.start[s]
        for i in range(n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            a = seg.start[s] + i
            b = seg.start[s] + j
            card = row[a]
            row[a] = row[b]
            row[b] = card


cdef int prepare_histograms(hists, widths, int n_measures, int64_t** pointers, int64_t* tops,
                            int64_t* bin_widths) except -1:
    """Pointers into one int64 histogram per measure (or none: ``hists`` empty)."""
    cdef int64_t[::1] view
    if not hists:
        return 0
    if len(hists) != n_measures or len(widths) != n_measures:
        raise ValueError(f"give one histogram and one bin width per measure ({n_measures})")
    for m in range(n_measures):
        hist = hists[m]
        if (not isinstance(hist, np.ndarray) or hist.dtype != np.int64 or hist.ndim != 1
                or not hist.flags.c_contiguous or not hist.flags.writeable):
            raise ValueError(f"histogram {m} must be a writable 1-D contiguous int64 array")
        view = hist
        if view.shape[0] < 1:
            raise ValueError("a histogram needs a bin and a bin width of at least 1")
        pointers[m] = &view[0]
        tops[m] = view.shape[0] - 1
        bin_widths[m] = _whole(f"widths[{m}]", widths[m], 1, 2 ** 62)
    return n_measures


cdef inline void count_game(const KernelResult* res, int n_hist, int n_measures,
                            int64_t** hist, const int64_t* tops, const int64_t* widths,
                            int64_t* totals) noexcept nogil:
    cdef int m
    cdef int64_t b
    for m in range(n_measures):
        totals[m] += res.measure[m]
    for m in range(n_hist):
        b = res.measure[m] // widths[m]
        hist[m][b if b < tops[m] else tops[m]] += 1


cdef inline void store_result(int64_t* out, const KernelResult* res, int n_measures
                              ) noexcept nogil:
    cdef int m
    out[0] = res.outcome
    for m in range(n_measures):
        out[1 + m] = res.measure[m]
        out[1 + n_measures + m] = res.entry[m]
        out[1 + 2 * n_measures + m] = res.period[m]


cdef object _check_common(Kernel kernel, deck, int objective, int win, int cycle,
                          int n_outcomes):
    if kernel.play_row == NULL or not 1 <= kernel.n_measures <= MAX_MEASURES:
        raise ValueError("this Kernel was not built by a game")
    if not 1 <= kernel.n_cards <= MAX_ROW:
        raise ValueError(f"a row of {kernel.n_cards} cards: the generic search takes 1 to "
                         f"{MAX_ROW}")
    try:
        row = kernel.check_row(deck)
    except ValueError as error:
        raise ValueError(f"the deck: {error}") from None
    if not 0 <= objective < kernel.n_measures:
        raise ValueError(f"objective {objective} is not one of {kernel.n_measures} measures")
    if win < 0 or cycle < -1:
        raise ValueError("win must be an outcome code and cycle one or -1")
    if not 1 <= n_outcomes <= 64 or win >= n_outcomes or cycle >= n_outcomes:
        raise ValueError("outcome codes must be below n_outcomes (at most 64)")
    return row


cdef class Sampler:
    """Deals and plays uniformly random rows of a game, keeping new bests and every cycle.

    ``deck`` is the starting row (Layout.deck: with fixed segments, each holds its cards at its
    place); ``win`` is the outcome code that may be a best (or ``finished``: several codes, e.g.
    a win and a draw) and ``cycle`` the never-ending one.
    One instance is one reproducible stream: the same ``(seed, stream)``, the same rows,
    however :meth:`play` calls split it.
    """

    cdef Kernel kernel
    cdef Segments seg
    cdef Rng rng
    cdef uint8_t row[MAX_ROW]
    cdef int objective, cycle, n_outcomes
    cdef uint64_t finished_mask     # bit c set: outcome c may be a new best
    cdef public int64_t best
    cdef public int64_t dealt

    def __cinit__(self, Kernel kernel not None, deck, segments, unordered, fixed,
                  seed, stream, objective=0, win=0, cycle=1, n_outcomes=3, best=0,
                  finished=None):
        objective, win = _whole("objective", objective, 0, MAX_MEASURES), _whole("win", win, 0, 63)
        cycle, n_outcomes = _whole("cycle", cycle, -1, 63), _whole("n_outcomes", n_outcomes, 1, 64)
        best = _whole("best", best, -2 ** 63, 2 ** 63 - 1)
        row = _check_common(kernel, deck, objective, win, cycle, n_outcomes)
        fill_segments(&self.seg, segments, unordered, fixed)
        if self.seg.n_cards != kernel.n_cards:
            raise ValueError(f"segments {tuple(segments)} do not cut {kernel.n_cards} cards")
        seed = _whole("seed", seed, 0, UINT64_MAX)
        stream = _whole("stream", stream, 0, UINT64_MAX)
        codes = (win,) if finished is None else tuple(finished)
        if any(not 0 <= code < n_outcomes or code == cycle for code in codes):
            raise ValueError("finished outcomes must be codes below n_outcomes, not the cycle")
        self.finished_mask = 0
        for code in codes:
            self.finished_mask |= (<uint64_t>1) << code
        self.kernel = kernel
        cdef const uint8_t[::1] view = row
        memcpy(self.row, &view[0], kernel.n_cards)
        rng_seed(&self.rng, seed, stream)
        self.objective = objective
        self.cycle = cycle
        self.n_outcomes = n_outcomes
        self.best = best
        self.dealt = 0

    def play(self, n, max_finds=256, hists=(), widths=()):
        """Play up to ``n`` more rows; stop early once ``max_finds`` finds are kept.

        Returns (played, counts per outcome, totals per measure, find_rows, find_results);
        a find is a row whose finished game beats (by the objective) every earlier one, or any
        row that cycles; find_results rows hold outcome, the measures, entry, period. Each
        game's measures are counted into ``hists`` (one int64 array per measure, bins of
        ``widths``; the last bin takes everything longer) when given.
        """
        cdef Py_ssize_t n_rows = _whole("n", n, 0, 2 ** 62)
        cdef int finds_max = _whole("max_finds", max_finds, 1, 2 ** 31 - 1)
        cdef int n_measures = self.kernel.n_measures, n_cards = self.kernel.n_cards
        cdef int64_t* hist[MAX_MEASURES]
        cdef int64_t tops[MAX_MEASURES]
        cdef int64_t bin_widths[MAX_MEASURES]
        cdef int n_hist = prepare_histograms(hists, widths, n_measures, hist, tops, bin_widths)
        counts = np.zeros(self.n_outcomes, dtype=np.int64)
        totals = np.zeros(n_measures, dtype=np.int64)
        find_rows = np.empty((finds_max, n_cards), dtype=np.uint8)
        find_results = np.empty((finds_max, 1 + 3 * n_measures), dtype=np.int64)
        cdef int64_t[::1] counts_v = counts, totals_v = totals
        cdef uint8_t[:, ::1] rows_v = find_rows
        cdef int64_t[:, ::1] results_v = find_results
        cdef Py_ssize_t played = 0
        cdef int status = 0, n_found = 0
        cdef KernelResult res
        cdef int64_t score
        cdef bint finished
        with nogil:
            while played < n_rows and n_found < finds_max:
                shuffle(&self.rng, &self.seg, self.row)
                status = self.kernel.play_row(self.kernel.context, self.row, &res)
                if status != 0:
                    break
                played += 1
                if 0 <= res.outcome < self.n_outcomes:
                    counts_v[res.outcome] += 1
                count_game(&res, n_hist, n_measures, hist, tops, bin_widths, &totals_v[0])
                score = res.measure[self.objective]
                finished = (0 <= res.outcome < 64
                            and (self.finished_mask >> res.outcome) & 1 != 0)
                if res.outcome == self.cycle or (finished and score > self.best):
                    if finished:
                        self.best = score
                    memcpy(&rows_v[n_found, 0], self.row, n_cards)
                    store_result(&results_v[n_found, 0], &res, n_measures)
                    n_found += 1
        self.dealt += played
        if status != 0:
            self.kernel.raise_failure()
        return played, counts, totals, find_rows[:n_found], find_results[:n_found]


cdef class Climber:
    """One climber on any game: its current row, its best, its temperature, its stream.

    Each step plays one mutant (kinds weighted by ``weights``: swap two unequal codes, move a
    card, swap between segments, rotate a segment) and accepts it if it scores at least as
    much (plateaus are crossed) or, when annealing, with probability exp(delta / T). Mutants
    that cycle are kept for the log, never accepted.
    """

    cdef Kernel kernel
    cdef Segments seg
    cdef Rng rng
    cdef uint8_t current[MAX_ROW]
    cdef uint8_t best[MAX_ROW]
    cdef int objective, cycle, n_outcomes
    cdef uint64_t thresholds[N_KINDS]
    cdef public int64_t score
    cdef public int64_t best_score
    cdef public int64_t stall
    cdef public double temperature

    def __cinit__(self, Kernel kernel not None, deck, segments, unordered, fixed,
                  seed, stream, objective=0, cycle=1, n_outcomes=3, weights=(1, 1, 1, 1)):
        objective = _whole("objective", objective, 0, MAX_MEASURES)
        cycle, n_outcomes = _whole("cycle", cycle, -1, 63), _whole("n_outcomes", n_outcomes, 1, 64)
        row = _check_common(kernel, deck, objective, 0, cycle, n_outcomes)
        fill_segments(&self.seg, segments, unordered, fixed)
        if self.seg.n_cards != kernel.n_cards:
            raise ValueError(f"segments {tuple(segments)} do not cut {kernel.n_cards} cards")
        seed = _whole("seed", seed, 0, UINT64_MAX)
        stream = _whole("stream", stream, 0, UINT64_MAX)
        # mutate() draws a kind below the total with rng_below, which takes 32 bits
        weights = _words("weights", weights, N_KINDS, 0, 2 ** 24)
        if sum(weights) < 1:
            raise ValueError("weights: four whole numbers >= 0, not all 0 (swap, move, "
                             "between segments, rotate)")
        total = 0
        for kind in range(N_KINDS):
            total += weights[kind]
            self.thresholds[kind] = total
        self.kernel = kernel
        cdef const uint8_t[::1] view = row
        memcpy(self.current, &view[0], kernel.n_cards)
        memcpy(self.best, &view[0], kernel.n_cards)
        rng_seed(&self.rng, seed, stream)
        self.objective = objective
        self.cycle = cycle
        self.n_outcomes = n_outcomes
        self.score = self.best_score = self.stall = 0
        self.temperature = 0.0

    def reset(self, row, score, double temperature):
        """Start (again) from ``row``, whose game scored ``score``."""
        score = _whole("score", score, -2 ** 63, 2 ** 63 - 1)
        if not temperature >= 0:        # NaN too: exp(delta / NaN) would accept anything
            raise ValueError(f"temperature must be at least 0, not {temperature}")
        cdef const uint8_t[::1] view = self.kernel.check_row(row)
        memcpy(self.current, &view[0], self.kernel.n_cards)
        memcpy(self.best, &view[0], self.kernel.n_cards)
        self.score = self.best_score = score
        self.stall = 0
        self.temperature = temperature

    def restore_best(self, row, score):
        """Set the best row since the last restart and its score (after :meth:`reset`, to
        continue a climber exactly where a checkpoint left it)."""
        score = _whole("score", score, -2 ** 63, 2 ** 63 - 1)
        cdef const uint8_t[::1] view = self.kernel.check_row(row)
        memcpy(self.best, &view[0], self.kernel.n_cards)
        self.best_score = score

    @property
    def current_row(self):
        """The current row."""
        return np.array(<uint8_t[:self.kernel.n_cards]>self.current, dtype=np.uint8)

    @property
    def best_row(self):
        """The best row since the last reset."""
        return np.array(<uint8_t[:self.kernel.n_cards]>self.best, dtype=np.uint8)

    def shuffle_current(self):
        """Replace the current row by a uniformly random one (a fresh restart)."""
        shuffle(&self.rng, &self.seg, self.current)
        memcpy(self.best, self.current, self.kernel.n_cards)

    def perturb(self, mutations):
        """Apply ``mutations`` random mutations to the current row (a restart near a row)."""
        mutations = _whole("mutations", mutations, 0, 2 ** 62)
        for _ in range(mutations):
            self.mutate(self.current)
        memcpy(self.best, self.current, self.kernel.n_cards)

    def play_current(self):
        """Play the current row: (outcome, measures, entry, period); sets score and best."""
        cdef KernelResult res
        cdef int status
        with nogil:
            status = self.kernel.play_row(self.kernel.context, self.current, &res)
        if status != 0:
            self.kernel.raise_failure()
        self.score = self.best_score = res.measure[self.objective]
        n = self.kernel.n_measures
        return (res.outcome, tuple(res.measure[i] for i in range(n)),
                tuple(res.entry[i] for i in range(n)), tuple(res.period[i] for i in range(n)))

    def random_state(self):
        """The PRNG state (four words), to checkpoint."""
        return [self.rng.s[i] for i in range(4)]

    def set_random_state(self, words):
        """Restore a state from :meth:`random_state`."""
        words = _words("the random state", words, 4, 0, UINT64_MAX)
        if not any(words):              # xoshiro's one fixed point: it would draw 0 forever
            raise ValueError("a random state is four words, not all 0")
        for i in range(4):
            self.rng.s[i] = words[i]

    def climb(self, games, stall_limit, double cooling, bint anneal,
              int64_t[::1] counts not None, hists=(), widths=(), max_cycles=64):
        """Play up to ``games`` mutants, or fewer if the climber stalls or cycles fill up.

        Returns (played, totals per measure, cycle_rows, cycle_results): cycle_results rows
        hold outcome, measures, entry, period. ``counts`` (per outcome) and ``hists`` (one per
        measure, bins of ``widths``) are added to.
        """
        cdef Py_ssize_t n_games = _whole("games", games, 0, 2 ** 62)
        cdef int64_t stall_max = _whole("stall_limit", stall_limit, 1, 2 ** 63 - 1)
        cdef int cycles_max = _whole("max_cycles", max_cycles, 1, 2 ** 31 - 1)
        if not 0 <= cooling <= 1:        # NaN too
            raise ValueError(f"cooling must be 0 to 1, not {cooling}")
        if counts.shape[0] < self.n_outcomes:
            raise ValueError(f"counts needs {self.n_outcomes} entries")
        cdef int n_measures = self.kernel.n_measures, n_cards = self.kernel.n_cards
        cdef int64_t* hist[MAX_MEASURES]
        cdef int64_t tops[MAX_MEASURES]
        cdef int64_t bin_widths[MAX_MEASURES]
        cdef int n_hist = prepare_histograms(hists, widths, n_measures, hist, tops, bin_widths)
        cdef uint8_t trial[MAX_ROW]
        cdef KernelResult res
        cdef Py_ssize_t played = 0
        cdef int64_t score, delta
        cdef int status = 0, n_cycles = 0
        totals = np.zeros(n_measures, dtype=np.int64)
        cycle_rows = np.empty((cycles_max, n_cards), dtype=np.uint8)
        cycle_results = np.empty((cycles_max, 1 + 3 * n_measures), dtype=np.int64)
        cdef int64_t[::1] totals_v = totals
        cdef uint8_t[:, ::1] rows_v = cycle_rows
        cdef int64_t[:, ::1] results_v = cycle_results
        with nogil:
            while played < n_games and self.stall < stall_max and n_cycles < cycles_max:
                memcpy(trial, self.current, n_cards)
                self.mutate(trial)
                status = self.kernel.play_row(self.kernel.context, trial, &res)
                if status != 0:
                    break
                played += 1
                if 0 <= res.outcome < self.n_outcomes:
                    counts[res.outcome] += 1
                count_game(&res, n_hist, n_measures, hist, tops, bin_widths, &totals_v[0])
                self.temperature *= cooling
                self.stall += 1
                if res.outcome == self.cycle:
                    memcpy(&rows_v[n_cycles, 0], trial, n_cards)
                    store_result(&results_v[n_cycles, 0], &res, n_measures)
                    n_cycles += 1
                    continue
                score = res.measure[self.objective]
                delta = score - self.score
                if delta >= 0 or (anneal and self.temperature > 0 and
                                  uniform(&self.rng) < exp(delta / self.temperature)):
                    memcpy(self.current, trial, n_cards)
                    self.score = score
                    if score > self.best_score:
                        memcpy(self.best, trial, n_cards)
                        self.best_score = score
                        self.stall = 0
        if status != 0:
            self.kernel.raise_failure()
        return played, totals, cycle_rows[:n_cycles], cycle_results[:n_cycles]

    cdef inline int partner(self, int i) noexcept nogil:
        # A second position a card at ``i`` may trade places with: inside i's segment if it is
        # fixed, else anywhere outside fixed segments.
        cdef int s = self.seg.segment_of[i]
        if self.seg.fixed[s]:
            return self.seg.start[s] + rng_below(&self.rng,
                                                 self.seg.start[s + 1] - self.seg.start[s])
        return self.seg.free[rng_below(&self.rng, self.seg.n_free)]

    cdef inline bint same_unordered(self, int i, int j) noexcept nogil:
        cdef int s = self.seg.segment_of[i]
        return s == self.seg.segment_of[j] and self.seg.unordered[s]

    cdef void mutate(self, uint8_t* row) noexcept nogil:
        cdef int n = self.seg.n_cards, i, j, _tries, a, b, k, s, size, step
        cdef uint64_t pick = rng_below(&self.rng, <unsigned int>self.thresholds[N_KINDS - 1])
        cdef int kind = 0
        cdef uint8_t card
        cdef uint8_t rotated[MAX_ROW]
        while pick >= self.thresholds[kind]:
            kind += 1
        if kind == 2 and self.seg.n_movable < 2:
            kind = 0
        if kind == 0:                                   # swap two cards of different codes
            for _tries in range(TRIES):
                i = rng_below(&self.rng, n)
                j = self.partner(i)
                if row[i] != row[j] and not self.same_unordered(i, j):
                    row[i], row[j] = row[j], row[i]
                    return
        elif kind == 1:                                 # move a card elsewhere
            for _tries in range(TRIES):
                i = rng_below(&self.rng, n)
                j = self.partner(i)
                if i != j and not self.same_unordered(i, j):
                    break
            else:
                return
            s = self.seg.segment_of[i]
            card = row[i]
            if self.seg.fixed[s]:                       # shift inside the fixed segment
                step = 1 if i < j else -1
                k = i
                while k != j:
                    row[k] = row[k + step]
                    k += step
                row[j] = card
                return
            a = self.free_index(i)                      # shift along the free positions
            b = self.free_index(j)
            step = 1 if a < b else -1
            k = a
            while k != b:
                row[self.seg.free[k]] = row[self.seg.free[k + step]]
                k += step
            row[j] = card
        elif kind == 2:                                 # swap cards between two segments
            for _tries in range(TRIES):
                a = rng_below(&self.rng, self.seg.n_movable)
                b = rng_below(&self.rng, self.seg.n_movable - 1)
                b += b >= a
                a = self.seg.movable[a]
                b = self.seg.movable[b]
                if self.seg.start[a + 1] > self.seg.start[a] and \
                        self.seg.start[b + 1] > self.seg.start[b]:
                    i = self.seg.start[a] + rng_below(
                        &self.rng, self.seg.start[a + 1] - self.seg.start[a])
                    j = self.seg.start[b] + rng_below(
                        &self.rng, self.seg.start[b + 1] - self.seg.start[b])
                    if row[i] != row[j]:
                        row[i], row[j] = row[j], row[i]
                        return
        else:                                           # rotate a segment
            for _tries in range(TRIES):
                s = rng_below(&self.rng, self.seg.n)
                size = self.seg.start[s + 1] - self.seg.start[s]
                if size >= 2 and not self.seg.unordered[s]:
                    break
            else:
                return
            k = 1 + rng_below(&self.rng, size - 1)
            for i in range(size):
                rotated[i] = row[self.seg.start[s] + (i + k) % size]
            memcpy(&row[self.seg.start[s]], rotated, size)

    cdef inline int free_index(self, int position) noexcept nogil:
        # Index of a free position in seg.free (free is in row order: binary search).
        cdef int low = 0, high = self.seg.n_free - 1, mid
        while low < high:
            mid = (low + high) // 2
            if self.seg.free[mid] < position:
                low = mid + 1
            else:
                high = mid
        return low

# cython: language_level=3
"""BMN's players: deals played a batch at a time, two-player ones several at once, one per
SIMD lane, exactly as ``_engine``.

The kernel (``_lanes_kernel.h``) plays 8 deals at once with AVX-512 or 4 with AVX2, chosen at
run time from one portable build; elsewhere every deal plays on the scalar engine (a copy in
plain GCC vector extensions runs anywhere GCC does, but only by name: it is slow on SSE2 and
unmeasured on ARM). :func:`set_kernel` overrides the choice, for tests and benchmarks. The
kernel has no cycle detector and no agreed limit: a game past either cap (see
``_lanes_kernel.h``) is handed back and replayed from its deal on the exact scalar engine
(``_engine.play_game``), which also plays every deal the lanes do not take: three or four
players, more than 52 cards, or fewer than 32 (where lanes do not pay). Deals of more than 64
cards have no bit-planes: they play on the ring engine (``_engine.play_cards``).

Results are counted in deal order, so :class:`RandomPlayer` keeps the same finds, counts and
generator state whichever kernel plays. :class:`BlockPlayer` plays consecutive deals in rank
order (an exhaustive search's block), each one the next distinct ordering of the one before,
with the same counts and finds. Both return the framework's shapes (``Sampler.play`` of
``dealsearch.search._generic``).
"""

cimport cython
from libc.stdint cimport UINT64_MAX, int8_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

cimport numpy as cnp

from dealsearch.games.beggar._engine cimport (
    MAX_CARDS,
    MAX_CLASSES,
    OUTCOME_WIN,
    PLANE_CARDS,
    PLANES,
    RESULT_COLUMNS,
    Hand,
    RowResults,
    _Dealer,
    fill_table,
    planes_to_row,
    play_cards,
    play_game,
    put_result,
    rows_setup,
    row_to_planes,
    scratch_free,
    scratch_init,
    split_deal,
    start_tally,
    store_result,
    tally,
)
from dealsearch._permutations cimport next_permutation
from dealsearch._random cimport rng_seed, shuffle_row
from dealsearch.games.beggar._deals cimport ds_deal_planes, ds_seed_key, ds_stream_key

from dealsearch.games.beggar._engine import (
    _check_deck,
    _check_payments,
    _tally_args,
    _whole,
    _whole_list,
)

cnp.import_array()

cdef enum:
    BATCH = 4096            # deals dealt, played and then scanned in order at a time
    # The lanes hand a game back past this many cards per card of the deck (52 cards: 13,312,
    # far above the longest game known to end, 8344): it may be a cycle, which only the exact
    # engine can tell.
    CAP_PER_CARD = 256
    # Smaller decks play on the exact engine by default (see set_kernel): their games are
    # short, so the lanes' fixed costs weigh more, and many of them cycle, which the lanes
    # only hand back past the cap (in benchmarks/lanes_exactness.py, 12-card decks play no
    # faster on lanes, 40 cards twice as fast).
    LANES_MIN_CARDS = 32
    OUT_OF_MEMORY = -2

_NAMES = {"scalar": LANES_SCALAR, "generic": LANES_GENERIC, "avx2": LANES_AVX2,
          "avx512": LANES_AVX512}
cdef int _kind = lanes_best()
cdef int _min_cards = LANES_MIN_CARDS


def kernels():
    """The kernels this machine runs, narrowest first ("scalar" is the exact engine alone)."""
    return [name for name, kind in _NAMES.items() if lanes_supported(kind)]


def kernel():
    """The kernel in use: the widest this machine runs, unless :func:`set_kernel` chose."""
    return next(name for name, kind in _NAMES.items() if kind == _kind)


def set_kernel(name="auto", min_cards=LANES_MIN_CARDS):
    """Use kernel ``name`` (one of :func:`kernels`, or "auto" for the widest) on two-player
    deals of ``min_cards`` to 52 cards; returns the previous kernel's name.

    "scalar" plays every deal on the exact engine, the fallback where lanes do not apply; the
    results are the same whichever kernel plays. Tests lower ``min_cards`` to play small
    decks, which cycle often, on lanes too.
    """
    global _kind, _min_cards
    previous = kernel()
    min_cards = _whole("min_cards", min_cards, 2, LANES_MAX_CARDS)
    if name == "auto":
        _kind = lanes_best()
    elif name in _NAMES and lanes_supported(_NAMES[name]):
        _kind = _NAMES[name]
    else:
        raise ValueError(f"kernel must be 'auto' or one of {kernels()}, not {name!r}")
    _min_cards = min_cards
    return previous


# ---------------------------------------------------------------- playing a batch

cdef int batch_init(Batch* batch, int size, int n_cards) noexcept nogil:
    """Memory for ``size`` deals of ``n_cards`` at a time (rows only above 64 cards); 0, or
    OUT_OF_MEMORY (nothing left allocated)."""
    memset(batch, 0, sizeof(Batch))
    batch.size = size
    batch.n_cards = n_cards
    batch.planes = <uint64_t*>malloc(size * PLANES * sizeof(uint64_t))
    if n_cards > PLANE_CARDS:
        batch.rows = <uint8_t*>malloc(<size_t>size * n_cards)
    batch.lanes = <LaneResult*>malloc(size * sizeof(LaneResult))
    batch.results = <Outcome*>malloc(size * sizeof(Outcome))
    if (batch.planes == NULL or batch.lanes == NULL or batch.results == NULL
            or (n_cards > PLANE_CARDS and batch.rows == NULL)
            or scratch_init(&batch.scratch, n_cards, False) != 0):
        batch_free(batch)
        return OUT_OF_MEMORY
    return 0


cdef void batch_free(Batch* batch) noexcept nogil:
    free(batch.planes)
    free(batch.rows)
    free(batch.lanes)
    free(batch.results)
    scratch_free(&batch.scratch)
    memset(batch, 0, sizeof(Batch))


cdef inline void batch_row(const Batch* batch, Py_ssize_t i, uint8_t* row) noexcept nogil:
    """Deal ``i`` of the batch written out as a row."""
    if batch.rows != NULL:
        memcpy(row, batch.rows + i * batch.n_cards, batch.n_cards)
    else:
        planes_to_row(&batch.planes[PLANES * i], batch.n_cards, row)


cdef inline bint lanes_fit(int kind, int min_cards, const Table* table) noexcept nogil:
    return (kind != LANES_SCALAR and table.seats == 2
            and min_cards <= table.total <= LANES_MAX_CARDS)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int play_batch(int kind, int min_cards, const Table* table, const int* sizes,
                    Batch* batch, Py_ssize_t n) noexcept nogil:
    """Play the first ``n`` deals of the batch into ``batch.results``, exactly as
    ``_engine.play_cards``: on ``kind``'s lanes where they fit (two players, ``min_cards`` to
    52 cards), else (and for every game the lanes hand back) on the exact engine. 0, or
    OUT_OF_MEMORY."""
    cdef Hand start[MAX_SEATS]
    cdef LanesTable lt
    cdef Outcome* res
    cdef LaneResult* lane
    cdef Py_ssize_t i
    cdef int cls, status
    cdef bint lanes = lanes_fit(kind, min_cards, table)
    if batch.rows != NULL:          # more than 64 cards: the ring engine, deal by deal
        for i in range(n):
            status = play_cards(table, batch.rows + i * batch.n_cards, sizes, &batch.scratch,
                                &batch.results[i])
            if status != 0:
                return status
        return 0
    if lanes:
        lt.pay_word = 0
        for cls in range(MAX_CLASSES):
            lt.pay_word |= (<uint64_t>table.payment[cls]) << (8 * cls)
        lt.size0 = sizes[0]
        lt.total = table.total
        lt.cap_cards = min(table.max_cards, <int64_t>CAP_PER_CARD * table.total)
        lt.cap_tricks = table.max_tricks
        if lanes_run(kind, &lt, batch.planes, n, batch.lanes) < 0:
            lanes = False
    for i in range(n):
        res = &batch.results[i]
        lane = &batch.lanes[i]
        if lanes and not lane.replay:
            res.outcome = OUTCOME_WIN
            res.winner = lane.winner
            res.cards = lane.cards
            res.tricks = lane.tricks
            res.n_out = 1
            res.out[0] = <int8_t>(1 - lane.winner)
            res.entry_cards = res.entry_tricks = 0
            res.period_cards = res.period_tricks = 0
            continue
        split_deal(&batch.planes[PLANES * i], sizes, table.seats, start)
        status = play_game(table, start, &batch.scratch.det, res)
        if status != 0:
            return status
    return 0


# ---------------------------------------------------------------- Python entry points

@cython.boundscheck(False)
@cython.wraparound(False)
def play_rows(deals, sizes, payments, max_cards=None, max_tricks=None):
    """As ``_engine.play_rows`` (same arguments, same results), on lanes where they fit.

    Returns (outcome, winner, cards, tricks, out, cycle) arrays; winner and out are 0-based
    with -1 for none; cycle has columns entry_cards, entry_tricks, period_cards,
    period_tricks.
    """
    cdef int status = 0, kind = _kind, min_cards = _min_cards, n_cards
    cdef int size_of[MAX_SEATS]
    cdef Table table
    cdef Batch batch
    cdef RowResults into
    contiguous, results = rows_setup(deals, sizes, payments, max_cards, max_tricks, &table,
                                     size_of, &into)
    cdef const uint8_t[:, ::1] rows = contiguous
    cdef Py_ssize_t n = rows.shape[0], done = 0, b, i
    n_cards = table.total
    if batch_init(&batch, BATCH, n_cards) != 0:
        raise MemoryError("no memory for a batch of deals")
    with nogil:
        while done < n:
            b = min(<Py_ssize_t>BATCH, n - done)
            for i in range(b):
                if batch.rows != NULL:
                    memcpy(batch.rows + i * n_cards, &rows[done + i, 0], n_cards)
                else:
                    row_to_planes(&rows[done + i, 0], n_cards, &batch.planes[PLANES * i])
            status = play_batch(kind, min_cards, &table, size_of, &batch, b)
            if status != 0:
                break
            for i in range(b):
                put_result(&into, done + i, &batch.results[i])
            done += b
    batch_free(&batch)
    if status != 0:
        raise MemoryError("no memory for the cycle detector")
    return results


# ---------------------------------------------------------------- the players

cdef class _Player:
    """What the players share: the rules' table, a batch's memory, the best so far, and the
    batch glue: a batch played and then counted in deal order, its finds kept."""

    def __cinit__(self, *args, **kwargs):
        self.has_batch = False

    cdef object _start(self, deck, sizes, payments, max_cards, max_tricks, best, by_tricks):
        """Check the arguments, fill the table, take a batch's memory (a second call frees the
        first call's); the deck's cards per class."""
        if self.has_batch:
            batch_free(&self.batch)
            self.has_batch = False
        paid = _check_payments(payments)
        counts = _check_deck(_whole_list("deck", deck, 0, MAX_CARDS, len(paid), len(paid)),
                             MAX_CLASSES)
        self.n_cards = sum(counts)
        fill_table(&self.table, self.sizes, sizes, paid, self.n_cards, max_cards, max_tricks)
        self.best = _whole("best", best, 0)
        self.by_tricks = bool(by_tricks)
        # Rows above 64 cards are dealt one at a time: their generator runs in sequence, and
        # must not run ahead of the deals counted.
        if batch_init(&self.batch, BATCH if self.n_cards <= PLANE_CARDS else 1,
                      self.n_cards) != 0:
            raise MemoryError("no memory for a batch of deals")
        self.has_batch = True
        return counts

    def __dealloc__(self):
        if self.has_batch:
            batch_free(&self.batch)

    cdef Py_ssize_t _begin(self, n, max_finds, hists, widths) except -1:
        """Check ``play``'s arguments and make its outputs; how many deals to play."""
        if not self.has_batch:
            raise ValueError(f"this {type(self).__name__} was never initialised (call "
                             f"{type(self).__name__}(...))")
        wanted = _whole("n", n, 0)
        room = _whole("max_finds", max_finds, 1, 1 << 30)
        card_hist, trick_hist, card_bin = _tally_args(hists, widths)
        counts = np.zeros(3, dtype=np.int64)
        rows = np.empty((room, self.n_cards), dtype=np.uint8)
        results = np.empty((room, RESULT_COLUMNS), dtype=np.int64)
        cdef uint8_t[:, ::1] rows_v = rows
        cdef int64_t[:, ::1] results_v = results
        self.tally = start_tally(counts, card_hist, trick_hist, card_bin, self.best,
                                 self.by_tricks)
        self.outputs = (counts, rows, results, card_hist, trick_hist)   # kept alive
        self.find_rows = &rows_v[0, 0]
        self.find_results = &results_v[0, 0]
        self.n_found = 0
        self.room = room
        self.kind = _kind
        self.min_cards = _min_cards
        return wanted

    cdef Py_ssize_t _count_batch(self, Py_ssize_t b) noexcept nogil:
        """Play the batch's first ``b`` deals, then count them in deal order (the finds
        depend on it), stopping at the one that fills the finds: how many were counted, or
        -1 when memory ran out."""
        cdef Py_ssize_t i
        cdef Outcome* res
        cdef Tally t = self.tally       # in registers while it counts
        if play_batch(self.kind, self.min_cards, &self.table, self.sizes, &self.batch, b) != 0:
            return -1
        for i in range(b):
            res = &self.batch.results[i]
            if tally(&t, res):
                batch_row(&self.batch, i, self.find_rows + self.n_found * self.n_cards)
                store_result(res, self.find_results + self.n_found * RESULT_COLUMNS)
                self.n_found += 1
                if self.n_found == self.room:
                    b = i + 1
                    break
        self.tally = t
        return b

    cdef object _end(self, Py_ssize_t played, bint failed):
        """``play``'s result: (played, counts, totals (cards, tricks), find_rows,
        find_results), as the generic ``Sampler.play``."""
        self.best = self.tally.best
        counts, rows, results = self.outputs[:3]
        self.outputs = None
        if failed:
            raise MemoryError("no memory for the cycle detector")
        return (played, counts, np.array([self.tally.cards, self.tally.tricks], dtype=np.int64),
                rows[:self.n_found], results[:self.n_found])


cdef class RandomPlayer(_Player):
    """Deals and plays random deals, keeping what beats the best so far.

    One instance is one reproducible stream of deals: ``RandomPlayer(..., seed, stream)``
    always deals the same sequence (``_engine.random_rows``'s), however :meth:`play` calls
    split it. Deals of up to 64 cards are bit-planes, dealt a batch at a time, played on lanes
    (or the exact engine), then counted in deal order; when the finds fill up mid-batch the
    deals after the last one counted are dealt again by the next call (deal d of a stream is
    a function of d). Larger deals are rows, dealt and played one at a time on the exact
    engine.
    """

    def __init__(self, deck, sizes, payments, seed, stream, max_cards=None, max_tricks=None,
                 best=0, by_tricks=False):
        # In __init__ (not __cinit__) so that Python sees the signature.
        self.dealer = _Dealer(self._start(deck, sizes, payments, max_cards, max_tricks, best,
                                          by_tricks))
        seed = _whole("seed", seed, 0, UINT64_MAX)
        stream = _whole("stream", stream, 0, UINT64_MAX)
        rng_seed(&self.rng, seed, stream)
        self.key = ds_stream_key(ds_seed_key(seed), stream)
        self.dealt = 0

    @cython.boundscheck(False)
    @cython.wraparound(False)
    def play(self, n, max_finds=256, hists=(), widths=()):
        """Play up to ``n`` more deals; stop early once ``max_finds`` finds are kept.

        Returns what the generic ``Sampler.play`` does: (played, counts, totals, find_rows,
        find_results): counts per outcome code, totals of (cards, tricks); a find is a deal
        longer (by the objective) than every earlier one, or any deal that cycles;
        find_results rows hold outcome, cards, tricks, entry (cards, tricks) and period
        (cards, tricks). Given ``hists`` (a card and a trick histogram, int64 arrays) and
        their bin ``widths`` (any, and 1), every game's length is counted into them (the last
        bin takes everything longer).
        """
        cdef Py_ssize_t wanted = self._begin(n, max_finds, hists, widths)
        cdef Py_ssize_t played = 0, counted = 0, b, i
        cdef Batch* batch = &self.batch
        cdef const uint8_t* courts = &self.dealer.courts[0]
        cdef const uint8_t* deck = &self.dealer.deck[0]
        cdef int n_courts = self.dealer.n_courts, n_cards = self.n_cards
        cdef uint64_t key = self.key, first
        with nogil:
            while played < wanted and self.n_found < self.room:
                b = min(<Py_ssize_t>batch.size, wanted - played)
                # as _engine._Dealer.deal: bit-planes by deal number, rows in sequence
                if batch.rows == NULL:
                    first = self.dealt + played
                    for i in range(b):
                        ds_deal_planes(key, first + i, courts, n_courts, n_cards,
                                       &batch.planes[PLANES * i])
                else:
                    for i in range(b):
                        shuffle_row(&self.rng, deck, n_cards, batch.rows + i * n_cards)
                counted = self._count_batch(b)
                if counted < 0:
                    break
                played += counted
        self.dealt += played
        return self._end(played, counted < 0)


cdef class BlockPlayer(_Player):
    """Consecutive deals in rank order: a deal and the distinct orderings after it.

    The next deal is the next distinct ordering of the row (``_permutations.next_permutation``,
    a few swaps), so a block costs one unranking at its start, however long. Counts and finds
    as :class:`RandomPlayer`'s: each cycle, and each win longer than every one before (``best``
    carries over from call to call).
    """

    def __init__(self, deck, sizes, payments, max_cards=None, max_tricks=None, best=0,
                 by_tricks=False):
        self.counts = np.array(self._start(deck, sizes, payments, max_cards, max_tricks, best,
                                           by_tricks), dtype=np.int64)

    @cython.boundscheck(False)
    @cython.wraparound(False)
    def play(self, first, n, max_finds=256, hists=(), widths=()):
        """Play ``first`` and the orderings after it, ``n`` deals in all (fewer after the last
        ordering); stop early once ``max_finds`` finds are kept (the deals after the last
        one counted are not played: start the next call from the next one).

        Returns what :meth:`RandomPlayer.play` does.
        """
        cdef Py_ssize_t wanted = self._begin(n, max_finds, hists, widths)
        if (not isinstance(first, np.ndarray) or first.dtype != np.uint8 or first.ndim != 1
                or first.shape[0] != self.n_cards):
            raise ValueError(f"first must be a 1-D uint8 array of {self.n_cards} cards")
        if (first.max() >= len(self.counts)
                or not np.array_equal(np.bincount(first, minlength=len(self.counts)),
                                      self.counts)):
            raise ValueError("first must hold exactly the deck's cards")
        cdef uint8_t[::1] current = np.array(first, dtype=np.uint8)
        cdef int n_cards = self.n_cards
        cdef bint more = True
        cdef Py_ssize_t played = 0, counted = 0, b
        cdef Batch* batch = &self.batch
        with nogil:
            while played < wanted and self.n_found < self.room and more:
                b = 0
                while b < min(<Py_ssize_t>batch.size, wanted - played) and more:
                    if batch.rows != NULL:
                        memcpy(batch.rows + b * n_cards, &current[0], n_cards)
                    else:
                        row_to_planes(&current[0], n_cards, &batch.planes[PLANES * b])
                    b += 1
                    more = next_permutation(&current[0], n_cards)
                counted = self._count_batch(b)
                if counted < 0:
                    break
                played += counted
        return self._end(played, counted < 0)

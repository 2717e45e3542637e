# cython: language_level=3
"""The GPU kernels compiled for the CPU: the very code of ``_gpu_kernel.cu`` (its body,
``_gpu_random.h``, on the rule step ``_gpu_step.h``, the dealers ``_deals.h`` and
``_gpu_blocks.h`` and the warp primitives ``_gpu_warp.h``, whose host definitions run a warp's
32 lanes in lockstep).

:func:`bmn_random`, :func:`bmn_unrank`, :func:`bmn_blocks` and :func:`bmn_records` take the
kernels' launch arguments exactly as CuPy's ``RawKernel`` does, ``(grid, block, args)`` with
numpy arrays for the device's, and check each against the kernel's parameter, so the host side
of the GPU engine (``gpu.KernelHost``) runs unchanged on them: ``--device emulate`` and the
test suite execute the device's whole path, loop and bookkeeping included. :func:`deal_rows`
deals chosen deals as rows (the host's way back from a deal's number to its cards);
:func:`next_rows` steps rows to the next in rank order as the rank kernel does.
"""

cimport cython
from libc.stdint cimport UINT64_MAX, int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

from dealsearch.checks import whole as _whole
from dealsearch.games.beggar._deals cimport ds_deal_planes, ds_seed_key, ds_stream_key


HANDBACK = DS_HANDBACK          # the score of a deal handed back to the exact engine
MAX_CARDS = DS_GPU_MAX_CARDS    # the largest deal the kernel plays (two players)
MAX_BINS = DS_MAX_BINS          # histogram bins the kernel sums per block, per measure
BLOCK = DS_BLOCK                # threads per block
SPAN = DS_SPAN                  # bmn_blocks: deals of a span (one unranking each)


def seed_key(seed):
    """The run's key for ``seed`` (``_deals.h``'s ``ds_seed_key``), as the kernel takes it."""
    return ds_seed_key(_whole("seed", seed, 0, UINT64_MAX))


def _courts(courts):
    if not isinstance(courts, np.ndarray) or courts.dtype != np.uint8 or courts.ndim != 1:
        raise ValueError("courts must be a 1-D uint8 numpy array")
    if len(courts) == 0:     # a deck of numerals: one spare entry, never read
        return np.zeros(1, dtype=np.uint8), 0
    return np.ascontiguousarray(courts), len(courts)


def _pointer(name, array, dtype, size):
    """A device pointer's stand-in: a contiguous 1-D array of the parameter's type, holding
    at least ``size`` items (the kernel writes without bounds checks)."""
    if (not isinstance(array, np.ndarray) or array.dtype != dtype or array.ndim != 1
            or not array.flags.c_contiguous or len(array) < max(size, 1)):
        raise ValueError(f"{name} must be a contiguous 1-D {np.dtype(dtype).name} array of "
                         f"at least {size}")
    return array


def _value(name, value, dtype, low, high):
    """A by-value parameter: exactly the numpy scalar type CuPy passes as the C type."""
    if type(value) is not dtype:
        raise ValueError(f"{name} must be a {dtype.__name__}, not {type(value).__name__}")
    return _whole(name, int(value), low, high)


def _launch(grid, block, threads):
    if (not isinstance(grid, tuple) or len(grid) != 1 or not isinstance(block, tuple)
            or block != (threads,)):
        raise ValueError(f"a launch is (grid,), ({threads},)")
    return _whole("grid", grid[0], 1, 1 << 16)


cdef object _fill_run(ds_run* r, rules, n, results):
    """Check the kernels' shared parameters (the rules before the dealer's, the results after
    it) and fill ``r`` with them; returns the arrays, which must outlive the launch."""
    pay_word, size0, total, cap_cards, cap_tricks, by_tricks = rules
    (work, scores, handbacks, handback_count, room, w_base, totals, card_hist, card_bins,
     card_bin, trick_hist, trick_bins) = results
    u64, i32 = np.uint64, np.int32
    r.t.pay_word = _value("pay_word", pay_word, u64, 0, UINT64_MAX)
    r.t.total = _value("total", total, i32, 2, DS_GPU_MAX_CARDS)
    r.t.size0 = _value("size0", size0, i32, 1, r.t.total - 1)
    r.t.cap_cards = _value("cap_cards", cap_cards, i32, 1, 1 << 30)
    r.t.cap_tricks = _value("cap_tricks", cap_tricks, i32, 1, 1 << 30)
    r.t.by_tricks = _value("by_tricks", by_tricks, i32, 0, 1)
    r.n = _value("n", n, u64, 0, (1 << 32) - 1)
    r.handback_room = _value("handback_room", room, u64, 0, 1 << 40)
    r.w_base = _value("w_base", w_base, u64, 0, 1 << 62)
    r.card_bins = _value("card_bins", card_bins, i32, 1, DS_MAX_BINS)
    r.card_bin = _value("card_bin", card_bin, i32, 1, 1 << 30)
    r.trick_bins = _value("trick_bins", trick_bins, i32, 1, DS_MAX_BINS)
    cdef uint64_t[::1] work_v = _pointer("work", work, u64, 1)
    cdef uint32_t[::1] score_v = _pointer("scores", scores, np.uint32, r.n)
    cdef uint64_t[::1] back_v = _pointer("handbacks", handbacks, u64, r.handback_room)
    cdef uint64_t[::1] count_v = _pointer("handback_count", handback_count, u64, 1)
    cdef uint64_t[::1] total_v = _pointer("totals", totals, u64, 4)
    cdef uint64_t[::1] card_v = _pointer("card_hist", card_hist, u64, r.card_bins)
    cdef uint64_t[::1] trick_v = _pointer("trick_hist", trick_hist, u64, r.trick_bins)
    r.work = &work_v[0]
    r.scores = &score_v[0]
    r.handbacks = &back_v[0]
    r.handback_count = &count_v[0]
    r.totals = &total_v[0]
    r.card_hist = &card_v[0]
    r.trick_hist = &trick_v[0]
    return (work_v, score_v, back_v, count_v, total_v, card_v, trick_v)


cdef object _run_grid(const ds_run* r, const uint64_t* starts, int blocks):
    cdef int done
    with nogil:
        done = ds_host_grid(r, starts, blocks)
    if done != 0:
        raise MemoryError("no memory for the emulated grid")


def bmn_random(grid, block, args):
    """Run the kernel ``bmn_random`` (``_gpu_kernel.cu``: its parameters, in order) on
    ``grid`` blocks of ``BLOCK`` threads, as the GPU would: every deal's score into
    ``scores``, the hand-backs listed, totals and histograms added."""
    blocks = _launch(grid, block, DS_BLOCK)
    if len(args) != 24:
        raise ValueError("bmn_random takes 24 arguments")
    courts, n_courts, key, first, chunk_deals, n = args[6:12]
    u64 = np.uint64
    cdef ds_run r
    kept = _fill_run(&r, args[:6], n, args[12:])
    r.n_courts = _value("n_courts", n_courts, np.int32, 0, r.t.total)
    r.seed_key = _value("seed_key", key, u64, 0, UINT64_MAX)
    r.first_stream = _value("first_stream", first, u64, 0, UINT64_MAX)
    r.chunk_deals = _value("chunk_deals", chunk_deals, u64, 1, 1 << 40)
    cdef const uint8_t[::1] court_v = _pointer("courts", courts, np.uint8, r.n_courts)
    r.courts = &court_v[0]
    _run_grid(&r, NULL, blocks)
    del kept


def bmn_blocks(grid, block, args):
    """Run the kernel ``bmn_blocks`` (its parameters, in order): deals 0..n-1 of a block in
    rank order, each span's first deal in ``starts`` (:func:`bmn_unrank`'s); the rest as
    :func:`bmn_random`."""
    blocks = _launch(grid, block, DS_BLOCK)
    if len(args) != 20:
        raise ValueError("bmn_blocks takes 20 arguments")
    starts, n = args[6:8]
    cdef ds_run r
    kept = _fill_run(&r, args[:6], n, args[8:])
    r.n_courts = 0
    r.chunk_deals = 1
    cdef const uint64_t[::1] start_v = _pointer("starts", starts, np.uint64,
                                                3 * ((r.n + DS_SPAN - 1) // DS_SPAN))
    _run_grid(&r, &start_v[0], blocks)
    del kept


def _ranks(deck_word, total, space_hi, space_lo, first_hi, first_lo):
    """The rank kernel's ``ds_ranks``, its parameters checked (a rank below the space)."""
    u64 = np.uint64
    cdef ds_ranks k
    k.deck_word = _value("deck_word", deck_word, u64, 0, UINT64_MAX)
    k.total = _value("total", total, np.int32, 2, DS_GPU_MAX_CARDS)
    if sum((int(deck_word) >> (8 * c)) & 0xff for c in range(8)) != k.total:
        raise ValueError("deck_word must hold total cards")
    k.space.hi = _value("space_hi", space_hi, u64, 0, UINT64_MAX)
    k.space.lo = _value("space_lo", space_lo, u64, 0, UINT64_MAX)
    k.first.hi = _value("first_hi", first_hi, u64, 0, UINT64_MAX)
    k.first.lo = _value("first_lo", first_lo, u64, 0, UINT64_MAX)
    return k


def bmn_unrank(grid, block, args):
    """Run the kernel ``bmn_unrank`` (its parameters, in order): the first deal of each span
    of ``SPAN`` deals of deals 0..n-1 (deal w: rank first + w), as bit-planes into
    ``starts``."""
    _launch(grid, block, block[0] if isinstance(block, tuple) and block else 0)
    if len(args) != 8:
        raise ValueError("bmn_unrank takes 8 arguments")
    cdef ds_ranks k = _ranks(*args[:6])
    cdef uint64_t n = _value("n", args[6], np.uint64, 0, (1 << 32) - 1)
    cdef uint64_t spans = (n + DS_SPAN - 1) // DS_SPAN, x
    _, _, space_hi, space_lo, first_hi, first_lo = (int(a) for a in args[:6])
    if (first_hi << 64 | first_lo) + n > (space_hi << 64 | space_lo):
        raise ValueError("the deals run past the last rank")
    cdef uint64_t[::1] start_v = _pointer("starts", args[7], np.uint64, 3 * spans)
    with nogil:
        for x in range(spans):
            ds_span_start(&k, n, DS_SPAN, x, &start_v[0])


@cython.boundscheck(False)
@cython.wraparound(False)
def next_rows(rows):
    """Each row (a 2-D uint8 array of card classes below 8, at most 64 cards) stepped to the
    next in rank order as the rank kernel steps its deals (``ds_next_planes``); the last
    ordering stays as it is."""
    if (not isinstance(rows, np.ndarray) or rows.dtype != np.uint8 or rows.ndim != 2
            or rows.shape[1] > 64 or (rows.size and rows.max() >= 8)):
        raise ValueError("rows must be a 2-D uint8 array of classes below 8, at most 64 "
                         "cards each")
    cdef const uint8_t[:, ::1] rv = np.ascontiguousarray(rows)
    out = np.empty_like(rows)
    cdef uint8_t[:, ::1] ov = out
    cdef Py_ssize_t i
    cdef int j, cards = rows.shape[1]
    cdef uint64_t planes[3]
    with nogil:
        for i in range(rv.shape[0]):
            planes[0] = planes[1] = planes[2] = 0
            for j in range(cards):
                planes[0] |= <uint64_t>(rv[i, j] & 1) << j
                planes[1] |= <uint64_t>((rv[i, j] >> 1) & 1) << j
                planes[2] |= <uint64_t>((rv[i, j] >> 2) & 1) << j
            ds_next_planes(planes, cards)
            for j in range(cards):
                ov[i, j] = <uint8_t>(((planes[0] >> j) & 1) | (((planes[1] >> j) & 1) << 1)
                                     | (((planes[2] >> j) & 1) << 2))
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
def bmn_records(grid, block, args):
    """Run the kernel ``bmn_records`` (each chunk's record-setting deals,
    ``ds_chunk_records``) with its parameters, in order: counts[c] the records of chunk c
    (more than ``room``: found holds the first ``room``), found[c * room ...] their positions
    in the chunk and found_scores[c * room ...] their scores."""
    _launch(grid, block, block[0] if isinstance(block, tuple) and block else 0)
    if len(args) != 7:
        raise ValueError("bmn_records takes 7 arguments")
    scores, n, chunk_deals, found, found_scores, counts, room = args
    cdef int64_t count = _value("n", n, np.uint64, 0, (1 << 32) - 1)
    cdef int64_t per_chunk = _value("chunk_deals", chunk_deals, np.uint64, 1, 1 << 40)
    cdef int slots = _value("room", room, np.int32, 1, 1 << 20)
    cdef int64_t chunks = (count + per_chunk - 1) // per_chunk, c
    cdef const uint32_t[::1] sv = _pointer("scores", scores, np.uint32, count)
    cdef uint32_t[::1] fv = _pointer("found", found.reshape(-1), np.uint32, chunks * slots)
    cdef uint32_t[::1] fs = _pointer("found_scores", found_scores.reshape(-1), np.uint32,
                                     chunks * slots)
    cdef int[::1] cv = _pointer("counts", counts, np.int32, chunks)
    with nogil:
        for c in range(chunks):
            cv[c] = ds_chunk_records(&sv[c * per_chunk], min(per_chunk, count - c * per_chunk),
                                     &fv[c * slots], &fs[c * slots], slots)


@cython.boundscheck(False)
@cython.wraparound(False)
def deal_rows(courts, n_cards, seed_key, streams, deals):
    """Deal ``deals[i]`` of stream ``streams[i]`` (``_deals.h``; both uint64 arrays) as a row
    of card classes per deal: the deals the CPU random players and the kernel deal."""
    court_v, n_courts = _courts(courts)
    cdef int cards = _whole("n_cards", n_cards, 1, 64)
    if n_courts > cards:
        raise ValueError("more court cards than cards")
    cdef const uint8_t[::1] cv = court_v
    cdef uint64_t key = _whole("seed_key", seed_key, 0, UINT64_MAX)
    for name, array in (("streams", streams), ("deals", deals)):
        if not isinstance(array, np.ndarray) or array.dtype != np.uint64 or array.ndim != 1:
            raise ValueError(f"{name} must be a 1-D uint64 numpy array")
    if len(streams) != len(deals):
        raise ValueError("streams and deals must be as long")
    cdef const uint64_t[::1] st = np.ascontiguousarray(streams)
    cdef const uint64_t[::1] dv = np.ascontiguousarray(deals)
    cdef Py_ssize_t n = len(deals), i
    cdef int j, nc = n_courts
    cdef uint64_t planes[3]
    rows = np.empty((n, cards), dtype=np.uint8)
    cdef uint8_t[:, ::1] rv = rows
    with nogil:
        for i in range(n):
            ds_deal_planes(ds_stream_key(key, st[i]), dv[i], &cv[0], nc, cards, planes)
            for j in range(cards):
                rv[i, j] = <uint8_t>(((planes[0] >> j) & 1) | (((planes[1] >> j) & 1) << 1)
                                     | (((planes[2] >> j) & 1) << 2))
    return rows

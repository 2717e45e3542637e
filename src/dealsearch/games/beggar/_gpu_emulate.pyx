# cython: language_level=3
"""The GPU kernel's logic compiled for the CPU: the same C (``_gpu_step.h``, ``_deals.h``)
that ``_gpu_kernel.cu`` runs on the device, here in plain loops.

:func:`play` does what the kernel ``bmn_random`` does (every deal of a run of chunks, its
score, the counts, totals and histograms of the games that ended below the caps), and
:func:`records` what ``bmn_records`` does (each chunk's record-setting deals). Their results do
not depend on the order deals are played in, so this sequential twin gives the device's
results exactly: the tests compare it deal by deal with the exact engine, and
``benchmarks/gpu_check.py --emulate`` runs the whole GPU search on it. :func:`deal_rows` deals
chosen deals as rows (the host's way back from a deal's number to its cards).
"""

cimport cython
from libc.stdint cimport UINT64_MAX, int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

from dealsearch.checks import whole as _whole
from dealsearch.games.beggar._deals cimport (
    ds_deal_of,
    ds_deal_planes,
    ds_seed_key,
    ds_stream_key,
)


HANDBACK = DS_HANDBACK          # the score of a deal handed back to the exact engine
MAX_CARDS = DS_GPU_MAX_CARDS    # the largest deal the kernel plays (two players)


def seed_key(seed):
    """The run's key for ``seed`` (``_deals.h``'s ``ds_seed_key``), as the kernel takes it."""
    return ds_seed_key(_whole("seed", seed, 0, UINT64_MAX))


def _courts(courts):
    if not isinstance(courts, np.ndarray) or courts.dtype != np.uint8 or courts.ndim != 1:
        raise ValueError("courts must be a 1-D uint8 numpy array")
    if len(courts) == 0:     # a deck of numerals: one spare entry, never read
        return np.zeros(1, dtype=np.uint8), 0
    return np.ascontiguousarray(courts), len(courts)


def _int64_out(name, array, size=None):
    if (not isinstance(array, np.ndarray) or array.dtype != np.int64 or array.ndim != 1
            or not array.flags.c_contiguous or len(array) == 0
            or (size is not None and len(array) != size)):
        raise ValueError(f"{name} must be a contiguous 1-D int64 numpy array"
                         + (f" of {size}" if size is not None else ""))
    return array


@cython.boundscheck(False)
@cython.wraparound(False)
def play(pay_word, size0, total, cap_cards, cap_tricks, by_tricks, courts, seed_key,
         first_stream, chunk_deals, n, card_bin, card_hist, trick_hist, totals):
    """Play deals 0..n-1 of the run of chunks from ``first_stream`` (``_deals.h``'s
    ``ds_deal_of``) as the kernel does; return their scores (uint32, HANDBACK for a game
    handed back). Adds into ``totals`` (int64: games won below the caps, games handed back,
    their cards, their tricks) and the histograms (bins of ``card_bin`` cards and of one
    trick, the last bin taking every longer game) the games that ended below the caps."""
    cdef ds_table t
    t.pay_word = _whole("pay_word", pay_word, 0, UINT64_MAX)
    t.total = _whole("total", total, 2, DS_GPU_MAX_CARDS)
    t.size0 = _whole("size0", size0, 1, t.total - 1)
    t.cap_cards = _whole("cap_cards", cap_cards, 1, 1 << 30)
    t.cap_tricks = _whole("cap_tricks", cap_tricks, 1, 1 << 30)
    t.by_tricks = bool(by_tricks)
    court_v, n_courts = _courts(courts)
    if n_courts > t.total:
        raise ValueError("more court cards than cards")
    cdef const uint8_t[::1] cv = court_v
    cdef uint64_t key = _whole("seed_key", seed_key, 0, UINT64_MAX)
    cdef uint64_t first = _whole("first_stream", first_stream, 0, UINT64_MAX)
    cdef uint64_t per_chunk = _whole("chunk_deals", chunk_deals, 1, 1 << 40)
    cdef int64_t count = _whole("n", n, 0, 1 << 40)
    cdef int bin_cards = _whole("card_bin", card_bin, 1, 1 << 30)
    cdef int64_t[::1] ch = _int64_out("card_hist", card_hist)
    cdef int64_t[::1] th = _int64_out("trick_hist", trick_hist)
    cdef int64_t[::1] tot = _int64_out("totals", totals, 4)
    cdef Py_ssize_t card_top = len(card_hist) - 1, trick_top = len(trick_hist) - 1
    scores = np.empty(count, dtype=np.uint32)
    cdef uint32_t[::1] sv = scores
    cdef int64_t w
    cdef int nc = n_courts, over, winner, cards, tricks
    cdef uint64_t planes[3]
    cdef ds_game g
    with nogil:
        for w in range(count):
            ds_deal_of(key, first, per_chunk, <uint64_t>w, &cv[0], nc, t.total, planes)
            ds_game_start(&g, &t, planes)
            over = DS_OVER_PLAYING
            while over == DS_OVER_PLAYING:
                over = ds_game_step(&g, &t)
            if over != DS_OVER_WON:
                sv[w] = DS_HANDBACK
                tot[1] += 1
                continue
            ds_game_result(&g, &winner, &cards, &tricks)
            sv[w] = <uint32_t>(tricks if t.by_tricks else cards)
            tot[0] += 1
            tot[2] += cards
            tot[3] += tricks
            ch[min(<Py_ssize_t>(cards // bin_cards), card_top)] += 1
            th[min(<Py_ssize_t>tricks, trick_top)] += 1
    return scores


@cython.boundscheck(False)
@cython.wraparound(False)
def records(scores, chunk_deals, room):
    """Each chunk's record-setting deals (``ds_chunk_records``), as the kernel
    ``bmn_records``: (counts, found, found_scores), counts[c] the records of chunk c (more
    than ``room``: found holds the first ``room``), found[c, :counts[c]] their positions in
    the chunk and found_scores[c, :counts[c]] their scores."""
    if not isinstance(scores, np.ndarray) or scores.dtype != np.uint32 or scores.ndim != 1:
        raise ValueError("scores must be a 1-D uint32 numpy array")
    cdef const uint32_t[::1] sv = np.ascontiguousarray(scores)
    cdef int64_t per_chunk = _whole("chunk_deals", chunk_deals, 1, 1 << 40)
    cdef int slots = _whole("room", room, 1, 1 << 20)
    cdef int64_t n = len(scores)
    cdef int64_t chunks = (n + per_chunk - 1) // per_chunk, c   # (C division)
    counts = np.zeros(chunks, dtype=np.int32)
    found = np.zeros((chunks, slots), dtype=np.uint32)
    found_scores = np.zeros((chunks, slots), dtype=np.uint32)
    cdef int[::1] cv = counts
    cdef uint32_t[:, ::1] fv = found
    cdef uint32_t[:, ::1] fs = found_scores
    with nogil:
        for c in range(chunks):
            cv[c] = ds_chunk_records(&sv[c * per_chunk], min(per_chunk, n - c * per_chunk),
                                     &fv[c, 0], &fs[c, 0], slots)
    return counts, found, found_scores


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

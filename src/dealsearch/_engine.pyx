# cython: language_level=3
"""The compiled Beggar-My-Neighbour loop and its exact cycle detector (RULES.md §1-2).

A game is played a run of cards at a time, not card by card. Numerals are interchangeable, so a
hand is its length plus where its court cards are (see ``Hand`` in the .pxd). In open play the
next court card of every player decides who turns the first court card, or who runs out first,
in one count-trailing-zeros each; a payment is one more such step; taking the pile is a
shift-and-or. No Python object is touched between the first card and the result.

Cycle detection has two phases so that it costs almost nothing on terminating games:

1. Play with Brent's detector: one saved state, compared exactly at each trick boundary and
   moved to the current state at powers of two. It proves that a state repeats, but not where
   the first repeat is.
2. Only if phase 1 proves a repeat (or reaches the agreed limit, before which a repeat may have
   gone unseen), replay from the deal with the state-hash detector: every trick-boundary state
   is hashed and stored, and every hash hit is confirmed by comparing the states exactly, so
   the first repeated state, its entry and its period are exact.
"""

from libc.stdint cimport INT64_MAX, int8_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memset

import numpy as np

cimport numpy as cnp

from dealsearch._random cimport Rng, rng_seed, shuffle

cnp.import_array()

cdef extern from *:
    """
    /* Count trailing zeros; x is never 0 here (a sentinel bit marks the hand's end). */
    #if defined(__GNUC__) || defined(__clang__)
    static inline int ds_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    #elif defined(_MSC_VER)
    #include <intrin.h>
    static inline int ds_ctz64(unsigned long long x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i;
    }
    #else
    static inline int ds_ctz64(unsigned long long x) {
        int n = 0; while (!(x & 1ULL)) { x >>= 1; n++; } return n;
    }
    #endif
    """
    int ds_ctz64(unsigned long long x) noexcept nogil

cdef enum:
    NOT_OVER = -1
    NEEDS_REPLAY = 1      # play_pass: phase 1 cannot settle the game exactly
    OUT_OF_MEMORY = -2
    FIRST_SLOTS = 1024


# ---------------------------------------------------------------- hands as bit-planes

cdef inline uint64_t court_mask(const Hand* h) noexcept nogil:
    return h.plane[0] | h.plane[1] | h.plane[2]


cdef inline int next_court(const Hand* h) noexcept nogil:
    """Position of the first court card, or the hand's length if it holds none."""
    cdef uint64_t mask = court_mask(h)
    if h.length < 64:
        mask |= (<uint64_t>1) << h.length
    return ds_ctz64(mask)


cdef inline int class_at(const Hand* h, int i) noexcept nogil:
    return <int>(((h.plane[0] >> i) & 1) | (((h.plane[1] >> i) & 1) << 1)
                 | (((h.plane[2] >> i) & 1) << 2))


cdef inline void drop(Hand* h, int k) noexcept nogil:
    """Remove the top ``k`` cards (they have been turned)."""
    cdef int b
    for b in range(PLANES):
        h.plane[b] = (h.plane[b] >> k) if k < 64 else 0
    h.length -= k


cdef inline void put_court(Hand* pile, int cls) noexcept nogil:
    """Turn a court card of class ``cls`` onto the pile (numerals only add to the length)."""
    cdef int b
    for b in range(PLANES):
        pile.plane[b] |= (<uint64_t>((cls >> b) & 1)) << pile.length
    pile.length += 1


cdef inline void take_pile(Hand* h, Hand* pile) noexcept nogil:
    """Put the pile under ``h`` in the order it was played and empty it."""
    cdef int b
    for b in range(PLANES):
        # h.length < 64 here: the pile is not empty and the deck has at most 64 cards.
        h.plane[b] |= pile.plane[b] << h.length
        pile.plane[b] = 0
    h.length += pile.length
    pile.length = 0


cdef void deal_hands(const uint8_t* cards, const int* sizes, int seats,
                     Hand* hands) noexcept nogil:
    """Build the hands of a deal from its cards (hand 1 first, each hand top card first)."""
    cdef int seat, i, b, cls
    for seat in range(seats):
        memset(&hands[seat], 0, sizeof(Hand))
        for i in range(sizes[seat]):
            cls = cards[0]
            cards += 1
            for b in range(PLANES):
                hands[seat].plane[b] |= (<uint64_t>((cls >> b) & 1)) << i
        hands[seat].length = sizes[seat]


# ---------------------------------------------------------------- states and the detector

cdef inline bint same_state(const Hand* hands, int to_move, const Snapshot* s,
                            int seats) noexcept nogil:
    cdef int seat
    if to_move != s.to_move:
        return False
    for seat in range(seats):
        if hands[seat].length != s.hand[seat].length:
            return False
    for seat in range(seats):
        if (hands[seat].plane[0] != s.hand[seat].plane[0]
                or hands[seat].plane[1] != s.hand[seat].plane[1]
                or hands[seat].plane[2] != s.hand[seat].plane[2]):
            return False
    return True


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    # MurmurHash3's finaliser: every input bit reaches every output bit.
    x ^= x >> 33
    x *= <uint64_t>0xff51afd7ed558ccdULL
    x ^= x >> 33
    x *= <uint64_t>0xc4ceb9fe1a85ec53ULL
    x ^= x >> 33
    return x


cdef inline uint64_t hash_state(const Hand* hands, int to_move, int seats) noexcept nogil:
    cdef uint64_t h = mix64(<uint64_t>to_move + <uint64_t>0x9e3779b97f4a7c15ULL)
    cdef int seat, b
    for seat in range(seats):
        for b in range(PLANES):
            h = mix64(h ^ hands[seat].plane[b])
        h = mix64(h ^ <uint64_t>hands[seat].length)
    return h


cdef int detector_init(Detector* det) noexcept nogil:
    det.count = 0
    det.capacity = FIRST_SLOTS // 2
    det.n_slots = FIRST_SLOTS
    det.states = <Snapshot*>malloc(det.capacity * sizeof(Snapshot))
    det.hashes = <uint64_t*>malloc(det.capacity * sizeof(uint64_t))
    det.slots = <int*>malloc(det.n_slots * sizeof(int))
    if det.states == NULL or det.hashes == NULL or det.slots == NULL:
        detector_free(det)
        return OUT_OF_MEMORY
    return 0


cdef void detector_free(Detector* det) noexcept nogil:
    free(det.states)
    free(det.hashes)
    free(det.slots)
    det.states = NULL
    det.hashes = NULL
    det.slots = NULL


cdef int detector_grow(Detector* det) noexcept nogil:
    """Double the room for states and rehash (keeps the table at most half full)."""
    cdef int capacity = det.capacity * 2, n_slots = det.n_slots * 2, i
    cdef Snapshot* states = <Snapshot*>realloc(det.states, capacity * sizeof(Snapshot))
    if states == NULL:
        return OUT_OF_MEMORY
    det.states = states
    cdef uint64_t* hashes = <uint64_t*>realloc(det.hashes, capacity * sizeof(uint64_t))
    if hashes == NULL:
        return OUT_OF_MEMORY
    det.hashes = hashes
    cdef int* slots = <int*>realloc(det.slots, n_slots * sizeof(int))
    if slots == NULL:
        return OUT_OF_MEMORY
    det.slots = slots
    det.capacity = capacity
    det.n_slots = n_slots
    memset(det.slots, 0, n_slots * sizeof(int))
    for i in range(det.count):
        insert_slot(det, i)
    return 0


cdef inline void insert_slot(Detector* det, int index) noexcept nogil:
    cdef int mask = det.n_slots - 1
    cdef int slot = <int>(det.hashes[index] & <uint64_t>mask)
    while det.slots[slot]:
        slot = (slot + 1) & mask
    det.slots[slot] = index + 1


cdef int detector_visit(Detector* det, const Hand* hands, int to_move, int seats,
                        int64_t cards, int64_t tricks) noexcept nogil:
    """Index of the earlier identical state, or -1 after recording this one (-2: no memory)."""
    cdef uint64_t h = hash_state(hands, to_move, seats)
    cdef int mask = det.n_slots - 1
    cdef int slot = <int>(h & <uint64_t>mask), index
    while det.slots[slot]:
        index = det.slots[slot] - 1
        if det.hashes[index] == h and same_state(hands, to_move, &det.states[index], seats):
            return index
        slot = (slot + 1) & mask
    if det.count == det.capacity:
        if detector_grow(det) != 0:
            return -2
    index = det.count
    det.count += 1
    det.hashes[index] = h
    memset(&det.states[index], 0, sizeof(Snapshot))
    for slot in range(seats):
        det.states[index].hand[slot] = hands[slot]
    det.states[index].to_move = to_move
    det.states[index].cards = cards
    det.states[index].tricks = tricks
    insert_slot(det, index)
    return -1


# ---------------------------------------------------------------- the game

cdef inline int next_alive(const uint8_t* alive, int seat, int seats) noexcept nogil:
    seat += 1
    if seat == seats:
        seat = 0
    while not alive[seat]:
        seat += 1
        if seat == seats:
            seat = 0
    return seat


cdef int play_pass(const Table* t, const Hand* start, Detector* det,
                   Outcome* res) noexcept nogil:
    """Play one game. Without ``det``: phase 1 (Brent), may return NEEDS_REPLAY. With it:
    phase 2, exact first repeat. Returns 0 when ``res`` holds the result."""
    cdef Hand hand[MAX_SEATS]
    cdef Hand pile
    cdef Snapshot saved              # Brent's saved state
    cdef uint8_t alive[MAX_SEATS]
    cdef int order[MAX_SEATS]
    cdef int seats = t.seats, n_alive = t.seats
    cdef int to_move = 0, seat, r, m, c, step, best, e_r, e_c, e, cls, owner, owed, payer
    cdef int64_t cards = 0, tricks = 0, power = 1, lam = 0
    cdef int winner = NOT_OVER, found
    cdef Hand* h

    memset(&pile, 0, sizeof(Hand))
    memset(&saved, 0, sizeof(Snapshot))
    for seat in range(seats):
        hand[seat] = start[seat]
        saved.hand[seat] = start[seat]
        alive[seat] = 1
    res.n_out = 0
    if det != NULL:
        det.count = 0
        memset(det.slots, 0, det.n_slots * sizeof(int))
        if detector_visit(det, hand, 0, seats, 0, 0) == -2:
            return OUT_OF_MEMORY

    while True:
        # Open play: players in turn from to_move turn numerals until someone turns a court
        # card (then a payment is owed) or must turn a card and has none (then they are out).
        while True:
            m = 0
            seat = to_move
            for r in range(n_alive):
                order[m] = seat
                m += 1
                seat = next_alive(alive, seat, seats)
            best = 1 << 30
            e_r = 0
            e_c = 0
            for r in range(m):
                c = next_court(&hand[order[r]])
                step = c * m + r        # how many cards are turned before that one
                if step < best:
                    best, e_r, e_c = step, r, c
            e = order[e_r]
            cls = class_at(&hand[e], e_c) if e_c < hand[e].length else 0
            for r in range(m):
                drop(&hand[order[r]], e_c + (r < e_r))
            pile.length += best
            cards += best
            if cls:
                drop(&hand[e], 1)
                put_court(&pile, cls)
                cards += 1
                break
            alive[e] = 0                # e had to turn a card and had none
            res.out[res.n_out] = <int8_t>e
            res.n_out += 1
            n_alive -= 1
            if n_alive == 1:
                winner = next_alive(alive, e, seats)
                break
            to_move = next_alive(alive, e, seats)
        if winner != NOT_OVER:
            break

        # Payment: each payer turns up to what they owe; a court card passes the debt on.
        owner = e
        owed = t.payment[cls]
        payer = next_alive(alive, owner, seats)
        while True:
            h = &hand[payer]
            c = next_court(h)
            if c >= owed:               # paid in full with numerals: the owner's trick
                drop(h, owed)
                pile.length += owed
                cards += owed
                break
            if c < h.length:            # a court card: the next player owes for it
                cls = class_at(h, c)
                drop(h, c + 1)
                pile.length += c
                put_court(&pile, cls)
                cards += c + 1
                owner = payer
                owed = t.payment[cls]
            else:                       # ran out while paying: out; the rest passes on
                pile.length += c
                cards += c
                owed -= c
                drop(h, c)
                alive[payer] = 0
                res.out[res.n_out] = <int8_t>payer
                res.n_out += 1
                n_alive -= 1
                if n_alive == 1:
                    winner = next_alive(alive, payer, seats)
                    break
            payer = next_alive(alive, payer, seats)
        if winner != NOT_OVER:
            break

        # Trick boundary: the owner takes the pile and leads.
        take_pile(&hand[owner], &pile)
        tricks += 1
        to_move = owner
        if hand[owner].length == t.total:   # holds every card: over, no further lead
            seat = owner
            for r in range(n_alive - 1):
                seat = next_alive(alive, seat, seats)
                res.out[res.n_out] = <int8_t>seat
                res.n_out += 1
            winner = owner
            break
        if cards >= t.max_cards or tricks >= t.max_tricks:
            if det == NULL:
                return NEEDS_REPLAY     # a repeat may have come first: phase 2 decides
            res.outcome = OUTCOME_LIMIT
            res.winner = -1
            best = -1
            for seat in range(seats):
                if hand[seat].length > best:
                    best, res.winner = hand[seat].length, seat
                elif hand[seat].length == best:
                    res.winner = -1
            res.cards, res.tricks = cards, tricks
            return 0
        if det == NULL:
            if same_state(hand, to_move, &saved, seats):
                return NEEDS_REPLAY
            lam += 1
            if lam == power:
                for seat in range(seats):
                    saved.hand[seat] = hand[seat]
                saved.to_move = to_move
                power *= 2
                lam = 0
        else:
            found = detector_visit(det, hand, to_move, seats, cards, tricks)
            if found == -2:
                return OUT_OF_MEMORY
            if found >= 0:
                res.outcome = OUTCOME_CYCLE
                res.winner = -1
                res.cards, res.tricks = cards, tricks
                res.entry_cards = det.states[found].cards
                res.entry_tricks = det.states[found].tricks
                res.period_cards = cards - res.entry_cards
                res.period_tricks = tricks - res.entry_tricks
                return 0

    # Over: one player left (they take what is on the pile) or one holds every card.
    if pile.length:
        take_pile(&hand[winner], &pile)
        tricks += 1
    res.outcome = OUTCOME_WIN
    res.winner = winner
    res.cards, res.tricks = cards, tricks
    return 0


cdef int play_game(const Table* table, const Hand* start, Detector* det,
                   Outcome* result) noexcept nogil:
    """Play one game exactly; 0 on success, OUT_OF_MEMORY if the detector could not grow."""
    result.entry_cards = result.entry_tricks = 0
    result.period_cards = result.period_tricks = 0
    cdef int status = play_pass(table, start, NULL, result)
    if status == NEEDS_REPLAY:
        status = play_pass(table, start, det, result)
    return status


# ---------------------------------------------------------------- Python entry points

cdef void fill_table(Table* t, payments, int seats, int total, max_cards,
                     max_tricks) noexcept:
    memset(t, 0, sizeof(Table))
    for i, p in enumerate(payments):
        t.payment[i] = p
    t.seats = seats
    t.total = total
    t.max_cards = INT64_MAX if max_cards is None else max_cards
    t.max_tricks = INT64_MAX if max_tricks is None else max_tricks


def play_rows(const uint8_t[:, ::1] deals, sizes, payments, max_cards=None, max_tricks=None):
    """Play every row of ``deals`` (hands concatenated, hand 1 first; ``sizes`` per hand).

    Returns (outcome, winner, cards, tricks, out, cycle) arrays; winner and out are 0-based
    with -1 for none; cycle has columns entry_cards, entry_tricks, period_cards,
    period_tricks. The loop runs without the GIL. Inputs are checked by the caller.
    """
    cdef Py_ssize_t n = deals.shape[0], row
    cdef int seats = len(sizes), seat, status = 0
    cdef int size_of[MAX_SEATS]
    cdef Table table
    cdef Detector det
    cdef Outcome res
    cdef Hand start[MAX_SEATS]
    for seat in range(seats):
        size_of[seat] = sizes[seat]
    fill_table(&table, payments, seats, deals.shape[1], max_cards, max_tricks)

    outcome = np.zeros(n, dtype=np.uint8)
    winner = np.full(n, -1, dtype=np.int8)
    cards = np.zeros(n, dtype=np.int64)
    tricks = np.zeros(n, dtype=np.int64)
    out = np.full((n, seats), -1, dtype=np.int8)
    cycle = np.zeros((n, 4), dtype=np.int64)
    cdef uint8_t[::1] outcome_v = outcome
    cdef int8_t[::1] winner_v = winner
    cdef int64_t[::1] cards_v = cards, tricks_v = tricks
    cdef int8_t[:, ::1] out_v = out
    cdef int64_t[:, ::1] cycle_v = cycle

    if detector_init(&det) != 0:
        raise MemoryError("no memory for the cycle detector")
    with nogil:
        for row in range(n):
            deal_hands(&deals[row, 0], size_of, seats, start)
            status = play_game(&table, start, &det, &res)
            if status != 0:
                break
            outcome_v[row] = <uint8_t>res.outcome
            winner_v[row] = <int8_t>res.winner
            cards_v[row] = res.cards
            tricks_v[row] = res.tricks
            for seat in range(res.n_out):
                out_v[row, seat] = res.out[seat]
            cycle_v[row, 0] = res.entry_cards
            cycle_v[row, 1] = res.entry_tricks
            cycle_v[row, 2] = res.period_cards
            cycle_v[row, 3] = res.period_tricks
    detector_free(&det)
    if status != 0:
        raise MemoryError("no memory for the cycle detector")
    return outcome, winner, cards, tricks, out, cycle


def random_rows(deck, Py_ssize_t n, uint64_t seed, uint64_t stream=0):
    """``n`` uniformly random orderings of ``deck`` (a count per class), one a row.

    The same ``(seed, stream)`` always gives the same rows.
    """
    cdef Rng rng
    cdef Py_ssize_t row
    cdef uint8_t[::1] cards = np.repeat(np.arange(len(deck), dtype=np.uint8), deck)
    cdef int n_cards = cards.shape[0]
    rows = np.empty((n, n_cards), dtype=np.uint8)
    cdef uint8_t[:, ::1] rows_v = rows
    rng_seed(&rng, seed, stream)
    with nogil:
        for row in range(n):
            shuffle(&rng, &cards[0], n_cards)
            rows_v[row, :] = cards
    return rows


cdef class RandomPlayer:
    """Deals and plays random deals in compiled code, keeping what beats the best so far.

    One instance is one reproducible stream of deals: ``RandomPlayer(..., seed, stream)``
    always deals the same sequence, however :meth:`play` calls split it.
    """

    cdef Rng rng
    cdef Table table
    cdef Detector det
    cdef int sizes[MAX_SEATS]
    cdef uint8_t[::1] cards
    cdef bint by_tricks
    cdef public int64_t best
    cdef public int64_t dealt

    def __cinit__(self, deck, sizes, payments, uint64_t seed, uint64_t stream,
                  max_cards=None, max_tricks=None, int64_t best=0, bint by_tricks=False):
        self.cards = np.repeat(np.arange(len(deck), dtype=np.uint8), deck)
        for seat, size in enumerate(sizes):
            self.sizes[seat] = size
        fill_table(&self.table, payments, len(sizes), self.cards.shape[0], max_cards,
                   max_tricks)
        rng_seed(&self.rng, seed, stream)
        self.best = best
        self.by_tricks = by_tricks
        self.dealt = 0
        if detector_init(&self.det) != 0:
            raise MemoryError("no memory for the cycle detector")

    def __dealloc__(self):
        detector_free(&self.det)

    def play(self, Py_ssize_t n, int max_finds=256):
        """Play up to ``n`` more deals; stop early once ``max_finds`` finds are kept.

        Returns (played, counts, total_cards, total_tricks, find_rows, find_results): counts
        per outcome code; a find is a deal longer (by the objective) than every earlier one,
        or any deal that cycles; find_results rows hold outcome, winner (0-based, -1 none),
        cards, tricks, entry_cards, entry_tricks, period_cards, period_tricks.
        """
        cdef int n_cards = self.cards.shape[0], status = 0, n_found = 0
        cdef Py_ssize_t played = 0
        cdef Hand start[MAX_SEATS]
        cdef Outcome res
        cdef int64_t score, total_cards = 0, total_tricks = 0
        counts = np.zeros(3, dtype=np.int64)
        find_rows = np.empty((max_finds, n_cards), dtype=np.uint8)
        find_results = np.empty((max_finds, 8), dtype=np.int64)
        cdef int64_t[::1] counts_v = counts
        cdef uint8_t[:, ::1] rows_v = find_rows
        cdef int64_t[:, ::1] results_v = find_results
        with nogil:
            while played < n and n_found < max_finds:
                shuffle(&self.rng, &self.cards[0], n_cards)
                deal_hands(&self.cards[0], self.sizes, self.table.seats, start)
                status = play_game(&self.table, start, &self.det, &res)
                if status != 0:
                    break
                played += 1
                counts_v[res.outcome] += 1
                total_cards += res.cards
                total_tricks += res.tricks
                score = res.tricks if self.by_tricks else res.cards
                if res.outcome == OUTCOME_CYCLE or (
                        score > self.best and res.outcome == OUTCOME_WIN):
                    if res.outcome == OUTCOME_WIN:
                        self.best = score
                    rows_v[n_found, :] = self.cards
                    results_v[n_found, 0] = res.outcome
                    results_v[n_found, 1] = res.winner
                    results_v[n_found, 2] = res.cards
                    results_v[n_found, 3] = res.tricks
                    results_v[n_found, 4] = res.entry_cards
                    results_v[n_found, 5] = res.entry_tricks
                    results_v[n_found, 6] = res.period_cards
                    results_v[n_found, 7] = res.period_tricks
                    n_found += 1
        self.dealt += played
        if status != 0:
            raise MemoryError("no memory for the cycle detector")
        return (played, counts, total_cards, total_tricks, find_rows[:n_found],
                find_results[:n_found])

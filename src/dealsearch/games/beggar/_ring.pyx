# cython: language_level=3
# cython: boundscheck=False, wraparound=False, cdivision=True
# (Only nogil C functions live here, no Python entry point: every argument is checked by the
# _engine entry points that call in.)
"""The compiled Beggar-My-Neighbour loop for deals of more than 64 cards (docs/games/beggar.md,
[Play]).

The bit-plane engine (``_engine.pyx``) holds a hand in 64-bit words, so a deal there has at
most 64 cards. Here a hand is a ring buffer of card classes and the game is played card by
card, the way the reference plays it, with the same counts, the same exact cycle detection in
two phases (Brent's saved state, then a replay that stores every trick-boundary state in
``_cycle``'s exact store) and the same limits; ``_engine`` chooses this loop by the deal's size.
It is a few times slower per card than the bit planes, and a deal of any size plays.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy, memset

from dealsearch._cycle cimport store_clear, store_free, store_init
from dealsearch.games.beggar._engine cimport (
    MAX_CLASSES,
    MAX_SEATS,
    OUTCOME_LIMIT,
    OUTCOME_WIN,
    first_repeat,
    leave,
    rest_out,
    stop_at_limit,
)

cdef enum:
    NEEDS_REPLAY = 1        # ring_pass: phase 1 cannot settle the game exactly
    OUT_OF_MEMORY = -2
    # A trick-boundary state written out: the seat to move, each seat's hand length (int32,
    # unused seats 0), then every hand's cards, hand 1 first. The pile is empty at a
    # boundary, so every state of a game has the same width.
    HEADER = 1 + 4 * MAX_SEATS


cdef struct Hands:
    # The hands of the game in play, on the stack of ring_pass: the pile is written a byte at
    # a time, and a byte store may alias anything the compiler cannot prove apart, so the
    # heads and lengths live here rather than behind the Ring pointer.
    uint8_t* cards
    uint8_t* pile
    int mask
    int head[MAX_SEATS]
    int length[MAX_SEATS]
    uint8_t pay[MAX_CLASSES]


cdef Ring* ring_new(int total) noexcept nogil:
    """A Ring for deals of ``total`` cards, or NULL when there is no memory."""
    cdef Ring* ring = <Ring*>malloc(sizeof(Ring))
    cdef int size = 1
    if ring == NULL:
        return NULL
    memset(ring, 0, sizeof(Ring))
    while size < total:
        size *= 2
    ring.mask = size - 1
    ring.total = total
    ring.width = HEADER + total
    ring.cards = <uint8_t*>malloc(<size_t>MAX_SEATS * size)
    ring.pile = <uint8_t*>malloc(<size_t>total + 1)
    ring.state = <uint8_t*>malloc(<size_t>ring.width)
    ring.saved = <uint8_t*>malloc(<size_t>ring.width)
    if (store_init(&ring.store, ring.width, 2) != 0 or ring.cards == NULL
            or ring.pile == NULL or ring.state == NULL or ring.saved == NULL):
        ring_free(ring)
        return NULL
    return ring


cdef void ring_free(Ring* ring) noexcept nogil:
    if ring == NULL:
        return
    store_free(&ring.store)
    free(ring.cards)
    free(ring.pile)
    free(ring.state)
    free(ring.saved)
    free(ring)


cdef inline void take_pile(Hands* h, int seat, int pile_len) noexcept nogil:
    """Put the pile under ``seat``'s hand in the order it was played."""
    cdef int size = h.mask + 1
    cdef int tail = (h.head[seat] + h.length[seat]) & h.mask
    cdef int first = pile_len if pile_len < size - tail else size - tail
    cdef uint8_t* hand = h.cards + seat * size
    memcpy(hand + tail, h.pile, first)
    memcpy(hand, h.pile + first, pile_len - first)
    h.length[seat] += pile_len


cdef inline void write_header(const Hands* h, int seats, int to_move, uint8_t* out) noexcept nogil:
    cdef int seat
    cdef int32_t length
    memset(out, 0, HEADER)
    out[0] = <uint8_t>to_move
    for seat in range(seats):
        length = h.length[seat]
        memcpy(out + 1 + 4 * seat, &length, 4)


cdef inline void write_cards(const Hands* h, int seats, uint8_t* out) noexcept nogil:
    """Every hand's cards, top first, hand 1 first (after the header)."""
    cdef int seat, first, size = h.mask + 1
    cdef const uint8_t* hand
    out += HEADER
    for seat in range(seats):
        hand = h.cards + seat * size
        first = h.length[seat] if h.length[seat] < size - h.head[seat] else size - h.head[seat]
        memcpy(out, hand + h.head[seat], first)
        memcpy(out + first, hand, h.length[seat] - first)
        out += h.length[seat]


cdef struct Saved:
    # Phase 1's Brent bookkeeping: the saved state's seat to move and hand lengths (its cards
    # are in Ring.saved), and when it moves next.
    int to_move
    int length[MAX_SEATS]
    int64_t power
    int64_t lam


cdef inline void save_state(Ring* r, const Hands* h, int seats, int to_move,
                            Saved* saved) noexcept nogil:
    cdef int seat
    write_header(h, seats, to_move, r.saved)
    write_cards(h, seats, r.saved)
    saved.to_move = to_move
    for seat in range(seats):
        saved.length[seat] = h.length[seat]


cdef inline bint repeats(Ring* r, const Hands* h, int seats, int to_move,
                         Saved* saved) noexcept nogil:
    """Phase 1 at a trick boundary: true once the state equals the saved one (Brent)."""
    # Who is to move and the hand lengths almost always rule a match out before the cards
    # are written out and compared.
    cdef bint same = to_move == saved.to_move
    cdef int seat
    for seat in range(seats):
        same = same and h.length[seat] == saved.length[seat]
    if same:
        write_header(h, seats, to_move, r.state)
        write_cards(h, seats, r.state)
        if memcmp(r.state, r.saved, r.width) == 0:
            return True
    saved.lam += 1
    if saved.lam == saved.power:
        save_state(r, h, seats, to_move, saved)
        saved.power *= 2
        saved.lam = 0
    return False


cdef inline int visit_state(Ring* r, const Hands* h, int seats, int to_move, int64_t cards,
                            int64_t tricks, Outcome* res) noexcept nogil:
    """Phase 2 at a trick boundary: the state written out for the exact store; see
    ``_engine.first_repeat``."""
    write_header(h, seats, to_move, r.state)
    write_cards(h, seats, r.state)
    return first_repeat(&r.store, r.state, cards, tricks, res)


cdef int ring_pass(const Table* t, const uint8_t* row, const int* sizes, Ring* r, bint exact,
                   Outcome* res) noexcept nogil:
    """Play one game card by card. Phase 1 (``exact`` false) may return NEEDS_REPLAY; phase 2
    stores every state and finds the first repeat. 0 when ``res`` holds the result."""
    cdef Hands h
    cdef Saved saved
    cdef uint8_t alive[MAX_SEATS]
    cdef int succ[MAX_SEATS]         # the next seat still in after each seat still in
    cdef int seats = t.seats, size = r.mask + 1, n_alive = t.seats
    cdef int to_move = 0, owner = 0, owed = 0, pile_len = 0, seat, offset = 0, card, pay
    cdef int winner = -1, status
    cdef int64_t cards = 0, tricks = 0
    h.cards, h.pile, h.mask = r.cards, r.pile, r.mask
    memcpy(h.pay, t.payment, sizeof(h.pay))
    for seat in range(seats):
        memcpy(h.cards + seat * size, row + offset, sizes[seat])
        offset += sizes[seat]
        h.head[seat] = 0
        h.length[seat] = sizes[seat]
        alive[seat] = 1
        succ[seat] = seat + 1 if seat + 1 < seats else 0
    res.n_out = 0
    if exact:
        store_clear(&r.store)
        if visit_state(r, &h, seats, 0, 0, 0, res) != 0:
            return OUT_OF_MEMORY    # the first state cannot repeat: only memory fails here
    else:
        save_state(r, &h, seats, 0, &saved)
        saved.power, saved.lam = 1, 0

    while True:
        if h.length[to_move] == 0:  # must turn a card and has none: out, the duty passes on
            n_alive = leave(res, alive, succ, to_move, seats, n_alive)
            to_move = succ[to_move]
            if n_alive == 1:
                winner = to_move
                break
            continue
        card = h.cards[to_move * size + h.head[to_move]]
        h.head[to_move] = (h.head[to_move] + 1) & h.mask
        h.length[to_move] -= 1
        h.pile[pile_len] = <uint8_t>card
        pile_len += 1
        cards += 1
        pay = h.pay[card]
        if pay:                     # a court card: the next player owes for it
            owner, owed = to_move, pay
            to_move = succ[to_move]
            continue
        if not owed:                # open play: a numeral passes the turn
            to_move = succ[to_move]
            continue
        owed -= 1                   # paying
        if owed:
            continue
        take_pile(&h, owner, pile_len)   # paid in full: the owner takes the pile and leads
        pile_len = 0
        tricks += 1
        to_move = owner

        # Trick boundary.
        if h.length[owner] == t.total:  # holds every card: over, no further lead
            rest_out(res, succ, owner, n_alive)
            winner = owner
            break
        if cards >= t.max_cards or tricks >= t.max_tricks:
            if not exact:
                return NEEDS_REPLAY     # a repeat may have come first: phase 2 decides
            stop_at_limit(res, h.length, seats, cards, tricks)
            return 0
        if exact:
            status = visit_state(r, &h, seats, to_move, cards, tricks, res)
            if status != 0:
                return 0 if status == 1 else status
        elif repeats(r, &h, seats, to_move, &saved):
            return NEEDS_REPLAY

    # Over: one player left (they take what is on the pile) or one holds every card; a limit
    # reached first makes it a limited game, never a win by exhaustion (docs/games/beggar.md,
    # [Play]).
    res.outcome = OUTCOME_LIMIT if cards >= t.max_cards or tricks >= t.max_tricks else OUTCOME_WIN
    if pile_len:
        take_pile(&h, winner, pile_len)
        tricks += 1
    res.winner = winner
    res.cards, res.tricks = cards, tricks
    return 0


cdef int ring_play(const Table* table, const uint8_t* row, const int* sizes, Ring* ring,
                   Outcome* result) noexcept nogil:
    """Play one deal (``row``: hands concatenated, ``sizes`` per hand) exactly; 0 on success,
    OUT_OF_MEMORY if the cycle detector could not grow."""
    result.entry_cards = result.entry_tricks = 0
    result.period_cards = result.period_tricks = 0
    cdef int status = ring_pass(table, row, sizes, ring, False, result)
    if status == NEEDS_REPLAY:
        status = ring_pass(table, row, sizes, ring, True, result)
    return status

# cython: language_level=3
"""The compiled Beggar-My-Neighbour loop and its exact cycle detector (docs/games/beggar.md,
[Play]).

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
   gone unseen), replay from the deal with ``_cycle.pxd``'s exact store: every trick-boundary
   state is hashed and stored, and every hash hit is confirmed by comparing the states
   exactly, so the first repeated state, its entry and its period are exact.

Bit-planes hold at most 64 cards; larger deals play on ``_ring`` (hands as ring buffers), and
``play_cards`` chooses by size, so every entry point below takes deals of any size. Each entry
point checks its arguments once (ValueError) before its nogil loop, which indexes unchecked.
"""

cimport cython
from libc.stdint cimport INT64_MAX, UINT64_MAX, int8_t, int64_t, uint8_t, uint64_t
from libc.string cimport memset

import numpy as np

from dealsearch.checks import whole as _whole
from dealsearch.checks import whole_list

cimport numpy as cnp

from dealsearch._bits cimport low_bit
from dealsearch._cycle cimport store_clear
from dealsearch._random cimport Rng, rng_seed, shuffle_row
from dealsearch.games.beggar._deals cimport ds_deal_planes, ds_seed_key, ds_stream_key
from dealsearch.games.beggar._ring cimport Ring, ring_free, ring_new, ring_play

cnp.import_array()

cdef enum:
    NOT_OVER = -1
    NEEDS_REPLAY = 1      # play_pass: phase 1 cannot settle the game exactly
    OUT_OF_MEMORY = -2
    PAID = -1             # pay: paid in full with numerals
    RAN_OUT = -2          # pay: ran out of cards while paying


# ---------------------------------------------------------------- hands as bit-planes

cdef inline uint64_t court_mask(const Hand* h) noexcept nogil:
    return h.plane[0] | h.plane[1] | h.plane[2]


cdef inline int next_court(const Hand* h) noexcept nogil:
    """Position of the first court card, or the hand's length if it holds none."""
    # h.length < 64: a hand in play holds fewer cards than the deck (at most 64), or the game
    # would be over. Hence also no guard on the shifts below.
    return low_bit(court_mask(h) | ((<uint64_t>1) << h.length))


cdef inline int class_at(const Hand* h, int i) noexcept nogil:
    return <int>(((h.plane[0] >> i) & 1) | (((h.plane[1] >> i) & 1) << 1)
                 | (((h.plane[2] >> i) & 1) << 2))


cdef inline int top_class(const Hand* h) noexcept nogil:
    return <int>((h.plane[0] & 1) | ((h.plane[1] & 1) << 1) | ((h.plane[2] & 1) << 2))


cdef inline void drop(Hand* h, int k) noexcept nogil:
    """Remove the top ``k`` cards (they have been turned); k <= h.length < 64."""
    cdef int b
    for b in range(PLANES):
        h.plane[b] >>= k
    h.length -= k


cdef inline void put_court(Hand* pile, int cls) noexcept nogil:
    """Put a card of class ``cls`` after the last card of ``pile`` (a numeral adds no bits)."""
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
    cdef uint64_t planes[PLANES]
    cdef int seat, n_cards = 0
    for seat in range(seats):
        n_cards += sizes[seat]
    row_to_planes(cards, n_cards, planes)
    split_deal(planes, sizes, seats, hands)


# ---------------------------------------------------------------- states and the detector
# Phase 1 keeps its saved state in registers (tricks2) or as a Snapshot compared field by field
# instead of _cycle.pxd's Brent: a bit-plane state is a few 64-bit words compared in registers,
# where the shared Brent wants the state written out as bytes at every trick boundary (phase 1
# costs about 7.5% of the engine's instructions on random deals; callgrind, docs: Performance).
# Phase 2, which runs only for games that repeat or reach the limit, is _cycle.pxd's store.

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


cdef inline int visit_state(StateStore* det, const Hand* hands, int to_move, int seats,
                            int64_t cards, int64_t tricks, Outcome* res) noexcept nogil:
    """Phase 2 at a trick boundary: the state written out as STATE_WORDS words (seats not in
    the game 0) for the exact store; see ``first_repeat``."""
    cdef uint64_t words[STATE_WORDS]
    cdef int seat
    memset(words, 0, sizeof(words))
    for seat in range(seats):
        words[4 * seat] = hands[seat].plane[0]
        words[4 * seat + 1] = hands[seat].plane[1]
        words[4 * seat + 2] = hands[seat].plane[2]
        words[4 * seat + 3] = <uint64_t>hands[seat].length
    words[4 * MAX_SEATS] = <uint64_t>to_move
    return first_repeat(det, <const uint8_t*>words, cards, tricks, res)


# ---------------------------------------------------------------- the game

cdef struct Brent:
    # Phase 1's repeat check (see play_pass): the saved state and when to move it.
    Snapshot saved
    int64_t lam
    int64_t power


cdef inline void pick(uint64_t a, uint64_t b, uint64_t swap, uint64_t* first,
                      uint64_t* second) noexcept nogil:
    """``a`` into ``first`` and ``b`` into ``second``, the other way round where ``swap`` is
    all ones: a select, not a branch (see tricks2)."""
    cdef uint64_t differ = (a ^ b) & swap
    first[0] = a ^ differ
    second[0] = b ^ differ


cdef inline int pay(uint64_t* h0, uint64_t* h1, uint64_t* h2, int* h_len, uint64_t* p0,
                    uint64_t* p1, uint64_t* p2, int* p_len, int owed,
                    const Table* t) noexcept nogil:
    """A payer's turn in tricks2: the hand ``h`` turns cards onto the pile ``p`` for
    ``owed``. PAID: in numerals (the other player's trick); RAN_OUT: it had too few (they are
    on the pile); else it turned a court card, and the other player owes what it returns.
    (Inlined: the hands stay in tricks2's registers.)"""
    cdef int c = low_bit(h0[0] | h1[0] | h2[0] | ((<uint64_t>1) << h_len[0]))
    cdef uint64_t low
    cdef int cls
    if c >= owed:
        h0[0] >>= owed
        h1[0] >>= owed
        h2[0] >>= owed
        h_len[0] -= owed
        p_len[0] += owed
        return PAID
    if c == h_len[0]:
        h0[0] = h1[0] = h2[0] = 0
        h_len[0] = 0
        p_len[0] += c
        return RAN_OUT
    # the court card at c keeps its place after the c numerals before it
    low = (<uint64_t>1) << c
    cls = <int>(((h0[0] >> c) & 1) | (((h1[0] >> c) & 1) << 1) | (((h2[0] >> c) & 1) << 2))
    p0[0] |= (h0[0] & low) << p_len[0]
    p1[0] |= (h1[0] & low) << p_len[0]
    p2[0] |= (h2[0] & low) << p_len[0]
    h0[0] >>= c + 1
    h1[0] >>= c + 1
    h2[0] >>= c + 1
    h_len[0] -= c + 1
    p_len[0] += c + 1
    return t.payment[cls]


cdef inline int tricks2(Hand* hand, int lead, int other, Hand* pile, const Table* t,
                        Brent* brent, int64_t* cards, int64_t* tricks,
                        int* went_out) noexcept nogil:
    """Play tricks between the last two players in, ``lead`` leading the first.

    The common case gets its own code because here the two hands and the pile live in
    registers from trick to trick, where the general loop reads and writes them through the
    seat arrays at every step. It plays whole tricks (the taker takes the pile) and does the
    ordinary trick-boundary work itself (phase 1's Brent bookkeeping); it returns the taker
    after the first trick whose boundary needs play_pass (a Brent match to confirm, the
    agreed limit, a player holding every card, or phase 2, which visits every boundary), or
    -1 with ``went_out`` set to the seat that had to turn a card and had none (the other one
    has then won; the pile is left on the table).

    X is the hand whose court card was turned last (its owner), Y the hand paying for it;
    each court card paid with swaps their roles, so the payment loop calls ``pay`` for Y, then
    for X, instead of swapping. Which court card comes first in open play, and who takes the
    pile, are coin tosses to the branch predictor, so they are selects.
    """
    cdef uint64_t l0 = hand[lead].plane[0], l1 = hand[lead].plane[1], l2 = hand[lead].plane[2]
    cdef uint64_t o0 = hand[other].plane[0], o1 = hand[other].plane[1]
    cdef uint64_t o2 = hand[other].plane[2]
    cdef uint64_t p0 = pile.plane[0], p1 = pile.plane[1], p2 = pile.plane[2]
    cdef uint64_t x0, x1, x2, y0, y1, y2, swap
    cdef int l_len = hand[lead].length, o_len = hand[other].length, p_len = pile.length
    cdef int x_len, y_len, c_lead, c_other, later, k, cls, owed, x_takes, seat
    cdef int x_seat, y_seat, taker = -1
    # n_cards counts from the start of the pile (its cards, if any, are counted already)
    cdef int64_t n_cards = cards[0] - pile.length, n_tricks = tricks[0]
    cdef bint phase_1 = brent != NULL
    # Brent's state in registers: tricks until the saved state moves, and the saved leader
    # and leader's hand length, which rule out a match almost always in two compares.
    cdef int64_t countdown = 0
    cdef int saved_lead = -1, saved_len = -1
    if phase_1:
        countdown = brent.power - brent.lam
        saved_lead = brent.saved.to_move
        saved_len = brent.saved.hand[saved_lead].length

    while True:
        # Open play: whichever court card comes first in turn order is turned, after k
        # numerals from each hand (and one more from the leader if it is the follower's).
        c_lead = low_bit(l0 | l1 | l2 | ((<uint64_t>1) << l_len))
        c_other = low_bit(o0 | o1 | o2 | ((<uint64_t>1) << o_len))
        later = c_other < c_lead
        k = c_other if later else c_lead
        l0 >>= k + later
        l1 >>= k + later
        l2 >>= k + later
        l_len -= k + later
        o0 >>= k
        o1 >>= k
        o2 >>= k
        o_len -= k
        p_len += 2 * k + later
        swap = (<uint64_t>0) - <uint64_t>later     # all ones when the follower's card is first
        pick(l0, o0, swap, &x0, &y0)
        pick(l1, o1, swap, &x1, &y1)
        pick(l2, o2, swap, &x2, &y2)
        x_len = o_len if later else l_len
        y_len = l_len if later else o_len
        x_seat = other if later else lead
        y_seat = lead if later else other

        if x_len == 0:              # X had to turn a card and had none
            went_out[0] = x_seat
            break
        # X's top card is its court card: onto the pile
        cls = <int>((x0 & 1) | ((x1 & 1) << 1) | ((x2 & 1) << 2))
        p0 |= (x0 & 1) << p_len
        p1 |= (x1 & 1) << p_len
        p2 |= (x2 & 1) << p_len
        x0 >>= 1
        x1 >>= 1
        x2 >>= 1
        x_len -= 1
        p_len += 1
        owed = t.payment[cls]
        while True:
            # Y pays X; a court card passes the debt back: X pays Y, and so on
            owed = pay(&y0, &y1, &y2, &y_len, &p0, &p1, &p2, &p_len, owed, t)
            if owed < 0:
                x_takes = 1 if owed == PAID else -1
                if owed == RAN_OUT:
                    went_out[0] = y_seat
                break
            owed = pay(&x0, &x1, &x2, &x_len, &p0, &p1, &p2, &p_len, owed, t)
            if owed < 0:
                x_takes = 0 if owed == PAID else -1
                if owed == RAN_OUT:
                    went_out[0] = x_seat
                break
        if x_takes < 0:
            break

        # The taker puts the pile under their hand and leads: L is the taker, O the other.
        # (Each hand holds fewer than 64 cards here, so the shifts are defined.)
        n_cards += p_len
        n_tricks += 1
        swap = (<uint64_t>0) - <uint64_t>(1 - x_takes)   # all ones when Y takes
        pick(x0, y0, swap, &l0, &o0)
        pick(x1, y1, swap, &l1, &o1)
        pick(x2, y2, swap, &l2, &o2)
        l_len = x_len if x_takes else y_len
        o_len = y_len if x_takes else x_len
        lead = x_seat if x_takes else y_seat
        other = y_seat if x_takes else x_seat
        l0 |= p0 << l_len
        l1 |= p1 << l_len
        l2 |= p2 << l_len
        l_len += p_len
        p0 = p1 = p2 = 0
        p_len = 0

        # Trick boundary. Anything but Brent's bookkeeping goes back to play_pass; a match
        # of the two hands still in is confirmed there against the whole saved state.
        if (not phase_1 or l_len == t.total or n_cards >= t.max_cards
                or n_tricks >= t.max_tricks):
            taker = lead
            break
        if (lead == saved_lead and l_len == saved_len
                and l0 == brent.saved.hand[lead].plane[0]
                and l1 == brent.saved.hand[lead].plane[1]
                and l2 == brent.saved.hand[lead].plane[2]
                and o0 == brent.saved.hand[other].plane[0]
                and o1 == brent.saved.hand[other].plane[1]
                and o2 == brent.saved.hand[other].plane[2]
                and o_len == brent.saved.hand[other].length):
            taker = lead
            break
        countdown -= 1
        if countdown == 0:
            # the seats out (if any) hold no cards, in hand[] as in the state
            for seat in range(t.seats):
                brent.saved.hand[seat] = hand[seat]
            brent.saved.hand[lead].plane[0] = l0
            brent.saved.hand[lead].plane[1] = l1
            brent.saved.hand[lead].plane[2] = l2
            brent.saved.hand[lead].length = l_len
            brent.saved.hand[other].plane[0] = o0
            brent.saved.hand[other].plane[1] = o1
            brent.saved.hand[other].plane[2] = o2
            brent.saved.hand[other].length = o_len
            brent.saved.to_move = lead
            brent.power *= 2
            countdown = brent.power
            saved_lead = lead
            saved_len = l_len

    if taker >= 0:                  # at a trick boundary: L and O are the hands
        x_seat, x0, x1, x2, x_len = lead, l0, l1, l2, l_len
        y_seat, y0, y1, y2, y_len = other, o0, o1, o2, o_len
    else:                           # someone went out: the pile stays on the table
        n_cards += p_len
    hand[x_seat].plane[0] = x0
    hand[x_seat].plane[1] = x1
    hand[x_seat].plane[2] = x2
    hand[x_seat].length = x_len
    hand[y_seat].plane[0] = y0
    hand[y_seat].plane[1] = y1
    hand[y_seat].plane[2] = y2
    hand[y_seat].length = y_len
    pile.plane[0] = p0
    pile.plane[1] = p1
    pile.plane[2] = p2
    pile.length = p_len
    cards[0] = n_cards
    tricks[0] = n_tricks
    if phase_1:
        brent.lam = brent.power - countdown
    return taker


cdef int play_pass(const Table* t, const Hand* start, StateStore* det,
                   Outcome* res) noexcept nogil:
    """Play one game. Without ``det``: phase 1 (Brent), may return NEEDS_REPLAY. With it:
    phase 2, exact first repeat. Returns 0 when ``res`` holds the result."""
    cdef Hand hand[MAX_SEATS]
    cdef Hand pile
    cdef Brent brent                 # phase 1's repeat check
    cdef uint8_t alive[MAX_SEATS]
    cdef int succ[MAX_SEATS]         # the next seat still in after each seat still in
    cdef int order[MAX_SEATS]
    cdef int lengths[MAX_SEATS]
    cdef int seats = t.seats, n_alive = t.seats
    cdef int to_move = 0, seat, r, _r, m, c, step, best, e_r, e_c, e, cls, owner, owed, payer
    cdef int64_t cards = 0, tricks = 0
    cdef int winner = NOT_OVER, found
    cdef Hand* h

    memset(&pile, 0, sizeof(Hand))
    memset(&brent, 0, sizeof(Brent))
    brent.power = 1
    for seat in range(seats):
        hand[seat] = start[seat]
        brent.saved.hand[seat] = start[seat]
        alive[seat] = 1
        succ[seat] = seat + 1 if seat + 1 < seats else 0
    res.n_out = 0
    if det != NULL:
        store_clear(det)
        if visit_state(det, hand, 0, seats, 0, 0, res) != 0:
            return OUT_OF_MEMORY    # the first state cannot repeat: only memory fails here

    while True:
        if n_alive == 2:
            # The common case: tricks in registers, up to a boundary that needs the code
            # below (see tricks2); the pile has been taken.
            owner = tricks2(hand, to_move, succ[to_move], &pile, t,
                            &brent if det == NULL else NULL, &cards, &tricks, &e)
            if owner < 0:           # e had to turn a card and had none: the other one wins
                n_alive = leave(res, alive, succ, e, seats, n_alive)
                winner = succ[e]
                break
        else:
            # Open play: players in turn from to_move turn numerals until someone turns a
            # court card (then a payment is owed) or must turn a card and has none (then they
            # are out). e is that player.
            while True:
                m = 0
                seat = to_move
                for _r in range(n_alive):
                    order[m] = seat
                    m += 1
                    seat = succ[seat]
                best = 1 << 30
                e_r = 0
                e_c = 0
                for r in range(m):
                    c = next_court(&hand[order[r]])
                    step = c * m + r        # how many cards are turned before that one
                    if step < best:
                        best, e_r, e_c = step, r, c
                e = order[e_r]
                for r in range(m):
                    drop(&hand[order[r]], e_c + (r < e_r))
                pile.length += best
                cards += best
                if hand[e].length:          # e's next card is its first court card
                    cls = top_class(&hand[e])
                    drop(&hand[e], 1)
                    put_court(&pile, cls)
                    cards += 1
                    break
                # e had to turn a card and had none
                n_alive = leave(res, alive, succ, e, seats, n_alive)
                to_move = succ[e]
                if n_alive == 1:
                    winner = to_move
                    break
            if winner != NOT_OVER:
                break

            # Payment: each payer turns up to what they owe; a court card passes the debt on.
            owner = e
            owed = t.payment[cls]
            payer = succ[owner]
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
                    n_alive = leave(res, alive, succ, payer, seats, n_alive)
                    if n_alive == 1:
                        winner = succ[payer]
                        break
                payer = succ[payer]
            if winner != NOT_OVER:
                break
            take_pile(&hand[owner], &pile)  # the owner takes the pile
            tricks += 1

        # Trick boundary: the owner has taken the pile and leads.
        to_move = owner
        if hand[owner].length == t.total:   # holds every card: over, no further lead
            rest_out(res, succ, owner, n_alive)
            winner = owner
            break
        if cards >= t.max_cards or tricks >= t.max_tricks:
            if det == NULL:
                return NEEDS_REPLAY     # a repeat may have come first: phase 2 decides
            for seat in range(seats):
                lengths[seat] = hand[seat].length
            stop_at_limit(res, lengths, seats, cards, tricks)
            return 0
        if det == NULL:
            if same_state(hand, to_move, &brent.saved, seats):
                return NEEDS_REPLAY
            brent.lam += 1
            if brent.lam == brent.power:
                for seat in range(seats):
                    brent.saved.hand[seat] = hand[seat]
                brent.saved.to_move = to_move
                brent.power *= 2
                brent.lam = 0
        else:
            found = visit_state(det, hand, to_move, seats, cards, tricks, res)
            if found != 0:
                return 0 if found == 1 else found

    # Over: one player left (they take what is on the pile) or one holds every card. If the
    # agreed limit was reached first (before that last pile), it is a limited game, never a win
    # by exhaustion (docs/games/beggar.md, [Play]); the winner is the one with every card either
    # way.
    res.outcome = OUTCOME_LIMIT if cards >= t.max_cards or tricks >= t.max_tricks else OUTCOME_WIN
    if pile.length:
        take_pile(&hand[winner], &pile)
        tricks += 1
    res.winner = winner
    res.cards, res.tricks = cards, tricks
    return 0


cdef int play_game(const Table* table, const Hand* start, StateStore* det,
                   Outcome* result) noexcept nogil:
    """Play one game exactly; 0 on success, OUT_OF_MEMORY if the detector could not grow."""
    result.entry_cards = result.entry_tricks = 0
    result.period_cards = result.period_tricks = 0
    cdef int status = play_pass(table, start, NULL, result)
    if status == NEEDS_REPLAY:
        status = play_pass(table, start, det, result)
    return status


# ---------------------------------------------------------------- any size: bit-planes or rings

cdef int scratch_init(Scratch* scratch, int total, bint rings) noexcept nogil:
    """Memory to play deals of ``total`` cards (on rings if ``rings`` or if they do not fit
    the bit-planes); 0, or OUT_OF_MEMORY."""
    scratch.ring = NULL
    if detector_init(&scratch.det) != 0:
        store_free(&scratch.det)
        return OUT_OF_MEMORY
    if rings or total > PLANE_CARDS:
        scratch.ring = ring_new(total)
        if scratch.ring == NULL:
            store_free(&scratch.det)
            return OUT_OF_MEMORY
    return 0


cdef void scratch_free(Scratch* scratch) noexcept nogil:
    store_free(&scratch.det)
    ring_free(<Ring*>scratch.ring)
    scratch.ring = NULL


cdef int play_cards(const Table* table, const uint8_t* row, const int* sizes, Scratch* scratch,
                    Outcome* result) noexcept nogil:
    """Play one deal of ``table.total`` cards given as a row, on whichever engine fits it."""
    cdef Hand start[MAX_SEATS]
    if scratch.ring != NULL:
        return ring_play(table, row, sizes, <Ring*>scratch.ring, result)
    deal_hands(row, sizes, table.seats, start)
    return play_game(table, start, &scratch.det, result)


# ---------------------------------------------------------------- checking the arguments
# Every Python entry point checks its arguments here, once, before any nogil loop runs: the
# loops index C arrays unchecked, so a wrong size or code must never reach them.

def _whole_list(name, values, int low, high, int min_len, int max_len):
    """A sequence of whole numbers in [low, high], of min_len to max_len entries."""
    return whole_list(name, values, low, high, min_len, max_len)


def _check_payments(payments):
    """The payment of each card class: class 0 (numerals) pays nothing, every other class
    demands 1 to 255 cards (the engines tell court cards from numerals by the class)."""
    paid = _whole_list("payments", payments, 0, 255, 2, MAX_CLASSES)
    if paid[0] != 0 or min(paid[1:]) < 1:
        raise ValueError(f"payments must be 0 for class 0 and at least 1 for every other "
                         f"class, not {tuple(paid)}")
    return paid


def _check_sizes(sizes, Py_ssize_t n_cards):
    """Hand sizes: 2 to MAX_SEATS non-empty hands holding the deal's ``n_cards`` cards."""
    hands = _whole_list("sizes", sizes, 1, MAX_CARDS, 2, MAX_SEATS)
    if sum(hands) != n_cards:
        raise ValueError(f"hand sizes {tuple(hands)} do not add up to the {n_cards} cards "
                         f"of a deal")
    return hands


def _check_limit(name, value):
    return None if value is None else _whole(name, value, 1)


def _check_deck(deck, int n_classes):
    """A count per card class: 2 to MAX_CARDS cards of ``n_classes`` (or fewer) classes."""
    counts = _whole_list("deck", deck, 0, MAX_CARDS, 1, n_classes)
    if not 2 <= sum(counts) <= MAX_CARDS:
        raise ValueError(f"a deck must hold 2 to {MAX_CARDS} cards, not {sum(counts)}")
    return counts


def _check_codes(name, cards, int n_classes):
    """Every card code of the uint8 array ``cards`` must be a class of the rules."""
    if cards.size and int(np.max(cards)) >= n_classes:
        raise ValueError(f"{name}: card class {int(np.max(cards))} is not one of the "
                         f"{n_classes} classes of the payments")


cdef int fill_table(Table* t, int* size_of, sizes, payments, Py_ssize_t total, max_cards,
                    max_tricks) except -1:
    """Check the game's arguments and fill ``t`` and ``size_of`` (ValueError if wrong)."""
    if not 2 <= total <= MAX_CARDS:
        raise ValueError(f"a deal must hold 2 to {MAX_CARDS} cards, not {total}")
    paid = _check_payments(payments)
    hands = _check_sizes(sizes, total)
    max_cards = _check_limit("max_cards", max_cards)
    max_tricks = _check_limit("max_tricks", max_tricks)
    memset(t, 0, sizeof(Table))
    for i, p in enumerate(paid):
        t.payment[i] = p
    for seat, size in enumerate(hands):
        size_of[seat] = size
    t.seats = len(hands)
    t.total = <int>total
    t.max_cards = INT64_MAX if max_cards is None else min(max_cards, INT64_MAX)
    t.max_tricks = INT64_MAX if max_tricks is None else min(max_tricks, INT64_MAX)
    return 0


# ---------------------------------------------------------------- Python entry points

@cython.boundscheck(False)
@cython.wraparound(False)
def play_rows(deals, sizes, payments, max_cards=None, max_tricks=None, rings=False):
    """Play every row of ``deals`` (hands concatenated, hand 1 first; ``sizes`` per hand).

    Returns (outcome, winner, cards, tricks, out, cycle) arrays; winner and out are 0-based
    with -1 for none; cycle has columns entry_cards, entry_tricks, period_cards,
    period_tricks. Deals of up to 64 cards play on bit-planes, larger ones on ring buffers
    (``_ring``), with the same results; ``rings=True`` plays every deal on rings (to check
    one engine against the other). The loop runs without the GIL; the arguments are checked
    first (ValueError).
    """
    cdef int status = 0
    cdef int size_of[MAX_SEATS]
    cdef Table table
    cdef Scratch scratch
    cdef Outcome res
    cdef RowResults into
    contiguous, results = rows_setup(deals, sizes, payments, max_cards, max_tricks, &table,
                                     size_of, &into)
    cdef const uint8_t[:, ::1] rows = contiguous
    cdef Py_ssize_t n = rows.shape[0], row
    if scratch_init(&scratch, table.total, bool(rings) or table.total > PLANE_CARDS) != 0:
        raise MemoryError("no memory for the cycle detector")
    with nogil:
        for row in range(n):
            status = play_cards(&table, &rows[row, 0], size_of, &scratch, &res)
            if status != 0:
                break
            put_result(&into, row, &res)
    scratch_free(&scratch)
    if status != 0:
        raise MemoryError("no memory for the cycle detector")
    return results


cdef object rows_setup(deals, sizes, payments, max_cards, max_tricks, Table* table,
                       int* size_of, RowResults* into):
    """play_rows' arguments checked (ValueError) and its outputs made: (the deals as a
    contiguous array, the result arrays of row_results)."""
    if not isinstance(deals, np.ndarray) or deals.dtype != np.uint8 or deals.ndim != 2:
        raise ValueError("deals must be a 2-D uint8 numpy array, one deal a row")
    paid = _check_payments(payments)
    fill_table(table, size_of, sizes, paid, deals.shape[1], max_cards, max_tricks)
    _check_codes("deals", deals, len(paid))
    return np.ascontiguousarray(deals), row_results(len(deals), table.seats, into)


cdef object row_results(Py_ssize_t n, int seats, RowResults* into):
    """play_rows' arrays for ``n`` deals of ``seats`` players (outcome, winner, cards,
    tricks, out, cycle), with ``into`` pointing at them."""
    arrays = (np.zeros(n, dtype=np.uint8), np.full(n, -1, dtype=np.int8),
              np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
              np.full((n, seats), -1, dtype=np.int8), np.zeros((n, 4), dtype=np.int64))
    into.outcome = <uint8_t*>cnp.PyArray_DATA(arrays[0])
    into.winner = <int8_t*>cnp.PyArray_DATA(arrays[1])
    into.cards = <int64_t*>cnp.PyArray_DATA(arrays[2])
    into.tricks = <int64_t*>cnp.PyArray_DATA(arrays[3])
    into.out = <int8_t*>cnp.PyArray_DATA(arrays[4])
    into.cycle = <int64_t*>cnp.PyArray_DATA(arrays[5])
    into.seats = seats
    return arrays


cdef class _Dealer:
    """A deck dealt at random in compiled code: bit-planes up to 64 cards, a row above."""

    def __cinit__(self, deck):
        counts = _check_deck(deck, MAX_CLASSES)
        self.n_cards = sum(counts)
        self.n_courts = self.n_cards - counts[0]
        sorted_deck = np.repeat(np.arange(len(counts), dtype=np.uint8), counts)
        # one spare entry, so that the arrays are never empty
        self.courts = np.append(sorted_deck[counts[0]:], np.uint8(0))
        self.deck = np.append(sorted_deck, np.uint8(0))

    @cython.boundscheck(False)
    @cython.wraparound(False)
    cdef void deal(self, Rng* rng, uint64_t key, uint64_t index, uint64_t* planes,
                   uint8_t* row) noexcept nogil:
        """One uniformly random deal: deal ``index`` of the stream with ``key`` into
        ``planes`` (up to 64 cards: the counter-based generator the GPU kernel shares, see
        _deals.h), or the next of ``rng`` into ``row``."""
        if self.n_cards > PLANE_CARDS:
            shuffle_row(rng, &self.deck[0], self.n_cards, row)
        else:
            ds_deal_planes(key, index, &self.courts[0], self.n_courts, self.n_cards, planes)


@cython.boundscheck(False)
@cython.wraparound(False)
def random_rows(deck, n, seed, stream=0):
    """``n`` uniformly random orderings of ``deck`` (a count per class), one a row.

    The same ``(seed, stream)`` always gives the same rows, and the same deals as
    ``_lanes.RandomPlayer(deck, ..., seed, stream)`` deals, in the same order.
    """
    cdef _Dealer dealer = _Dealer(deck)
    cdef Py_ssize_t count = _whole("n", n, 0), row
    cdef Rng rng
    cdef uint64_t planes[PLANES]
    cdef int n_cards = dealer.n_cards
    rows = np.empty((count, n_cards), dtype=np.uint8)
    cdef uint8_t[:, ::1] rows_v = rows
    cdef uint64_t seed_v = _whole("seed", seed, 0, UINT64_MAX)
    cdef uint64_t stream_v = _whole("stream", stream, 0, UINT64_MAX)
    cdef uint64_t key = ds_stream_key(ds_seed_key(seed_v), stream_v)
    rng_seed(&rng, seed_v, stream_v)
    with nogil:
        for row in range(count):
            dealer.deal(&rng, key, row, planes, &rows_v[row, 0])
            if n_cards <= PLANE_CARDS:
                planes_to_row(planes, n_cards, &rows_v[row, 0])
    return rows


cdef Tally start_tally(int64_t[::1] counts, int64_t[::1] card_hist,
                       int64_t[::1] trick_hist, int card_bin, int64_t best, bint by_tricks):
    """A Tally over checked arrays (the histograms both None, or both given)."""
    cdef Tally t
    t.counts = &counts[0]
    t.card_hist = NULL if card_hist is None else &card_hist[0]
    t.trick_hist = NULL if trick_hist is None else &trick_hist[0]
    t.card_top = 0 if card_hist is None else card_hist.shape[0] - 1
    t.trick_top = 0 if trick_hist is None else trick_hist.shape[0] - 1
    t.card_bin = card_bin
    t.cards = t.tricks = 0
    t.best = best
    t.by_tricks = by_tricks
    return t


def _tally_args(hists, widths):
    """A player's histograms, checked: (card_hist, trick_hist, card_bin), both None (no
    ``hists``) or int64 arrays for cards (bins of any width) and tricks (bins of one)."""
    if not len(hists):
        return None, None, 10
    if len(hists) != 2 or len(widths) != 2 or widths[1] != 1:
        raise ValueError("BMN histograms: cards (bins of any width) and tricks (bins of 1)")
    return (_histogram("card_hist", hists[0]), _histogram("trick_hist", hists[1]),
            _whole("card_bin", widths[0], 1, 1 << 30))


def _histogram(name, values):
    """A histogram argument: a writable, contiguous, non-empty 1-D int64 array."""
    if (not isinstance(values, np.ndarray) or values.dtype != np.int64 or values.ndim != 1
            or not values.size or not values.flags.c_contiguous
            or not values.flags.writeable):
        raise ValueError(f"{name} must be a non-empty, writable, contiguous 1-D int64 array")
    return values


# ---------------------------------------------------------------- playing backwards

cdef inline uint64_t low_bits(int n) noexcept nogil:
    return ((<uint64_t>1) << n) - 1 if n < 64 else ~(<uint64_t>0)


def predecessors(state, payments):
    """Every trick-boundary state one trick before ``state`` (two players).

    A state is ``(plane0, plane1, plane2, length)`` for hand 1, the same for hand 2, then the
    seat to move (0 or 1), as :mod:`dealsearch.games.beggar.reverse` packs it. At a trick boundary
    the last
    pile lies at the bottom of the winner's hand (the player to move): each suffix of that hand
    is tried as the pile with each player as its leader; the pile is replayed under the rules
    to see who turned each card, and kept only if the trick ends exactly on its last card with
    the right winner. The cards each player turned go back on top of their hand.
    """
    cdef Hand hand[2]
    cdef Hand before[2]
    cdef uint8_t pay[8]
    cdef uint8_t seat_of[64]
    cdef int winner, other, k, start, leader, i, seat, owed, owner
    cdef int cls, b
    cdef bint complete
    paid = _check_payments(payments)
    if not isinstance(state, tuple) or len(state) != 9:
        raise ValueError(f"a state has 9 numbers (3 planes and a length per hand, then the "
                         f"seat to move), not {state!r}")
    winner = _whole("the seat to move", state[8], 0, 1)
    other = 1 - winner
    for seat in range(2):
        length = _whole(f"hand {seat + 1}'s length", state[4 * seat + 3], 0, PLANE_CARDS)
        for b in range(PLANES):
            plane = _whole(f"hand {seat + 1}'s plane {b}", state[4 * seat + b], 0, UINT64_MAX)
            if plane >> length:
                raise ValueError(f"hand {seat + 1}'s plane {b} has cards past its length "
                                 f"{length}")
            hand[seat].plane[b] = plane
        hand[seat].length = length
    if hand[0].length + hand[1].length > PLANE_CARDS:
        raise ValueError(f"the hands hold {hand[0].length + hand[1].length} cards; playing "
                         f"backwards takes at most {PLANE_CARDS}")
    for seat in range(2):
        for i in range(hand[seat].length):
            if class_at(&hand[seat], i) >= len(paid):
                raise ValueError(f"hand {seat + 1}, position {i + 1}: card class "
                                 f"{class_at(&hand[seat], i)} is not one of the {len(paid)} "
                                 f"classes of the payments")
    memset(pay, 0, sizeof(pay))
    for i, p in enumerate(paid):
        pay[i] = p
    found = []
    for k in range(2, hand[winner].length + 1):     # a trick turns at least two cards
        start = hand[winner].length - k
        for leader in range(2):
            seat, owed, owner, complete = leader, 0, -1, False
            for i in range(k):
                seat_of[i] = seat
                cls = class_at(&hand[winner], start + i)
                if pay[cls]:
                    owner, owed, seat = seat, pay[cls], 1 - seat
                elif owed:
                    owed -= 1
                    if owed == 0:
                        complete = i == k - 1
                        break
                else:
                    seat = 1 - seat
            if not complete or owner != winner:
                continue
            memset(before, 0, sizeof(before))
            for i in range(k):                      # the turned cards, back on top
                put_court(&before[seat_of[i]], class_at(&hand[winner], start + i))
            for b in range(PLANES):                 # and the rest of each hand below them
                before[winner].plane[b] |= (
                    (hand[winner].plane[b] & low_bits(start)) << before[winner].length)
                before[other].plane[b] |= hand[other].plane[b] << before[other].length
            before[winner].length += start
            before[other].length += hand[other].length
            found.append((before[0].plane[0], before[0].plane[1], before[0].plane[2],
                          before[0].length, before[1].plane[0], before[1].plane[1],
                          before[1].plane[2], before[1].length, leader))
    return found

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled Spite and Malice engine (docs/games/spite.md): no Python object and no GIL in a
game.

A table is plain C arrays: pay-off piles read from an index, a hand as counts per card code
plus a bit mask (``hand_mask``), side piles as arrays with their four top cards kept beside
them as the bytes of one word, a centre slot as its value (the four values: one word) plus a
bit mask of the positions that hold jokers (card i of a pile is rank i or a joker, so nothing
else needs keeping), and the stock as a 256-card ring that finished piles are appended to.
"Which rank fits" is one mask of the ranks the slots need (bit value+1 of every slot), so a
policy's choice is a few ANDs and a count-trailing-zeros.

Cycle detection ([The end], ``recycle=bottom`` only: under ``none`` every game ends) runs in two
phases so that it costs almost nothing on games that end:

1. Brent's method with one saved state (from turn 32 on); a 64-bit quick key of the state
   (seat, idle flag, pile lengths, slot values) is compared first and the state is written out
   and compared byte for byte only when the keys agree, so most boundaries cost a handful of
   compares.
2. Only when phase 1 sees a repeat, or reaches the agreed limit (before which a repeat may have
   gone unseen), the game is replayed from its start through the exact state store
   (``_cycle.pxd``: every state kept, hash hits confirmed byte for byte), which finds the first
   repeated state, its entry and its period exactly.

A win or a stalemate in phase 1 is exact: had a state repeated before it, the game would be
periodic from there on and would have ended inside the first period already.
"""

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy, memset

import numpy as np

cimport numpy as cnp

from dealsearch._bits cimport high_bit, low_bit
from dealsearch._cycle cimport (
    brent_free,
    brent_init,
    store_clear,
    store_find_or_add,
    store_free,
    store_init,
    store_marks,
)
from dealsearch._kernel cimport Kernel, KernelResult, set_two_measures

cnp.import_array()

RESULT_COLUMNS = ("outcome", "winner", "first", "turns", "cards", "discards", "piles",
                  "payoff1", "payoff2", "entry_turns", "entry_cards", "period_turns",
                  "period_cards")

cdef enum:
    NATURALS = 0x3FFE           # bits 1..13: the ranks
    JOKER_BIT = 1 << JOKER
    # where a centre play comes from
    NO_PLAY = 0
    FROM_PAYOFF = 1
    FROM_HAND = 2
    FROM_SIDE = 3
    # how a turn ended
    TURN_MOVED = 0
    TURN_IDLE = 1
    TURN_WON = 2
    # how a pass over the game ended, besides an outcome
    PASS_DONE = 0
    PASS_REPLAY = 1             # phase 1 cannot settle the game: replay with the store
    PASS_NO_MEMORY = -1
    # detection modes of a pass
    DETECT_NONE = 0
    DETECT_BRENT = 1
    DETECT_STORE = 2
    # Brent's method starts from the state after this many turns, with a first stretch as
    # long: a repeat is still found within a few periods of the cycle's entry (periods seen
    # are 2-28 turns), and a typical game (70 turns) writes its state out once or twice
    # instead of 8 times.
    BRENT_START = 32


# ---------------------------------------------------------------- piles ([Piles])

# The four slot values and the four side-pile tops are each kept as the bytes of one word:
# updated with word-sized writes, so the word-sized reads that follow (the searches below)
# are forwarded from the store instead of stalling on four byte writes.

cdef inline int byte_of(uint32_t word, int i) noexcept nogil:
    return (word >> (8 * i)) & 0xFF


cdef inline uint32_t with_byte(uint32_t word, int i, int value) noexcept nogil:
    return (word & ~(<uint32_t>0xFF << (8 * i))) | (<uint32_t>value << (8 * i))


cdef inline uint32_t need_mask(const Table* t) noexcept nogil:
    # Bit r is set when a natural of rank r fits some slot (value r-1; an ace: an empty slot).
    cdef uint32_t v = t.values
    return ((1u << ((v & 0xFF) + 1)) | (1u << (((v >> 8) & 0xFF) + 1))
            | (1u << (((v >> 16) & 0xFF) + 1)) | (1u << ((v >> 24) + 1)))


cdef inline int first_equal(uint32_t word, int code) noexcept nogil:
    # The index of the first byte of ``word`` equal to ``code``, -1 if none. Without a branch
    # per byte (these searches run for every card played, and their exits are unpredictable):
    # the classic zero-byte test on the word XOR the code; a false flag can only sit above a
    # true one, so the lowest flag is exact.
    word ^= <uint32_t>code * 0x01010101u
    word = (word - 0x01010101u) & ~word & 0x80808080u
    return (low_bit(word) >> 3) if word else -1


cdef inline int slot_for(const Table* t, int value) noexcept nogil:
    # The lowest-numbered slot of this value (-1 if none).
    return first_equal(t.values, value)


cdef inline uint32_t tops_mask(const Seat* me) noexcept nogil:
    # Bit c for every side-pile top code c (bit 0: an empty pile).
    cdef uint32_t tops = me.tops
    return ((1u << (tops & 0xFF)) | (1u << ((tops >> 8) & 0xFF))
            | (1u << ((tops >> 16) & 0xFF)) | (1u << (tops >> 24)))


cdef inline int pile_with_top(const Seat* me, int code) noexcept nogil:
    # The lowest-numbered side pile whose top is ``code`` (0: empty), -1 if none.
    return first_equal(me.tops, code)


cdef inline bint centre_full(const Table* t) noexcept nogil:
    return ((t.values - 0x01010101u) & ~t.values & 0x80808080u) == 0   # no slot empty


cdef inline void add_to_hand(Seat* me, int code) noexcept nogil:
    me.hand[code] += 1
    me.hand_n += 1
    me.hand_mask |= 1u << code


cdef inline void take_from_hand(Seat* me, int code) noexcept nogil:
    me.hand[code] -= 1
    me.hand_n -= 1
    if me.hand[code] == 0:
        me.hand_mask &= ~(1u << code)


cdef inline void push_side(Seat* me, int pile, int code) noexcept nogil:
    me.side[pile][me.side_n[pile]] = <uint8_t>code
    me.side_n[pile] += 1
    me.tops = with_byte(me.tops, pile, code)


cdef inline int pop_side(Seat* me, int pile) noexcept nogil:
    cdef int code = byte_of(me.tops, pile)
    me.side_n[pile] -= 1
    me.tops = with_byte(me.tops, pile,
                        me.side[pile][me.side_n[pile] - 1] if me.side_n[pile] else 0)
    return code


cdef inline void draw(Table* t, Seat* me) noexcept nogil:
    # [A turn, step 1]: from the top of the stock until the hand holds 5 cards or the stock is
    # empty.
    while me.hand_n < HAND_SIZE and t.stock_n:
        add_to_hand(me, t.stock[t.stock_at])
        t.stock_at = (t.stock_at + 1) & (PILE_CAP - 1)
        t.stock_n -= 1


cdef inline void to_centre(Table* t, const Rules* rules, int code, int slot) noexcept nogil:
    # One card onto a slot; a pile of 13 is finished at once ([Piles], [A turn] 2a).
    cdef int i, tail, value = byte_of(t.values, slot)
    cdef uint32_t jokers
    if code == JOKER:
        t.jokers[slot] |= 1u << value
    t.values += 1u << (8 * slot)
    if value + 1 == PILE_DONE:
        if rules.recycle:     # under the stock in the order played: the bottom card first
            jokers = t.jokers[slot]
            tail = t.stock_at + t.stock_n
            for i in range(PILE_DONE):
                t.stock[(tail + i) & (PILE_CAP - 1)] = JOKER if (jokers >> i) & 1 else i + 1
            t.stock_n += PILE_DONE
        t.values = with_byte(t.values, slot, 0)
        t.jokers[slot] = 0
        t.piles += 1


cdef inline bint may_discard(const Table* t, const Rules* rules, int code,
                             int top) noexcept nogil:
    # [Piles] side piles: may a card go on a side pile with this top (0: empty)?
    if rules.free_sides or top == 0 or code == JOKER or top == JOKER or top == code:
        return True
    if top == code + 1:
        return code > 2 or centre_full(t)   # a 2 on a 3, an ace on a 2: centre built
    return False


# ---------------------------------------------------------------- the policies ([Policies])
#
# Everything a player chooses is decided here, in the contract's words. A policy sees its own
# hand and side piles, both pay-off tops and the centre. A rank "fits" when a slot has value
# rank-1, and is played on the lowest-numbered such slot. Centre plays are chosen one at a
# time (the first rule that gives a play; then again from rule 1); when no rule gives a play,
# the player discards.

cdef inline int joker_bridge(const Table* t, const Seat* me, int* which,
                             int* slot) noexcept nogil:
    # greedy 3 / cautious 4, the joker bridge: if the pay-off top has rank r >= 2 and a slot
    # has value r-2, play a joker on the lowest-numbered such slot, taken from the
    # lowest-numbered side pile whose top is a joker, else from the hand.
    cdef int top = me.payoff[me.payoff_at]
    if top < 2:
        return NO_PLAY
    slot[0] = slot_for(t, top - 2)
    if slot[0] < 0:
        return NO_PLAY
    which[0] = pile_with_top(me, JOKER)
    if which[0] >= 0:
        return FROM_SIDE
    if me.hand[JOKER]:
        which[0] = JOKER
        return FROM_HAND
    return NO_PLAY


cdef inline int greedy_play(const Table* t, const Seat* me, int* which,
                            int* slot) noexcept nogil:
    cdef uint32_t need = need_mask(t)
    cdef int top = me.payoff[me.payoff_at]
    cdef uint32_t side, fits
    cdef int rank
    # 1. The pay-off top, if it fits.
    if (need >> top) & 1:
        slot[0] = slot_for(t, top - 1)
        return FROM_PAYOFF
    # 2. Else the lowest-ranked natural that fits among the side-pile tops and the hand; on
    #    equal rank, a side-pile top before a hand card, lower-numbered side pile first.
    #    (Jokers and empty piles never fit: need has bits 1..13 only.)
    side = tops_mask(me)
    fits = (side | me.hand_mask) & need
    if fits:
        rank = low_bit(fits)
        slot[0] = slot_for(t, rank - 1)
        if (side >> rank) & 1:
            which[0] = pile_with_top(me, rank)
            return FROM_SIDE
        which[0] = rank
        return FROM_HAND
    # 3. Else the joker bridge.
    return joker_bridge(t, me, which, slot)


cdef inline int cautious_play(const Table* t, const Seat* me, const Seat* opponent,
                              int* which, int* slot) noexcept nogil:
    cdef uint32_t need = need_mask(t)
    cdef int top = me.payoff[me.payoff_at]
    cdef uint32_t safe
    cdef int i
    # 1. As greedy 1: the pay-off top, if it fits.
    if (need >> top) & 1:
        slot[0] = slot_for(t, top - 1)
        return FROM_PAYOFF
    # 2. Else an ace, if a slot is empty: from the lowest-numbered side pile with an ace on
    #    top, else from the hand.
    if need & 2:
        slot[0] = slot_for(t, 0)
        which[0] = pile_with_top(me, 1)
        if which[0] >= 0:
            return FROM_SIDE
        if me.hand[1]:
            which[0] = 1
            return FROM_HAND
    # 3. Else a safe natural of rank r >= 2 that fits, safe meaning r != o-1 for the
    #    opponent's pay-off top o: the lowest-numbered side pile whose top is such a card,
    #    else the lowest-ranked such hand card.
    safe = need & ~3u & ~(1u << (opponent.payoff[opponent.payoff_at] - 1))
    for i in range(SLOTS):
        if (safe >> byte_of(me.tops, i)) & 1:
            which[0] = i
            slot[0] = slot_for(t, byte_of(me.tops, i) - 1)
            return FROM_SIDE
    if me.hand_mask & safe:
        which[0] = low_bit(me.hand_mask & safe)
        slot[0] = slot_for(t, which[0] - 1)
        return FROM_HAND
    # 4. Else the joker bridge (greedy 3).
    return joker_bridge(t, me, which, slot)


cdef inline int joker_discard(const Seat* me) noexcept nogil:
    # Both policies, when no natural may be discarded and the hand holds a joker: onto the
    # lowest-numbered empty pile, else the lowest-numbered pile with a joker on top, else
    # pile 1. (A joker may go on any side pile under both side-pile rules.)
    cdef int pile = pile_with_top(me, 0)
    if pile < 0:
        pile = pile_with_top(me, JOKER)
    return pile if pile >= 0 else 0


cdef inline uint32_t one_higher(const Table* t, const Rules* rules,
                                uint32_t naturals, uint32_t tops) noexcept nogil:
    # The natural ranks r of ``naturals`` that may go on a side-pile top of rank r+1:
    # under the seed's rule a 2 on a 3 and an ace on a 2 wait until the centre is built.
    cdef uint32_t ranks = naturals & ((tops & NATURALS) >> 1)
    if not rules.free_sides and not centre_full(t):
        ranks &= ~6u
    return ranks


cdef inline int greedy_discard(const Table* t, const Rules* rules, const Seat* me,
                               int* pile) noexcept nogil:
    # Go through the hand's naturals from the highest rank down; the first rank that has a
    # legal side pile is discarded, onto the first legal pile in this order of preference:
    # top of the same rank; top one rank higher; empty; joker on top; any other (only under
    # free); the lowest-numbered pile within each class. Returns the card code, 0 for none.
    cdef uint32_t tops = tops_mask(me)
    cdef uint32_t naturals = me.hand_mask & NATURALS
    cdef uint32_t legal
    cdef int rank
    if not naturals:
        legal = 0
    elif rules.free_sides or tops & (1u | JOKER_BIT):
        legal = naturals          # an empty pile or a joker takes any card
    else:
        legal = naturals & (tops | one_higher(t, rules, naturals, tops))
    if legal:
        rank = high_bit(legal)
        pile[0] = pile_with_top(me, rank)
        if pile[0] < 0 and (one_higher(t, rules, 1u << rank, tops) >> rank) & 1:
            pile[0] = pile_with_top(me, rank + 1)
        if pile[0] < 0:
            pile[0] = pile_with_top(me, 0)
        if pile[0] < 0:
            pile[0] = pile_with_top(me, JOKER)
        if pile[0] < 0:
            pile[0] = 0           # free: any other, the lowest-numbered pile
        return rank
    if me.hand[JOKER]:
        pile[0] = joker_discard(me)
        return JOKER
    return 0


cdef inline int cautious_discard(const Table* t, const Rules* rules, const Seat* me,
                                 int* pile) noexcept nogil:
    # Among all legal (natural hand card, side pile) pairs, take the best class, in this
    # order: top one rank higher than the card; top of the same rank; empty; joker on top;
    # any other (only under free); within the class the highest card, then the
    # lowest-numbered pile. Returns the card code, 0 for none.
    cdef uint32_t tops = tops_mask(me)
    cdef uint32_t naturals = me.hand_mask & NATURALS
    cdef uint32_t ranks
    cdef int rank
    if naturals:
        ranks = one_higher(t, rules, naturals, tops)
        if ranks:
            rank = high_bit(ranks)
            pile[0] = pile_with_top(me, rank + 1)
            return rank
        ranks = naturals & tops
        if ranks:
            rank = high_bit(ranks)
            pile[0] = pile_with_top(me, rank)
            return rank
        rank = high_bit(naturals)
        if tops & 1:
            pile[0] = pile_with_top(me, 0)
            return rank
        if tops & JOKER_BIT:
            pile[0] = pile_with_top(me, JOKER)
            return rank
        if rules.free_sides:
            pile[0] = 0       # every pile is "any other" for every card here
            return rank
    if me.hand[JOKER]:
        pile[0] = joker_discard(me)
        return JOKER
    return 0


# ---------------------------------------------------------------- a turn ([A turn])

cdef int play_turn(Table* t, const Rules* rules) noexcept nogil:
    # TURN_WON, TURN_IDLE (no card moved) or TURN_MOVED.
    cdef Seat* me = &t.seat[t.to_move]
    cdef const Seat* opponent = &t.seat[1 - t.to_move]
    cdef bint cautious = rules.policy[t.to_move] == CAUTIOUS
    cdef int plays = 0     # centre plays, counted here: t.cards would be reloaded after
    cdef int source, which = 0, slot = 0, code, pile = 0     # every byte stored
    t.turns += 1
    draw(t, me)
    while True:
        if cautious:
            source = cautious_play(t, me, opponent, &which, &slot)
        else:
            source = greedy_play(t, me, &which, &slot)
        if source == NO_PLAY:
            break
        plays += 1
        if source == FROM_PAYOFF:
            code = me.payoff[me.payoff_at]
            me.payoff_at += 1
        elif source == FROM_HAND:
            code = which
            take_from_hand(me, code)
        else:
            code = pop_side(me, which)
        to_centre(t, rules, code, slot)
        if source == FROM_PAYOFF and me.payoff_at == me.payoff_len:
            t.cards += plays
            return TURN_WON
        if me.hand_n == 0:
            draw(t, me)
    if cautious:
        code = cautious_discard(t, rules, me, &pile)
    else:
        code = greedy_discard(t, rules, me, &pile)
    t.cards += plays
    if code:
        take_from_hand(me, code)
        push_side(me, pile, code)
        t.cards += 1
        t.discards += 1
        return TURN_MOVED
    return TURN_MOVED if plays else TURN_IDLE


# ---------------------------------------------------------------- turn-boundary states ([The end])

cdef inline uint64_t quick_key(const Table* t, bint idle) noexcept nogil:
    # A few counts of the state in one word: equal states have equal keys (any function of
    # the state would do; these counts tell most unequal states apart).
    cdef const Seat* a = &t.seat[0]
    cdef const Seat* b = &t.seat[1]
    cdef uint64_t sides = ((a.side_n[0] + a.side_n[1] + a.side_n[2] + a.side_n[3])
                           | (b.side_n[0] + b.side_n[1] + b.side_n[2] + b.side_n[3]) << 8)
    return ((<uint64_t>t.to_move | (<uint64_t>idle << 1)
             | (<uint64_t>(a.payoff_len - a.payoff_at) << 2)
             | (<uint64_t>(b.payoff_len - b.payoff_at) << 10)
             | (<uint64_t>t.stock_n << 18) | (<uint64_t>a.hand_n << 26)
             | (<uint64_t>b.hand_n << 29) | (<uint64_t>t.values << 32)) ^ (sides << 36))


cdef void write_state(const Table* t, bint idle, uint8_t* out, int width) noexcept nogil:
    # The [The end] state as bytes: the seat to move, the idle flag, the pay-off lengths (a pay-off
    # pile only loses its top, so within a game its length is the pile), the hands as counts,
    # the side-pile lengths, the slot values and joker masks, the stock length; then the
    # side-pile cards and the stock cards in order, zero-padded to ``width``.
    cdef int seat, i, k, n = STATE_HEADER, first
    cdef const Seat* me
    out[0] = <uint8_t>t.to_move
    out[1] = <uint8_t>idle
    for seat in range(2):
        me = &t.seat[seat]
        out[2 + seat] = <uint8_t>(me.payoff_len - me.payoff_at)
        memcpy(out + 4 + 14 * seat, &me.hand[1], 14)
        for i in range(SLOTS):
            out[32 + SLOTS * seat + i] = <uint8_t>me.side_n[i]
            for k in range(me.side_n[i]):     # a few cards: cheaper than a call to memcpy
                out[n + k] = me.side[i][k]
            n += me.side_n[i]
    for i in range(SLOTS):
        out[40 + i] = <uint8_t>byte_of(t.values, i)
        out[44 + 2 * i] = <uint8_t>(t.jokers[i] & 0xFF)
        out[45 + 2 * i] = <uint8_t>(t.jokers[i] >> 8)
    out[52] = <uint8_t>t.stock_n
    first = PILE_CAP - t.stock_at
    if first >= t.stock_n:
        memcpy(out + n, &t.stock[t.stock_at], t.stock_n)
    else:
        memcpy(out + n, &t.stock[t.stock_at], first)
        memcpy(out + n + first, t.stock, t.stock_n - first)
    n += t.stock_n
    memset(out + n, 0, width - n)


cdef inline bint brent_repeats_lazily(Context* ctx, const Table* t, bint idle) noexcept nogil:
    # Brent's step (``_cycle.brent_repeats``) with the quick key in front: the state is
    # written out only when its key equals the saved state's key, or when it is saved.
    cdef uint64_t key = quick_key(t, idle)
    if key == ctx.brent_key:
        write_state(t, idle, ctx.state, ctx.width)
        if memcmp(ctx.state, ctx.brent.saved, ctx.width) == 0:
            return True
    ctx.brent.lam += 1
    if ctx.brent.lam == ctx.brent.power:
        write_state(t, idle, ctx.brent.saved, ctx.width)
        ctx.brent_key = key
        ctx.brent.power *= 2
        ctx.brent.lam = 0
    return False


# ---------------------------------------------------------------- a game ([The deal], [The end])

cdef void deal_table(const uint8_t* row, Table* t) noexcept nogil:
    # [The deal]: deck 1 cut in half into the pay-off piles; the seat with the higher pay-off top
    # moves first (seat 1 on equal ranks); deck 2 dealt one card at a time, first player first; the
    # rest is the stock.
    cdef int seat, i, first = 1 if row[26] > row[0] else 0
    cdef Seat* me
    for seat in range(2):
        me = &t.seat[seat]
        memcpy(me.payoff, row + 26 * seat, 26)
        me.payoff_at = 0
        me.payoff_len = 26
        memset(me.hand, 0, sizeof(me.hand))
        me.hand_n = 0
        me.hand_mask = 0
        me.tops = 0
        for i in range(SLOTS):
            me.side_n[i] = 0
    for i in range(10):
        add_to_hand(&t.seat[first if i % 2 == 0 else 1 - first], row[52 + i])
    memcpy(t.stock, row + 62, DEAL_CARDS - 62)
    t.stock_at = 0
    t.stock_n = DEAL_CARDS - 62
    t.values = 0
    for i in range(SLOTS):
        t.jokers[i] = 0
    t.to_move = first
    t.turns = t.cards = t.discards = t.piles = 0


cdef inline void load(Context* ctx) noexcept nogil:
    if ctx.row != NULL:
        deal_table(ctx.row, &ctx.table)
    else:
        memcpy(&ctx.table, &ctx.start, sizeof(Table))


cdef void finish(const Table* t, int outcome, Result* result) noexcept nogil:
    cdef int64_t left0 = t.seat[0].payoff_len - t.seat[0].payoff_at
    cdef int64_t left1 = t.seat[1].payoff_len - t.seat[1].payoff_at
    result.outcome = outcome
    if outcome == OUTCOME_WIN:
        result.winner = t.to_move + 1
    elif outcome == OUTCOME_CYCLE or left0 == left1:
        result.winner = 0
    else:
        result.winner = 1 if left0 < left1 else 2
    result.turns = t.turns
    result.cards = t.cards
    result.discards = t.discards
    result.piles = t.piles
    result.payoff[0] = left0
    result.payoff[1] = left1
    result.entry_turns = result.entry_cards = 0
    result.period_turns = result.period_cards = 0


cdef int play_pass(Context* ctx, int detect, Result* result) noexcept nogil:
    # Play from the start. At each turn boundary check in order: stalemate, repetition, limit
    # ([The end]). Returns PASS_DONE with ``result`` filled, PASS_REPLAY when a Brent pass cannot
    # settle the game exactly, or PASS_NO_MEMORY.
    cdef Table* t = &ctx.table
    cdef bint idle = False, last_idle = False
    cdef int turn, index
    cdef int64_t marks[2]
    cdef const int64_t* entry
    load(ctx)
    result.first = t.to_move + 1
    if detect == DETECT_STORE:
        store_clear(&ctx.store)
    while True:
        if detect == DETECT_STORE:
            write_state(t, idle, ctx.state, ctx.width)
            marks[0] = t.turns
            marks[1] = t.cards
            index = store_find_or_add(&ctx.store, ctx.state, marks)
            if index == -2:
                return PASS_NO_MEMORY
            if index >= 0:
                finish(t, OUTCOME_CYCLE, result)
                entry = store_marks(&ctx.store, index)
                result.entry_turns = entry[0]
                result.entry_cards = entry[1]
                result.period_turns = t.turns - entry[0]
                result.period_cards = t.cards - entry[1]
                return PASS_DONE
        elif detect == DETECT_BRENT and t.turns >= BRENT_START:
            if t.turns == BRENT_START:
                write_state(t, idle, ctx.brent.saved, ctx.width)
                ctx.brent_key = quick_key(t, idle)
                ctx.brent.power = BRENT_START
                ctx.brent.lam = 0
            elif brent_repeats_lazily(ctx, t, idle):
                return PASS_REPLAY
        if 0 <= ctx.rules.max_turns <= t.turns:
            if detect == DETECT_BRENT:
                return PASS_REPLAY
            finish(t, OUTCOME_LIMIT, result)
            return PASS_DONE
        turn = play_turn(t, &ctx.rules)
        if turn == TURN_WON:
            finish(t, OUTCOME_WIN, result)
            return PASS_DONE
        t.to_move = 1 - t.to_move
        idle = turn == TURN_IDLE
        if idle and last_idle:
            finish(t, OUTCOME_STALEMATE, result)
            return PASS_DONE
        last_idle = idle


cdef int play_game(Context* ctx, Result* result) noexcept nogil:
    # The game from ctx.row (or ctx.start) to its end: 0, or -1 when memory ran out.
    cdef int status
    if not ctx.rules.recycle:
        status = play_pass(ctx, DETECT_NONE, result)
    else:
        status = play_pass(ctx, DETECT_BRENT, result)
        if status == PASS_REPLAY:
            status = play_pass(ctx, DETECT_STORE, result)
    return -1 if status == PASS_NO_MEMORY else 0


cdef int play_deal(Context* ctx, const uint8_t* row, Result* result) noexcept nogil:
    ctx.row = row
    return play_game(ctx, result)


cdef int context_init(Context* ctx, const Rules* rules, int n_cards) noexcept nogil:
    ctx.rules = rules[0]
    ctx.width = STATE_HEADER + n_cards
    ctx.row = NULL
    ctx.state = <uint8_t*>malloc(ctx.width)
    if brent_init(&ctx.brent, ctx.width) != 0 or store_init(&ctx.store, ctx.width, 2) != 0:
        return -1
    return 0 if ctx.state != NULL else -1


cdef void context_free(Context* ctx) noexcept nogil:
    brent_free(&ctx.brent)
    store_free(&ctx.store)
    free(ctx.state)
    ctx.state = NULL


cdef int kernel_play_row(void* context, const uint8_t* row,
                         KernelResult* result) noexcept nogil:
    # The Kernel's function pointer: measures (turns, cards), entry and period of a deal.
    cdef Result game
    if play_deal(<Context*>context, row, &game) != 0:
        return -1
    set_two_measures(result, game.outcome, game.turns, game.cards, game.entry_turns,
                     game.entry_cards, game.period_turns, game.period_cards)
    return 0


# ---------------------------------------------------------------- Python entry points

cdef void result_row(const Result* game, int64_t* out) noexcept nogil:
    # One row of RESULT_COLUMNS.
    out[0] = game.outcome
    out[1] = game.winner
    out[2] = game.first
    out[3] = game.turns
    out[4] = game.cards
    out[5] = game.discards
    out[6] = game.piles
    out[7] = game.payoff[0]
    out[8] = game.payoff[1]
    out[9] = game.entry_turns
    out[10] = game.entry_cards
    out[11] = game.period_turns
    out[12] = game.period_cards


cdef class Engine:
    """Spite and Malice under fixed rules, with its own scratch memory (one thread).

    ``policies`` holds 0 (greedy) or 1 (cautious) per seat; ``max_turns`` is -1 for no limit.
    """

    cdef Rules rules
    cdef Context* ctx               # for deals: states of DEAL_CARDS cards
    cdef readonly tuple settings

    def __cinit__(self, *args, **kwargs):
        self.ctx = NULL

    def __init__(self, bint recycle, bint free_sides, policies, max_turns):
        try:
            policies = tuple(policies)
        except TypeError:
            policies = None
        if (policies is None or len(policies) != 2
                or any(p not in (GREEDY, CAUTIOUS) for p in policies)):
            raise ValueError(f"policies must be two of 0 (greedy), 1 (cautious), "
                             f"not {policies!r}")
        if (isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer))
                or not -1 <= max_turns < 2 ** 63 or max_turns == 0):
            raise ValueError(f"max_turns must be positive or -1 (none), not {max_turns}")
        self.rules.recycle = recycle
        self.rules.free_sides = free_sides
        self.rules.policy[0] = policies[0]
        self.rules.policy[1] = policies[1]
        self.rules.max_turns = max_turns
        self.settings = (recycle, free_sides, tuple(policies), max_turns)
        drop_context(self.ctx)          # __init__ may be called again
        self.ctx = NULL
        self.ctx = new_context(&self.rules, DEAL_CARDS)

    def __dealloc__(self):
        drop_context(self.ctx)

    cdef int need_init(self) except -1:
        if self.ctx == NULL:            # made by __new__ alone: no memory to play in
            raise ValueError("this Engine was never initialised: call Engine(...)")
        return 0

    def play_rows(self, rows):
        """Play every row (deals of 108 codes): an int64 array, one RESULT_COLUMNS row each.

        Raises MemoryError if the cycle detector's memory runs out.
        """
        self.need_init()
        cdef cnp.ndarray[cnp.uint8_t, ndim=2] cards = checked_rows(rows)
        cdef Py_ssize_t n = cards.shape[0], i
        cdef cnp.ndarray[cnp.int64_t, ndim=2] out = np.zeros((n, N_COLUMNS), dtype=np.int64)
        cdef Result game
        cdef int status = 0
        with nogil:
            for i in range(n):
                if play_deal(self.ctx, &cards[i, 0], &game) != 0:
                    status = -1
                    break
                result_row(&game, &out[i, 0])
        if status:
            raise MemoryError("the cycle detector ran out of memory")
        return out

    def play_position(self, packed):
        """Play a position packed as ``notation.Position.packed`` describes: one row of
        RESULT_COLUMNS as a tuple."""
        self.need_init()
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] data = np.ascontiguousarray(
            _bytes("a packed position", packed), dtype=np.uint8)
        cdef Result game
        cdef int64_t out[N_COLUMNS]
        cdef int status
        # a state holds every card of the position: 17 length bytes and the turn aside
        cdef Context* ctx = new_context(&self.rules, max(0, data.shape[0] - 18))
        try:
            unpack_position(data, &ctx.start)
            ctx.row = NULL
            with nogil:
                status = play_game(ctx, &game)
        finally:
            drop_context(ctx)
        if status:
            raise MemoryError("the cycle detector ran out of memory")
        result_row(&game, out)
        return tuple(out[i] for i in range(N_COLUMNS))

    def cycle_positions(self, row):
        """The packed positions (``notation.Position.packed``) of the turn-boundary states
        of the cycle a deal enters, each after a busy (not idle) turn, in order of play; None
        if the game ends. The cycle catalogue keys a cycle by them."""
        self.need_init()
        cdef cnp.ndarray[cnp.uint8_t, ndim=2] cards = checked_rows(np.reshape(row, (1, -1)))
        cdef Result game
        cdef Table* t = &self.ctx.table
        cdef int turn
        if play_deal(self.ctx, &cards[0, 0], &game) != 0:
            raise MemoryError("the cycle detector ran out of memory")
        if game.outcome != OUTCOME_CYCLE:
            return None
        load(self.ctx)
        positions = []
        while t.turns < game.entry_turns + game.period_turns:
            turn = play_turn(t, &self.rules)
            t.to_move = 1 - t.to_move
            if t.turns > game.entry_turns and turn != TURN_IDLE:
                positions.append(pack_table(t))
        return positions

    def kernel(self):
        """A new :class:`~dealsearch._kernel.Kernel` under these rules (its own memory)."""
        self.need_init()
        recycle, free_sides, policies, max_turns = self.settings
        owner = Engine(recycle, free_sides, policies, max_turns)
        cdef Kernel kernel = Kernel()
        kernel.play_row = kernel_play_row
        kernel.context = <void*>(<Engine>owner).ctx
        kernel.n_cards = DEAL_CARDS
        kernel.n_measures = 2
        kernel.owner = owner
        kernel.row_check = lambda row: checked_rows(row[None, :])
        return kernel


def _bytes(name, values):
    """``values`` as an array of whole numbers 0-255 (not yet uint8: 257 would wrap to 1)."""
    array = np.asarray(values)
    if array.dtype.kind not in "biu":
        raise ValueError(f"{name} must hold whole numbers, not {array.dtype}")
    if array.size and (array.min() < 0 or array.max() > 255):
        raise ValueError(f"{name} must hold numbers 0 to 255")
    return array


def checked_rows(rows):
    """``rows`` as a C-contiguous uint8 array of deals, checked (ValueError naming the fault)."""
    cards = np.ascontiguousarray(_bytes("a row", rows), dtype=np.uint8)
    if cards.ndim != 2 or cards.shape[1] != DEAL_CARDS:
        raise ValueError(f"Spite and Malice rows have {DEAL_CARDS} cards, not shape "
                         f"{cards.shape}")
    if cards.shape[0] and (cards.min() < 1 or cards.max() > JOKER
                           or (cards[:, :52] == JOKER).any()):
        raise ValueError("a row holds card codes 1-14, and no joker (14) in deck 1")
    # [The deal]: "deck1: 52 cards, four of each rank, no joker. deck2: 56 cards, four of each rank
    # and four jokers. Anything else is an input error."
    ranks = np.repeat(np.arange(1, JOKER, dtype=np.uint8), 4)
    if cards.shape[0] and not (
            (np.sort(cards[:, :52], axis=1) == ranks).all()
            and (np.sort(cards[:, 52:], axis=1)
                 == np.append(ranks, np.full(4, JOKER, dtype=np.uint8))).all()):
        raise ValueError("a row holds deck 1 (ranks 1-13 four times each) and then deck 2 "
                         "(the same and four jokers)")
    return cards


cdef bytes pack_table(const Table* t):
    # The table as Position.packed: the turn, then 17 piles (length, cards): pay-off piles
    # (top first), hands (sorted), side piles, centre slots (bottom first), the stock (top
    # first).
    cdef int seat, i, code, n
    cdef const Seat* me
    out = bytearray([t.to_move + 1])
    for seat in range(2):
        me = &t.seat[seat]
        n = me.payoff_len - me.payoff_at
        out.append(n)
        out += me.payoff[me.payoff_at:me.payoff_len]
    for seat in range(2):
        me = &t.seat[seat]
        out.append(me.hand_n)
        for code in range(1, JOKER + 1):
            out += bytes([code]) * me.hand[code]
    for seat in range(2):
        me = &t.seat[seat]
        for i in range(SLOTS):
            out.append(me.side_n[i])
            out += me.side[i][:me.side_n[i]]
    for i in range(SLOTS):
        out.append(byte_of(t.values, i))
        for code in range(byte_of(t.values, i)):
            out.append(JOKER if (t.jokers[i] >> code) & 1 else code + 1)
    out.append(t.stock_n)
    for i in range(t.stock_n):
        out.append(t.stock[(t.stock_at + i) & (PILE_CAP - 1)])
    return bytes(out)


cdef Context* new_context(const Rules* rules, int n_cards) except NULL:
    cdef Context* ctx = <Context*>malloc(sizeof(Context))
    if ctx == NULL:
        raise MemoryError("no memory for a Spite and Malice engine")
    memset(ctx, 0, sizeof(Context))
    if context_init(ctx, rules, n_cards) != 0:
        drop_context(ctx)
        raise MemoryError("no memory for a Spite and Malice engine")
    return ctx


cdef void drop_context(Context* ctx) noexcept:
    if ctx != NULL:
        context_free(ctx)
        free(ctx)


cdef void unpack_position(const uint8_t[::1] data, Table* t) except *:
    # The 17 piles of Position.packed into a table, checked (ValueError naming the fault).
    cdef Py_ssize_t at = 1
    cdef int pile, length, i, code, seat, total = 0
    if data.shape[0] < 18 or data[0] not in (1, 2):
        raise ValueError("a packed position starts with the turn (1 or 2) and has 17 piles")
    memset(t, 0, sizeof(Table))
    t.to_move = data[0] - 1
    for pile in range(17):
        if at >= data.shape[0] or at + 1 + data[at] > data.shape[0]:
            raise ValueError(f"packed position: pile {pile + 1} runs past the end")
        length = data[at]
        total += length
        at += 1
        for i in range(length):
            code = data[at + i]
            if code < 1 or code > JOKER:
                raise ValueError(f"packed position: pile {pile + 1} holds code {code}")
            if pile < 2 and code == JOKER:
                raise ValueError(f"packed position: pay-off {pile + 1} holds a joker")
            if 12 <= pile < 16 and code != JOKER and code != i + 1:
                raise ValueError(f"packed position: centre slot {pile - 11} skips a rank")
        if pile < 2:                                  # pay-off piles, top first
            if length == 0:
                raise ValueError(f"packed position: pay-off {pile + 1} is empty")
            memcpy(t.seat[pile].payoff, &data[at], length)
            t.seat[pile].payoff_len = length
        elif pile < 4:                                # hands
            if length > HAND_SIZE:
                raise ValueError(f"packed position: hand {pile - 1} has {length} cards")
            for i in range(length):
                add_to_hand(&t.seat[pile - 2], data[at + i])
        elif pile < 12:                               # side piles, bottom first
            seat = (pile - 4) // SLOTS
            for i in range(length):
                push_side(&t.seat[seat], (pile - 4) % SLOTS, data[at + i])
        elif pile < 16:                               # centre slots, bottom first
            if length >= PILE_DONE:
                raise ValueError(f"packed position: centre slot {pile - 11} has {length} "
                                 f"cards")
            for i in range(length):
                if data[at + i] == JOKER:
                    t.jokers[pile - 12] |= 1u << i
            t.values = with_byte(t.values, pile - 12, length)
        else:                                         # the stock, top first
            memcpy(t.stock, &data[at], length)
            t.stock_n = length
        at += length
    if at != data.shape[0]:
        raise ValueError("packed position: bytes after the stock")
    if total >= PILE_CAP:
        raise ValueError(f"packed position: {total} cards, at most {PILE_CAP - 1}")

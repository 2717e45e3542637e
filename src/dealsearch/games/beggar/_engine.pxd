# The compiled game loop's C-level API: what other Cython modules may cimport.
from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t

from dealsearch._cycle cimport StateStore, store_find_or_add, store_free, store_init, store_marks
from dealsearch._random cimport Rng

cdef enum:
    MAX_SEATS = 4
    MAX_CLASSES = 8
    PLANES = 3          # bits per card class: classes 0..7
    PLANE_CARDS = 64    # deals up to this size play on bit-planes, larger ones on _ring
    MAX_CARDS = 65535   # the largest deal the entry points accept
    OUTCOME_WIN = 0
    OUTCOME_CYCLE = 1
    OUTCOME_LIMIT = 2
    STATE_WORDS = 4 * MAX_SEATS + 1     # a trick-boundary state for the exact store
    RESULT_COLUMNS = 7  # a find's result row: outcome, cards, tricks, entry and period


# A hand (or the pile) as bit-planes: bit i of plane b is bit b of the class of the card at
# position i (0 = top). Numerals are class 0, so court cards are the set bits of the OR of the
# planes, the next court card is one count-trailing-zeros away, and taking a pile is a
# shift-and-or.
cdef struct Hand:
    uint64_t plane[PLANES]
    int length


cdef struct Table:
    # What the loop needs of the rules, the deal and the limit.
    uint8_t payment[8]
    int seats
    int total
    int64_t max_cards       # INT64_MAX when there is no limit
    int64_t max_tricks


cdef struct Outcome:
    int outcome             # OUTCOME_*
    int winner              # 0-based seat, -1 for none
    int64_t cards
    int64_t tricks
    int n_out
    int8_t out[MAX_SEATS]   # 0-based seats in the order they went out
    int64_t entry_cards
    int64_t entry_tricks
    int64_t period_cards
    int64_t period_tricks


cdef struct Snapshot:
    # A trick-boundary state (the pile is empty): phase 1's saved state.
    Hand hand[MAX_SEATS]
    int to_move


cdef struct Scratch:
    # A thread's memory for playing deals of one size: the bit-plane engine's exact store
    # (phase 2 of the cycle detector) and, for deals of more than PLANE_CARDS cards (or if
    # asked), the ring engine's: a _ring.Ring, NULL when deals play on bit-planes, opaque here
    # so that this file and _ring.pxd need not cimport each other.
    StateStore det
    void* ring


cdef inline int detector_init(StateStore* det) noexcept nogil:
    # The bit-plane engine's exact store (STATE_WORDS words a state, marked with cards and
    # tricks); free it with store_free.
    return store_init(det, STATE_WORDS * sizeof(uint64_t), 2)


# The seats' bookkeeping both engines (this one and _ring) keep as they play.

cdef inline int leave(Outcome* res, uint8_t* alive, int* succ, int seat, int seats,
                      int n_alive) noexcept nogil:
    # ``seat`` is out: recorded, and unlinked from the ring of seats still in; how many are.
    cdef int s
    res.out[res.n_out] = <int8_t>seat
    res.n_out += 1
    alive[seat] = 0
    for s in range(seats):
        if alive[s] and succ[s] == seat:
            succ[s] = succ[seat]
    return n_alive - 1


cdef inline void rest_out(Outcome* res, const int* succ, int owner, int n_alive) noexcept nogil:
    # ``owner`` holds every card: the other players still in go out, in turn after them.
    cdef int seat = owner, _r
    for _r in range(n_alive - 1):
        seat = succ[seat]
        res.out[res.n_out] = <int8_t>seat
        res.n_out += 1


cdef inline void stop_at_limit(Outcome* res, const int* lengths, int seats, int64_t cards,
                               int64_t tricks) noexcept nogil:
    # The agreed limit: the player holding most cards (``lengths``) wins, none on a tie.
    cdef int seat, best = -1
    res.outcome = OUTCOME_LIMIT
    res.winner = -1
    for seat in range(seats):
        if lengths[seat] > best:
            best, res.winner = lengths[seat], seat
        elif lengths[seat] == best:
            res.winner = -1
    res.cards, res.tricks = cards, tricks


cdef inline int first_repeat(StateStore* store, const uint8_t* state, int64_t cards,
                             int64_t tricks, Outcome* res) noexcept nogil:
    # Phase 2 of either engine at a trick boundary: store the state; at its first repeat fill
    # ``res`` with the cycle and return 1; 0 for a new state, -2 if the store cannot grow.
    cdef int64_t marks[2]
    marks[0], marks[1] = cards, tricks
    cdef int found = store_find_or_add(store, state, marks)
    if found == -2:
        return -2
    if found < 0:
        return 0
    res.outcome = OUTCOME_CYCLE
    res.winner = -1
    res.cards, res.tricks = cards, tricks
    res.entry_cards = store_marks(store, found)[0]
    res.entry_tricks = store_marks(store, found)[1]
    res.period_cards = cards - res.entry_cards
    res.period_tricks = tricks - res.entry_tricks
    return 1


cdef int play_game(const Table* table, const Hand* start, StateStore* det,
                   Outcome* result) noexcept nogil
cdef void deal_hands(const uint8_t* cards, const int* sizes, int seats,
                     Hand* hands) noexcept nogil
cdef int scratch_init(Scratch* scratch, int total, bint rings) noexcept nogil
cdef void scratch_free(Scratch* scratch) noexcept nogil
cdef int play_cards(const Table* table, const uint8_t* row, const int* sizes, Scratch* scratch,
                    Outcome* result) noexcept nogil
cdef int fill_table(Table* t, int* size_of, object sizes, object payments, Py_ssize_t total,
                    object max_cards, object max_tricks) except -1


cdef struct RowResults:
    # play_rows' arrays (see row_results), written a deal at a time by put_result.
    uint8_t* outcome
    int8_t* winner          # 0-based, -1 for none
    int64_t* cards
    int64_t* tricks
    int8_t* out             # seats a row: 0-based seats in the order they went out, -1 after
    int64_t* cycle          # 4 a row: entry_cards, entry_tricks, period_cards, period_tricks
    int seats


cdef object rows_setup(deals, sizes, payments, max_cards, max_tricks, Table* table,
                       int* size_of, RowResults* into)
cdef object row_results(Py_ssize_t n, int seats, RowResults* into)


cdef inline void put_result(const RowResults* r, Py_ssize_t row, const Outcome* res) noexcept nogil:
    cdef int seat
    r.outcome[row] = <uint8_t>res.outcome
    r.winner[row] = <int8_t>res.winner
    r.cards[row] = res.cards
    r.tricks[row] = res.tricks
    for seat in range(res.n_out):
        r.out[row * r.seats + seat] = res.out[seat]
    r.cycle[4 * row] = res.entry_cards
    r.cycle[4 * row + 1] = res.entry_tricks
    r.cycle[4 * row + 2] = res.period_cards
    r.cycle[4 * row + 3] = res.period_tricks


# Bit-planes and rows, shared by this engine and the lanes (_lanes.pyx): a deal held as
# bit-planes (bit i: card i of the row) cut into its hands, made from a row and written back
# as one.
cdef inline void split_deal(const uint64_t* planes, const int* sizes, int seats,
                            Hand* hands) noexcept nogil:
    cdef int seat, b, offset = 0
    cdef uint64_t mask
    for seat in range(seats):
        # sizes[seat] < 64: with two or more hands, none holds the whole deck
        mask = ((<uint64_t>1) << sizes[seat]) - 1
        for b in range(PLANES):
            hands[seat].plane[b] = (planes[b] >> offset) & mask
        hands[seat].length = sizes[seat]
        offset += sizes[seat]


cdef inline void row_to_planes(const uint8_t* row, int n_cards, uint64_t* planes) noexcept nogil:
    cdef int bit
    cdef uint64_t cls
    planes[0] = planes[1] = planes[2] = 0
    for bit in range(n_cards):
        cls = row[bit]
        planes[0] |= (cls & 1) << bit
        planes[1] |= ((cls >> 1) & 1) << bit
        planes[2] |= ((cls >> 2) & 1) << bit


cdef inline void planes_to_row(const uint64_t* planes, int n_cards, uint8_t* row) noexcept nogil:
    cdef int i
    for i in range(n_cards):
        row[i] = <uint8_t>(((planes[0] >> i) & 1) | (((planes[1] >> i) & 1) << 1)
                           | (((planes[2] >> i) & 1) << 2))


# What a player counts of each game it plays: the lanes' RandomPlayer and BlockPlayer, and the
# climber (which keeps only cycles: best INT64_MAX).
cdef struct Tally:
    int64_t* counts         # games per outcome code
    int64_t* card_hist      # NULL: no histograms
    int64_t* trick_hist
    Py_ssize_t card_top     # the last bin of each (it takes every longer game)
    Py_ssize_t trick_top
    int card_bin            # cards per bin of card_hist (trick_hist: one trick per bin)
    int64_t cards           # totals over the games counted
    int64_t tricks
    int64_t best            # the longest finished game so far, by the objective
    bint by_tricks          # the objective: tricks (else cards)


cdef Tally start_tally(int64_t[::1] counts, int64_t[::1] card_hist,
                       int64_t[::1] trick_hist, int card_bin, int64_t best, bint by_tricks)


cdef inline bint tally(Tally* t, const Outcome* res) noexcept nogil:
    # Count one game; whether it is a find: any cycle, or a win longer than every one before.
    cdef int64_t score = res.tricks if t.by_tricks else res.cards
    t.counts[res.outcome] += 1
    t.cards += res.cards
    t.tricks += res.tricks
    if t.card_hist != NULL:
        t.card_hist[min(res.cards // t.card_bin, t.card_top)] += 1
        t.trick_hist[min(res.tricks, t.trick_top)] += 1
    if res.outcome == OUTCOME_CYCLE:
        return True
    if res.outcome == OUTCOME_WIN and score > t.best:
        t.best = score
        return True
    return False


cdef inline void store_result(const Outcome* res, int64_t* row) noexcept nogil:
    # A find's result row in the framework's shape (dealsearch.search._generic): outcome,
    # measures (cards, tricks), entry (cards, tricks), period (cards, tricks).
    row[0], row[1], row[2] = res.outcome, res.cards, res.tricks
    row[3], row[4] = res.entry_cards, res.entry_tricks
    row[5], row[6] = res.period_cards, res.period_tricks


cdef class _Dealer:
    # A deck dealt at random: bit-planes up to 64 cards (_deals.h's counter-based dealer),
    # a row of card classes above (_random's generator, in sequence).
    cdef uint8_t[::1] courts        # bit-planes: the court cards' classes, ascending
    cdef uint8_t[::1] deck          # rows: every card of the deck, ascending
    cdef readonly int n_courts
    cdef readonly int n_cards
    cdef void deal(self, Rng* rng, uint64_t key, uint64_t index, uint64_t* planes,
                   uint8_t* row) noexcept nogil

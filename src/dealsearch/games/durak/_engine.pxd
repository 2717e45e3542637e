# The compiled Durak engine's C-level API (what other compiled modules may cimport).
#
# Cards are codes (rank - 2) * 4 + suit (see notation.py), so a hand is a 64-bit mask with bit
# ``code`` set for each card held; among non-trumps, lower bit = lower value ([Cards]).
from libc.stdint cimport int64_t, uint8_t, uint64_t

from dealsearch._cycle cimport StateStore

cdef enum:
    MAX_PLAYERS = 6
    MAX_DECK = 52
    HAND_SIZE = 6
    CHEAPEST = 0        # policy codes: the index in options.POLICIES
    AGGRESSIVE = 1
    OUTCOME_WIN = 0     # outcome codes: the index in DurakGame.outcomes
    OUTCOME_DRAW = 1
    OUTCOME_CYCLE = 2
    OUTCOME_LIMIT = 3


cdef struct Rules:
    int players
    int deck
    bint transfers
    bint pairs
    bint first_transfer
    bint show_trump
    bint throw_after_take
    int first_limit
    int policy[MAX_PLAYERS]
    int64_t max_bouts           # below 0: no agreed limit


cdef struct Table:
    # Everything at a bout boundary plus the counts so far.
    uint64_t hand[MAX_PLAYERS]
    uint8_t talon[MAX_DECK]     # draw order; talon[talon_top] is drawn next
    int talon_top
    int talon_end
    uint64_t trumps             # mask of every card of the trump suit
    int attacker
    bint first
    bint is_out[MAX_PLAYERS]
    int out[MAX_PLAYERS]        # seats (0-based) in the order they went out
    int n_out
    int64_t bouts
    int64_t cards
    int64_t takes
    int64_t transfers


cdef struct Outcome:
    int outcome
    int loser                   # 0-based seat, -1 for none
    int losing_pair             # 0: seats 1+3, 1: seats 2+4, -1: none
    int n_out
    int out[MAX_PLAYERS]
    int64_t bouts
    int64_t cards
    int64_t takes
    int64_t transfers
    int64_t entry_bouts
    int64_t entry_cards
    int64_t period_bouts
    int64_t period_cards


cdef void deal_row(const Rules* rules, const uint8_t* row, Table* table) noexcept nogil
cdef void start_outs(const Rules* rules, Table* table) noexcept nogil
cdef int state_width(const Rules* rules) noexcept nogil
cdef int play_table(const Rules* rules, Table* table, StateStore* store,
                    Outcome* outcome) noexcept nogil

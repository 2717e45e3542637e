# The compiled Spite and Malice engine's C-level API: what other Cython modules may cimport.
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from dealsearch._cycle cimport Brent, StateStore
from dealsearch._kernel cimport KernelResult

cdef enum:
    JOKER = 14              # card codes: ranks A=1 .. K=13, the joker 14
    HAND_SIZE = 5
    SLOTS = 4               # centre slots, and side piles per seat
    PILE_DONE = 13          # a centre pile of 13 cards is finished at once
    PILE_CAP = 256          # cards a pile (or the stock ring) can hold: a byte's worth
    DEAL_CARDS = 108
    STATE_HEADER = 53       # bytes of a state before the side-pile and stock cards
    GREEDY = 0
    CAUTIOUS = 1
    # outcome codes: the index into SpiteGame.outcomes
    OUTCOME_WIN = 0
    OUTCOME_STALEMATE = 1
    OUTCOME_CYCLE = 2
    OUTCOME_LIMIT = 3
    N_COLUMNS = 13          # the columns of RESULT_COLUMNS


cdef struct Seat:
    uint8_t payoff[PILE_CAP]        # top first: payoff[payoff_at] is the face-up card
    int payoff_at
    int payoff_len
    uint8_t hand[16]                # how many of each card code the hand holds
    int hand_n
    uint32_t hand_mask              # bit c set while the hand holds code c
    uint8_t side[SLOTS][PILE_CAP]   # bottom first
    int side_n[SLOTS]
    uint32_t tops                   # byte i: code of side pile i's top card, 0 if empty


cdef struct Table:
    Seat seat[2]
    uint32_t values                 # byte i: the value of centre slot i (cards in it)
    uint32_t jokers[SLOTS]          # bit i: the pile's card i+1 is a joker
    uint8_t stock[PILE_CAP]         # a ring: stock[stock_at] is the top card
    int stock_at
    int stock_n
    int to_move                     # 0 or 1
    int64_t turns
    int64_t cards
    int64_t discards
    int64_t piles


cdef struct Rules:
    bint recycle                    # finished piles go under the stock (recycle=bottom)
    bint free_sides                 # side_piles=free
    int policy[2]                   # GREEDY or CAUTIOUS, per seat
    int64_t max_turns               # -1: no agreed limit


cdef struct Result:
    int outcome                     # OUTCOME_*
    int winner                      # 1, 2, or 0 for none
    int first
    int64_t turns
    int64_t cards
    int64_t discards
    int64_t piles
    int64_t payoff[2]
    int64_t entry_turns
    int64_t entry_cards
    int64_t period_turns
    int64_t period_cards


cdef struct Context:
    # One game under fixed rules with its scratch memory: serves one thread.
    Rules rules
    int width                       # bytes of a turn-boundary state
    Brent brent
    uint64_t brent_key              # quick key of the state Brent saved
    StateStore store
    uint8_t* state                  # scratch for one state
    const uint8_t* row              # the deal being played, or NULL: start from ``start``
    Table start                     # a position's start (when row is NULL)
    Table table                     # the game being played


cdef int context_init(Context* ctx, const Rules* rules, int n_cards) noexcept nogil
cdef void context_free(Context* ctx) noexcept nogil
cdef int play_game(Context* ctx, Result* result) noexcept nogil
cdef int play_deal(Context* ctx, const uint8_t* row, Result* result) noexcept nogil
cdef int kernel_play_row(void* context, const uint8_t* row,
                         KernelResult* result) noexcept nogil

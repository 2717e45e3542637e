# The large-deal engine's C-level API (deals of more than 64 cards): what _engine cimports.
from libc.stdint cimport int64_t, uint8_t

from dealsearch._cycle cimport StateStore
from dealsearch.games.beggar._engine cimport Outcome, Table


# The memory of the game in play: each hand a ring buffer of card classes, the pile a plain
# array, and the scratch memory of the cycle detector (where each hand starts and how long it
# is live on ring_pass's stack). One Ring serves one thread, game after game of one deck size.
cdef struct Ring:
    uint8_t* cards          # MAX_SEATS rings of ``mask + 1`` cards each
    uint8_t* pile
    int mask                # ring size - 1 (a power of two at least the deck size)
    int total
    int width               # bytes of one trick-boundary state (see HEADER in _ring.pyx)
    uint8_t* state          # the current state, written out
    uint8_t* saved          # Brent's saved state
    StateStore store        # phase 2: every state, exactly


cdef Ring* ring_new(int total) noexcept nogil
cdef void ring_free(Ring* ring) noexcept nogil
cdef int ring_play(const Table* table, const uint8_t* row, const int* sizes, Ring* ring,
                   Outcome* result) noexcept nogil

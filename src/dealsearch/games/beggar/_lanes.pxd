# Lanes: many two-player BMN deals at once, one per SIMD lane (see _lanes_kernel.h and
# _lanes.pyx). The C kernel is declared here for this module's own use: its header sits beside
# this file, so a module elsewhere that cimports these declarations must put this folder on
# its include path.
from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t

from dealsearch._random cimport Rng
from dealsearch.games.beggar._engine cimport MAX_SEATS, Outcome, Scratch, Table, Tally, _Dealer


cdef extern from "_lanes_kernel.h" nogil:
    enum:
        LANES_MAX_CARDS
        LANES_SCALAR
        LANES_GENERIC
        LANES_AVX2
        LANES_AVX512

    ctypedef struct LanesTable:
        uint64_t pay_word
        int size0
        int total
        int64_t cap_cards
        int64_t cap_tricks

    ctypedef struct LaneResult:
        int64_t cards
        int64_t tricks
        int8_t winner
        uint8_t replay

    int lanes_best() noexcept
    int lanes_supported(int kind) noexcept
    int64_t lanes_run(int kind, const LanesTable* t, const uint64_t* planes, int64_t n,
                      LaneResult* res) noexcept


cdef struct Batch:
    # A thread's memory for playing up to ``size`` deals of ``n_cards`` at once.
    uint64_t* planes        # 3 words a deal (up to 64 cards)
    uint8_t* rows           # n_cards a deal (more than 64 cards: no bit-planes), else NULL
    LaneResult* lanes
    Outcome* results
    Scratch scratch         # the exact engines', for the deals the lanes do not settle
    int size
    int n_cards


cdef int batch_init(Batch* batch, int size, int n_cards) noexcept nogil
cdef void batch_free(Batch* batch) noexcept nogil
cdef int play_batch(int kind, int min_cards, const Table* table, const int* sizes,
                    Batch* batch, Py_ssize_t n) noexcept nogil


cdef class _Player:
    # What the players share: the table, a batch, the best so far, and one play call's
    # outputs (see _lanes.pyx).
    cdef Table table
    cdef Batch batch
    cdef bint has_batch
    cdef int sizes[MAX_SEATS]
    cdef int n_cards
    cdef bint by_tricks
    cdef public int64_t best
    cdef int kind                   # the kernel and its smallest deck, for this call
    cdef int min_cards
    cdef Tally tally
    cdef object outputs             # the arrays behind the pointers below
    cdef uint8_t* find_rows
    cdef int64_t* find_results
    cdef int n_found
    cdef int room
    cdef object _start(self, deck, sizes, payments, max_cards, max_tricks, best, by_tricks)
    cdef Py_ssize_t _begin(self, n, max_finds, hists, widths) except -1
    cdef Py_ssize_t _count_batch(self, Py_ssize_t b) noexcept nogil
    cdef object _end(self, Py_ssize_t played, bint failed)


cdef class RandomPlayer(_Player):
    cdef _Dealer dealer
    cdef Rng rng                # decks of more than 64 cards
    cdef uint64_t key           # the stream's key (_deals.h); deal ``dealt`` comes next
    cdef public int64_t dealt


cdef class BlockPlayer(_Player):
    cdef object counts          # cards per class: what every deal of the block holds

# Lanes: many two-player BMN deals at once, one per SIMD lane (see _lanes_kernel.h and
# _lanes.pyx). The C kernel is declared here for this module's own use: its header sits beside
# this file, so a module elsewhere that cimports these declarations must put this folder on
# its include path.
from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t

from dealsearch._cycle cimport StateStore
from dealsearch.games.beggar._engine cimport MAX_SEATS, Outcome, Table


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
    # A thread's memory for playing up to ``size`` deals of bit-planes at once.
    uint64_t* planes        # 3 words a deal
    LaneResult* lanes
    Outcome* results
    StateStore det          # the exact engine's, for the deals the lanes hand back
    int size


cdef int batch_init(Batch* batch, int size) noexcept nogil
cdef void batch_free(Batch* batch) noexcept nogil
cdef int play_planes(int kind, int min_cards, const Table* table, const int* sizes,
                     Batch* batch, Py_ssize_t n) noexcept nogil


cdef class _Player:
    # What the lanes' players share: the table, a batch, the best so far (see _lanes.pyx).
    cdef Table table
    cdef Batch batch
    cdef bint has_batch
    cdef int sizes[MAX_SEATS]
    cdef int n_cards
    cdef bint by_tricks
    cdef public int64_t best
    cdef object _start(self, deck, sizes, payments, max_cards, max_tricks, best, by_tricks,
                       use_instead)


cdef class RandomPlayer(_Player):
    cdef uint64_t key           # the stream's key (_deals.h); deal ``dealt`` comes next
    cdef uint8_t[::1] courts
    cdef int n_courts
    cdef public int64_t dealt


cdef class BlockPlayer(_Player):
    cdef object counts          # cards per class: what every deal of the block holds
